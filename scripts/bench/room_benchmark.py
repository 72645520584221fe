#!/usr/bin/env python3
"""Rooms: how much of our mesh is on the true room (accuracy) and how much of the true room our
mesh covers (completeness), at 2, 5 and 10 cm, per capture and per input variant.

usage: scripts/benchmark-room [--captures synthetic-room,textureless-room,corner-room,corner-room-2] [--variants images,planar,depth]
                              [--photogrammetry BIN] [--out DIR] [--rooms DIR] [--reuse] [--threads N]

For every capture and variant, in that order:
  nice BIN reconstruct INPUT OUT/<capture>/<variant> --room --detail medium --progress none
       --threads N [the variant's arguments]
then the run's cameras are aligned to the capture's gt_sparse by the similarity (Umeyama) that
maps the camera centres of the images both hold onto the true ones (as ../shared/tools/eval_dense.py
aligns), its model.glb is moved by it, and both surfaces are sampled area-uniformly (SAMPLES points
each, seeded), so a share of samples is a share of area:
  accuracy at t:     the share of our mesh's area within t of the true mesh;
  completeness at t: the share of the true mesh's area within t of our mesh; and the same share of
                     the true room's envelope alone (its floor, ceiling and walls: the true faces
                     on the planes of its bounding box facing into it), the part photographs of
                     plain paint miss; and the same share of what the capture's cameras see
                     (seen completeness: true samples that at least one true camera has in its
                     frame and unoccluded, by the truth's depth/ within SEEN_TOLERANCE), the most
                     any reconstruction from those photographs can cover;
  pieces missed:     of the true room's pieces (connected parts of its mesh off the envelope:
                     furniture, a lamp, a table's leg) that the cameras see enough of, those our
                     mesh misses or misplaces: under half of their seen samples within 5 cm
                     (PIECE_*).
A sample's distance is to the nearest of the triangles under its K_CANDIDATES nearest reference
samples (REFERENCE_SAMPLES on the other surface): exact point-to-triangle distances, so the
reference sampling's spacing does not add to them.

Variants (VARIANTS): `images`: the capture's images/ folder alone (a depth/ beside it is not looked
for: masks and depth are found only inside the input), with `--planar-priors off` when the binary
has the flag; `planar`: the same with planar priors, run
only when the binary's `help reconstruct` lists the variant's flag (else the row says "skipped:
binary has no --planar-priors"); `depth`: the capture with a simulated phone LiDAR depth/ (made by
scripts/data/simulate-phone-depth.py into ROOMS/<capture>-lidar). The true room's mesh and
poses: gt_mesh.ply and gt_sparse/ of the capture's truth folder (CAPTURES).

A missing capture is reported in its row with the script that makes it. --reuse keeps a run whose
folder already has model.glb. Seconds are the report's: the sum of its stages (a reused run keeps
its own) and, apart, the dense stage's. The binary is copied to OUT/bin/photogrammetry first (its
sha256 printed), so that a rebuild during the benchmark cannot mix versions. Prints a Markdown
table and writes it as JSON to OUT/summary.json. Needs numpy, scipy and trimesh.
"""

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple, Optional

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "lib"))
from pgscripts import read_images  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
DATASETS = (REPO / ".." / "shared" / "datasets").resolve()
ROOMS = REPO / "out" / "rooms"
THRESHOLDS_M = (0.02, 0.05, 0.10)
SAMPLES = 500_000
REFERENCE_SAMPLES = 2_000_000
K_CANDIDATES = 4
FARTHEST_M = 0.3   # distances beyond it are not needed: infinity (well above the largest threshold)
SEEN_TOLERANCE = 0.02  # relative: a true depth image's own rounding (1 mm) and pixel footprint are well inside
SEED = 1
# A piece of furniture (a connected part of the true mesh off its envelope) is scored when the
# cameras see at least PIECE_MIN_SAMPLES of its samples (0.04 % of them, about 0.05 m² of a room),
# and missed when under PIECE_MISSED_SHARE of those are within PIECE_THRESHOLD_M of our mesh
# (gone, or misplaced by more than that): a table gone from a room moves its completeness by a
# share of its area, and this count by one.
PIECE_MIN_SAMPLES = 200
PIECE_THRESHOLD_M = 0.05
PIECE_MISSED_SHARE = 0.5


@dataclass
class Capture:
    """Where a room capture's inputs and truth are; {rooms} stands for --rooms."""
    images: str          # the images folder, given to reconstruct for the images and planar variants
    truth: str           # the folder with gt_sparse/ and gt_mesh.ply
    lidar: str           # the capture with simulated phone depth, for the depth variant
    made_by: str         # the command that makes a missing capture


@dataclass
class Variant:
    source: str                       # "images" or "lidar": which of the capture's inputs it runs on
    arguments: list = field(default_factory=list)
    needs_flag: str = ""              # run only when `help reconstruct` lists it
    off_flag: str = ""                # the arguments are passed only when `help reconstruct` lists it


CAPTURES = {
    "synthetic-room": Capture(
        images=str(DATASETS / "synthetic-room" / "images"), truth=str(DATASETS / "synthetic-room"),
        lidar="{rooms}/synthetic-room-lidar",
        made_by="../shared/datasets/synthetic-room; its depth: scripts/data/simulate-phone-depth.py "
                "../shared/datasets/synthetic-room {rooms}/synthetic-room-lidar"),
    "textureless-room": Capture(
        images="{rooms}/textureless-room/images", truth="{rooms}/textureless-room",
        lidar="{rooms}/textureless-room-lidar",
        made_by="nice blender -b --python-exit-code 1 -P scripts/data/render-room-capture.py -- --out "
                "{rooms}/textureless-room; its depth: scripts/data/simulate-phone-depth.py "
                "{rooms}/textureless-room {rooms}/textureless-room-lidar"),
    "corner-room": Capture(
        images="{rooms}/corner-room/images", truth="{rooms}/corner-room",
        lidar="{rooms}/corner-room-lidar",
        made_by="nice blender -b --python-exit-code 1 -P scripts/data/render-room-capture.py -- --out "
                "{rooms}/corner-room --corner; its depth: scripts/data/simulate-phone-depth.py "
                "{rooms}/corner-room {rooms}/corner-room-lidar"),
    # Another L: a narrower corner walled off, and another walk.
    "corner-room-2": Capture(
        images="{rooms}/corner-room-2/images", truth="{rooms}/corner-room-2",
        lidar="{rooms}/corner-room-2-lidar",
        made_by="nice blender -b --python-exit-code 1 -P scripts/data/render-room-capture.py -- --out "
                "{rooms}/corner-room-2 --corner --corner-size 0.75 1.5 --seed 5; its depth: "
                "scripts/data/simulate-phone-depth.py {rooms}/corner-room-2 {rooms}/corner-room-2-lidar"),
}
VARIANTS = {
    # With the flag, images alone means without planar priors (--room turns them on by default).
    "images": Variant("images", ["--planar-priors", "off"], off_flag="--planar-priors"),
    "planar": Variant("images", ["--planar-priors", "on"], needs_flag="--planar-priors"),
    "depth": Variant("lidar"),
}


# ---------------------------------------------------------------------------------------------
# Measuring


def camera_centres(sparse_dir):
    """{image name: camera centre} of a COLMAP text model."""
    centres = {}
    for image in read_images(sparse_dir):
        R, t = np.array(image.R), np.array(image.t)
        centres[image.name] = -R.T @ t
    return centres


def similarity(source, target):
    """(s, R, t) minimising |s R source + t - target|² (Umeyama), points as rows."""
    mean_s, mean_t = source.mean(0), target.mean(0)
    S, T = source - mean_s, target - mean_t
    U, sigma, Vt = np.linalg.svd(T.T @ S / len(source))
    E = np.eye(3)
    if np.linalg.det(U @ Vt) < 0:
        E[2, 2] = -1
    R = U @ E @ Vt
    s = np.trace(np.diag(sigma) @ E) / (S ** 2).sum(1).mean()
    return s, R, mean_t - s * R @ mean_s


def distances_to_surface(points, mesh, rng_seed, reference_samples=REFERENCE_SAMPLES, k=K_CANDIDATES,
                         farthest=FARTHEST_M, chunk=100_000):
    """Each point's distance to `mesh`: the least exact distance to the triangles under its k
    nearest reference samples. Never more than the distance to the nearest sample, and equal to
    the true distance unless the nearest triangle has none of the k samples. A point with no
    reference sample within `farthest` gets infinity: beyond the thresholds, a distance is not
    needed, and searching for the unseen half of a room's far-off samples is what takes time."""
    import trimesh
    from scipy.spatial import cKDTree
    reference, faces = trimesh.sample.sample_surface(mesh, reference_samples, seed=rng_seed)
    tree = cKDTree(reference)
    triangles = np.asarray(mesh.triangles, dtype=np.float64)
    result = np.full(len(points), np.inf)
    for start in range(0, len(points), chunk):
        block = points[start:start + chunk]
        _, nearest = tree.query(block, k=k, distance_upper_bound=farthest)
        found = nearest < len(reference)  # missing neighbours come back as len(reference)
        rows = np.nonzero(found[:, 0])[0]
        candidates = triangles[faces[np.where(found[rows], nearest[rows], nearest[rows, :1])]].reshape(-1, 3, 3)
        repeated = np.repeat(block[rows], k, axis=0)
        closest = trimesh.triangles.closest_point(candidates, repeated)
        gaps = np.linalg.norm(closest - repeated, axis=1).reshape(-1, k)
        result[start + rows] = gaps.min(axis=1)
    return result


def envelope_faces(truth, tolerance=0.01):
    """The true mesh's faces on the six planes of its bounding box (within `tolerance` metres)
    whose normals point into the room: a box room's floor, ceiling and walls, and what lies flat
    on them facing the room (a rug, a picture); not the hidden faces pressed against them."""
    low, high = truth.bounds
    corners = np.asarray(truth.triangles)
    normals = np.asarray(truth.face_normals)
    on_plane = np.zeros(len(corners), dtype=bool)
    for axis in range(3):
        for value, inward in ((low[axis], 1.0), (high[axis], -1.0)):
            on_plane |= (np.all(np.abs(corners[:, :, axis] - value) <= tolerance, axis=1)
                         & (normals[:, axis] * inward > 0.9))
    return on_plane


def seen_by_cameras(points, truth_dir, tolerance=SEEN_TOLERANCE):
    """Whether each point is in the frame of at least one camera of truth_dir/gt_sparse (PINHOLE or
    SIMPLE_PINHOLE) and not hidden: its depth along that camera's axis within `tolerance` of the
    truth's depth image there (truth_dir/depth/STEM.png, uint16 mm, the image's size). None when
    the truth has no depth images."""
    from PIL import Image as PILImage
    from pgscripts import read_cameras
    truth_dir = Path(truth_dir)
    if not (truth_dir / "depth").is_dir():
        return None
    cameras = read_cameras(truth_dir / "gt_sparse")
    seen = np.zeros(len(points), dtype=bool)
    for image in read_images(truth_dir / "gt_sparse"):
        camera = cameras[image.camera_id]
        p = camera.params
        fx, fy, cx, cy = (p[0], p[0], p[1], p[2]) if camera.model == "SIMPLE_PINHOLE" else p[:4]
        depth_png = truth_dir / "depth" / (Path(image.name).stem + ".png")
        if not depth_png.exists():
            continue
        depth = np.asarray(PILImage.open(depth_png)).astype(np.float64) / 1000.0
        cam = points @ np.array(image.R).T + np.array(image.t)
        z = cam[:, 2]
        with np.errstate(divide="ignore", invalid="ignore"):
            u, v = fx * cam[:, 0] / z + cx, fy * cam[:, 1] / z + cy
        inside = (z > 0) & (u >= 0) & (v >= 0) & (u < camera.width) & (v < camera.height)
        col = np.clip(np.nan_to_num(u * depth.shape[1] / camera.width).astype(int), 0, depth.shape[1] - 1)
        row = np.clip(np.nan_to_num(v * depth.shape[0] / camera.height).astype(int), 0, depth.shape[0] - 1)
        true_depth = depth[row, col]
        seen |= inside & (true_depth > 0) & (np.abs(true_depth - z) <= tolerance * np.maximum(z, 1e-9))
    return seen


class Scores(NamedTuple):
    """What accuracy_and_completeness measures, shares in %."""
    accuracy: dict          # {t: share of our area within t of truth}
    completeness: dict      # {t: share of truth's area within t of ours}
    envelope: dict          # {t: the same share of truth's envelope, its floor, ceiling and walls}
    seen: Optional[dict]    # {t: the same share of what truth_dir's cameras see}, or None
    seen_share: Optional[float]  # the share of truth's area they see, or None
    pieces: Optional[int]   # truth's pieces scored (enough of them seen), or None
    missed: Optional[int]   # of them, those our mesh misses or misplaces, or None


def missed_pieces(truth, true_faces, to_ours, seen, on_envelope):
    """(pieces scored, pieces missed): the connected parts of truth's mesh off its envelope with at
    least PIECE_MIN_SAMPLES seen samples, and those with under PIECE_MISSED_SHARE of them within
    PIECE_THRESHOLD_M of ours."""
    import trimesh
    parts = trimesh.graph.connected_components(truth.face_adjacency, nodes=np.arange(len(truth.faces)), min_len=1)
    label = np.full(len(truth.faces), -1)
    for k, faces in enumerate(parts):
        label[faces] = k
    of_sample = label[true_faces]
    scored = missed = 0
    for k in range(len(parts)):
        mine = (of_sample == k) & seen & ~on_envelope
        if mine.sum() < PIECE_MIN_SAMPLES:
            continue
        scored += 1
        missed += float(np.mean(to_ours[mine] <= PIECE_THRESHOLD_M)) < PIECE_MISSED_SHARE
    return scored, missed


def accuracy_and_completeness(ours, truth, thresholds=THRESHOLDS_M, samples=SAMPLES, seed=SEED, truth_dir=None,
                              **kwargs):
    """Scores of ours against truth; those of what cameras see need truth_dir's depth images."""
    import trimesh
    our_points, _ = trimesh.sample.sample_surface(ours, samples, seed=seed)
    true_points, true_faces = trimesh.sample.sample_surface(truth, samples, seed=seed + 1)
    to_truth = distances_to_surface(our_points, truth, seed + 2, **kwargs)
    to_ours = distances_to_surface(true_points, ours, seed + 3, **kwargs)
    on_envelope = envelope_faces(truth)[true_faces]
    accuracy = {t: 100.0 * float(np.mean(to_truth <= t)) for t in thresholds}
    completeness = {t: 100.0 * float(np.mean(to_ours <= t)) for t in thresholds}
    envelope = {t: 100.0 * float(np.mean(to_ours[on_envelope] <= t)) if on_envelope.any() else float("nan")
                for t in thresholds}
    seen = seen_by_cameras(true_points, truth_dir) if truth_dir is not None else None
    if seen is None or not seen.any():
        return Scores(accuracy, completeness, envelope, None, None, None, None)
    seen_completeness = {t: 100.0 * float(np.mean(to_ours[seen] <= t)) for t in thresholds}
    pieces, missed = missed_pieces(truth, true_faces, to_ours, seen, on_envelope)
    return Scores(accuracy, completeness, envelope, seen_completeness, 100.0 * float(np.mean(seen)), pieces, missed)


def load_run_mesh(run_dir, truth_dir):
    """Our model.glb moved into the truth's frame, and the cameras the alignment used."""
    import trimesh
    ours = camera_centres(Path(run_dir) / "sparse")
    true = camera_centres(Path(truth_dir) / "gt_sparse")
    common = sorted(name for name in ours if name in true)
    if len(common) < 3:
        raise ValueError(f"{run_dir}/sparse: {len(common)} cameras in common with the truth; 3 are needed to align")
    s, R, t = similarity(np.array([ours[n] for n in common]), np.array([true[n] for n in common]))
    mesh = trimesh.load(Path(run_dir) / "model.glb", process=False)
    if isinstance(mesh, trimesh.Scene):
        # Our GLB stores the model's own axes with no node transform: the vertices are as written.
        mesh = trimesh.util.concatenate(list(mesh.geometry.values()))
    vertices = (s * (R @ np.asarray(mesh.vertices, dtype=np.float64).T)).T + t
    return trimesh.Trimesh(vertices, np.asarray(mesh.faces), process=False), len(common), len(true)


# ---------------------------------------------------------------------------------------------
# Running


def binary_flags(binary):
    """The text of `BIN help reconstruct`."""
    return subprocess.run([str(binary), "help", "reconstruct"], capture_output=True, text=True, check=True).stdout


def copy_binary(binary, out):
    """The binary copied to OUT/bin (rebuilds during the benchmark cannot reach it) and its sha256."""
    target = out / "bin" / "photogrammetry"
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_name("photogrammetry.tmp")
    shutil.copy2(binary, temporary)
    temporary.replace(target)
    return target, hashlib.sha256(target.read_bytes()).hexdigest()


def report_seconds(run_dir):
    """(all stages' seconds, the dense stage's seconds) from the run's report.json."""
    report = json.loads((Path(run_dir) / "report.json").read_text())
    stages = {stage["name"]: stage for stage in report.get("stages", [])}
    dense = stages.get("dense", {}).get("seconds")
    return sum(stage.get("seconds") or 0.0 for stage in stages.values()), dense, report


def run_one(binary, source, run_dir, variant, threads, reuse):
    """Runs reconstruct unless --reuse finds its model; returns None or why it failed."""
    if reuse and (run_dir / "model.glb").exists():
        return None
    command = ["nice", str(binary), "reconstruct", str(source), str(run_dir), "--room", "--detail", "medium",
               "--progress", "none", "--threads", str(threads)] + variant.arguments
    log = run_dir.parent / f"{run_dir.name}.log"
    run_dir.parent.mkdir(parents=True, exist_ok=True)
    started = time.time()
    with open(log, "w") as f:
        f.write(" ".join(command) + "\n")
        f.flush()
        code = subprocess.call(command, stdout=f, stderr=subprocess.STDOUT)
    if code != 0:
        return f"reconstruct exited {code} after {time.time() - started:.0f} s (see {log})"
    return None


def parse_arguments(argv):
    parser = argparse.ArgumentParser(prog="benchmark-room", description=__doc__.split("\n")[0])
    parser.add_argument("--captures", default=",".join(CAPTURES), help="comma-separated (default: %(default)s)")
    parser.add_argument("--variants", default=",".join(VARIANTS), help="comma-separated (default: %(default)s)")
    parser.add_argument("--photogrammetry", type=Path, default=REPO / ".build" / "release" / "photogrammetry")
    parser.add_argument("--out", type=Path, default=REPO / "out" / "room-bench")
    parser.add_argument("--rooms", type=Path, default=ROOMS, help="where the rendered and simulated captures are")
    parser.add_argument("--reuse", action="store_true", help="keep runs whose folder already has model.glb")
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args(argv)
    for kind, names, known in (("capture", args.captures, CAPTURES), ("variant", args.variants, VARIANTS)):
        unknown = [n for n in names.split(",") if n not in known]
        if unknown:
            parser.error(f"unknown {kind} {', '.join(unknown)}; known: {', '.join(known)}")
    if not args.photogrammetry.is_file():
        parser.error(f"{args.photogrammetry}: no such binary (build it, or pass --photogrammetry)")
    return args


def main(argv=None):
    import trimesh
    args = parse_arguments(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    binary, digest = copy_binary(args.photogrammetry, args.out)
    flags = binary_flags(binary)
    print(f"binary {args.photogrammetry} sha256 {digest[:12]}; out {args.out}", flush=True)
    rows = []
    for name in args.captures.split(","):
        capture = CAPTURES[name]
        paths = {key: Path(getattr(capture, key).format(rooms=args.rooms)) for key in ("images", "truth", "lidar")}
        truth_mesh = None
        for variant_name in args.variants.split(","):
            variant = VARIANTS[variant_name]
            row = {"capture": name, "variant": variant_name}
            rows.append(row)
            source = paths[variant.source]
            if variant.needs_flag and variant.needs_flag not in flags:
                row["note"] = f"skipped: binary has no {variant.needs_flag}"
            elif not source.exists() or not (paths["truth"] / "gt_mesh.ply").exists():
                row["note"] = f"missing {source if not source.exists() else paths['truth'] / 'gt_mesh.ply'}: made by " \
                              f"{capture.made_by.format(rooms=args.rooms)}"
            else:
                run_dir = args.out / name / variant_name
                if variant.off_flag and variant.off_flag not in flags:
                    variant = Variant(variant.source)  # an older binary: its default is the variant
                row["note"] = run_one(binary, source, run_dir, variant, args.threads, args.reuse)
                if row["note"] is None:
                    if truth_mesh is None:
                        truth_mesh = trimesh.load(paths["truth"] / "gt_mesh.ply", process=False)
                    mesh, aligned, cameras = load_run_mesh(run_dir, paths["truth"])
                    scores = accuracy_and_completeness(mesh, truth_mesh, truth_dir=paths["truth"])
                    seconds, dense, report = report_seconds(run_dir)
                    row.update(registered=report.get("images_registered"), images=report.get("images_total"),
                               triangles=len(mesh.faces), area_m2=float(mesh.area), truth_area_m2=float(truth_mesh.area),
                               accuracy={f"{t:g}": a for t, a in scores.accuracy.items()},
                               completeness={f"{t:g}": c for t, c in scores.completeness.items()},
                               envelope={f"{t:g}": c for t, c in scores.envelope.items()},
                               seen=None if scores.seen is None else {f"{t:g}": c for t, c in scores.seen.items()},
                               seen_share=scores.seen_share, pieces=scores.pieces, pieces_missed=scores.missed,
                               envelope_area_m2=float(truth_mesh.area_faces[envelope_faces(truth_mesh)].sum()),
                               seconds=seconds, dense_seconds=dense, scale_source=report.get("scale_source"))
            print(format_row(row), flush=True)
    print()
    print(table(rows))
    summary = {"binary": str(args.photogrammetry), "sha256": digest, "thresholds_m": list(THRESHOLDS_M),
               "samples": SAMPLES, "rows": rows}
    temporary = args.out / "summary.json.tmp"
    temporary.write_text(json.dumps(summary, indent=1))
    temporary.replace(args.out / "summary.json")


def format_row(row):
    if "accuracy" not in row:
        return f"{row['capture']} {row['variant']}: {row['note']}"
    return (f"{row['capture']} {row['variant']}: accuracy {'/'.join(f'{v:.1f}' for v in row['accuracy'].values())}, "
            f"completeness {'/'.join(f'{v:.1f}' for v in row['completeness'].values())} % at 2/5/10 cm")


def seen_cell(row):
    if not row.get("seen"):
        return "– (no true depth)"
    return f"{row['seen_share']:.1f}: {' / '.join(f'{v:.1f}' for v in row['seen'].values())}"


def pieces_cell(row):
    if row.get("pieces") is None:
        return "– (no true depth)"
    return f"{row['pieces_missed']} of {row['pieces']}"


def table(rows):
    header = ("| capture | variant | cameras | triangles | accuracy 2 / 5 / 10 cm % | completeness 2 / 5 / 10 cm % "
              "| envelope completeness 2 / 5 / 10 cm % | seen: share of truth %, completeness 2 / 5 / 10 cm % "
              "| pieces missed | mesh m² | truth m² | scale | s | dense s |\n"
              "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    lines = [header]
    for row in rows:
        if "accuracy" not in row:
            lines.append(f"| {row['capture']} | {row['variant']} | {row['note']} |  |  |  |  |  |  |  |  |  |  |  |")
            continue
        dense = f"{row['dense_seconds']:.0f}" if row["dense_seconds"] is not None else "–"
        lines.append(f"| {row['capture']} | {row['variant']} | {row['registered']}/{row['images']} | {row['triangles']} | "
                     f"{' / '.join(f'{v:.1f}' for v in row['accuracy'].values())} | "
                     f"{' / '.join(f'{v:.1f}' for v in row['completeness'].values())} | "
                     f"{' / '.join(f'{v:.1f}' for v in row['envelope'].values())} | {seen_cell(row)} | {pieces_cell(row)} | "
                     f"{row['area_m2']:.1f} | "
                     f"{row['truth_area_m2']:.1f} | {row['scale_source']} | {row['seconds']:.0f} | {dense} |")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
