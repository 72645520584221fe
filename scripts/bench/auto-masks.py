#!/usr/bin/env python3
"""How well automatic masks match a rendered capture's true masks: intersection over union.

Usage: scripts/bench/auto-masks.py [--verbose] [--truth DIR] OUTPUT CAPTURE

OUTPUT is a reconstruct output folder whose masks/<image stem>.png are the automatic masks (8-bit,
255 = object; above 127 counts as in); CAPTURE is a capture made by
scripts/data/render-turntable-captures.py, whose true_masks/<stem>.png hold 255 on the object and
the plate that turns with it and true_masks_object/<stem>.png the object alone. Prints the mean and
the minimum IoU against each truth that exists (the object alone is the fair target where the plate
is plain: a plain round plate that turns looks as still as the backdrop), and with --verbose one
line per frame. --truth DIR scores against the masks in DIR instead (a dataset's masks/, e.g.
synthetic-turntable's), named by image stem as well. A frame of CAPTURE/images without an automatic mask counts as IoU 0 and is named.
Exits 1 with a one-line error when a folder is missing or a mask's size differs from its truth's.
Needs numpy and Pillow.
"""

import argparse
import sys
from pathlib import Path

import numpy as np
from PIL import Image

TRUTHS = ("true_masks", "true_masks_object")
IMAGE_EXTENSIONS = {".jpg", ".jpeg", ".png"}


def read_mask(path: Path):
    return np.asarray(Image.open(path).convert("L")) > 127


def iou(a, b) -> float:
    union = np.logical_or(a, b).sum()
    return float(np.logical_and(a, b).sum() / union) if union else 1.0


def score(output: Path, capture: Path, truth: Path):
    """{stem: IoU or None when the automatic mask is missing} over the capture's images."""
    scores = {}
    for image in sorted(p for p in (capture / "images").iterdir() if p.suffix.lower() in IMAGE_EXTENSIONS):
        automatic_path = output / "masks" / (image.stem + ".png")
        true_path = truth / (image.stem + ".png")
        if not true_path.exists():
            raise ValueError(f"{true_path}: no true mask for {image.name}")
        if not automatic_path.exists():
            scores[image.stem] = None
            continue
        automatic, true = read_mask(automatic_path), read_mask(true_path)
        if automatic.shape != true.shape:
            raise ValueError(f"{automatic_path}: {automatic.shape[1]}x{automatic.shape[0]}, "
                             f"its true mask {true.shape[1]}x{true.shape[0]}")
        scores[image.stem] = iou(automatic, true)
    return scores


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("output", type=Path, help="reconstruct output folder with masks/")
    parser.add_argument("capture", type=Path, help="rendered capture with images/ and true_masks/")
    parser.add_argument("--verbose", action="store_true", help="one line per frame")
    parser.add_argument("--truth", type=Path, help="folder of true masks to score against instead of the capture's")
    args = parser.parse_args()
    truths = [args.truth] if args.truth else [args.capture / truth for truth in TRUTHS if (args.capture / truth).is_dir()]
    for folder in (args.output / "masks", args.capture / "images", *(truths or [args.capture / TRUTHS[0]])):
        if not folder.is_dir():
            print(f"{folder}: no such folder", file=sys.stderr)
            return 1
    try:
        results = {truth: score(args.output, args.capture, truth) for truth in truths}
    except (OSError, ValueError) as error:
        print(error, file=sys.stderr)
        return 1
    stems = list(results[truths[0]])
    if args.verbose:
        for stem in stems:
            cells = [f"{truth.name} {'missing' if results[truth][stem] is None else f'{results[truth][stem]:.3f}'}"
                     for truth in truths]
            print(f"{stem}: " + ", ".join(cells))
    missing = [stem for stem in stems if results[truths[0]][stem] is None]
    for truth in truths:
        values = [value or 0.0 for value in results[truth].values()]
        print(f"IoU against {truth.name}: mean {np.mean(values):.3f}, min {min(values):.3f} over {len(values)} frames")
    if missing:
        print(f"no automatic mask for {len(missing)} of {len(stems)} frames: {', '.join(missing[:10])}"
              + (" …" if len(missing) > 10 else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
