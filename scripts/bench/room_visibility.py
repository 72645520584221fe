#!/usr/bin/env python3
"""The share of a capture's true surface its cameras see: what completeness could reach from its
views at best.

usage: python3 scripts/bench/room_visibility.py CAPTURE_DIR [CAPTURE_DIR ...]

CAPTURE_DIR holds gt_mesh.ply, gt_sparse/ (COLMAP text, one PINHOLE camera) and depth/NAME.png
(uint16 z-depth in mm, the images' size). 200,000 area-uniform samples of the true mesh are
projected into every camera; a sample counts as seen by a camera when it falls inside the frame
in front of it and the true depth there is within 2 cm + 1 % of its own (not hidden). Prints the
share seen by at least 1, 2 and 3 cameras.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "lib"))
from pgscripts import read_images  # noqa: E402

SAMPLES = 200_000


def main():
    import trimesh
    from PIL import Image
    for capture in sys.argv[1:]:
        mesh = trimesh.load(os.path.join(capture, "gt_mesh.ply"), process=False)
        points, _ = trimesh.sample.sample_surface(mesh, SAMPLES, seed=1)
        with open(os.path.join(capture, "gt_sparse", "cameras.txt")) as f:
            camera = [line.split() for line in f if line.strip() and not line.startswith("#")][0]
        fx, fy, cx, cy = map(float, camera[4:8])
        count = np.zeros(len(points), dtype=int)
        for image in read_images(os.path.join(capture, "gt_sparse")):
            R, t = np.array(image.R), np.array(image.t)
            stem = image.name.rsplit(".", 1)[0]
            truth = np.asarray(Image.open(os.path.join(capture, "depth", stem + ".png")), dtype=np.float64) / 1000
            height, width = truth.shape
            X = points @ R.T + t
            z = X[:, 2]
            seen = z > 0.05
            safe = np.where(seen, z, 1.0)
            u, v = fx * X[:, 0] / safe + cx, fy * X[:, 1] / safe + cy
            seen &= (u >= 0) & (v >= 0) & (u < width) & (v < height)
            depth = truth[np.clip(v.astype(int), 0, height - 1), np.clip(u.astype(int), 0, width - 1)]
            seen &= (depth > 0) & (np.abs(depth - z) < 0.02 + 0.01 * z)
            count += seen
        shares = " / ".join(f"{100 * np.mean(count >= k):.1f}" for k in (1, 2, 3))
        print(f"{capture}: true surface seen by >= 1 / 2 / 3 cameras: {shares} %")


if __name__ == "__main__":
    main()
