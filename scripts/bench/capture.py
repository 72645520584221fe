#!/usr/bin/env python3
"""Capture diagnosis and turntable/room captures: ours against ground truth, one table.

For each row (dataset, variant): `photogrammetry reconstruct <dataset> <out> --sparse-only
--progress none [args]`, then `photogrammetry compare` against <dataset>/gt_sparse (pair AUC), the
report's capture_kind / azimuth_coverage_deg / elevation_spread_deg / static_features_discarded,
and the reference coverage and spread computed from gt_sparse by scripts/data/reference-diagnosis.py (an
independent implementation of DESIGN.md's reference definitions). A row "templeRing-24" runs the
first 24 frames by name (linked into a temporary folder).

Usage: scripts/bench/capture.py [--rows name,name] [--out DIR] [--threads N] [--no-build]
Rows: turntable-temple/none, turntable-temple/mask.json, turntable-temple/masks,
synthetic-turntable/none, synthetic-turntable/mask.json, templeRing, templeRing-24, dtu-scan24,
synthetic-orbit, synthetic-room (walkthrough, --room). COLMAP's side of the room and turntable
rows comes from scripts/bench/sparse.py (--datasets synthetic-room). Standard library only.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DATASETS = (REPO / ".." / "shared" / "datasets").resolve()
BINARY = REPO / ".build" / "release" / "photogrammetry"

# name -> (dataset, extra arguments)
ROWS = {
    "turntable-temple/none": ("turntable-temple", ["--mask", "none"]),
    "turntable-temple/mask.json": ("turntable-temple", ["--mask", "{d}/mask.json"]),
    "turntable-temple/masks": ("turntable-temple", ["--mask", "{d}/masks"]),
    "synthetic-turntable/none": ("synthetic-turntable", ["--mask", "none"]),
    "synthetic-turntable/mask.json": ("synthetic-turntable", ["--mask", "{d}/mask.json"]),
    "templeRing": ("templeRing", []),
    "templeRing-24": ("templeRing", ["first24"]),
    "dtu-scan24": ("dtu-scan24", []),
    "synthetic-orbit": ("synthetic-orbit", []),
    "synthetic-room": ("synthetic-room", ["--room"]),
}


def reference(gt: Path, first=None):
    command = [sys.executable, str(REPO / "scripts" / "data" / "reference-diagnosis.py"), str(gt)]
    if first:
        command += ["--names-first", str(first)]
    result = subprocess.run(command, capture_output=True, text=True)
    return json.loads(result.stdout) if result.returncode == 0 else {}


def first_images(dataset: Path, count: int, work: Path) -> Path:
    """A capture folder holding links to the first `count` images by name, and the matching
    subset of gt_sparse (so pair AUC counts only pairs of the images given)."""
    root = work / f"{dataset.name}-{count}"
    folder = root / "images"
    folder.mkdir(parents=True, exist_ok=True)
    names = sorted(os.listdir(dataset / "images"))[:count]
    for name in names:
        link = folder / name
        if not link.exists():
            link.symlink_to(dataset / "images" / name)
    gt = root / "gt_sparse"
    gt.mkdir(exist_ok=True)
    (gt / "cameras.txt").write_text((dataset / "gt_sparse" / "cameras.txt").read_text())
    (gt / "points3D.txt").write_text("")
    # images.txt holds two lines per image (the second, its 2D points, may be empty).
    lines = [l for l in (dataset / "gt_sparse" / "images.txt").read_text().splitlines()
             if not l.startswith("#")]
    kept = []
    for n, header in enumerate(lines):
        fields = header.split()
        # A points line ends in a point id, never in an image name.
        if len(fields) >= 10 and fields[-1] in names:
            kept += [header, lines[n + 1] if n + 1 < len(lines) else ""]
    (gt / "images.txt").write_text("\n".join(kept) + "\n")
    return root


def run_row(name: str, out: Path, threads: int):
    dataset_name, extra = ROWS[name]
    dataset = DATASETS / dataset_name
    first = 24 if "first24" in extra else None
    extra = [a.format(d=dataset) for a in extra if a != "first24"]
    capture = first_images(dataset, first, out) if first else dataset
    model = out / name.replace("/", "_")
    start = time.time()
    result = subprocess.run([str(BINARY), "reconstruct", str(capture), str(model), "--sparse-only",
                             "--progress", "none", "--threads", str(threads)] + extra,
                            capture_output=True, text=True)
    seconds = time.time() - start
    row = {"row": name, "seconds": round(seconds, 1)}
    if result.returncode != 0:
        row["error"] = (result.stderr.strip().splitlines() or ["failed"])[-1]
        return row
    report = json.loads((model / "report.json").read_text())
    row.update({k: report.get(k) for k in ("images_registered", "images_total", "capture_kind",
                                           "azimuth_coverage_deg", "elevation_spread_deg",
                                           "static_features_discarded", "angular_measures_note")})
    gt_sparse = (capture if first else dataset) / "gt_sparse"
    compare = subprocess.run([str(BINARY), "compare", str(model / "sparse"), str(gt_sparse)],
                             capture_output=True, text=True)
    if compare.returncode == 0:
        auc = json.loads(compare.stdout)["auc"]
        row["auc1"], row["auc5"] = auc["1"], auc["5"]
    ref = reference(dataset / "gt_sparse", first)
    row["ref_coverage"] = ref.get("azimuth_coverage_deg")
    row["ref_spread"] = ref.get("elevation_spread_deg")
    return row


def fmt(value, digits=1):
    if value is None:
        return "null"
    return f"{value:.{digits}f}" if isinstance(value, float) else str(value)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", default=",".join(ROWS))
    parser.add_argument("--out", default=str(Path(tempfile.gettempdir()) / "benchmark-capture"))
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--no-build", action="store_true")
    args = parser.parse_args()
    if not args.no_build:
        subprocess.run(["swift", "build", "-c", "release"], cwd=REPO, check=True, capture_output=True)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    print("| row | s | registered | AUC@1 | AUC@5 | kind | static discarded | coverage (ref) | spread (ref) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name in args.rows.split(","):
        if name not in ROWS:
            print(f"unknown row {name}; known: {', '.join(ROWS)}", file=sys.stderr)
            return 2
        row = run_row(name, out, args.threads)
        rows.append(row)
        if "error" in row:
            print(f"| {name} | {row['seconds']} | failed: {row['error']} |")
            continue
        print(f"| {name} | {row['seconds']} | {row['images_registered']}/{row['images_total']} | "
              f"{fmt(row.get('auc1'))} | {fmt(row.get('auc5'))} | {row['capture_kind']} | "
              f"{row['static_features_discarded']} | {fmt(row['azimuth_coverage_deg'])} ({fmt(row['ref_coverage'])}) | "
              f"{fmt(row['elevation_spread_deg'])} ({fmt(row['ref_spread'])}) |", flush=True)
    (out / "summary.json").write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
