#!/usr/bin/env python3
"""Sparse reconstruction, ours against COLMAP 4 (pycolmap 4.2.1, CPU), side by side.

Rows (default: all of them, in this order): every capture in $REPO/../shared/datasets with
images/ (plus templeRing+K), then the captures scripts/data/make-captures.py builds (video-orbit,
cutout-orbit, lowtex-orbit, lowtex-turntable, fewviews-gray), then those
scripts/data/render-turntable-captures.py renders (turntable-faint-busy, turntable-lowtex-busy, turntable-lowtex-plain,
turntable-textured-plain: fixed-camera turntables with no mask; broken-halves, broken-slip,
broken-shuffled: captures built to break poses, whose AUC says little: their SOURCE.md says what a
correct tool must report), all looked up in --captures (default $REPO/out/captures; a missing one is
reported in its row with the script that makes it).
--datasets names a subset. For each row:
  (a) ours:   photogrammetry reconstruct <dataset>/images <out>/ours/<name> --sparse-only
              --progress none --threads N [--intrinsics fx,fy,cx,cy] [row arguments] [--ours-args ...]
              (row arguments: dtu-scan24 gets --mask <dataset>/masks; given <dataset>/images, ours
              would not find the masks/ beside it, as masks are looked for only inside the input)
  (b) COLMAP: pycolmap extract_features (SIFT, CPU) -> match_exhaustive -> incremental_mapping, all
              defaults (no masks), every model's size recorded, the largest written as text to
              <out>/colmap/<name>/sparse.
Both models are scored by the same `photogrammetry compare MODEL <dataset>/gt_sparse` (or
Datasets/reference-poses/<name>/gt_sparse for a shared capture without one: pavilion-outer) (pair AUC as
in COLMAP's benchmark), when gt_sparse exists. Times are wall clock: ours is the whole
`reconstruct` process; COLMAP's is extraction + matching + mapping + writing, measured in a child
process (so a crash there is reported in its row and the benchmark goes on). Ours runs a copy of
the binary taken at the start (<out>/bin/photogrammetry; its sha256 is printed), so a rebuild
during the run cannot mix versions. Both run in the same benchmark run; --reuse-colmap takes COLMAP's result from an earlier run instead when its inputs
(image files, intrinsics, camera sharing, threads) are unchanged, and marks it "(cached)".

Models: COLMAP's incremental mapper may return several reconstructions: all their sizes are shown
(count, then sizes, largest first). Ours: report.json's `models` (model sizes) when it has that key,
else one model of images_registered.

A name with the suffix "+K" (e.g. templeRing+K) runs the capture with the intrinsics of
gt_sparse/cameras.txt (its first camera) given to both: ours through --intrinsics, COLMAP through a
single PINHOLE camera with fixed parameters (ba_refine_focal_length, ba_refine_principal_point and
ba_refine_extra_params off).

Prints one table and writes it as JSON to <out>/summary.json. Uses only the standard library and
pycolmap.
"""

import argparse
import hashlib
import json
import os
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "lib"))
from pgscripts import read_cameras, read_images  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
DATASETS = (REPO / ".." / "shared" / "datasets").resolve()
REFERENCE_POSES = REPO / "Datasets" / "reference-poses"  # gt_sparse of shared captures that ship without one
CAPTURES = REPO / "out" / "captures"
KNOWN_INTRINSICS_SUFFIX = "+K"
# Built by scripts/data/make-captures.py into --captures, in this order after the shared captures.
GENERATED = ["video-orbit", "cutout-orbit", "lowtex-orbit", "lowtex-turntable", "fewviews-gray"]
# Rendered by scripts/data/render-turntable-captures.py and render-walkaround.py into --captures, after those.
RENDERED = ["turntable-faint-busy", "turntable-lowtex-busy", "turntable-lowtex-plain", "turntable-textured-plain",
            "broken-halves", "broken-slip", "broken-shuffled", "walkaround-room"]
MADE_BY = {**{name: "scripts/data/make-captures.py" for name in GENERATED},
           **{name: "scripts/data/render-turntable-captures.py" for name in RENDERED},
           "walkaround-room": "scripts/data/render-walkaround.py"}
# Arguments for ours per row ({d}: the dataset folder), and what the table's notes say about them.
ROW_ARGS = {"dtu-scan24": ["--mask", "{d}/masks"]}
ROW_NOTES = {
    "dtu-scan24": "ours with the capture's masks/ (--mask); COLMAP without masks (its default)",
    "cutout-orbit": "RGBA PNG, RGB black under alpha 0; no masks/ (the alpha is the mask)",
    "lowtex-orbit": "flattened textures, no masks",
    "lowtex-turntable": "flattened textures, turning object before a static background, no masks",
    "turntable-faint-busy": "texture-poor object (a faint texture) turning before a busy static backdrop, fixed "
                            "camera, no mask",
    "turntable-lowtex-busy": "textureless object turning before a busy static backdrop, fixed camera, no mask",
    "turntable-lowtex-plain": "textureless object turning before a plain dark backdrop, fixed camera, no mask",
    "turntable-textured-plain": "textured object turning before a plain dark backdrop, fixed camera, no mask",
    "broken-halves": "two objects, half the frames each: no good model exists; must say poses unreliable",
    "broken-slip": "the object slips on a patterned plate at frame 20: AUC against the plate's frame; "
                   "must say poses unreliable",
    "broken-shuffled": "turntable-textured-plain's frames under shuffled names: file order is not turn order",
    "walkaround-room": "a 100-frame hand-held walk around a room's furniture, 640x360",
    "pavilion-outer": "the dataset ships no gt_sparse: AUC against Datasets/reference-poses/pavilion-outer (its own 3x4 poses)",
}


# ---------------------------------------------------------------------------------------------
# Helpers


def read_intrinsics(gt_sparse: Path):
    """fx, fy, cx, cy of the first camera (lowest id) in gt_sparse/cameras.txt (pinhole-family models)."""
    path = gt_sparse / "cameras.txt"
    cameras = read_cameras(gt_sparse)
    if not cameras:
        raise ValueError(f"{path}: no camera")
    number = min(cameras)
    model, params = cameras[number].model, cameras[number].params
    if model == "PINHOLE" or (model in ("OPENCV", "FULL_OPENCV") and not any(params[4:])):
        fx, fy, cx, cy = params[:4]
    elif model == "SIMPLE_PINHOLE" or (model in ("SIMPLE_RADIAL", "RADIAL") and not any(params[3:])):
        fx = fy = params[0]
        cx, cy = params[1:3]
    else:
        raise ValueError(f"{path}: camera {number}: camera model {model} has distortion; cannot fix PINHOLE intrinsics")
    distinct = {(c.model, c.width, c.height, tuple(c.params)) for c in cameras.values()}
    if len(distinct) > 1:
        print(f"warning: {path} has {len(distinct)} different cameras; using camera {number}", file=sys.stderr)
    return fx, fy, cx, cy


def count_model_images(model_dir: Path):
    """Registered images in a COLMAP text model; None without images.txt."""
    if not (model_dir / "images.txt").exists():
        return None
    return len(read_images(model_dir))


def short(message: str, limit: int = 60) -> str:
    message = " ".join(str(message).split())
    return message if len(message) <= limit else message[: limit - 1] + "…"


def tail(path: Path, lines: int = 5, skip_first: bool = False) -> str:
    """The last lines of a log joined by " | " (without its first line, the command, if asked)."""
    try:
        with open(path, errors="replace") as f:
            content = f.readlines()[1 if skip_first else 0:]
            return " | ".join(l.strip() for l in content[-lines:] if l.strip())
    except OSError:
        return ""


class RunFailed(RuntimeError):
    """A run that ended with an error after `seconds`."""

    def __init__(self, message: str, seconds: float):
        super().__init__(message)
        self.seconds = seconds


def binary_identity(path: Path):
    """sha256 (first 12 hex digits) and modification time of a file."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    mtime = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(path.stat().st_mtime))
    return {"path": str(path), "sha256": digest.hexdigest()[:12], "modified": mtime}


def run_compare(photogrammetry: Path, model: Path, gt: Path, timeout: float):
    """The JSON printed by `photogrammetry compare MODEL GT`; raises with its message on failure."""
    proc = subprocess.run([str(photogrammetry), "compare", str(model), str(gt)],
                          capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        raise RuntimeError(f"compare exit {proc.returncode}: {short(proc.stderr or proc.stdout, 200)}")
    out = proc.stdout
    start, end = out.find("{"), out.rfind("}")
    if start < 0 or end < start:
        raise RuntimeError(f"compare printed no JSON: {short(out, 200)}")
    return json.loads(out[start:end + 1])


# ---------------------------------------------------------------------------------------------
# COLMAP (pycolmap) in a child process


def colmap_worker(args) -> int:
    """Runs COLMAP on one capture; prints one JSON line with seconds and registered images."""
    import pycolmap

    work = Path(args.work)
    images = Path(args.images)
    threads = args.threads
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    database = work / "database.db"
    mapper_out = work / "mapper"
    sparse = work / "sparse"
    mapper_out.mkdir()

    reader = pycolmap.ImageReaderOptions()
    camera_mode = pycolmap.CameraMode.AUTO
    extraction = pycolmap.FeatureExtractionOptions()
    extraction.num_threads = threads
    extraction.use_gpu = False
    extraction.type = pycolmap.FeatureExtractorType.SIFT
    matching = pycolmap.FeatureMatchingOptions()
    matching.num_threads = threads
    matching.use_gpu = False
    pipeline = pycolmap.IncrementalPipelineOptions()
    pipeline.num_threads = threads
    pipeline.mapper.num_threads = threads
    if args.colmap_single_camera:
        camera_mode = pycolmap.CameraMode.SINGLE
    if args.intrinsics:
        reader.camera_model = "PINHOLE"
        reader.camera_params = args.intrinsics
        camera_mode = pycolmap.CameraMode.SINGLE
        pipeline.ba_refine_focal_length = False
        pipeline.ba_refine_principal_point = False
        pipeline.ba_refine_extra_params = False

    start = time.perf_counter()
    pycolmap.extract_features(database, images, camera_mode=camera_mode, reader_options=reader,
                              extraction_options=extraction, device=pycolmap.Device.cpu)
    t_extract = time.perf_counter()
    pycolmap.match_exhaustive(database, matching_options=matching, device=pycolmap.Device.cpu)
    t_match = time.perf_counter()
    models = pycolmap.incremental_mapping(database, images, mapper_out, options=pipeline)
    t_map = time.perf_counter()
    result = {"seconds": None, "registered": 0,
              "models": sorted((r.num_reg_images() for r in models.values()), reverse=True),
              "stages": {"extract": t_extract - start, "match": t_match - t_extract, "map": t_map - t_match}}
    if models:
        best = max(models.values(), key=lambda r: r.num_reg_images())
        sparse.mkdir()
        best.write_text(str(sparse))
        result["registered"] = best.num_reg_images()
        result["points3D"] = best.num_points3D()
    result["seconds"] = time.perf_counter() - start
    print("RESULT " + json.dumps(result), flush=True)
    return 0


def colmap_single_camera(args, name: str) -> bool:
    """COLMAP shares one camera among the images when we did (same size and EXIF camera), so both
    sides self-calibrate from the same information; --colmap-single-camera forces it."""
    if args.colmap_single_camera:
        return True
    try:
        report = json.loads((args.out / "ours" / name / "report.json").read_text())
        return len(report.get("cameras", [])) == 1
    except (OSError, ValueError):
        return False


def colmap_inputs(images: Path, threads: int, intrinsics, single_camera: bool):
    """What a COLMAP result depends on: the image files (name, size, content's SHA-256) and the
    options. Contents, not times: a dataset copied again is the same input."""
    files = sorted((str(p.relative_to(images)), p.stat().st_size, hashlib.sha256(p.read_bytes()).hexdigest())
                   for p in images.rglob("*") if p.is_file())
    return {"files": files, "threads": threads, "intrinsics": list(intrinsics) if intrinsics else None,
            "single_camera": single_camera, "pycolmap": pycolmap_version()}


def pycolmap_version():
    try:
        import pycolmap
        return pycolmap.__version__
    except ImportError:
        return None


def run_colmap(name: str, images: Path, work: Path, threads: int, intrinsics, single_camera: bool,
               timeout: float, reuse: bool):
    work.parent.mkdir(parents=True, exist_ok=True)
    log = work.parent / f"{work.name}.log"
    record = work.parent / f"{work.name}.result.json"
    inputs = colmap_inputs(images, threads, intrinsics, single_camera)
    if reuse and record.exists():
        try:
            saved = json.loads(record.read_text())
            # A run that made no model is a result too; one that made a model must still have it.
            has_model = bool(saved["result"].get("models"))
            if saved.get("inputs") == json.loads(json.dumps(inputs)) and \
                    (not has_model or (work / "sparse" / "images.txt").exists()):
                result = saved["result"]
                result["cached"] = True
                return result
        except (OSError, ValueError, KeyError):
            pass
    if record.exists():
        record.unlink()
    command = [sys.executable, str(Path(__file__).resolve()), "--colmap-worker",
               "--images", str(images), "--work", str(work), "--threads", str(threads)]
    if intrinsics:
        command += ["--worker-intrinsics", ",".join(repr(v) for v in intrinsics)]
    if single_camera:
        command += ["--colmap-single-camera"]
    start = time.perf_counter()
    with open(log, "w") as f:
        proc = subprocess.run(command, stdout=subprocess.PIPE, stderr=f, text=True, timeout=timeout)
    wall = time.perf_counter() - start
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            result = json.loads(line[len("RESULT "):])
            result["wall_seconds"] = wall
            tmp = record.with_suffix(".tmp")
            tmp.write_text(json.dumps({"inputs": inputs, "result": result}))
            os.replace(tmp, record)
            return result
    raise RuntimeError(f"COLMAP exit {proc.returncode}: {short(tail(log), 200)} (log {log})")


# ---------------------------------------------------------------------------------------------
# Ours


def run_ours(photogrammetry: Path, images: Path, out: Path, threads: int, intrinsics, extra: str,
             timeout: float):
    if out.exists():
        shutil.rmtree(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    log = out.parent / f"{out.name}.log"
    command = [str(photogrammetry), "reconstruct", str(images), str(out), "--sparse-only",
               "--progress", "none", "--threads", str(threads)]
    if intrinsics:
        command += ["--intrinsics", ",".join(repr(v) for v in intrinsics)]
    command += shlex.split(extra or "")
    start = time.perf_counter()
    with open(log, "w") as f:
        f.write(" ".join(shlex.quote(c) for c in command) + "\n")
        f.flush()
        proc = subprocess.run(command, stdout=f, stderr=subprocess.STDOUT, timeout=timeout)
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        raise RunFailed(f"exit {proc.returncode}: {short(tail(log, 3, skip_first=True), 200)} (log {log})", seconds)
    sparse = out / "sparse"
    registered = count_model_images(sparse)
    if registered is None:
        raise RuntimeError(f"no {sparse}/images.txt (log {log})")
    result = {"seconds": seconds, "registered": registered, "models": [registered]}
    try:
        report = json.loads((out / "report.json").read_text())
    except (OSError, ValueError):
        report = {}
    sizes = model_sizes(report.get("models"))
    if sizes:
        result["models"] = sizes
    features = [i.get("features") for i in report.get("images", []) if isinstance(i.get("features"), int)]
    if features:
        result["features_median"] = sorted(features)[len(features) // 2]
    return result


def model_sizes(models):
    """Model sizes, largest first, from report.json's `models`: a list of sizes (or of objects
    with an image count); None when absent or unreadable."""
    if not isinstance(models, list) or not models:
        return None
    sizes = []
    for m in models:
        if isinstance(m, int):
            sizes.append(m)
        elif isinstance(m, dict):
            value = next((m[k] for k in ("images_registered", "registered", "images", "size")
                          if isinstance(m.get(k), int)), None)
            if value is None and isinstance(m.get("images"), list):
                value = len(m["images"])
            if value is None:
                return None
            sizes.append(value)
        else:
            return None
    return sorted(sizes, reverse=True)


# ---------------------------------------------------------------------------------------------
# Table


def fmt_seconds(side):
    v = side.get("seconds")
    if side.get("error"):
        return "FAIL" if v is None else f"{v:.1f} (failed)"
    if v is None:
        return "—"
    return f"{v:.1f}" + (" (cached)" if side.get("cached") else "")


def fmt_reg(side, total):
    if side.get("error"):
        return "FAIL"
    cmp = side.get("compare")
    if cmp:
        return f"{cmp['registered']}/{cmp['reference_images']}"
    if side.get("registered") is None:
        return "—"
    return f"{side['registered']}/{total}" if total else str(side["registered"])


def fmt_auc(side, key):
    cmp = side.get("compare")
    if not cmp or side.get("error"):
        return "—"
    return f"{cmp['auc'][key]:.1f}"


def fmt_models(side, shown=3):
    """Count, then the sizes largest first: "2: 49 42"."""
    sizes = side.get("models")
    if side.get("error") or not sizes:
        return "—"
    listed = " ".join(str(v) for v in sizes[:shown]) + (" …" if len(sizes) > shown else "")
    return f"{len(sizes)}: {listed}"


def print_table(rows):
    header = ["dataset", "ours reg", "COLMAP reg", "ours AUC@1", "ours AUC@5", "COLMAP AUC@1",
              "COLMAP AUC@5", "ours models", "COLMAP models", "ours s", "COLMAP s", "ours/COLMAP"]
    table = []
    for row in rows:
        ours, colmap = row["ours"], row["colmap"]
        ratio = "—"
        if ours.get("seconds") and colmap.get("seconds") and not ours.get("error") and not colmap.get("error"):
            ratio = f"{ours['seconds'] / colmap['seconds']:.2f}"
        total = row.get("images_total")
        table.append([row["dataset"], fmt_reg(ours, total), fmt_reg(colmap, total),
                      fmt_auc(ours, "1"), fmt_auc(ours, "5"), fmt_auc(colmap, "1"), fmt_auc(colmap, "5"),
                      fmt_models(ours), fmt_models(colmap), fmt_seconds(ours), fmt_seconds(colmap), ratio])
    widths = [max(len(h), *(len(r[i]) for r in table)) if table else len(h) for i, h in enumerate(header)]
    line = " | ".join(h.ljust(w) for h, w in zip(header, widths))
    print(line)
    print("-+-".join("-" * w for w in widths))
    for r in table:
        print(" | ".join(c.ljust(w) for c, w in zip(r, widths)))
    print("notes: reg = registered images (largest model) / images; AUC = pair AUC (rotation and "
          "translation angle) against gt_sparse; models = count: sizes, largest first; COLMAP gets no masks.")
    for row in rows:
        notes = []
        if ROW_NOTES.get(row["dataset"]):
            notes.append(ROW_NOTES[row["dataset"]])
        if row["ours"].get("features_median") is not None:
            notes.append(f"ours median {row['ours']['features_median']} features per image")
        if row["colmap"].get("cached"):
            notes.append("COLMAP from an earlier run (--reuse-colmap)")
        if len(row["colmap"].get("models") or []) > 3:
            notes.append("COLMAP models " + " ".join(str(v) for v in row["colmap"]["models"]))
        if notes:
            print(f"  {row['dataset']}: " + "; ".join(notes))
    problems = [(row["dataset"], side, row[side]) for row in rows for side in ("ours", "colmap")
                if row[side].get("error") or row[side].get("compare_error")]
    for dataset, side, result in problems:
        what = result.get("error") or result.get("compare_error")
        print(f"  {dataset} / {side}: {what}")


def count_images(folder: Path) -> int:
    extensions = {".jpg", ".jpeg", ".png", ".heic", ".tif", ".tiff"}
    return sum(1 for p in folder.rglob("*") if p.is_file() and p.suffix.lower() in extensions)


# ---------------------------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--datasets", help="comma-separated names; NAME+K uses gt intrinsics "
                        "(default: every shared capture with images/, plus templeRing+K, then the generated "
                        "captures " + ", ".join(GENERATED + RENDERED) + ")")
    parser.add_argument("--captures", type=Path, default=CAPTURES,
                        help="where scripts/data/make-captures.py and render-turntable-captures.py wrote their "
                        "captures (default out/captures)")
    parser.add_argument("--reuse-colmap", action="store_true",
                        help="take COLMAP's result from an earlier run in --out when its inputs are unchanged "
                        "(marked \"(cached)\"); default: run COLMAP in this run")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--out", type=Path, default=Path("/tmp/benchmark-sparse"))
    parser.add_argument("--no-build", action="store_true", help="do not run `swift build -c release` first")
    parser.add_argument("--skip-colmap", action="store_true")
    parser.add_argument("--skip-ours", action="store_true")
    parser.add_argument("--colmap-single-camera", action="store_true",
                        help="one shared camera for COLMAP (default: CameraMode.AUTO, its own default)")
    parser.add_argument("--ours-args", default="", help="extra arguments for `photogrammetry reconstruct`")
    parser.add_argument("--photogrammetry", type=Path, default=REPO / ".build" / "release" / "photogrammetry",
                        help="the CLI used to reconstruct and to compare")
    parser.add_argument("--timeout", type=float, default=3600, help="seconds per run")
    # Internal: one COLMAP run in a child process.
    parser.add_argument("--colmap-worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--images", help=argparse.SUPPRESS)
    parser.add_argument("--work", help=argparse.SUPPRESS)
    parser.add_argument("--worker-intrinsics", dest="intrinsics", help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.colmap_worker:
        return colmap_worker(args)

    if args.datasets:
        names = [n.strip() for n in args.datasets.split(",") if n.strip()]
    else:
        names = sorted(p.name for p in DATASETS.iterdir() if (p / "images").is_dir())
        if "templeRing" in names:
            names.insert(names.index("templeRing") + 1, "templeRing" + KNOWN_INTRINSICS_SUFFIX)
        names += GENERATED + RENDERED
    missing = [n for n in names if n.split(KNOWN_INTRINSICS_SUFFIX)[0] in MADE_BY
               and not (args.captures / n.split(KNOWN_INTRINSICS_SUFFIX)[0] / "images").is_dir()]
    for script in sorted({MADE_BY[n.split(KNOWN_INTRINSICS_SUFFIX)[0]] for n in missing}):
        which = [n for n in missing if MADE_BY[n.split(KNOWN_INTRINSICS_SUFFIX)[0]] == script]
        print(f"missing in {args.captures}: {', '.join(which)}: run {script} first", file=sys.stderr)

    build_error = None
    if not args.skip_ours and not args.no_build:
        print("building: swift build -c release", flush=True)
        proc = subprocess.run(["swift", "build", "-c", "release"], cwd=REPO, capture_output=True, text=True)
        if proc.returncode != 0:
            last = (proc.stdout + proc.stderr).strip().splitlines()[-3:]
            build_error = "build failed: " + short(" ".join(last) or "?", 200)
            print(build_error, file=sys.stderr)

    args.out.mkdir(parents=True, exist_ok=True)
    # Ours runs a copy of the binary taken now, so that a rebuild during the run (other worktrees
    # build the same repository) cannot mix versions in one table.
    binary = None
    if args.photogrammetry.exists():
        binary = binary_identity(args.photogrammetry)
        copy = args.out / "bin" / "photogrammetry"
        copy.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(args.photogrammetry, copy.with_suffix(".tmp"))
        os.replace(copy.with_suffix(".tmp"), copy)
        binary["copy"] = str(copy)
        args.photogrammetry = copy
        print(f"binary: {binary['path']} (sha256 {binary['sha256']}, modified {binary['modified']}), "
              f"run as {copy}", flush=True)
    rows = []
    for name in names:
        base = name[: -len(KNOWN_INTRINSICS_SUFFIX)] if name.endswith(KNOWN_INTRINSICS_SUFFIX) else name
        dataset = (args.captures if base in MADE_BY else DATASETS) / base
        images, gt = dataset / "images", dataset / "gt_sparse"
        if not (gt / "images.txt").exists() and (REFERENCE_POSES / base / "gt_sparse" / "images.txt").exists():
            gt = REFERENCE_POSES / base / "gt_sparse"  # poses the shared dataset lacks (pavilion-outer)
        row = {"dataset": name, "ours": {}, "colmap": {}, "intrinsics": None}
        rows.append(row)
        if not images.is_dir():
            hint = f": run {MADE_BY[base]} first" if base in MADE_BY else ""
            row["ours"]["error"] = row["colmap"]["error"] = f"no {images}{hint}"
            continue
        row["images_total"] = count_images(images)
        row_args = [a.replace("{d}", str(dataset)) for a in ROW_ARGS.get(base, [])]
        row["ours_args"] = row_args
        has_gt = (gt / "images.txt").exists()
        intrinsics = None
        if name != base:
            try:
                if not has_gt:
                    raise ValueError(f"no {gt} to take intrinsics from")
                intrinsics = read_intrinsics(gt)
                row["intrinsics"] = intrinsics
            except (OSError, ValueError) as error:
                row["ours"]["error"] = row["colmap"]["error"] = str(error)
                continue

        sides = []
        if not args.skip_ours:
            sides.append(("ours", lambda: run_ours(args.photogrammetry, images, args.out / "ours" / name,
                                                   args.threads, intrinsics,
                                                   " ".join(shlex.quote(a) for a in row_args) + " " + args.ours_args,
                                                   args.timeout),
                          args.out / "ours" / name / "sparse"))
        if not args.skip_colmap:
            sides.append(("colmap", lambda: run_colmap(name, images, args.out / "colmap" / name, args.threads,
                                                       intrinsics, colmap_single_camera(args, name),
                                                       args.timeout, args.reuse_colmap),
                          args.out / "colmap" / name / "sparse"))
        for side, run, model in sides:
            print(f"{name}: {side} ...", flush=True)
            result = row[side]
            if side == "ours" and build_error:
                result["error"] = build_error
                continue
            try:
                result.update(run())
            except Exception as error:  # noqa: BLE001 - a failing run is reported, not fatal
                result["error"] = short(f"{type(error).__name__}: {error}", 300)
                if isinstance(error, RunFailed):
                    result["seconds"] = error.seconds
                print(f"  failed: {result['error']}", flush=True)
                continue
            print(f"  {result['seconds']:.1f} s{' (cached)' if result.get('cached') else ''}, "
                  f"{result.get('registered')} registered, models {result.get('models')}", flush=True)
            if has_gt:
                try:
                    result["compare"] = run_compare(args.photogrammetry, model, gt, args.timeout)
                except Exception as error:  # noqa: BLE001
                    result["compare_error"] = short(f"{type(error).__name__}: {error}", 300)
                    print(f"  compare failed: {result['compare_error']}", flush=True)
        if not args.skip_ours and not args.skip_colmap:
            o, c = row["ours"], row["colmap"]
            if o.get("seconds") and c.get("seconds") and not o.get("error") and not c.get("error"):
                row["time_ratio"] = o["seconds"] / c["seconds"]

    print()
    if binary:
        print(f"ours: {binary['path']} sha256 {binary['sha256']} (modified {binary['modified']}); "
              f"threads {args.threads}")
    print_table(rows)
    summary = args.out / "summary.json"
    tmp = summary.with_suffix(".json.tmp")
    with open(tmp, "w") as f:
        json.dump({"threads": args.threads, "binary": binary, "rows": rows}, f, indent=2, sort_keys=True)
    os.replace(tmp, summary)
    print(f"\nsummary: {summary}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
