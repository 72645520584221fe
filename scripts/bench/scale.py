#!/usr/bin/env python3
"""Metric scale from depth images, measured on synthetic-orbit (metres, ground-truth depth).

1. jpeg+depth: the capture as it is (images/*.jpg, depth/*.png in mm), --sparse-only.
2. heic: its frames as HEIC with their depth as the auxiliary depth image at 1/4 resolution,
   10-bit uniform Z, with noise (scripts/data/make-heic-depth-capture.sh: 1.5 % multiplicative Gaussian,
   3 % outlier pixels by default), masks copied, --sparse-only.

For each: report.json's metric_scale, spread and points; `photogrammetry compare` against
gt_sparse (its alignment_scale maps the model, now in metres, onto the truth: 1 when the factor
is right); and, independently, the median over camera pairs of |C_i - C_j| in the model over the
same in gt_sparse (pycolmap). The factor's error is 1 / alignment_scale - 1.

usage: scripts/bench/scale.py [--binary PATH] [--dataset DIR] [--work DIR] [--noise F] [--outliers F] [--seed N]
"""
import argparse, json, os, shutil, subprocess, sys, time

import numpy as np
import pycolmap

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def centre_ratio(model_dir, gt_dir, rename=None):
    model, gt = pycolmap.Reconstruction(model_dir), pycolmap.Reconstruction(gt_dir)
    def centres(rec, f=lambda n: n):
        return {f(im.name): im.projection_center() for im in rec.images.values() if im.has_pose}
    a, b = centres(model), centres(gt, rename or (lambda n: n))
    names = sorted(set(a) & set(b))
    ratios = [np.linalg.norm(a[p] - a[q]) / np.linalg.norm(b[p] - b[q])
              for i, p in enumerate(names) for q in names[i + 1:] if np.linalg.norm(b[p] - b[q]) > 1e-6]
    return float(np.median(ratios)), len(names)


def run(binary, capture, out, gt, rename=None):
    shutil.rmtree(out, ignore_errors=True)
    start = time.time()
    subprocess.run([binary, "reconstruct", capture, out, "--sparse-only", "--progress", "none"], check=True,
                   stdout=subprocess.DEVNULL)
    seconds = time.time() - start
    report = json.load(open(os.path.join(out, "report.json")))
    compare = json.loads(subprocess.run([binary, "compare", os.path.join(out, "sparse"), gt], check=True,
                                        capture_output=True, text=True).stdout)
    ratio, common = centre_ratio(os.path.join(out, "sparse"), gt)
    export = next(s["seconds"] for s in report["stages"] if s["name"] == "export")
    return dict(seconds=seconds, export_s=export, registered=report["images_registered"],
                factor=report["metric_scale"], source=report["scale_source"], spread=report["metric_scale_spread"],
                points=report["metric_scale_points"], alignment_scale=compare["alignment_scale"],
                compared=compare["registered"], centre_distance_ratio=ratio, common=common)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build/release/photogrammetry"))
    parser.add_argument("--dataset", default="/work/shared/datasets/synthetic-orbit")
    parser.add_argument("--work", default="/tmp/benchmark-scale")
    parser.add_argument("--noise", default="0.015")
    parser.add_argument("--outliers", default="0.03")
    parser.add_argument("--seed", default="1")
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    gt = os.path.join(args.dataset, "gt_sparse")
    rows = [("jpeg+depth", run(args.binary, args.dataset, os.path.join(args.work, "out-jpeg"), gt))]

    capture = os.path.join(args.work, "heic-capture")
    shutil.rmtree(capture, ignore_errors=True)
    subprocess.run([os.path.join(ROOT, "scripts/data/make-heic-depth-capture.sh"), args.dataset, capture, args.noise,
                    args.outliers, args.seed], check=True, stdout=subprocess.DEVNULL)
    shutil.copytree(os.path.join(args.dataset, "masks"), os.path.join(capture, "masks"))
    heic_gt = os.path.join(args.work, "gt_sparse_heic")
    shutil.rmtree(heic_gt, ignore_errors=True)
    shutil.copytree(gt, heic_gt)
    path = os.path.join(heic_gt, "images.txt")
    text = open(path).read().replace(".jpg", ".heic")
    open(path, "w").write(text)
    rows.append((f"heic (noise {args.noise}, outliers {args.outliers})",
                 run(args.binary, capture, os.path.join(args.work, "out-heic"), heic_gt)))

    print(f"{'capture':34} {'reg':>5} {'factor':>9} {'spread':>7} {'points':>6} {'align':>8} {'error':>8} "
          f"{'pycolmap':>9} {'export s':>8} {'run s':>6}")
    for name, r in rows:
        error = 1 / r["alignment_scale"] - 1
        print(f"{name:34} {r['registered']:>5} {r['factor']:9.6f} {100 * r['spread']:6.2f}% {r['points']:>6} "
              f"{r['alignment_scale']:8.5f} {100 * error:+7.3f}% {r['centre_distance_ratio']:9.5f} "
              f"{r['export_s']:8.2f} {r['seconds']:6.1f}")


if __name__ == "__main__":
    sys.exit(main())
