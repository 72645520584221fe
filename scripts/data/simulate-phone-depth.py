#!/usr/bin/env python3
"""Makes a capture with the depth a phone's LiDAR would have recorded, from a capture's true depth.

usage: scripts/data/simulate-phone-depth.py CAPTURE OUT [--width 256 --height 192] [--seed 1]
         [--no-confidence]
       e.g. scripts/data/simulate-phone-depth.py ../shared/datasets/synthetic-room out/rooms/synthetic-room-lidar

CAPTURE holds images/ and depth/ (one uint16 PNG per image, the same stem: true depth along the
optical axis in millimetres, 0 = no surface, the image's size: as ../shared/datasets/synthetic-room
and scripts/data/render-room-capture.py write it), and gt_sparse/ and gt_mesh.ply if it has them.
OUT gets images/ (copies, not links: a linked image folder is refused), depth/<stem>.png (what our
depth/ reader takes: uint16 millimetres, 0 = no depth, the images' aspect ratio),
depth_confidence/<stem>.png (uint8 0, 1, 2: ARKit's low, medium, high), copies of gt_sparse/ and
gt_mesh.ply, and SOURCE.md with the command.

What a phone's LiDAR depth is like, and how each is made from the true depth:
- Coarse: 256 x 192 (an iPhone's ARKit sceneDepth). Each depth pixel is the median of the true
  depths in its footprint (the 3 x 3 source pixels nearest its centre, about the footprint at
  800 x 600): on a plane the median is the footprint's middle, and at an edge it is one side's
  depth, never a depth between the two surfaces that an average would invent.
- Noisy: multiplicative Gaussian noise, 1 % of the depth near the camera growing to 2 % at
  NOISE_FAR_M and beyond, independent per pixel, seeded.
- Short: no return beyond MAX_RANGE_M.
- Holes (0) on dark surfaces, which return too little light: the image's luminance (sRGB,
  Rec. 709 weights, averaged over the footprint) below DARK_LUMA drops every pixel, and between
  DARK_LUMA and DIM_LUMA a share that falls linearly to none.
- Holes on glancing surfaces: where the surface normal (from the depth's own gradient, so also at
  occlusion edges) is more than GLANCING_DEG from the ray back to the camera.
- A few dropout blobs per frame (BLOBS_PER_FRAME on average, radii 2 to 8 pixels), as multipath
  and sunlight leave them.
Confidence: 0 where there is no depth, 1 (medium) within one pixel of a hole, beyond 60 degrees of
incidence or beyond CONFIDENT_RANGE_M, else 2 (high).

Needs numpy and Pillow.
"""

import argparse
import shutil
import sys
import warnings
from pathlib import Path

import numpy as np
from PIL import Image

NOISE_NEAR, NOISE_FAR, NOISE_FAR_M = 0.01, 0.02, 4.0
MAX_RANGE_M = 5.0
CONFIDENT_RANGE_M = 3.5
DARK_LUMA, DIM_LUMA = 0.06, 0.12
GLANCING_DEG = 75.0
MEDIUM_INCIDENCE_DEG = 60.0
BLOBS_PER_FRAME = 2.0


def parse_arguments(argv):
    parser = argparse.ArgumentParser(prog="simulate-phone-depth.py", description=__doc__.split("\n")[0])
    parser.add_argument("capture", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--width", type=int, default=256)
    parser.add_argument("--height", type=int, default=192)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-confidence", action="store_true", help="write no depth_confidence/")
    return parser.parse_args(argv)


def footprint_indices(source, target):
    """For each of `target` pixels along an axis of `source` pixels: the 3 source pixels nearest
    its centre (clamped at the border)."""
    centre = (np.arange(target) + 0.5) * source / target - 0.5
    nearest = np.rint(centre).astype(int)
    return np.clip(nearest[:, None] + np.arange(-1, 2)[None, :], 0, source - 1)


def resample_depth(true_m, width, height):
    """Median of each footprint's surface depths (0 where none of them has a surface)."""
    rows = footprint_indices(true_m.shape[0], height)
    cols = footprint_indices(true_m.shape[1], width)
    windows = true_m[rows[:, None, :, None], cols[None, :, None, :]].reshape(height, width, 9)
    windows = np.where(windows > 0, windows, np.nan)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN windows: no surface, 0 below
        depth = np.nanmedian(windows, axis=2)
    return np.nan_to_num(depth, nan=0.0)


def luminance(image, width, height):
    """Rec. 709 luminance of the sRGB values in [0, 1], averaged over each depth pixel's footprint."""
    grey = np.asarray(image.convert("RGB").resize((width, height), Image.BOX), dtype=np.float64) / 255.0
    return grey @ np.array([0.2126, 0.7152, 0.0722])


def incidence_deg(depth, fx, fy, cx, cy):
    """Angle between each pixel's surface normal (from central differences of its back-projected
    neighbours) and the ray back to the camera, degrees; 90 where a neighbour has no depth."""
    height, width = depth.shape
    v, u = np.mgrid[0:height, 0:width].astype(np.float64)
    points = np.stack([(u + 0.5 - cx) / fx * depth, (v + 0.5 - cy) / fy * depth, depth], axis=-1)
    du = np.zeros_like(points)
    dv = np.zeros_like(points)
    du[:, 1:-1] = points[:, 2:] - points[:, :-2]
    dv[1:-1, :] = points[2:, :] - points[:-2, :]
    normal = np.cross(du, dv)
    length = np.linalg.norm(normal, axis=-1)
    ray = points / np.maximum(np.linalg.norm(points, axis=-1, keepdims=True), 1e-12)
    with np.errstate(all="ignore"):
        cosine = np.abs(np.sum(normal * ray, axis=-1)) / length
    angle = np.degrees(np.arccos(np.clip(np.nan_to_num(cosine, nan=0.0), 0.0, 1.0)))
    valid = depth > 0
    neighbours = np.zeros_like(valid)
    neighbours[1:-1, 1:-1] = (valid[1:-1, :-2] & valid[1:-1, 2:] & valid[:-2, 1:-1] & valid[2:, 1:-1])
    return np.where(neighbours & (length > 0), angle, 90.0)


def blobs(rng, width, height):
    """A mask of a Poisson number of dropout discs."""
    mask = np.zeros((height, width), dtype=bool)
    v, u = np.mgrid[0:height, 0:width]
    for _ in range(rng.poisson(BLOBS_PER_FRAME)):
        x, y, r = rng.uniform(0, width), rng.uniform(0, height), rng.uniform(2.0, 8.0)
        mask |= (u - x) ** 2 + (v - y) ** 2 <= r * r
    return mask


def dilate(mask):
    """Pixels of `mask` and their 8 neighbours."""
    grown = mask.copy()
    padded = np.pad(mask, 1)
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            grown |= padded[1 + dy:1 + dy + mask.shape[0], 1 + dx:1 + dx + mask.shape[1]]
    return grown


def simulate(true_m, image, intrinsics, width, height, rng):
    """(depth in metres with 0 = none, confidence 0/1/2, shares of pixels lost {reason: share})."""
    fx, fy, cx, cy = intrinsics
    sx, sy = width / true_m.shape[1], height / true_m.shape[0]
    depth = resample_depth(true_m, width, height)
    surface = depth > 0
    angle = incidence_deg(depth, fx * sx, fy * sy, cx * sx, cy * sy)
    luma = luminance(image, width, height)
    dark_drop = np.clip((DIM_LUMA - luma) / (DIM_LUMA - DARK_LUMA), 0.0, 1.0)
    dark = rng.uniform(size=depth.shape) < dark_drop
    glancing = angle > GLANCING_DEG
    far = depth > MAX_RANGE_M
    dropped = blobs(rng, width, height)
    sigma = NOISE_NEAR + (NOISE_FAR - NOISE_NEAR) * np.clip(depth / NOISE_FAR_M, 0.0, 1.0)
    noisy = depth * (1.0 + sigma * rng.standard_normal(depth.shape))
    hole = ~surface | dark | glancing | far | dropped
    noisy[hole] = 0.0
    confidence = np.full(depth.shape, 2, dtype=np.uint8)
    confidence[dilate(hole) | (angle > MEDIUM_INCIDENCE_DEG) | (depth > CONFIDENT_RANGE_M)] = 1
    confidence[hole] = 0
    total = max(int(surface.sum()), 1)
    lost = {"dark": float((surface & dark).sum() / total), "glancing": float((surface & glancing).sum() / total),
            "range": float((surface & far).sum() / total), "blobs": float((surface & dropped).sum() / total),
            "all": float((surface & hole).sum() / total)}
    return noisy, confidence, lost


def read_pinhole(gt_sparse):
    """fx, fy, cx, cy of the first camera of a COLMAP text model (PINHOLE, or SIMPLE_PINHOLE)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
    from pgscripts import read_cameras
    camera = next(iter(read_cameras(gt_sparse).values()))
    if camera.model == "PINHOLE":
        return tuple(camera.params[:4])
    if camera.model == "SIMPLE_PINHOLE":
        f, cx, cy = camera.params[:3]
        return f, f, cx, cy
    raise SystemExit(f"{gt_sparse}/cameras.txt: camera model {camera.model}; a pinhole camera is needed")


def write_png_atomically(array, path):
    """uint16 arrays become 16-bit greyscale PNGs, uint8 arrays 8-bit ones."""
    temporary = path.with_name(path.name + ".tmp.png")
    Image.fromarray(array).save(temporary)
    temporary.replace(path)


def main(argv=None):
    args = parse_arguments(argv)
    images, true_depth = args.capture / "images", args.capture / "depth"
    if not images.is_dir() or not true_depth.is_dir():
        raise SystemExit(f"{args.capture}: needs images/ and depth/ (true depth in millimetres)")
    if args.out.resolve() == args.capture.resolve():
        raise SystemExit(f"{args.out}: the output must not be the capture itself")
    intrinsics = read_pinhole(args.capture / "gt_sparse")
    rng = np.random.default_rng(args.seed)
    for folder in ("images", "depth", "depth_confidence"):
        shutil.rmtree(args.out / folder, ignore_errors=True)
    (args.out / "SOURCE.md").unlink(missing_ok=True)  # the capture is complete only once SOURCE.md is written again
    (args.out / "images").mkdir(parents=True)
    (args.out / "depth").mkdir()
    if not args.no_confidence:
        (args.out / "depth_confidence").mkdir()
    lost_sum, frames = {}, 0
    for image_path in sorted(p for p in images.iterdir() if p.suffix.lower() in (".jpg", ".jpeg", ".png")):
        depth_path = true_depth / (image_path.stem + ".png")
        if not depth_path.exists():
            raise SystemExit(f"{depth_path}: missing (every image needs its true depth)")
        true_m = np.asarray(Image.open(depth_path), dtype=np.float64) / 1000.0
        image = Image.open(image_path)
        if image.size != (true_m.shape[1], true_m.shape[0]):
            raise SystemExit(f"{depth_path}: {true_m.shape[1]}x{true_m.shape[0]}, its image is {image.size[0]}x{image.size[1]}")
        depth, confidence, lost = simulate(true_m, image, intrinsics, args.width, args.height, rng)
        shutil.copyfile(image_path, args.out / "images" / image_path.name)
        write_png_atomically(np.clip(np.rint(depth * 1000.0), 0, 65535).astype(np.uint16), args.out / "depth" / (image_path.stem + ".png"))
        if not args.no_confidence:
            write_png_atomically(confidence, args.out / "depth_confidence" / (image_path.stem + ".png"))
        for key, value in lost.items():
            lost_sum[key] = lost_sum.get(key, 0.0) + value
        frames += 1
    for extra in ("gt_sparse",):
        if (args.capture / extra).is_dir():
            shutil.copytree(args.capture / extra, args.out / extra, dirs_exist_ok=True)
    if (args.capture / "gt_mesh.ply").exists():
        shutil.copyfile(args.capture / "gt_mesh.ply", args.out / "gt_mesh.ply")
    mean = {key: 100.0 * value / max(frames, 1) for key, value in lost_sum.items()}
    command = " ".join(["scripts/data/simulate-phone-depth.py", str(args.capture), str(args.out),
                        f"--width {args.width} --height {args.height} --seed {args.seed}"]
                       + (["--no-confidence"] if args.no_confidence else []))
    (args.out / "SOURCE.md").write_text(f"""# {args.capture.name} with a simulated phone LiDAR's depth

Made by `{command}` from {args.capture}'s images (copied) and true depth.

- images/: the capture's {frames} images, unchanged.
- depth/<stem>.png: uint16 millimetres, 0 = no depth, {args.width}x{args.height}: each pixel the median of
  the true depths in its footprint, times 1 + N(0, s) with s from {100 * NOISE_NEAR:g} % near the camera to
  {100 * NOISE_FAR:g} % at {NOISE_FAR_M:g} m and beyond; holes on dark surfaces (luminance below {DARK_LUMA}, some
  up to {DIM_LUMA}), on surfaces seen beyond {GLANCING_DEG:g} degrees of incidence (occlusion edges among them),
  beyond {MAX_RANGE_M:g} m, and in about {BLOBS_PER_FRAME:g} random blobs a frame. Of the pixels that see a surface,
  {mean['all']:.1f} % are holes on average (dark {mean['dark']:.1f} %, glancing {mean['glancing']:.1f} %,
  range {mean['range']:.1f} %, blobs {mean['blobs']:.1f} %; a pixel may have several reasons).
""" + ("" if args.no_confidence else f"""- depth_confidence/<stem>.png: uint8 as ARKit's confidence: 0 where there is no depth, 1 within one pixel
  of a hole, beyond {MEDIUM_INCIDENCE_DEG:g} degrees of incidence or beyond {CONFIDENT_RANGE_M:g} m, else 2.
""") + """- gt_sparse/, gt_mesh.ply: the capture's ground truth, copied.

The script's docstring says why each effect is made the way it is.
""")
    print(f"{frames} frames into {args.out}: holes {mean['all']:.1f} % of surface pixels "
          f"(dark {mean['dark']:.1f}, glancing {mean['glancing']:.1f}, range {mean['range']:.1f}, blobs {mean['blobs']:.1f})")


if __name__ == "__main__":
    main()
