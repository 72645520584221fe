#!/usr/bin/env python3
"""COLMAP SIFT features per image of a rendered capture: in the whole image, on the object, and on
everything that turns.

Usage: scripts/data/capture-features.py [--json] [--dilate PX] CAPTURE

CAPTURE has images/ and true_masks_object/ (the object alone) and true_masks/ (the object and what
turns with it), one PNG per image stem (255 = in). A keypoint counts as on the object when it lies
in the object's mask dilated by --dilate pixels (SIFT's keypoints on a silhouette sit on its edge).
Prints the median, min and max of each count (--json: as one JSON object, which
render-turntable-captures.py writes into SOURCE.md). Needs numpy, Pillow, scipy and pycolmap.
"""

import argparse
import json
import os
import sys
from pathlib import Path

import numpy as np
from PIL import Image
from scipy import ndimage

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "lib"))
from pgsift import sift_features  # noqa: E402


def inside(mask, keypoints):
    """How many keypoints (x, y in pixels, COLMAP's convention: 0.5 is the first pixel's centre) lie in mask."""
    height, width = mask.shape
    columns = np.clip(np.floor(keypoints[:, 0]).astype(int), 0, width - 1)
    rows = np.clip(np.floor(keypoints[:, 1]).astype(int), 0, height - 1)
    return int(mask[rows, columns].sum())


def count(capture: Path, dilate: int):
    """[(name, all, on the object, on object and plate)] for every image."""
    structure = np.ones((2 * dilate + 1, 2 * dilate + 1), bool)
    rows = []
    for path in sorted((capture / "images").iterdir()):
        grey = np.asarray(Image.open(path).convert("L"))
        keypoints = np.asarray(sift_features(grey)[0])
        counts = [len(keypoints)]
        for folder in ("true_masks_object", "true_masks"):
            mask = np.asarray(Image.open(capture / folder / (path.stem + ".png")).convert("L")) > 127
            counts.append(inside(ndimage.binary_dilation(mask, structure), keypoints) if len(keypoints) else 0)
        rows.append((path.name, *counts))
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("capture", type=Path)
    parser.add_argument("--dilate", type=int, default=2)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    for folder in ("images", "true_masks_object", "true_masks"):
        if not (args.capture / folder).is_dir():
            print(f"{args.capture / folder}: no such folder", file=sys.stderr)
            return 1
    import pycolmap
    rows = count(args.capture, args.dilate)
    summary = {"pycolmap": pycolmap.__version__, "dilate": args.dilate, "images": len(rows)}
    for column, key in ((1, "all"), (2, "object"), (3, "turning")):
        values = [row[column] for row in rows]
        summary.update({f"median_{key}": float(np.median(values)), f"min_{key}": min(values),
                        f"max_{key}": max(values)})
    if args.json:
        print(json.dumps(summary))
    else:
        for row in rows:
            print(f"{row[0]}: {row[1]} features, {row[2]} on the object, {row[3]} on object and plate")
        print(" ".join(f"{k} {v}" for k, v in summary.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
