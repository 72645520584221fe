#!/usr/bin/env python3
"""Pair selection: what exhaustive matching costs as captures grow, and what retrieval keeps of it.

For each capture in $REPO/../shared/datasets (or those named with --datasets):
  1. exhaustive matching time against the number of images: `photogrammetry match SUBSET OUT
     --pairs exhaustive` on the first n images for each n of --fractions (of the capture), and on
     the capture replicated --replicate times (every image under new names: twice the images, the
     same features); CPU seconds are the matching stage's user + system time (matches.json), so
     other load on the machine inflates only the wall time. ns_per_comparison = CPU seconds / sum
     over pairs of F_i * F_j;
  2. retrieval (`--pairs retrieval --transitive`) on the whole capture: its pairs, its time, and
     its recall against the verified pairs of exhaustive matching (all of them, those with >= 50
     and >= 100 verified matches), before and after one transitive pass, and the recall of
     retrieval's ranking alone at k = 10, 20, 25, 30, 40;
  3. with --sparse: `photogrammetry reconstruct CAPTURE OUT --sparse-only` with --pairs exhaustive
     and --pairs retrieval: images registered and the time.
Every run of one capture shares one output folder (<out>/<capture>/run), so features are
extracted once per image name (the checkpoint is keyed by name, size and time). Prints the tables and writes <out>/pairs.json.
"""

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DATASETS = (REPO / ".." / "shared" / "datasets").resolve()
IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".JPG", ".JPEG", ".PNG"}


def images_of(dataset: Path):
    folder = dataset / "images" if (dataset / "images").is_dir() else dataset
    return folder, sorted(p for p in folder.iterdir() if p.suffix in IMAGE_SUFFIXES)


def place(source: Path, target: Path):
    """A hard link (or a copy keeping the time): the same size and time as the source, so the
    feature checkpoints of one image serve every subset (a symbolic link has its own)."""
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


def subset(dataset: Path, work: Path, name: str, count: int, replicate: int = 1) -> Path:
    """A folder holding the first `count` images (each `replicate` times, under new names);
    masks/ alongside when the capture has one."""
    folder, images = images_of(dataset)
    target = work / "inputs" / name
    if target.exists():
        shutil.rmtree(target)
    (target / "images").mkdir(parents=True)
    for image in images[:count]:
        for copy in range(replicate):
            prefix = f"r{copy}-" if replicate > 1 else ""
            place(image, target / "images" / (prefix + image.name))
    masks = dataset / "masks"
    if masks.is_dir():
        (target / "masks").mkdir()
        for mask in masks.iterdir():
            for copy in range(replicate):
                prefix = f"r{copy}-" if replicate > 1 else ""
                place(mask, target / "masks" / (prefix + mask.name))
    return target


def run(command, log: Path):
    """Runs command; returns (wall seconds, CPU seconds of the child)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    with open(log, "w") as out:
        code = subprocess.call([str(c) for c in command], stdout=out, stderr=subprocess.STDOUT)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if code != 0:
        raise RuntimeError(f"{' '.join(map(str, command))} failed ({code}), see {log}")
    return wall, cpu


def comparisons(features):
    total, squares = sum(features), sum(f * f for f in features)
    return (total * total - squares) / 2


def match(binary, images: Path, out: Path, label: str, strategy: str, threads: int, extra=()):
    """One match-only run into `out` (shared, for its feature checkpoints); its matches.json is
    kept as matches-LABEL-STRATEGY.json."""
    out.mkdir(parents=True, exist_ok=True)
    wall, cpu = run([binary, "match", images, out, "--pairs", strategy, "--threads", threads,
                     "--progress", "none", *extra], out / f"match-{label}-{strategy}.log")
    kept = out / f"matches-{label}-{strategy}.json"
    shutil.copyfile(out / "matches.json", kept)
    summary = json.loads(kept.read_text())
    stages = {s["name"]: s["seconds"] for s in summary["stages"]}
    return summary, stages, wall, cpu


def recall(exhaustive, pairs, minimum=0):
    verified = [(p["first"], p["second"]) for p in exhaustive["verified"] if p["matches"] >= minimum]
    return sum(p in pairs for p in verified) / max(1, len(verified)), len(verified)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--datasets", nargs="*", default=["pavilion-outer", "dtu-scan24"])
    parser.add_argument("--out", default=str(REPO / "out" / "benchmark-pairs"))
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--fractions", type=float, nargs="*", default=[0.25, 0.5, 1.0])
    parser.add_argument("--replicate", type=int, default=2, help="copies of the capture for the largest timing row (1: none)")
    parser.add_argument("--sparse", action="store_true", help="also reconstruct with exhaustive and retrieval pairs")
    parser.add_argument("--binary", default=str(REPO / ".build" / "release" / "photogrammetry"))
    args = parser.parse_args()
    out_root = Path(args.out).resolve()
    results = {}
    for name in args.datasets:
        dataset = DATASETS / name
        work = out_root / name
        work.mkdir(parents=True, exist_ok=True)
        _, images = images_of(dataset)
        rows = []
        sizes = sorted({max(2, round(f * len(images))) for f in args.fractions} | {len(images)})
        runs = [(n, 1) for n in sizes] + ([(len(images), args.replicate)] if args.replicate > 1 else [])
        full = None
        for n, copies in runs:
            label = f"{n}x{copies}" if copies > 1 else str(n)
            folder = subset(dataset, work, label, n, copies)
            summary, stages, wall, cpu = match(args.binary, folder, work / "run", label, "exhaustive", args.threads)
            c = comparisons(summary["features"])
            rows.append({"images": len(summary["images"]), "pairs": len(summary["tried"]),
                         "verified": len(summary["verified"]), "comparisons": c,
                         "features_s": stages.get("features"), "matching_s": stages["matching"],
                         "cpu_s": summary["matchingCPUSeconds"],
                         "ns_per_comparison": 1e9 * summary["matchingCPUSeconds"] / c if c else None})
            if n == len(images) and copies == 1:
                full = summary
        print(f"\n{name}: exhaustive matching against the number of images ({args.threads} threads)")
        print(f"{'images':>7} {'pairs':>7} {'verified':>8} {'comparisons':>12} {'matching s':>10} {'CPU s':>7} {'ns/comp':>8}")
        for r in rows:
            print(f"{r['images']:7d} {r['pairs']:7d} {r['verified']:8d} {r['comparisons']:12.3e} {r['matching_s']:10.1f} "
                  f"{r['cpu_s']:7.1f} {r['ns_per_comparison'] or 0:8.2f}")

        folder = work / "inputs" / str(len(images))
        retrieved, stages, wall, cpu = match(args.binary, folder, work / "run", str(len(images)), "retrieval",
                                             args.threads, ["--transitive"])
        everything = {tuple(p) for p in retrieved["tried"]}
        tried = everything - {tuple(p) for p in retrieved["rematched"]}
        retrieval = {"pairs": len(tried), "transitive_pairs": len(everything) - len(tried),
                     "verified": len(retrieved["verified"]), "matching_s": stages["matching"],
                     "rematching_s": stages.get("rematching"), "cpu_s": retrieved["matchingCPUSeconds"],
                     "recall": {}, "recall_with_transitive": {}, "ranking_recall": {}}
        for minimum in (0, 50, 100):
            value, count = recall(full, tried, minimum)
            retrieval["recall"][f">={minimum}"] = {"recall": value, "pairs": count}
            value, count = recall(full, everything, minimum)
            retrieval["recall_with_transitive"][f">={minimum}"] = {"recall": value, "pairs": count}
        for k in (10, 20, 25, 30, 40):
            ranked = {(min(i, j), max(i, j)) for i, row in enumerate(retrieved["ranking"]) for j in row[:k]}
            retrieval["ranking_recall"][k] = recall(full, ranked)[0]
        print(f"retrieval: {retrieval['pairs']} pairs ({len(full['tried'])} exhaustive), matching "
              f"{retrieval['matching_s']:.1f} s ({retrieval['cpu_s']:.1f} CPU s, exhaustive {rows[-1 if args.replicate <= 1 else -2]['cpu_s']:.1f}); recall of exhaustive's verified pairs: "
              + ", ".join(f"{k} matches {v['recall']:.3f} of {v['pairs']}" for k, v in retrieval["recall"].items()))
        print(f"with one transitive pass ({retrieval['transitive_pairs']} pairs, {retrieval['rematching_s'] or 0:.1f} s): "
              + ", ".join(f"{k} matches {v['recall']:.3f}" for k, v in retrieval["recall_with_transitive"].items()))
        print("ranking alone: " + ", ".join(f"k={k} {v:.3f}" for k, v in retrieval["ranking_recall"].items()))
        results[name] = {"exhaustive": rows, "retrieval": retrieval}

        if args.sparse:
            sparse = {}
            for strategy in ("exhaustive", "retrieval"):
                target = work / "run"
                wall, cpu = run([args.binary, "reconstruct", folder, target, "--sparse-only", "--pairs", strategy,
                                 "--threads", args.threads, "--progress", "none"], target / f"sparse-{strategy}.log")
                report = json.loads((target / "report.json").read_text())
                stages = {s["name"]: s["seconds"] for s in report["stages"]}
                sparse[strategy] = {"registered": report["images_registered"], "total": report["images_total"],
                                    "points3D": report["points3D"], "wall_s": wall, "matching_s": stages.get("matching"),
                                    "sparse_s": stages.get("sparse")}
                print(f"sparse with {strategy} pairs: {report['images_registered']}/{report['images_total']} registered, "
                      f"{report['points3D']} points, {wall:.0f} s (matching {stages.get('matching', 0):.1f} s)")
            results[name]["sparse"] = sparse
    out_root.mkdir(parents=True, exist_ok=True)
    (out_root / "pairs.json").write_text(json.dumps(results, indent=2))
    print(f"\n{out_root / 'pairs.json'}")


if __name__ == "__main__":
    sys.exit(main())
