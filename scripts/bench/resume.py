#!/usr/bin/env python3
"""Resume after SIGKILL, measured: templeRing-12 at --detail preview, as a folder and as a zip.

For each input: one uninterrupted run (its time, registered images, points, dense points), then
for each stage a fresh run SIGKILLed once `--progress json` shows that stage running (for
`report`: as soon as it starts), and a rerun of the same command, which must resume. Prints one
table. saved = uninterrupted seconds - rerun seconds; points moved and largest move compare the
dense cloud's coordinates, point by point in file order, with the uninterrupted run's.

usage: scripts/bench/resume.py [--binary PATH] [--dataset DIR] [--work DIR] [--threads N] [--noise]
                               [--stages features,...] [--inputs folder,zip]
"""
import argparse, json, os, shutil, signal, subprocess, sys, time

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
STAGES = ["features", "matching", "sparse", "dense", "report"]


def dense_points(folder):
    with open(os.path.join(folder, "dense.ply"), "rb") as f:
        for raw in f:
            line = raw.decode("ascii", "replace").strip()
            if line.startswith("element vertex"):
                return int(line.split()[2])
            if line == "end_header":
                break
    return None


PLY_TYPES = {"float": "<f4", "double": "<f8", "uchar": "u1", "uint8": "u1", "int": "<i4", "uint": "<u4"}


def dense_xyz(folder):
    """The dense cloud's x, y, z in file order (binary little-endian PLY, vertex element first)."""
    import numpy
    with open(os.path.join(folder, "dense.ply"), "rb") as f:
        fields, count = [], 0
        while True:
            line = f.readline().decode("ascii", "replace").strip()
            if line.startswith("element vertex"):
                count = int(line.split()[2])
            elif line.startswith("property") and not line.startswith("property list"):
                _, kind, name = line.split()
                fields.append((name, PLY_TYPES[kind]))
            elif line == "end_header":
                break
        records = numpy.frombuffer(f.read(count * numpy.dtype(fields).itemsize), dtype=fields, count=count)
    return numpy.stack([records["x"], records["y"], records["z"]], axis=1).astype("f8")


def coordinate_difference(folder, reference):
    """(points whose coordinates differ, largest difference) between two dense clouds of one size."""
    a, b = dense_xyz(folder), dense_xyz(reference)
    if len(a) != len(b):
        return None, None
    difference = abs(a - b).max(axis=1)
    return int((difference > 0).sum()), float(difference.max()) if len(difference) else 0.0


def figures(folder):
    with open(os.path.join(folder, "report.json")) as f:
        report = json.load(f)
    resumed = [s["name"] for s in report["stages"] if s.get("resumed")]
    return report["images_registered"], report["points3D"], dense_points(folder), resumed


def command(binary, source, out, threads):
    return [binary, "reconstruct", source, out, "--detail", "preview", "--progress", "json", "--threads", str(threads)]


def run(cmd):
    start = time.monotonic()
    done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        sys.exit("failed: %s\n%s" % (" ".join(cmd), done.stderr))
    return time.monotonic() - start


def run_and_kill(cmd, stage):
    """Starts cmd, SIGKILLs it once a JSON line shows `stage` running; returns seconds to the kill."""
    start = time.monotonic()
    child = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    seen_start = False
    for line in child.stdout:
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if event.get("name") == "stage_started" and event.get("subject") == stage:
            seen_start = True
            if stage == "report":
                break
        # Running: its first progress line after it started (a stage without any is killed at start).
        # Dense: a few depth maps in, so the rerun has some to reuse and some to make.
        wanted = "dense: depth maps" if stage == "dense" else stage
        if seen_start and event.get("event") == "progress" and event.get("stage") == wanted \
                and event.get("done", 0) >= (3 if stage == "dense" else 1):
            break
    else:
        sys.exit("the run ended before %s was seen running" % stage)
    child.send_signal(signal.SIGKILL)
    child.wait()
    return time.monotonic() - start


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build/release/photogrammetry"))
    parser.add_argument("--dataset", default=os.path.join(ROOT, "Datasets/templeRing-12"))
    parser.add_argument("--work", default="/tmp/benchmark-resume")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--noise", action="store_true", help="also a second uninterrupted run, to show run-to-run variation")
    parser.add_argument("--stages", default="", help="stages to kill in (default all: %s)" % ",".join(STAGES))
    parser.add_argument("--inputs", default="folder,zip", help="which inputs: folder, zip or both")
    args = parser.parse_args()
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    folder = os.path.join(args.work, "templeRing-12")
    shutil.copytree(args.dataset, folder)
    subprocess.run(["zip", "-qr", "templeRing-12.zip", "templeRing-12"], cwd=args.work, check=True)
    inputs = [(kind, source) for kind, source in [("folder", folder), ("zip", os.path.join(args.work, "templeRing-12.zip"))]
              if kind in args.inputs.split(",")]

    rows = []
    for kind, source in inputs:
        out = os.path.join(args.work, "out-%s-full" % kind)
        full_seconds = run(command(args.binary, source, out, args.threads))
        reg, pts, dense, _ = figures(out)
        reference = out
        rows.append((kind, "none", reg, pts, dense, 0.0, (0, 0.0), full_seconds, full_seconds, 0.0, "-"))
        if args.noise:
            # A second uninterrupted run: how far two runs of the same command differ anyway
            # (multi-threaded bundle adjustment and PatchMatch are not bit-identical).
            again = os.path.join(args.work, "out-%s-again" % kind)
            seconds = run(command(args.binary, source, again, args.threads))
            r, p, d, _ = figures(again)
            rows.append((kind, "none (again)", r, p, d, 100.0 * abs(d - dense) / dense,
                         coordinate_difference(again, reference), seconds, full_seconds, full_seconds - seconds, "-"))
        for stage in (args.stages.split(",") if args.stages else STAGES):
            out = os.path.join(args.work, "out-%s-%s" % (kind, stage))
            cmd = command(args.binary, source, out, args.threads)
            killed_at = run_and_kill(cmd, stage)
            rerun = run(cmd)
            r, p, d, resumed = figures(out)
            diff = 100.0 * abs(d - dense) / dense
            rows.append((kind, stage, r, p, d, diff, coordinate_difference(out, reference), rerun, full_seconds,
                         full_seconds - rerun, ",".join(resumed) or "-"))
            print("%s: killed in %s after %.1f s, rerun %.1f s" % (kind, stage, killed_at, rerun), file=sys.stderr)
            if (r, p) != (reg, pts) or diff > 0.1:
                print("MISMATCH: %s killed in %s: %d/%d/%d against %d/%d/%d" % (kind, stage, r, p, d, reg, pts, dense),
                      file=sys.stderr)

    header = ("input", "killed in", "registered", "points", "dense points", "dense diff %", "points moved",
              "largest move", "rerun s", "uninterrupted s", "saved s", "resumed stages")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for kind, stage, r, p, d, diff, (moved, largest), rerun, full, saved, resumed in rows:
        moves = ("-", "-") if moved is None else (str(moved), "%.1e" % largest)
        print("| %s | %s | %d | %d | %d | %.3f | %s | %s | %.1f | %.1f | %.1f | %s |"
              % (kind, stage, r, p, d, diff, moves[0], moves[1], rerun, full, saved, resumed))


if __name__ == "__main__":
    main()
