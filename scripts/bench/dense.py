#!/usr/bin/env python3
"""Dense reconstruction: time, memory, points and accuracy per dataset and detail level.

For each dataset (in $REPO/../shared/datasets, or those named with --datasets) and each detail level
(--details), runs the release binary

    /usr/bin/time -v photogrammetry reconstruct <dataset> <out>/<dataset>-<detail> --detail <detail>
                                    --progress json --threads N [--ours-args ...]

on the dataset folder itself, so that masks it carries (masks/, mask.json) are used as a user's
capture would use them; its true depth/ only for the metric scale (--ours-args defaults to
--sensor-depth off: the photographs' dense stage is what is measured). Then, where the dataset has the ground truth for it:
  - cloud F1: `photogrammetry compare-cloud` of dense.ply against gt_mesh.ply (synthetic-orbit: with
    --region gt_mesh_object.ply, tau 0.01 m), which aligns our sparse cameras onto gt_sparse;
  - depth maps (depth/NNNN.png, uint16 mm z-depth): for every geometric depth map, the share of GT
    pixels (inside masks/NNNN.png when there is one) whose depth we have within 1 %, and the share
    of our valid pixels within 1 % of the GT. Our depth, scaled by the similarity that maps our
    sparse cameras onto gt_sparse, is compared at the same pixel (our views keep the estimated
    focal length and principal point, so pixel grids agree up to the working-size scale);
  - visual hull (dtu-scan24): the share of dense points (up to --hull-samples of them, evenly
    strided) that fall outside the masks' visual hull: a point is outside when any GT camera
    (gt_sparse) sees it inside its frame where its mask is 0.
Times are per stage from report.json (dense steps from the JSON progress events); peak memory is
the maximum resident set size reported by /usr/bin/time -v. Prints one Markdown table and writes
<out>/summary.json. Standard library only.
"""

import argparse
import array
import json
import os
import shlex
import shutil
import struct
import subprocess
import sys
import time
import zlib
from pathlib import Path

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "lib"))
from pgscripts import (camera_centre, jacobi_eigen, quaternion_to_rotation, read_cameras,  # noqa: E402
                       read_depth_map, read_images)

REPO = Path(__file__).resolve().parents[2]
DATASETS = (REPO / ".." / "shared" / "datasets").resolve()
DEFAULT_DATASETS = "synthetic-orbit,dtu-scan24,templeRing,fountain-P11"
# compare-cloud settings per dataset: reference mesh, region mesh, tau (dataset units).
CLOUD_GT = {
    "synthetic-orbit": ("gt_mesh.ply", "gt_mesh_object.ply", 0.01),
    "synthetic-turntable": ("gt_mesh.ply", None, 0.01),
    "synthetic-room": ("gt_mesh.ply", None, 0.02),
}


# ---------------------------------------------------------------------------------------------
# Files


def read_png(path: Path):
    """(width, height, samples) of a non-interlaced PNG; samples holds the first channel, row-major
    (8- or 16-bit grey, grey+alpha, RGB or RGBA)."""
    data = path.read_bytes()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path}: not a PNG")
    pos, idat, header = 8, [], None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = header
    channels = {0: 1, 2: 3, 4: 2, 6: 4}.get(colour)
    if channels is None or depth not in (8, 16) or interlace:
        raise ValueError(f"{path}: PNG colour type {colour}, depth {depth}, interlace {interlace} not supported")
    bpp = channels * depth // 8
    stride = width * bpp
    raw = zlib.decompress(b"".join(idat))
    out = bytearray(stride * height)
    previous = bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind = raw[start]
        row = bytearray(raw[start + 1:start + 1 + stride])
        if kind == 1:
            for i in range(bpp, stride):
                row[i] = (row[i] + row[i - bpp]) & 0xFF
        elif kind == 2:
            row = bytearray((a + b) & 0xFF for a, b in zip(row, previous))
        elif kind == 3:
            for i in range(stride):
                left = row[i - bpp] if i >= bpp else 0
                row[i] = (row[i] + ((left + previous[i]) >> 1)) & 0xFF
        elif kind == 4:
            for i in range(stride):
                a = row[i - bpp] if i >= bpp else 0
                b = previous[i]
                c = previous[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                row[i] = (row[i] + (a if pa <= pb and pa <= pc else (b if pb <= pc else c))) & 0xFF
        out[y * stride:(y + 1) * stride] = row
        previous = row
    if depth == 8:
        samples = out[::channels]
    else:
        samples = array.array("H", out)
        if sys.byteorder == "little":
            samples.byteswap()  # PNG is big-endian
        samples = samples[::channels]
    return width, height, samples


def read_ply_points(path: Path, limit: int):
    """Up to `limit` vertex positions (evenly strided) of a binary little-endian PLY whose vertices
    start with float x, y, z; and the vertex count."""
    sizes = {"char": 1, "uchar": 1, "int8": 1, "uint8": 1, "short": 2, "ushort": 2, "int": 4, "uint": 4,
             "float": 4, "float32": 4, "double": 8, "float64": 8, "int32": 4, "uint32": 4}
    with open(path, "rb") as f:
        count, stride, in_vertex = 0, 0, False
        while True:
            line = f.readline().decode("ascii", "replace").split()
            if not line:
                continue
            if line[0] == "format" and line[1] != "binary_little_endian":
                raise ValueError(f"{path}: {line[1]} PLY not supported")
            if line[0] == "element":
                in_vertex = line[1] == "vertex"
                if in_vertex:
                    count = int(line[2])
            elif line[0] == "property" and in_vertex:
                stride += sizes[line[1]]
            elif line[0] == "end_header":
                break
        step = max(1, count // max(1, limit))
        points = []
        body = f.read(count * stride)
    for i in range(0, count, step):
        points.append(struct.unpack_from("<fff", body, i * stride))
    return points, count


def apply(R, t, x):
    return tuple(R[r][0] * x[0] + R[r][1] * x[1] + R[r][2] * x[2] + t[r] for r in range(3))


# ---------------------------------------------------------------------------------------------
# Similarity (Horn's closed form with quaternions, least squares over camera centres)


def similarity(source, target):
    """(scale, R, t) minimising sum |target - (scale R source + t)|^2 (Horn 1987, Umeyama scale)."""
    n = len(source)
    ms = [sum(p[k] for p in source) / n for k in range(3)]
    mt = [sum(p[k] for p in target) / n for k in range(3)]
    s = [[p[k] - ms[k] for k in range(3)] for p in source]
    d = [[p[k] - mt[k] for k in range(3)] for p in target]
    m = [[sum(s[i][r] * d[i][c] for i in range(n)) for c in range(3)] for r in range(3)]
    (sxx, sxy, sxz), (syx, syy, syz), (szx, szy, szz) = m
    big = [[sxx + syy + szz, syz - szy, szx - sxz, sxy - syx],
           [syz - szy, sxx - syy - szz, sxy + syx, szx + sxz],
           [szx - sxz, sxy + syx, -sxx + syy - szz, syz + szy],
           [sxy - syx, szx + sxz, syz + szy, -sxx - syy + szz]]
    values, vectors = jacobi_eigen(big)
    best = max(range(4), key=lambda i: values[i])
    R = quaternion_to_rotation(*(vectors[k][best] for k in range(4)))
    rotated = [apply(R, (0, 0, 0), p) for p in s]
    scale = sum(rotated[i][k] * d[i][k] for i in range(n) for k in range(3)) / sum(v * v for p in s for v in p)
    rms = apply(R, (0, 0, 0), ms)
    t = tuple(mt[k] - scale * rms[k] for k in range(3))
    return scale, R, t


def align(model: Path, gt: Path):
    """The similarity taking our sparse model's frame to gt_sparse's, from shared camera centres."""
    ours = {image.name: image for image in read_images(model)}
    truth = {image.name: image for image in read_images(gt)}
    names = sorted(set(ours) & set(truth))
    if len(names) < 3:
        raise ValueError(f"{len(names)} images shared with {gt}")
    source = [camera_centre(ours[n].R, ours[n].t) for n in names]
    target = [camera_centre(truth[n].R, truth[n].t) for n in names]
    return similarity(source, target)


# ---------------------------------------------------------------------------------------------
# Measures


def depth_accuracy(out: Path, dataset: Path, scale: float, tolerance: float = 0.01):
    """Shares of GT pixels (inside the object mask when there is one) and of our valid pixels whose
    depths agree within `tolerance`, over every image with a geometric depth map."""
    manifest = json.loads((out / "work" / "dense" / "manifest.json").read_text())
    gt_hits = gt_total = our_hits = our_total = images = 0
    for name in sorted(manifest.get("views", {})):
        flat = name.replace("/", "__")
        ours_path = out / "work" / "dense" / "depth" / f"{flat}.geometric.cvdm"
        stem = Path(name).stem
        gt_path = dataset / "depth" / f"{stem}.png"
        if not ours_path.exists() or not gt_path.exists():
            continue
        ow, oh, ours = read_depth_map(ours_path)
        gw, gh, gt = read_png(gt_path)
        mask = None
        mask_path = dataset / "masks" / f"{stem}.png"
        if mask_path.exists():
            mw, mh, mask = read_png(mask_path)
            if (mw, mh) != (gw, gh):
                mask = None
        sx, sy = ow / gw, oh / gh
        columns = [min(ow - 1, int((x + 0.5) * sx)) for x in range(gw)]
        images += 1
        for y in range(gh):
            oy = min(oh - 1, int((y + 0.5) * sy)) * ow
            row = y * gw
            for x in range(gw):
                truth = gt[row + x]
                if truth == 0 or (mask is not None and mask[row + x] == 0):
                    continue
                depth = ours[oy + columns[x]] * scale * 1000.0  # metres to millimetres
                ok = depth > 0 and abs(depth - truth) <= tolerance * truth
                gt_total += 1
                gt_hits += ok
                if depth > 0:
                    our_total += 1
                    our_hits += ok
    if images == 0:
        return None
    return {"images": images, "gt_share": gt_hits / max(1, gt_total), "our_share": our_hits / max(1, our_total)}


def outside_hull(cloud: Path, dataset: Path, sim, samples: int):
    """Share of (sampled) dense points that some GT camera sees inside its frame on a 0 mask pixel."""
    scale, R, t = sim
    points, count = read_ply_points(cloud, samples)
    world = [tuple(scale * v + t[k] for k, v in enumerate(apply(R, (0, 0, 0), p))) for p in points]
    cameras = read_cameras(dataset / "gt_sparse")
    images = {image.name: image for image in read_images(dataset / "gt_sparse")}
    outside = [False] * len(world)
    for name in sorted(images):
        mask_path = dataset / "masks" / f"{Path(name).stem}.png"
        if not mask_path.exists():
            continue
        Rc, tc = images[name].R, images[name].t
        model, width, height, params = cameras[images[name].camera_id]
        if model == "PINHOLE":
            fx, fy, cx, cy = params[:4]
        else:
            fx = fy = params[0]
            cx, cy = params[1:3]
        mw, mh, mask = read_png(mask_path)
        sx, sy = mw / width, mh / height
        for i, x in enumerate(world):
            if outside[i]:
                continue
            c = apply(Rc, tc, x)
            if c[2] <= 0:
                continue
            u, v = fx * c[0] / c[2] + cx, fy * c[1] / c[2] + cy
            if 0 <= u < width and 0 <= v < height and mask[int(v * sy) * mw + int(u * sx)] == 0:
                outside[i] = True
    return {"sampled": len(world), "points": count, "outside_share": sum(outside) / max(1, len(world))}


def compare_cloud(photogrammetry: Path, cloud: Path, out: Path, dataset: Path, timeout: float):
    """accuracy, completeness, F1 (percent) from `photogrammetry compare-cloud` against the dataset's
    GT mesh; it aligns our sparse cameras onto gt_sparse itself."""
    reference, region, tau = CLOUD_GT[dataset.name]
    command = [str(photogrammetry), "compare-cloud", str(cloud), str(dataset / reference),
               "--sparse", str(out / "sparse"), "--reference-sparse", str(dataset / "gt_sparse"), "--tau", repr(tau)]
    if region:
        command += ["--region", str(dataset / region)]
    proc = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        raise RuntimeError(f"compare-cloud exit {proc.returncode}: {short(proc.stderr or proc.stdout, 200)}")
    out = proc.stdout
    return json.loads(out[out.find("{"):out.rfind("}") + 1])


# ---------------------------------------------------------------------------------------------
# Running


def short(message, limit=60):
    message = " ".join(str(message).split())
    return message if len(message) <= limit else message[:limit - 1] + "…"


def run_ours(photogrammetry: Path, dataset: Path, out: Path, detail: str, threads: int, extra: str,
             timeout: float, keep: bool):
    if out.exists() and not keep:
        shutil.rmtree(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    log = out.parent / f"{out.name}.log"
    command = ["/usr/bin/time", "-v", str(photogrammetry), "reconstruct", str(dataset), str(out), "--detail", detail,
               "--progress", "json", "--threads", str(threads)] + shlex.split(extra or "")
    start = time.perf_counter()
    proc = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    seconds = time.perf_counter() - start
    log.write_text(" ".join(shlex.quote(c) for c in command) + "\n" + proc.stdout + proc.stderr)
    result = {"seconds": seconds, "steps": {}}
    for line in proc.stderr.splitlines():
        if "Maximum resident set size" in line:
            result["peak_rss_gb"] = int(line.split(":")[-1]) / 1024 / 1024
    for line in proc.stdout.splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if event.get("event") == "stage" and event["stage"].startswith("dense: "):
            result["steps"][event["stage"][len("dense: "):]] = event["seconds"]
    if proc.returncode != 0:
        lines = [l for l in proc.stderr.splitlines() if l.startswith("photogrammetry:")]
        raise RuntimeError(f"exit {proc.returncode}: {short(' '.join(lines) or proc.stderr[-300:], 200)} (log {log})")
    report = json.loads((out / "report.json").read_text())
    result["stages"] = {s["name"]: s["seconds"] for s in report["stages"]}
    result["dense_points"] = report.get("dense_points")
    result["registered"] = report.get("images_registered")
    result["images"] = report.get("images_total")
    (out.parent / f"{out.name}.run.json").write_text(json.dumps(result, indent=2))
    return result


def fmt(v, digits=1, scale=1.0, suffix=""):
    return "—" if v is None else f"{v * scale:.{digits}f}{suffix}"


def print_table(rows):
    header = ["dataset", "detail", "reg", "sparse s", "dense s", "undist / depth / fusion s", "peak GB",
              "points", "acc / comp / F1 %", "depth ≤1% GT px", "depth ≤1% ours", "outside hull"]
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join("---" for _ in header) + "|")
    for row in rows:
        r = row.get("run", {})
        if row.get("error"):
            print(f"| {row['dataset']} | {row['detail']} | FAIL: {short(row['error'], 90)} |" + " |" * (len(header) - 3))
            continue
        stages, steps = r.get("stages", {}), r.get("steps", {})
        sparse = sum(stages.get(k, 0) for k in ("features", "matching", "sparse"))
        split = " / ".join(fmt(steps.get(k)) for k in ("undistortion", "depth maps", "fusion"))
        cloud = row.get("cloud")
        f1 = "—" if not cloud else f"{cloud['accuracy']:.1f} / {cloud['completeness']:.1f} / {cloud['f1']:.1f}"
        depth = row.get("depth") or {}
        hull = row.get("hull") or {}
        print("| " + " | ".join([
            row["dataset"], row["detail"], f"{r.get('registered')}/{r.get('images')}", fmt(sparse), fmt(stages.get("dense")),
            split, fmt(r.get("peak_rss_gb"), 2), "—" if r.get("dense_points") is None else f"{r['dense_points']:,}",
            f1, fmt(depth.get("gt_share"), 1, 100, " %"), fmt(depth.get("our_share"), 1, 100, " %"),
            fmt(hull.get("outside_share"), 2, 100, " %")]) + " |")
    for row in rows:
        for key in ("cloud_error", "depth_error", "hull_error", "align_error"):
            if row.get(key):
                print(f"  {row['dataset']} {row['detail']}: {key[:-6]}: {row[key]}")


def measure(args, name: str, detail: str) -> dict:
    """Reconstructs one dataset at one detail level and measures what its ground truth allows."""
    dataset = DATASETS / name
    row = {"dataset": name, "detail": detail}
    out = args.out / f"{name}-{detail}"
    print(f"{name} {detail}: reconstruct ...", flush=True)
    try:
        if args.measure_only:
            row["run"] = json.loads((out.parent / f"{out.name}.run.json").read_text())
        else:
            row["run"] = run_ours(args.photogrammetry, dataset, out, detail, args.threads, args.ours_args,
                                  args.timeout, args.keep)
    except Exception as error:  # noqa: BLE001 - a failing run is a row, not the end
        row["error"] = f"{type(error).__name__}: {error}"
        print(f"  failed: {row['error']}", flush=True)
        return row
    print(f"  {row['run'].get('dense_points')} points, stages {row['run'].get('stages')}", flush=True)
    sim = None
    if (dataset / "gt_sparse" / "images.txt").exists():
        try:
            sim = align(out / "sparse", dataset / "gt_sparse")
            row["similarity_scale"] = sim[0]
        except Exception as error:  # noqa: BLE001
            row["align_error"] = short(f"{type(error).__name__}: {error}", 200)
    cloud = out / "dense.ply"
    if sim and name in CLOUD_GT and cloud.exists():
        try:
            row["cloud"] = compare_cloud(args.photogrammetry, cloud, out, dataset, args.timeout)
        except Exception as error:  # noqa: BLE001
            row["cloud_error"] = short(f"{type(error).__name__}: {error}", 200)
    if sim and (dataset / "depth").is_dir():
        print("  depth maps ...", flush=True)
        try:
            row["depth"] = depth_accuracy(out, dataset, sim[0])
        except Exception as error:  # noqa: BLE001
            row["depth_error"] = short(f"{type(error).__name__}: {error}", 200)
    if sim and name.startswith("dtu") and (dataset / "masks").is_dir() and cloud.exists():
        print("  visual hull ...", flush=True)
        try:
            row["hull"] = outside_hull(cloud, dataset, sim, args.hull_samples)
        except Exception as error:  # noqa: BLE001
            row["hull_error"] = short(f"{type(error).__name__}: {error}", 200)
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--datasets", default=DEFAULT_DATASETS, help=f"comma-separated (default {DEFAULT_DATASETS})")
    parser.add_argument("--details", default="preview,medium", help="comma-separated detail levels (default preview,medium)")
    parser.add_argument("--rows", help="comma-separated DATASET:DETAIL pairs, instead of --datasets x --details")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--out", type=Path, default=Path("/tmp/benchmark-dense"))
    parser.add_argument("--no-build", action="store_true", help="do not run `swift build -c release` first")
    parser.add_argument("--keep", action="store_true", help="keep earlier outputs (the dense stage resumes)")
    parser.add_argument("--measure-only", action="store_true",
                        help="do not reconstruct; measure the outputs (and run records) of an earlier run")
    parser.add_argument("--ours-args", default="--sensor-depth off", help="extra arguments for `photogrammetry reconstruct`")
    parser.add_argument("--hull-samples", type=int, default=20000, help="dense points tested against the visual hull")
    parser.add_argument("--photogrammetry", type=Path, default=REPO / ".build" / "release" / "photogrammetry")
    parser.add_argument("--timeout", type=float, default=4 * 3600, help="seconds per run")
    args = parser.parse_args()

    if not args.no_build and not args.measure_only:
        print("building: swift build -c release", flush=True)
        proc = subprocess.run(["swift", "build", "-c", "release"], cwd=REPO, capture_output=True, text=True)
        if proc.returncode != 0:
            print("build failed: " + short((proc.stdout + proc.stderr)[-400:], 300), file=sys.stderr)
            return 1
    args.out.mkdir(parents=True, exist_ok=True)
    if args.rows:
        plan = [tuple(pair.strip().split(":", 1)) for pair in args.rows.split(",") if pair.strip()]
    else:
        plan = [(name.strip(), detail.strip()) for name in args.datasets.split(",") if name.strip()
                for detail in args.details.split(",") if detail.strip()]
    rows = [measure(args, name, detail) for name, detail in plan]
    print()
    print_table(rows)
    summary = args.out / "summary.json"
    tmp = summary.with_suffix(".json.tmp")
    tmp.write_text(json.dumps({"threads": args.threads, "rows": rows}, indent=2, sort_keys=True))
    os.replace(tmp, summary)
    print(f"\nsummary: {summary}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
