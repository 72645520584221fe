#!/usr/bin/env python3
"""Where a reconstruction misses a rendered capture's object at TAU, and why.

usage: scripts/analysis/completeness-gaps.py OUT [CAPTURE] [--tau 0.01]
       OUT: a `reconstruct` output folder (sparse/, model.glb, dense.ply, work/dense/depth/*.cvdm)
       CAPTURE: default ../shared/datasets/synthetic-orbit (needs gt_sparse/, gt_mesh_object.ply,
       depth/ and cameras.json, as the rendered captures have)

Samples the true object surface as eval_dense.py does (400k points, `sample_surface_even`) and
splits the samples eval_dense counts as missed (farther than TAU from the mesh) into:
  - unseen: no view sees the sample (the true depth maps disagree), e.g. below the ground;
  - grazing: seen, but by fewer than 2 views at a cosine above 0.4;
  - hole: seen well, and the nearest mesh surface faces elsewhere (cosine of normals < 0.3);
  - offset: seen well, and the mesh is there with the same orientation but farther than TAU.
For the offset samples it then reads our depth maps: how many of their observations hold a
depth, and how many are within TAU of the truth (and on which side), against the same for
samples the mesh has. Prints a table; nothing is written.
"""
import argparse, json, os, sys
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, '..', '..', '..', 'shared', 'tools'))
sys.path.insert(0, os.path.join(here, '..', 'lib'))
from eval_poses import load_gt, load_est, umeyama  # noqa: E402
from pgscripts import read_depth_map  # noqa: E402
import trimesh  # noqa: E402
from PIL import Image  # noqa: E402
from scipy.spatial import cKDTree  # noqa: E402

MIN_COS = 0.4  # a view "sees a sample well" above this cosine between its normal and the ray


def load_mesh(path, s, R, t):
    g = trimesh.load(path, process=False)
    if isinstance(g, trimesh.Scene):
        g = trimesh.util.concatenate(list(g.geometry.values()))
    V = (s * (R @ np.asarray(g.vertices, dtype=np.float64).T)).T + t
    return trimesh.Trimesh(V, g.faces, process=False)


def depth_plane(path):
    """Our .cvdm's depth plane as a height x width array."""
    w, h, depths = read_depth_map(path)
    return np.frombuffer(depths, np.float32).reshape(h, w)


def main():
    p = argparse.ArgumentParser()
    p.add_argument('out')
    p.add_argument('capture', nargs='?', default=os.path.join(here, '..', '..', '..', 'shared', 'datasets', 'synthetic-orbit'))
    p.add_argument('--tau', type=float, default=0.01)
    a = p.parse_args()
    cap, out, tau = a.capture, a.out, a.tau
    gt = load_gt(os.path.join(cap, 'gt_sparse'))
    est, _ = load_est(os.path.join(out, 'sparse'))
    common = [n for n in gt if n in est]
    s, R, t = umeyama(np.array([est[n][1] for n in common]), np.array([gt[n][1] for n in common]))

    obj = trimesh.load(os.path.join(cap, 'gt_mesh_object.ply'), process=False)
    G, face = trimesh.sample.sample_surface_even(obj, 400000)
    G = np.asarray(G)
    N = obj.face_normals[face]
    mesh = load_mesh(os.path.join(out, 'model.glb'), s, R, t)
    P, pface = trimesh.sample.sample_surface(mesh, 3000000)
    P = np.asarray(P)
    d, nearest = cKDTree(P).query(G)
    missed = d >= tau
    agree = (mesh.face_normals[pface][nearest] * N).sum(1)

    cameras = json.load(open(os.path.join(cap, 'cameras.json')))
    K = cameras['intrinsics']
    fx, fy, cx, cy, width, height = K['fx'], K['fy'], K['cx'], K['cy'], K['width'], K['height']
    frames = cameras['frames']

    def project(frame, X):
        Rw, tw = np.array(frame['R']), np.array(frame['t'])
        Xc = (Rw @ X.T).T + tw
        z = Xc[:, 2]
        with np.errstate(divide='ignore', invalid='ignore'):
            u, v = fx * Xc[:, 0] / z + cx, fy * Xc[:, 1] / z + cy
        inside = (z > 0) & (u >= 0) & (u < width) & (v >= 0) & (v < height)
        ui = np.clip(np.nan_to_num(u).astype(int), 0, width - 1)
        vi = np.clip(np.nan_to_num(v).astype(int), 0, height - 1)
        centre = -Rw.T @ tw
        ray = centre - X
        ray /= np.linalg.norm(ray, axis=1)[:, None]
        return z, ui, vi, inside, ray

    def true_depth(frame):
        name = os.path.basename(frame['image'])
        return np.asarray(Image.open(os.path.join(cap, 'depth', os.path.splitext(name)[0] + '.png'))).astype(float) / 1000

    seen_well = np.zeros(len(G), int)
    seen = np.zeros(len(G), bool)
    for frame in frames:
        z, ui, vi, inside, ray = project(frame, G)
        D = true_depth(frame)
        visible = inside & (np.abs(D[vi, ui] - z) < tau + 0.01 * z)
        seen |= visible
        seen_well += visible & ((ray * N).sum(1) > MIN_COS)

    well = seen_well >= 2
    classes = [('unseen', missed & ~seen), ('grazing', missed & seen & ~well),
               ('hole', missed & well & (agree < 0.3)), ('offset', missed & well & (agree >= 0.3))]
    print(f'completeness at {tau * 100:g} cm: {100 * (1 - missed.mean()):.2f} % of {len(G)} samples')
    print(f"{'missed because':<16}{'% of samples':>14}{'median dist cm':>16}{'median normal z':>17}")
    for name, sel in classes:
        print(f'{name:<16}{100 * sel.mean():>14.2f}{100 * np.median(d[sel]) if sel.any() else 0:>16.2f}'
              f'{np.median(N[sel, 2]) if sel.any() else 0:>17.2f}')

    # Our depth maps at the offset samples' observations, and at samples the mesh has.
    depth_dir = os.path.join(out, 'work', 'dense', 'depth')
    offset = np.where(classes[3][1])[0]
    hit = np.where(~missed & well)[0]
    hit = np.random.default_rng(0).choice(hit, min(len(hit), 20000), replace=False)
    print(f"\n{'our depth maps at':<22}{'observations':>13}{'with a depth %':>15}{'within tau %':>13}"
          f"{'median error cm':>16}")
    for name, idx in [('offset samples', offset), ('samples the mesh has', hit)]:
        total = valid = close = 0
        errors = []
        for frame in frames:
            path = os.path.join(depth_dir, os.path.basename(frame['image']) + '.photometric.cvdm')
            if not os.path.exists(path):
                continue
            ours = depth_plane(path)
            z, ui, vi, inside, ray = project(frame, G[idx])
            D = true_depth(frame)
            obs = inside & (np.abs(D[vi, ui] - z) < tau + 0.01 * z) & ((ray * N[idx]).sum(1) > MIN_COS)
            sy, sx = ours.shape[0] / height, ours.shape[1] / width
            depth = ours[(vi * sy).astype(int), (ui * sx).astype(int)] * s  # our units -> the truth's
            total += obs.sum()
            valid += (obs & (depth > 0)).sum()
            close += (obs & (np.abs(depth - z) < tau)).sum()
            errors += list((depth - z)[obs & (depth > 0)])
        if total:
            print(f'{name:<22}{total:>13}{100 * valid / total:>15.1f}{100 * close / total:>13.1f}'
                  f'{100 * np.median(errors):>16.2f}')
    print('(error: our depth minus the true one along the optical axis; negative = in front of the surface)')


if __name__ == '__main__':
    main()
