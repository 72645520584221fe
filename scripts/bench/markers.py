#!/usr/bin/env python3
"""Metric scale from printed markers, measured on rendered marker captures (metres, ground truth).

The captures come from scripts/data/render-marker-capture.py (images/, gt_sparse/ in metres,
markers.json beside the images). Each is reconstructed with --sparse-only (markers.json is found
beside the images); then report.json's metric_scale, spread and markers, `photogrammetry compare`
against gt_sparse (its alignment_scale maps the model, now in metres, onto the truth: 1 when the
factor is right) and, independently, the median over camera pairs of |C_i - C_j| in the model
over the same in gt_sparse (pycolmap). The scale error is centre_distance_ratio - 1.

usage: scripts/bench/markers.py [--binary PATH] [--work DIR] CAPTURE...
"""
import argparse, json, os, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from scale import ROOT, run  # noqa: E402  (the depth benchmark's runner and measures)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build/release/photogrammetry"))
    parser.add_argument("--work", default="/tmp/benchmark-markers")
    parser.add_argument("captures", nargs="+")
    args = parser.parse_args()
    print(f"{'capture':12} {'source':8} {'reg':>7} {'factor':>10} {'spread%':>7} {'markers':>7} {'align':>8} "
          f"{'ratio':>8} {'error%':>7} {'seconds':>7}")
    for capture in args.captures:
        name = os.path.basename(os.path.normpath(capture))
        r = run(args.binary, capture, os.path.join(args.work, name), os.path.join(capture, "gt_sparse"))
        report = json.load(open(os.path.join(args.work, name, "report.json")))
        spread = r["spread"] * 100 if r["spread"] is not None else float("nan")
        print(f"{name:12} {r['source']:8} {r['registered']:3}/{r['common']:<3} {r['factor'] or 0:10.6g} {spread:7.2f} "
              f"{report.get('metric_scale_markers') or 0:7} {r['alignment_scale']:8.5f} {r['centre_distance_ratio']:8.5f} "
              f"{100 * (r['centre_distance_ratio'] - 1):+7.2f} {r['seconds']:7.1f}")


if __name__ == "__main__":
    sys.exit(main())
