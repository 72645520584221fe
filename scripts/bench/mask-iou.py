#!/usr/bin/env python3
"""Automatic masks against true masks: intersection over union and recall, per frame and mean.

    scripts/bench/mask-iou.py PREDICTED_DIR TRUE_DIR

PREDICTED_DIR holds a run's masks (OUTPUT/masks/<stem>.png), TRUE_DIR the true ones with the same
names (a rendered capture's true_masks/ or true_masks_object/, a dataset's masks/); 255 = object,
a pixel counts at 128 or more. A predicted mask of another size is resized to the true one's.
Prints one line per frame and the mean, min and recall (share of the truth the mask keeps).
"""
import os
import sys

import numpy as np
from PIL import Image


def load(path, size=None):
    image = Image.open(path).convert("L")
    if size is not None and image.size != size:
        image = image.resize(size, Image.NEAREST)
    return np.asarray(image) >= 128


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    predicted, truth = sys.argv[1], sys.argv[2]
    ious, recalls = [], []
    for name in sorted(os.listdir(truth)):
        mask_path = os.path.join(predicted, os.path.splitext(name)[0] + ".png")
        if not name.lower().endswith(".png") or not os.path.exists(mask_path):
            continue
        true = load(os.path.join(truth, name))
        mask = load(mask_path, (true.shape[1], true.shape[0]))
        union = np.logical_or(true, mask).sum()
        ious.append(np.logical_and(true, mask).sum() / union if union else 1.0)
        recalls.append(np.logical_and(true, mask).sum() / true.sum() if true.sum() else 1.0)
        print(f"{name}: IoU {ious[-1]:.3f} recall {recalls[-1]:.3f}")
    if not ious:
        sys.exit(f"no mask of {predicted} has a true mask in {truth}")
    print(f"mean IoU {np.mean(ious):.3f} min {np.min(ious):.3f} recall {np.mean(recalls):.3f} over {len(ious)} frames")


if __name__ == "__main__":
    main()
