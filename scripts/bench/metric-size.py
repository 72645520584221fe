#!/usr/bin/env python3
"""Whether a finished run's model files say their unit truthfully, and how big they say the object is.

For each model file of OUTPUT (model.usdz, model.glb, model.obj): `photogrammetry stats --json`'s
size and size_unit. With a capture that has ground truth (gt_sparse/ and gt_mesh_object.ply, in
metres) the ground-truth object's extent is measured in the model's own axes: the rotation of the
similarity that maps the run's camera centres onto the true ones (Umeyama, as the shared eval
tools align) turns the true object into the model's frame, without its scale, so the comparison
tests the model's metres and nothing else. Only the object above the ground plane (z >= 0) is
counted: the part sunk into the ground is seen by no photo. The similarity's own scale is printed
too: 1 when the model is in metres. The surface also closes a little below the ground where the
masks end, so the model's box is measured twice: whole (as `stats` prints it), and clipped to the
same z >= 0 in the true frame (the model placed there rigidly, scale 1: its metres as they are).

usage: scripts/bench/metric-size.py OUTPUT [--capture DIR] [--binary PATH]
"""
import argparse, json, os, subprocess, sys

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def umeyama(src, dst):
    """s, R, t with dst ≈ s R src + t (least squares)."""
    mu_s, mu_d = src.mean(0), dst.mean(0)
    a, b = src - mu_s, dst - mu_d
    u, d, vt = np.linalg.svd(b.T @ a / len(src))
    e = np.eye(3)
    if np.linalg.det(u @ vt) < 0:
        e[2, 2] = -1
    r = u @ e @ vt
    s = np.trace(np.diag(d) @ e) / (a ** 2).sum(1).mean()
    return s, r, mu_d - s * r @ mu_s


def centres(model_dir):
    import pycolmap
    rec = pycolmap.Reconstruction(model_dir)
    return {im.name: np.asarray(im.projection_center()) for im in rec.images.values() if im.has_pose}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("output")
    parser.add_argument("--capture", help="a capture with gt_sparse/ and gt_mesh_object.ply (metres)")
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build/release/photogrammetry"))
    args = parser.parse_args()

    files = [os.path.join(args.output, f) for f in ("model.usdz", "model.glb", "model.obj")
             if os.path.exists(os.path.join(args.output, f))]
    stats = json.loads(subprocess.run([args.binary, "stats", "--json", *files], check=True,
                                      capture_output=True, text=True).stdout)
    report = json.load(open(os.path.join(args.output, "report.json")))
    print(f"report.json: mesh_units {report.get('mesh_units')!r}, scale_source {report.get('scale_source')!r}, "
          f"metric_scale {report.get('metric_scale')}")
    truth = None
    if args.capture:
        import trimesh
        ours, gt = centres(os.path.join(args.output, "sparse")), centres(os.path.join(args.capture, "gt_sparse"))
        common = sorted(set(ours) & set(gt))
        s, r, _ = umeyama(np.array([ours[n] for n in common]), np.array([gt[n] for n in common]))
        mesh = trimesh.load(os.path.join(args.capture, "gt_mesh_object.ply"), process=False)
        above = np.asarray(mesh.vertices)[np.asarray(mesh.vertices)[:, 2] >= 0]
        truth = np.ptp(above @ r, axis=0)  # rows: r^T x, the object in the model's axes
        print(f"cameras: {len(common)} in common; the similarity onto the truth has scale {s:.5f} "
              f"(model metres {100 * (1 / s - 1):+.2f} % off)")
        print(f"true object above ground, in the model's axes: {' x '.join(f'{v:.4f}' for v in truth)} m")
        glb = os.path.join(args.output, "model.glb")
        if os.path.exists(glb):
            scene = trimesh.load(glb, process=False)
            vertices = np.vstack([g.vertices for g in scene.geometry.values()]) if hasattr(scene, "geometry") else scene.vertices
            c_ours = np.mean([ours[n] for n in common], 0)
            c_true = np.mean([gt[n] for n in common], 0)
            placed = (vertices - c_ours) @ r.T + c_true  # rigid: the model's metres untouched
            clipped = np.ptp(placed[placed[:, 2] >= 0] @ r, axis=0)
            print(f"model.glb above ground, in the model's axes: {' x '.join(f'{v:.4f}' for v in clipped)} m "
                  f"({' '.join(f'{100 * (a / b - 1):+.2f} %' for a, b in zip(clipped, truth))})")
    print(f"{'file':<12} {'size_unit':<9} {'size x y z':<30} {'vs truth (per axis)'}")
    for entry in stats:
        size = np.array(entry["size"], dtype=float)
        line = f"{os.path.basename(entry['file']):<12} {entry['size_unit']:<9} {' '.join(f'{v:.4f}' for v in size):<30}"
        if truth is not None and entry["size_unit"] == "m":
            line += " " + " ".join(f"{100 * (a / b - 1):+.2f} %" for a, b in zip(size, truth))
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
