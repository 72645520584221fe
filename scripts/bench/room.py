#!/usr/bin/env python3
"""Whether a room's mesh stays open where nothing was seen: the share of its area farther than
5 cm (and 10 cm) from the ground-truth room mesh, after the similarity that maps the run's cameras
onto the true ones (as ../shared/tools/eval_dense.py aligns), and what a closed bubble would add:
the mesh's area against the ground truth's.

usage: scripts/bench/room.py OUTPUT [DATASET]   (OUTPUT: a reconstruct --room run's folder;
       DATASET: default ../shared/datasets/synthetic-room)
Prints a table; needs trimesh and scipy (scripts/setup installs them).
"""
import os, sys
import numpy as np, trimesh
from scipy.spatial import cKDTree

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, '..', '..', '..', 'shared', 'tools'))
from eval_poses import load_gt, load_est, umeyama  # noqa: E402

out = sys.argv[1]
data = sys.argv[2] if len(sys.argv) > 2 else os.path.join(here, '..', '..', '..', 'shared', 'datasets', 'synthetic-room')
gt = load_gt(os.path.join(data, 'gt_sparse')); est, _ = load_est(os.path.join(out, 'sparse'))
common = [n for n in gt if n in est]
s, R, t = umeyama(np.array([est[n][1] for n in common]), np.array([gt[n][1] for n in common]))
mesh = trimesh.load(os.path.join(out, 'model.glb'), process=False)
if isinstance(mesh, trimesh.Scene): mesh = trimesh.util.concatenate(list(mesh.geometry.values()))
# glTF is Y up; our GLB stores the model's own axes (no node transform), so vertices are as written.
mesh = trimesh.Trimesh((s * (R @ np.asarray(mesh.vertices, float).T)).T + t, mesh.faces, process=False)
truth = trimesh.load(os.path.join(data, 'gt_mesh.ply'), process=False)
reference = cKDTree(trimesh.sample.sample_surface_even(truth, 2_000_000)[0])
points, faces = trimesh.sample.sample_surface(mesh, 1_000_000)
distance = reference.query(points)[0]
# Samples are area-uniform, so a share of samples is a share of area.
print(f"{'run':<28}{'cameras':>8}{'triangles':>11}{'area m2':>10}{'truth m2':>10}{'>5 cm %':>9}{'>10 cm %':>10}{'median mm':>11}")
print(f"{os.path.basename(os.path.normpath(out)):<28}{len(common):>8}{len(mesh.faces):>11}{mesh.area:>10.2f}"
      f"{truth.area:>10.2f}{100 * np.mean(distance > 0.05):>9.2f}{100 * np.mean(distance > 0.10):>10.2f}"
      f"{1000 * np.median(distance):>11.1f}")
