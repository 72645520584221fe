#!/usr/bin/env python3
"""Whether a room's mesh stays open where nothing was seen: the share of its area farther than
5 cm (and 10 cm) from the ground-truth room mesh, after the similarity that maps the run's cameras
onto the true ones (as ../shared/tools/eval_dense.py aligns), and what a closed bubble would add:
the mesh's area against the ground truth's. One direction only; scripts/benchmark-room measures
both (accuracy and completeness) with the same alignment and distances (room_benchmark.py).

usage: scripts/bench/room.py OUTPUT [DATASET]   (OUTPUT: a reconstruct --room run's folder;
       DATASET: default ../shared/datasets/synthetic-room)
Prints a table; needs trimesh and scipy (scripts/setup installs them).
"""
import os, sys
import numpy as np, trimesh

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
from room_benchmark import SAMPLES, SEED, distances_to_surface, load_run_mesh  # noqa: E402

out = sys.argv[1]
data = sys.argv[2] if len(sys.argv) > 2 else os.path.join(here, '..', '..', '..', 'shared', 'datasets', 'synthetic-room')
mesh, common, _ = load_run_mesh(out, data)
truth = trimesh.load(os.path.join(data, 'gt_mesh.ply'), process=False)
points, _ = trimesh.sample.sample_surface(mesh, SAMPLES, seed=SEED)
distance = distances_to_surface(points, truth, SEED + 2)
# Samples are area-uniform, so a share of samples is a share of area.
print(f"{'run':<28}{'cameras':>8}{'triangles':>11}{'area m2':>10}{'truth m2':>10}{'>5 cm %':>9}{'>10 cm %':>10}{'median mm':>11}")
print(f"{os.path.basename(os.path.normpath(out)):<28}{common:>8}{len(mesh.faces):>11}{mesh.area:>10.2f}"
      f"{truth.area:>10.2f}{100 * np.mean(distance > 0.05):>9.2f}{100 * np.mean(distance > 0.10):>10.2f}"
      f"{1000 * np.median(distance):>11.1f}")
