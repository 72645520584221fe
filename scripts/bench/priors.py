#!/usr/bin/env python3
"""Pose priors on synthetic-room: runs without priors against runs with priors made from the
ground truth and perturbed as ARKit's are (scripts/data/make-priors.py), one table.

Every run: `photogrammetry reconstruct synthetic-room OUT --room --sparse-only --threads T`.
Columns: pairs matched (event 300), registered images, pose AUC@5 (`compare`, after its own
similarity alignment), scale source and factor (report.json), scale error (compare's
alignment_scale maps the model onto gt_sparse: 1 when the model is in metres; error =
1 / alignment_scale - 1), the mean camera-centre distance from gt_sparse WITHOUT any alignment
(metres; small only when the model is in the priors' frame, which is the ground truth's),
seconds of the matching and sparse stages and of the run, matching time over the first
row's, and the CPU seconds of matching alone (all threads; `photogrammetry match`, stages 1-3,
in a fresh folder: less sensitive than wall time to other work on the machine) and their ratio.

usage: scripts/bench/priors.py [--binary PATH] [--dataset DIR] [--work DIR] [--threads N]
                                [--noise-m 0.02] [--noise-deg 1] [--scale-drift 0.02] [--seed 0] [--exhaustive]
"""
import argparse, json, os, shutil, subprocess, time

import numpy as np
import pycolmap

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def centre_error(model_dir, gt_dir):
    model, gt = pycolmap.Reconstruction(model_dir), pycolmap.Reconstruction(gt_dir)
    truth = {im.name: im.projection_center() for im in gt.images.values()}
    errors = [np.linalg.norm(im.projection_center() - truth[im.name]) for im in model.images.values()
              if im.has_pose and im.name in truth]
    return float(np.mean(errors)) if errors else float("nan")


def run(binary, capture, out, gt, threads, extra):
    shutil.rmtree(out, ignore_errors=True)
    start = time.time()
    result = subprocess.run([binary, "reconstruct", capture, out, "--room", "--sparse-only", "--threads", str(threads),
                             "--progress", "json"] + extra, check=True, capture_output=True, text=True)
    seconds = time.time() - start
    pairs = None
    for line in result.stdout.splitlines():
        event = json.loads(line)
        if event.get("code") == 300:
            pairs = int(event["message"].split()[1])
    report = json.load(open(os.path.join(out, "report.json")))
    compare = json.loads(subprocess.run([binary, "compare", os.path.join(out, "sparse"), gt], check=True,
                                        capture_output=True, text=True).stdout)
    stage = {s["name"]: s["seconds"] for s in report["stages"]}
    match_out = out + "-match"
    shutil.rmtree(match_out, ignore_errors=True)
    subprocess.run([binary, "match", capture, match_out, "--room", "--threads", str(threads), "--progress", "none"] + extra,
                   check=True, capture_output=True)
    match_cpu = json.load(open(os.path.join(match_out, "matches.json")))["matchingCPUSeconds"]
    return dict(match_cpu=match_cpu, pairs=pairs, registered=report["images_registered"], total=report["images_total"],
                auc5=compare["auc"]["5"], source=report["scale_source"], factor=report["metric_scale"],
                spread=report["metric_scale_spread"], scale_error=1 / compare["alignment_scale"] - 1,
                centre=centre_error(os.path.join(out, "sparse"), gt), matching=stage["matching"],
                sparse=stage["sparse"], seconds=seconds)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build/release/photogrammetry"))
    parser.add_argument("--dataset", default=os.path.join(os.path.dirname(ROOT), "shared/datasets/synthetic-room"))
    parser.add_argument("--work", default="/tmp/benchmark-priors")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--noise-m", default="0.02")
    parser.add_argument("--noise-deg", default="1")
    parser.add_argument("--scale-drift", default="0.02")
    parser.add_argument("--seed", default="0")
    parser.add_argument("--exhaustive", action="store_true", help="also a run without priors matching every pair")
    args = parser.parse_args()
    if not os.path.isdir(args.dataset):
        args.dataset = "/work/shared/datasets/synthetic-room"
    os.makedirs(args.work, exist_ok=True)
    gt = os.path.join(args.dataset, "gt_sparse")
    perturb = ["--noise-m", args.noise_m, "--noise-deg", args.noise_deg, "--scale-drift", args.scale_drift, "--seed", args.seed]
    priors = os.path.join(args.work, "priors.json")
    priors_start = os.path.join(args.work, "priors-drift-from-start.json")
    exact = os.path.join(args.work, "priors-exact.json")
    make = os.path.join(ROOT, "scripts/data/make-priors.py")
    subprocess.run([make, args.dataset, priors] + perturb, check=True, stdout=subprocess.DEVNULL)
    subprocess.run([make, args.dataset, priors_start] + perturb + ["--drift-from-start"], check=True, stdout=subprocess.DEVNULL)
    subprocess.run([make, args.dataset, exact, "--noise-m", "0", "--noise-deg", "0", "--scale-drift", "0"], check=True,
                   stdout=subprocess.DEVNULL)

    noise = f"{args.noise_m} m, {args.noise_deg}°, drift {args.scale_drift}"
    runs = [("no priors (--room: walk pairs)", [])]
    if args.exhaustive:
        runs.append(("no priors, --pairs exhaustive", ["--pairs", "exhaustive"]))
    runs += [(f"priors ({noise} centred)", ["--priors", priors]),
             (f"priors ({noise} from start)", ["--priors", priors_start]),
             ("priors (exact)", ["--priors", exact])]
    rows = []
    for n, (name, extra) in enumerate(runs):
        rows.append((name, run(args.binary, args.dataset, os.path.join(args.work, f"out-{n}"), gt, args.threads, extra)))

    base, base_cpu = rows[0][1]["matching"], rows[0][1]["match_cpu"]
    print(f"{'run':44} {'pairs':>5} {'reg':>6} {'AUC@5':>6} {'source':>12} {'factor':>9} {'spread':>7} {'scale err':>9} "
          f"{'centre m':>9} {'match s':>7} {'sparse s':>8} {'run s':>6} {'match x':>7} {'CPU s':>6} {'CPU x':>6}")
    for name, r in rows:
        factor = "-" if r["factor"] is None else f"{r['factor']:.5f}"
        spread = "-" if r["spread"] is None else f"{100 * r['spread']:.2f}%"
        print(f"{name:44} {r['pairs']:>5} {r['registered']:>3}/{r['total']:<2} {r['auc5']:>6.2f} {r['source']:>12} {factor:>9} "
              f"{spread:>7} {100 * r['scale_error']:>+8.3f}% {r['centre']:>9.4f} {r['matching']:>7.2f} {r['sparse']:>8.2f} "
              f"{r['seconds']:>6.1f} {base / r['matching']:>6.1f}x {r['match_cpu']:>6.1f} {base_cpu / r['match_cpu']:>5.1f}x")


if __name__ == "__main__":
    main()
