#!/usr/bin/env python3
"""Captures of kinds the shared datasets lack, built from them for scripts/bench/sparse.py.

Usage: scripts/data/make-captures.py [--out DIR] [--only NAME,NAME] [--datasets DIR] [--no-checks | --check-only]

Writes DIR/<name>/ (default DIR: out/captures in the repository, ignored by git) with images/,
gt_sparse/ (COLMAP text: cameras.txt, images.txt, empty points3D.txt, exactly the frames written)
and SOURCE.md (how it was made), from ../shared/datasets:

  video-orbit       a video-like fly-around: the 16 views of synthetic-orbit's middle ring (about
                    31 degrees up, 22.5 degrees apart) with in-between frames synthesized along
                    slerp/lerp-interpolated poses by depth-based warping of the nearest rendered
                    views; pauses (near-duplicate frames) and a few frames with motion blur;
                    640x360 JPEG quality 85, frame_0000.jpg ... in video order; contact-sheet.png.
  cutout-orbit      synthetic-orbit as RGBA cut-outs (PNG, alpha = masks/, RGB under transparent
                    pixels black), same size and poses; no masks/.
  lowtex-orbit      synthetic-orbit with its textures flattened (depth-guided filter, a little
                    of the detail kept) to a few hundred SIFT features per image; no masks.
  lowtex-turntable  the same for synthetic-turntable (fixed camera, turning object); no masks.
  fewviews-gray     6 consecutive views of fountain-P11, grey (L JPEG), centre crop 2448x1632
                    (4.0 MP), the principal point moved by the crop.

Deterministic: one seed, no clock. After each capture a check proves its ground truth: gt_sparse is
read back with pycolmap, gt_mesh_object vertices are projected into a few frames and must land in
the object's mask (the alpha, the source masks, or the mask warped along with the frame), and SIFT
matches between frame pairs must lie on the epipolar lines gt_sparse predicts (how many within 1 px,
beside the same with one camera tilted by 1 degree). Needs numpy, scipy, Pillow and pycolmap.
"""

import argparse
import json
import math
import os
import shutil
import sys
import time
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw
from scipy import ndimage

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "lib"))
from pgscripts import (read_cameras, read_images, rotation_to_quaternion,  # noqa: E402
                       unit_quaternion_to_rotation)
from pgsift import sift_features  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
DATASETS = (REPO / ".." / "shared" / "datasets").resolve()
SEED = 9
CAPTURES = ["video-orbit", "cutout-orbit", "lowtex-orbit", "lowtex-turntable", "fewviews-gray"]

# video-orbit
VIDEO_RING = range(16, 32)      # synthetic-orbit's middle ring, in ascending azimuth; 31 -> 16 closes it
VIDEO_STEPS_PER_GAP = 7         # frames per 22.5-degree gap: 112 on the loop, 3.2 degrees apart
VIDEO_PAUSES = 4                # places where the camera nearly stops ...
VIDEO_PAUSE_FRAMES = 2          # ... for this many extra frames, each 1 % of a gap further
VIDEO_BLURRED = 8               # frames with motion blur ...
VIDEO_SHUTTER = 0.3             # ... exposed for this fraction of the frame interval (a 108-degree shutter)
VIDEO_SOURCES = 5               # rendered views warped into each synthesized frame (nearest centres)
VIDEO_CROP = (0, 75, 800, 525)  # 16:9 band of the 800x600 renders (left, top, right, bottom) ...
VIDEO_SIZE = (640, 360)         # ... scaled to this, as phone video is
# 640x360 and 120 frames keep COLMAP near 10 minutes on 2 cores: the rendered ground is rich (about
# 7,000 COLMAP SIFT features per 640x480 frame); at 640x360 its exhaustive matching of the 7,140
# pairs took 8 minutes on 2 cores shared with other work, the whole COLMAP run 15.
VIDEO_JPEG_QUALITY = 85

# lowtex-*
LOWTEX_RADIUS = 24              # guided-filter window radius (pixels), guide = log depth
LOWTEX_EPS = 1e-4               # guided-filter regulariser, (log depth)^2
LOWTEX_TARGET_FEATURES = 200    # median COLMAP SIFT features per image the detail gain is chosen for

# fewviews-gray
FEWVIEWS_FIRST = 3              # fountain-P11 views 0003 ... 0008
FEWVIEWS_COUNT = 6
FEWVIEWS_SIZE = (2448, 1632)    # centre crop, 4.0 MP


# ---------------------------------------------------------------------------------------------
# Rotations, COLMAP text models


def quat_to_matrix(q):
    """Rotation matrix of a Hamilton quaternion (w, x, y, z), normalised by numpy's norm."""
    w, x, y, z = np.asarray(q, float) / np.linalg.norm(q)
    return np.array(unit_quaternion_to_rotation(w, x, y, z))


def matrix_to_quat(m):
    """Hamilton quaternion (w, x, y, z), w >= 0, of a rotation matrix, normalised by numpy's norm."""
    q = np.array(rotation_to_quaternion(np.asarray(m, float)))
    return q / np.linalg.norm(q)


def slerp(q0, q1, s):
    dot = float(np.dot(q0, q1))
    if dot < 0:
        q1, dot = -q1, -dot
    if dot > 0.99995:
        q = q0 + s * (q1 - q0)
        return q / np.linalg.norm(q)
    angle = math.acos(dot)
    return (math.sin((1 - s) * angle) * q0 + math.sin(s * angle) * q1) / math.sin(angle)


class Pose:
    """World-to-camera rotation R and translation t (X_cam = R X_world + t)."""

    def __init__(self, R, t):
        self.R = np.asarray(R, float)
        self.t = np.asarray(t, float)

    @property
    def centre(self):
        return -self.R.T @ self.t

    @staticmethod
    def from_centre(R, centre):
        R = np.asarray(R, float)
        return Pose(R, -R @ np.asarray(centre, float))

    def interpolate(self, other, s):
        """Rotation by slerp, centre by lerp."""
        R = quat_to_matrix(slerp(matrix_to_quat(self.R), matrix_to_quat(other.R), s))
        return Pose.from_centre(R, (1 - s) * self.centre + s * other.centre)


def read_model(folder: Path):
    """cameras {id: Camera} and images [(name, Pose, camera id)] of a COLMAP text model."""
    images = [(image.name, Pose(quat_to_matrix(image.qvec), image.t), image.camera_id)
              for image in read_images(folder)]
    return read_cameras(folder), images


def write_model(folder: Path, camera, images):
    """One camera (model, width, height, params) and images [(name, Pose)] as a COLMAP text model
    with no points."""
    folder.mkdir(parents=True, exist_ok=True)
    model, width, height, params = camera
    (folder / "cameras.txt").write_text(
        "# Camera list with one line of data per camera:\n#   CAMERA_ID, MODEL, WIDTH, HEIGHT, PARAMS[]\n"
        f"# Number of cameras: 1\n1 {model} {width} {height} " + " ".join(f"{p:.10f}" for p in params) + "\n")
    lines = ["# Image list with two lines of data per image:",
             "#   IMAGE_ID, QW, QX, QY, QZ, TX, TY, TZ, CAMERA_ID, NAME",
             "#   POINTS2D[] as (X, Y, POINT3D_ID)",
             f"# Number of images: {len(images)}, mean observations per image: 0"]
    for number, (name, pose) in enumerate(images, 1):
        q = matrix_to_quat(pose.R)
        lines.append(f"{number} " + " ".join(f"{v:.15f}" for v in q) + " "
                     + " ".join(f"{v:.12f}" for v in pose.t) + f" 1 {name}")
        lines.append("")
    (folder / "images.txt").write_text("\n".join(lines) + "\n")
    (folder / "points3D.txt").write_text(
        "# 3D point list with one line of data per point:\n"
        "#   POINT3D_ID, X, Y, Z, R, G, B, ERROR, TRACK[] as (IMAGE_ID, POINT2D_IDX)\n"
        "# Number of points: 0, mean track length: 0\n")


def pinhole_matrix(camera):
    model, _, _, p = camera
    if model == "PINHOLE":
        return np.array([[p[0], 0, p[2]], [0, p[1], p[3]], [0, 0, 1]])
    if model == "SIMPLE_PINHOLE":
        return np.array([[p[0], 0, p[1]], [0, p[0], p[2]], [0, 0, 1]])
    raise ValueError(f"camera model {model}: only pinhole cameras are handled")


def read_ply_vertices(path: Path):
    """x, y, z float32 vertices of a binary little-endian PLY whose vertex element comes first."""
    with open(path, "rb") as f:
        header = []
        while True:
            line = f.readline().decode("ascii").strip()
            header.append(line)
            if line == "end_header":
                break
        count = next(int(l.split()[2]) for l in header if l.startswith("element vertex"))
        properties = []
        for l in header[header.index(next(l for l in header if l.startswith("element vertex"))) + 1:]:
            if not l.startswith("property"):
                break
            properties.append(l.split())
        if "binary_little_endian" not in header[1] or [p[1] for p in properties[:3]] != ["float"] * 3:
            raise ValueError(f"{path}: expected binary little-endian float x y z vertices")
        if len(properties) != 3:
            raise ValueError(f"{path}: vertices with properties beyond x y z are not handled")
        return np.frombuffer(f.read(12 * count), dtype="<f4").reshape(count, 3).astype(float)


# ---------------------------------------------------------------------------------------------
# Rendered views and depth-based warping


class View:
    """One rendered frame: colour + mask as float RGBA, z-depth in metres (0 = none), pose, and its
    surface points in world coordinates."""

    def __init__(self, dataset: Path, frame: dict, K):
        self.name = Path(frame["image"]).name
        rgb = np.asarray(Image.open(dataset / frame["image"]).convert("RGB"), np.float32)
        mask = np.asarray(Image.open(dataset / frame["mask"]), np.float32) / 255
        self.rgba = np.concatenate([rgb, mask[..., None]], axis=-1)
        self.depth = np.asarray(Image.open(dataset / frame["depth"]), np.float32) / 1000
        self.pose = Pose(frame["R"], frame["t"])
        height, width = self.depth.shape
        rays = pixel_rays(K, width, height)
        valid = self.depth > 0
        camera_points = rays[valid] * self.depth[valid][:, None]
        self.points = (camera_points - self.pose.t) @ self.pose.R  # R^T (X_cam - t)


def pixel_rays(K, width, height):
    """K^-1 (col + 0.5, row + 0.5, 1) per pixel (COLMAP's pixel convention), H x W x 3."""
    u, v = np.meshgrid(np.arange(width) + 0.5, np.arange(height) + 0.5)
    return np.stack([(u - K[0, 2]) / K[0, 0], (v - K[1, 2]) / K[1, 1], np.ones_like(u)], axis=-1)


def project(K, points):
    z = points[..., 2]
    with np.errstate(divide="ignore", invalid="ignore"):
        return K[0, 0] * points[..., 0] / z + K[0, 2], K[1, 1] * points[..., 1] / z + K[1, 2], z


def sample_bilinear(image, x, y):
    """image (H x W x C) at continuous pixel coordinates (COLMAP convention), clamped at the border."""
    height, width = image.shape[:2]
    x = np.clip(x - 0.5, 0, width - 1.001)
    y = np.clip(y - 0.5, 0, height - 1.001)
    x0, y0 = np.floor(x).astype(int), np.floor(y).astype(int)
    fx, fy = (x - x0)[..., None], (y - y0)[..., None]
    top = image[y0, x0] * (1 - fx) + image[y0, x0 + 1] * fx
    bottom = image[y0 + 1, x0] * (1 - fx) + image[y0 + 1, x0 + 1] * fx
    return top * (1 - fy) + bottom * fy


def neighbourhood(array):
    """The 8 neighbours of every pixel, 8 x H x W (zero outside)."""
    padded = np.pad(array, 1)
    h, w = array.shape
    return np.stack([padded[1 + dr:1 + dr + h, 1 + dc:1 + dc + w]
                     for dr in (-1, 0, 1) for dc in (-1, 0, 1) if dr or dc])


def fill_holes(image, known, iterations=200):
    """Fills unknown pixels from the mean of their known neighbours, growing inwards."""
    image = image.copy()
    known = known.copy()
    for _ in range(iterations):
        if known.all():
            break
        weight = ndimage.uniform_filter(known.astype(np.float64), 3)
        values = np.where(known[..., None], image, 0)
        total = np.stack([ndimage.uniform_filter(values[..., c].astype(np.float64), 3)
                          for c in range(image.shape[-1])], axis=-1)
        grow = ~known & (weight > 0.05)
        image[grow] = total[grow] / weight[grow][:, None]
        known |= grow
    if not known.all():
        image[~known] = image[known].mean(axis=0)
    return image


def synthesize(pose: Pose, sources, weights, K, width, height, rays):
    """The view from `pose`, warped from rendered `sources` (Views) blended by `weights`.

    1. Every source's surface points are projected into the new view; a z-buffer keeps the nearest
       (forward splat). A pixel left empty, or far behind the surface of most of its neighbours (a
       crack the splat left in a magnified surface), takes the median depth of those neighbours.
    2. Each pixel's point is projected back into every source; a source whose depth at the four
       pixels around it agrees (1 % + 1 cm) sees it, and its colour is sampled bilinearly; one whose
       depth agrees at some of them gives that pixel's colour at 1 % of its weight. Pixels with no surface look
       through to the sky: sampled along the same direction (rotation only) where a source has no
       depth there. Visible samples are blended by the sources' weights.
    3. Pixels no source sees (disocclusions all sources miss) are filled from their neighbours.

    Returns RGBA (float, 0-255 colour, 0-1 mask) and the fraction of pixels filled in step 3.
    """
    zbuffer = np.full(height * width, np.inf)
    for view in sources:
        x, y, z = project(K, view.points @ pose.R.T + pose.t)
        col, row = np.floor(x), np.floor(y)
        inside = (z > 0) & (col >= 0) & (col < width) & (row >= 0) & (row < height)
        np.minimum.at(zbuffer, (row[inside] * width + col[inside]).astype(np.int64), z[inside])
    depth = zbuffer.reshape(height, width)
    depth[~np.isfinite(depth)] = 0
    for _ in range(2):
        around = neighbourhood(depth)
        nearest = np.where(around > 0, around, np.inf).min(axis=0)
        near = (around > 0) & (around < nearest * 1.03 + 0.01)
        crack = ((depth == 0) | (depth > nearest * 1.05 + 0.02)) & (near.sum(axis=0) >= 5)
        if not crack.any():
            break
        depth[crack] = np.nanmedian(np.where(near, around, np.nan)[:, crack], axis=0)

    surface = depth > 0
    world = (rays * depth[..., None] - pose.t) @ pose.R
    directions = rays @ pose.R
    total = np.zeros((height, width, 4))
    weight_sum = np.zeros((height, width))
    for view, weight in zip(sources, weights):
        src_h, src_w = view.depth.shape
        x, y, z = project(K, world @ view.pose.R.T + view.pose.t)
        inside = surface & (z > 0) & (x >= 0) & (x < src_w) & (y >= 0) & (y < src_h)
        col = np.clip(np.floor(x - 0.5), 0, src_w - 2).astype(int)
        row = np.clip(np.floor(y - 0.5), 0, src_h - 2).astype(int)
        corners = np.stack([view.depth[row, col], view.depth[row, col + 1],
                            view.depth[row + 1, col], view.depth[row + 1, col + 1]])
        agree = np.abs(corners - z) < 0.01 * z + 0.01
        sees = inside & agree.all(axis=0)
        # Near the view's own depth edges only some of the four pixels around the point agree: the
        # nearest of those, at a small weight, so that a view that sees the point clearly wins.
        partly = inside & agree.any(axis=0) & ~sees
        nearest_corner = np.argmin(np.where(agree, np.abs(corners - z), np.inf), axis=0)
        xr, yr, zr = project(K, directions @ view.pose.R.T)
        col_r = np.clip(np.floor(xr), 0, src_w - 1).astype(int)
        row_r = np.clip(np.floor(yr), 0, src_h - 1).astype(int)
        sky = (~surface & (zr > 0) & (xr >= 0) & (xr < src_w) & (yr >= 0) & (yr < src_h)
               & (view.depth[row_r, col_r] == 0))
        used = sees | sky
        if used.any():
            sample = sample_bilinear(view.rgba, np.where(sees, x, xr)[used], np.where(sees, y, yr)[used])
            total[used] += sample * weight
            weight_sum[used] += weight
        if partly.any():
            corner = nearest_corner[partly]
            sample = view.rgba[row[partly] + corner // 2, col[partly] + corner % 2]
            total[partly] += sample * (0.01 * weight)
            weight_sum[partly] += 0.01 * weight
    known = weight_sum > 0
    out = np.zeros((height, width, 4))
    out[known] = total[known] / weight_sum[known][:, None]
    hole_fraction = 1 - known.mean()
    return fill_holes(out, known), hole_fraction


# ---------------------------------------------------------------------------------------------
# Captures


def load_synthetic(dataset: Path):
    cameras = json.loads((dataset / "cameras.json").read_text())
    intrinsics = cameras["intrinsics"]
    K = np.array(intrinsics["K"], float)
    return cameras, K, intrinsics["width"], intrinsics["height"]


def to_uint8(image):
    return np.clip(np.rint(image), 0, 255).astype(np.uint8)


def video_timeline(rng):
    """Frames as (tau, kind): tau in key-frame gaps along the ring (0 = first key, 16 = back at it);
    kind key | between | pause | blurred."""
    gaps = len(VIDEO_RING)
    steps = VIDEO_STEPS_PER_GAP
    base = [(i / steps, "key" if i % steps == 0 else "between") for i in range(gaps * steps)]
    candidates = [i for i in range(len(base)) if base[i][1] == "between"]
    pauses = set(rng.choice(candidates, VIDEO_PAUSES, replace=False).tolist())
    blurred = set(rng.choice([i for i in candidates if i not in pauses], VIDEO_BLURRED, replace=False).tolist())
    frames = []
    for i, (tau, kind) in enumerate(base):
        frames.append((tau, "blurred" if i in blurred else kind))
        if i in pauses:
            frames += [(tau + 0.01 * (k + 1), "pause") for k in range(VIDEO_PAUSE_FRAMES)]
    return frames


def make_video_orbit(capture: str, dataset: Path, out: Path, rng, log):
    cameras, K, width, height = load_synthetic(dataset)
    frames = cameras["frames"]
    ring = list(VIDEO_RING)
    all_poses = [Pose(f["R"], f["t"]) for f in frames]
    centres = np.array([p.centre for p in all_poses])
    views = {}

    def view(index):
        if index not in views:
            views[index] = View(dataset, frames[index], K)
        return views[index]

    rays = pixel_rays(K, width, height)
    left, top, right, bottom = VIDEO_CROP
    scale_x, scale_y = VIDEO_SIZE[0] / (right - left), VIDEO_SIZE[1] / (bottom - top)

    def pose_at(tau):
        gap = int(math.floor(tau)) % len(ring)
        s = tau - math.floor(tau)
        a, b = all_poses[ring[gap]], all_poses[ring[(gap + 1) % len(ring)]]
        return a.interpolate(b, s), gap, s

    def render(tau):
        """RGBA at the source size, the sources used and the hole fraction."""
        pose, gap, s = pose_at(tau)
        if s < 1e-9:
            return view(ring[gap]).rgba.astype(np.float64), [Path(frames[ring[gap]]["image"]).name], 0.0
        spacing = np.linalg.norm(all_poses[ring[gap]].centre - all_poses[ring[(gap + 1) % len(ring)]].centre)
        distances = np.linalg.norm(centres - pose.centre, axis=1)
        chosen = np.argsort(distances)[:VIDEO_SOURCES]
        sigma = 0.5 * spacing
        weights = np.exp(-(distances[chosen] / sigma) ** 2) + 1e-12
        image, holes = synthesize(pose, [view(i) for i in chosen], weights, K, width, height, rays)
        return image, [Path(frames[i]["image"]).name for i in chosen], holes

    timeline = video_timeline(rng)
    images_dir = out / "images"
    images_dir.mkdir(parents=True)
    records, gt_images = [], []
    start = time.perf_counter()
    frame_interval = 1 / VIDEO_STEPS_PER_GAP
    for number, (tau, kind) in enumerate(timeline):
        name = f"frame_{number:04d}.jpg"
        if kind == "blurred":
            offsets = np.linspace(-0.5, 0.5, 5) * VIDEO_SHUTTER * frame_interval
            parts = [render(tau + o) for o in offsets]
            image = np.mean([p[0] for p in parts], axis=0)
            used = sorted({n for p in parts for n in p[1]})
            holes = max(p[2] for p in parts)
        else:
            image, used, holes = render(tau)
        small = Image.fromarray(to_uint8(image[..., :3])).crop(VIDEO_CROP).resize(VIDEO_SIZE, Image.LANCZOS)
        small.save(images_dir / name, quality=VIDEO_JPEG_QUALITY)
        pose, gap, s = pose_at(tau)
        gt_images.append((name, pose))
        records.append({"name": name, "tau": round(tau, 6), "kind": kind, "holes": holes,
                        "sources": used})
        if number % 20 == 0:
            log(f"  video-orbit: {number + 1}/{len(timeline)} frames ({time.perf_counter() - start:.0f} s)")
    fx, fy, cx, cy = K[0, 0] * scale_x, K[1, 1] * scale_y, (K[0, 2] - left) * scale_x, (K[1, 2] - top) * scale_y
    write_model(out / "gt_sparse", ("PINHOLE", VIDEO_SIZE[0], VIDEO_SIZE[1], [fx, fy, cx, cy]), gt_images)
    with open(out / "frames.csv", "w") as f:
        f.write("name,tau,kind,hole_fraction,sources\n")
        for r in records:
            f.write(f"{r['name']},{r['tau']},{r['kind']},{r['holes']:.5f},{' '.join(r['sources'])}\n")
    write_contact_sheet(out, records)

    holes = np.array([r["holes"] for r in records if r["kind"] != "key"])
    kinds = {k: sum(1 for r in records if r["kind"] == k) for k in ("key", "between", "pause", "blurred")}
    leave_one_out = leave_one_out_psnr(dataset, frames, all_poses, centres, ring, K, width, height, rays, view)
    (out / "SOURCE.md").write_text(f"""video-orbit: a video-like fly-around made by scripts/data/make-captures.py (seed {SEED}) from
../shared/datasets/synthetic-orbit (rendered with Blender; see its SOURCE.md).

{len(records)} frames {VIDEO_SIZE[0]}x{VIDEO_SIZE[1]}, JPEG quality {VIDEO_JPEG_QUALITY}, images/frame_0000.jpg ... in video order: one loop
around the middle ring of synthetic-orbit (its frames {ring[0]:04d} ... {ring[-1]:04d}, about 31 degrees up,
22.5 degrees apart in azimuth, with the renderer's jitter in height, distance and roll), back to the start.
{VIDEO_STEPS_PER_GAP} frames per gap between rendered ring views (about {22.5 / VIDEO_STEPS_PER_GAP:.1f} degrees apart): the rendered view itself
({kinds['key']} frames) and in-between frames at poses interpolated between the two ring views (rotation by
slerp, centre by lerp). {VIDEO_PAUSES} pauses of {VIDEO_PAUSE_FRAMES} extra frames each (the camera nearly stops: 1 % of a
gap per frame) give {kinds['pause']} near-duplicates; {kinds['blurred']} frames have motion blur (mean of 5 views spread over
{VIDEO_SHUTTER:g} of the frame interval, pose in the middle).

In-between frames are synthesized at 800x600 from the {VIDEO_SOURCES} rendered views of synthetic-orbit (any ring)
nearest in camera centre, by depth-based warping: forward splat of their depth maps (z-buffer, cracks
closed from neighbours), then each pixel's colour sampled back from the views that see it (depth test),
blended with weights exp(-(d/sigma)^2) of the view's distance d (sigma = half the ring spacing); sky
through a rotation-only lookup; pixels no view sees filled from their neighbours (mean fraction
{holes.mean() * 100:.2f} %, worst frame {holes.max() * 100:.2f} %). Every frame is then cut to the 16:9 band
{VIDEO_CROP} (left, top, right, bottom) of the 800x600 view and scaled (Lanczos) to {VIDEO_SIZE[0]}x{VIDEO_SIZE[1]}.
Leave-one-out check of the warp: ring view {leave_one_out[0]} synthesized from the other rendered views
(nearest {leave_one_out[1]:.2f} m away; an in-between frame is never further than half a gap, about
{leave_one_out[3]:.2f} m, from one) differs from its render by PSNR {leave_one_out[2]:.1f} dB.

gt_sparse/: the poses of exactly these frames, one PINHOLE camera cropped and scaled by {scale_x:g} x {scale_y:g}
(fx = fy = {fx:.6f}, cx = {cx:g}, cy = {cy:g}; COLMAP pixel convention). frames.csv: per frame
its place along the ring (tau, in gaps), kind (key | between | pause | blurred), filled fraction, and
the rendered views it was warped from. contact-sheet.png: every 4th frame and every pause and blurred
frame, for a look by eye. No masks.
""")
    return len(records)


def leave_one_out_psnr(dataset, frames, poses, centres, ring, K, width, height, rays, view):
    """One ring view synthesized from the others as the video's in-between frames are: PSNR
    against its render."""
    target = ring[1]
    distances = np.linalg.norm(centres - poses[target].centre, axis=1)
    distances[target] = np.inf
    chosen = np.argsort(distances)[:VIDEO_SOURCES]
    spacing = np.linalg.norm(poses[ring[0]].centre - poses[ring[1]].centre)
    weights = np.exp(-(distances[chosen] / (0.5 * spacing)) ** 2) + 1e-12
    image, _ = synthesize(poses[target], [view(i) for i in chosen], weights, K, width, height, rays)
    truth = view(target).rgba[..., :3]
    error = np.mean((np.clip(image[..., :3], 0, 255) - truth) ** 2)
    return Path(frames[target]["image"]).name, distances[chosen[0]], 10 * math.log10(255 ** 2 / error), spacing / 2


def write_contact_sheet(out: Path, records):
    chosen = [r for i, r in enumerate(records) if i % 4 == 0 or r["kind"] in ("pause", "blurred")]
    tile_w, tile_h, columns = 240, 135, 8
    rows = (len(chosen) + columns - 1) // columns
    sheet = Image.new("RGB", (columns * tile_w, rows * (tile_h + 14)), "white")
    draw = ImageDraw.Draw(sheet)
    for i, r in enumerate(chosen):
        tile = Image.open(out / "images" / r["name"]).convert("RGB").resize((tile_w, tile_h), Image.BILINEAR)
        x, y = (i % columns) * tile_w, (i // columns) * (tile_h + 14)
        sheet.paste(tile, (x, y + 14))
        draw.text((x + 2, y + 1), f"{r['name'][6:10]} {r['kind']}", fill="black")
    sheet.save(out / "contact-sheet.png")


def make_cutout_orbit(capture: str, dataset: Path, out: Path, rng, log):
    cameras, images = read_model(dataset / "gt_sparse")
    images_dir = out / "images"
    images_dir.mkdir(parents=True)
    gt = []
    for name, pose, _ in images:
        rgb = np.asarray(Image.open(dataset / "images" / name).convert("RGB"))
        alpha = np.asarray(Image.open(dataset / "masks" / (Path(name).stem + ".png")).convert("L"))
        alpha = np.where(alpha >= 128, 255, 0).astype(np.uint8)
        rgba = np.concatenate([np.where(alpha[..., None] > 0, rgb, 0), alpha[..., None]], axis=-1)
        png = Path(name).stem + ".png"
        Image.fromarray(rgba.astype(np.uint8), "RGBA").save(images_dir / png)
        gt.append((png, pose))
    write_model(out / "gt_sparse", cameras[min(cameras)], gt)
    (out / "SOURCE.md").write_text(f"""cutout-orbit: RGBA cut-outs as object-capture apps export them, made by scripts/data/make-captures.py from
../shared/datasets/synthetic-orbit (see its SOURCE.md).

{len(gt)} PNG RGBA images, 800x600 (the source size, no crop), images/NNNN.png: RGB of images/NNNN.jpg, alpha =
masks/NNNN.png (255 on the object: rock, box, pillar, ball, ring; 0 elsewhere, not anti-aliased), and the
RGB under transparent pixels set to black (0, 0, 0, 0), as premultiplied exports leave it. No masks/
folder and no mask.json: the alpha is the mask. gt_sparse/: synthetic-orbit's poses and PINHOLE camera,
the image names changed to .png.
""")
    return len(gt)


def box_filter(x, radius):
    return ndimage.uniform_filter(x, 2 * radius + 1, mode="reflect")


def guided_filter(guide, image, radius, eps):
    """He et al.'s guided filter of one channel by a grey guide."""
    mean_g, mean_i = box_filter(guide, radius), box_filter(image, radius)
    var_g = box_filter(guide * guide, radius) - mean_g * mean_g
    a = (box_filter(guide * image, radius) - mean_g * mean_i) / (var_g + eps)
    b = mean_i - a * mean_g
    return box_filter(a, radius) * guide + box_filter(b, radius)


def grey(rgb):
    return np.asarray(Image.fromarray(to_uint8(rgb)).convert("L"))


def make_lowtex(capture: str, dataset: Path, out: Path, rng, log):
    """Flat textures: a depth-guided filter keeps silhouettes and smooth shading and removes the
    albedo's detail; a fraction (the gain) of the detail is added back, the gain chosen by
    bisection so that COLMAP's SIFT finds about LOWTEX_TARGET_FEATURES per image."""
    cameras, images = read_model(dataset / "gt_sparse")
    bases, details = [], []
    for name, _, _ in images:
        rgb = np.asarray(Image.open(dataset / "images" / name).convert("RGB"), np.float64)
        depth = np.asarray(Image.open(dataset / "depth" / (Path(name).stem + ".png")), np.float64) / 1000
        guide = np.log(np.where(depth > 0, depth, 100.0))
        base = np.stack([guided_filter(guide, rgb[..., c], LOWTEX_RADIUS, LOWTEX_EPS) for c in range(3)], axis=-1)
        bases.append(base.astype(np.float32))
        details.append((rgb - base).astype(np.float32))
    probe = list(range(0, len(images), max(1, len(images) // 6)))

    def median_features(gain):
        return float(np.median([len(sift_features(grey(bases[i] + gain * details[i]))[0]) for i in probe]))

    low, high = 0.0, 0.5
    counts = {}
    for _ in range(8):
        gain = (low + high) / 2
        counts[gain] = median_features(gain)
        if counts[gain] < LOWTEX_TARGET_FEATURES:
            low = gain
        else:
            high = gain
    gain = min(counts, key=lambda g: abs(counts[g] - LOWTEX_TARGET_FEATURES))
    log(f"  {capture}: detail gain {gain:.4f} (median {counts[gain]:.0f} COLMAP SIFT features on {len(probe)} probe frames)")
    images_dir = out / "images"
    images_dir.mkdir(parents=True)
    features = []
    for (name, _, _), base, detail in zip(images, bases, details):
        image = to_uint8(base + gain * detail)
        Image.fromarray(image).save(images_dir / name, quality=95)
        features.append(len(sift_features(grey(np.asarray(Image.open(images_dir / name).convert("RGB"))))[0]))
    write_model(out / "gt_sparse", cameras[min(cameras)], [(n, p) for n, p, _ in images])
    original = [len(sift_features(grey(np.asarray(Image.open(dataset / "images" / images[i][0]).convert("RGB"))))[0])
                for i in probe]
    kind = ("a fixed camera and a turning object in front of a static background"
            if "turntable" in dataset.name else "an orbit of a rock and primitives on a ground plane")
    (out / "SOURCE.md").write_text(f"""{capture}: a low-texture capture made by scripts/data/make-captures.py from ../shared/datasets/{dataset.name}
({kind}; see its SOURCE.md).

{len(images)} JPEG images (quality 95), same names, size and poses as the source. Each image is flattened: a guided
filter (He et al.; window radius {LOWTEX_RADIUS} px, eps {LOWTEX_EPS:g}) of every colour channel with the log of the rendered
z-depth as the guide removes the albedo's texture while keeping silhouettes and depth-edges and smooth
shading; then {gain:.4f} x the removed detail is added back, the gain chosen by bisection so that COLMAP's SIFT
(pycolmap 4, default options) finds about {LOWTEX_TARGET_FEATURES} features per image. COLMAP SIFT features per image here:
median {np.median(features):.0f}, range {min(features)}-{max(features)} (the source: median {np.median(original):.0f} on {len(probe)} frames). No masks
(no masks/ and no mask.json), everything including the ground and the background is flattened.
gt_sparse/: the source's poses and PINHOLE camera.
""")
    return len(images)


def make_fewviews_gray(capture: str, dataset: Path, out: Path, rng, log):
    cameras, images = read_model(dataset / "gt_sparse")
    chosen = sorted(images, key=lambda i: i[0])[FEWVIEWS_FIRST:FEWVIEWS_FIRST + FEWVIEWS_COUNT]
    model, width, height, params = cameras[chosen[0][2]]
    if any(cameras[i[2]] != cameras[chosen[0][2]] for i in chosen) or model != "PINHOLE":
        raise ValueError(f"{dataset}: expected one PINHOLE camera")
    crop_w, crop_h = FEWVIEWS_SIZE
    left, top = (width - crop_w) // 2, (height - crop_h) // 2
    images_dir = out / "images"
    images_dir.mkdir(parents=True)
    for name, _, _ in chosen:
        image = Image.open(dataset / "images" / name).convert("L").crop((left, top, left + crop_w, top + crop_h))
        image.save(images_dir / name, quality=95)
    fx, fy, cx, cy = params
    write_model(out / "gt_sparse", ("PINHOLE", crop_w, crop_h, [fx, fy, cx - left, cy - top]),
                [(n, p) for n, p, _ in chosen])
    (out / "SOURCE.md").write_text(f"""fewviews-gray: few large grey views, made by scripts/data/make-captures.py from ../shared/datasets/{dataset.name}
(see its SOURCE.md).

{len(chosen)} consecutive views ({chosen[0][0]} ... {chosen[-1][0]}) of {width}x{height}, converted to grey (8-bit L JPEG, quality 95)
and cropped about the centre to {crop_w}x{crop_h} ({crop_w * crop_h / 1e6:.1f} MP; left {left}, top {top}). gt_sparse/: the source's
poses of these views, the PINHOLE camera with the principal point moved by the crop
(cx {cx:g} -> {cx - left:g}, cy {cy:g} -> {cy - top:g}).
""")
    return len(chosen)


# ---------------------------------------------------------------------------------------------
# Checks of the ground truth


def check_mesh_in_masks(capture: Path, mesh: Path, masks):
    """Fraction of gt mesh vertices that, projected through capture/gt_sparse (read by pycolmap),
    land inside the frame's object mask, for frames {name: bool mask}. With a wrong pose (or
    intrinsics, or names) the vertices scatter off the object."""
    import pycolmap
    model = pycolmap.Reconstruction(str(capture / "gt_sparse"))
    by_name = {image.name: image for image in model.images.values()}
    vertices = read_ply_vertices(mesh)
    results = []
    for name, mask in masks.items():
        image = by_name[name]
        camera = model.cameras[image.camera_id]
        cam_from_world = image.cam_from_world() if callable(image.cam_from_world) else image.cam_from_world
        matrix = cam_from_world.matrix()
        points = vertices @ matrix[:, :3].T + matrix[:, 3]
        pixels = camera.img_from_cam(points)
        col, row = np.floor(pixels[:, 0]).astype(int), np.floor(pixels[:, 1]).astype(int)
        h, w = mask.shape
        inside = (points[:, 2] > 0) & (col >= 0) & (col < w) & (row >= 0) & (row < h)
        hits = mask[row[inside], col[inside]]
        # Dilated by one pixel: the mask is sampled at pixel centres, vertices on the outline may
        # fall just outside it.
        dilated = ndimage.binary_dilation(mask, iterations=1)[row[inside], col[inside]]
        results.append((name, inside.sum(), hits.mean(), dilated.mean()))
    return results


def match_features(d1, d2, ratio=0.8):
    """Mutual nearest neighbours with Lowe's ratio test on L2-normalised descriptors."""
    a = d1.astype(np.float32)
    b = d2.astype(np.float32)
    a /= np.linalg.norm(a, axis=1, keepdims=True) + 1e-9
    b /= np.linalg.norm(b, axis=1, keepdims=True) + 1e-9
    similarity = a @ b.T
    best = np.argmax(similarity, axis=1)
    back = np.argmax(similarity, axis=0)
    top2 = np.sort(similarity, axis=1)[:, -2:] if similarity.shape[1] > 1 else None
    if top2 is None:
        return np.zeros((0, 2), int)
    distance = np.sqrt(np.maximum(0, 2 - 2 * top2))
    good = (back[best] == np.arange(len(a))) & (distance[:, 1] < ratio * distance[:, 0])
    return np.stack([np.nonzero(good)[0], best[good]], axis=1)


def check_epipolar(capture: Path, pairs):
    """For image pairs by index in gt_sparse's order: SIFT matches and their symmetric distance (px)
    to the epipolar lines of the fundamental matrix gt_sparse implies. Correct poses put the bulk of
    the matches within a pixel; a wrong pose leaves them tens of pixels away."""
    import pycolmap
    model = pycolmap.Reconstruction(str(capture / "gt_sparse"))
    images = sorted(model.images.values(), key=lambda i: i.image_id)
    results = []
    for i, j in pairs:
        sides = []
        for image in (images[i], images[j]):
            pixels = np.asarray(Image.open(capture / "images" / image.name).convert("L"))
            keypoints, descriptors = sift_features(pixels)
            camera = model.cameras[image.camera_id]
            cam_from_world = image.cam_from_world() if callable(image.cam_from_world) else image.cam_from_world
            sides.append((keypoints[:, :2].astype(float), descriptors, camera.calibration_matrix(),
                          cam_from_world.matrix()))
        (k1, d1, K1, P1), (k2, d2, K2, P2) = sides
        matches = match_features(d1, d2)
        x1 = np.column_stack([k1[matches[:, 0]], np.ones(len(matches))])
        x2 = np.column_stack([k2[matches[:, 1]], np.ones(len(matches))])
        error = epipolar_distances(x1, x2, K1, P1, K2, P2)
        # Control: the second camera tilted by 1 degree (about its x axis, same centre), which moves
        # points across the mostly horizontal epipolar lines of these orbits.
        turn = math.radians(1.0)
        Rx = np.array([[1, 0, 0], [0, math.cos(turn), -math.sin(turn)], [0, math.sin(turn), math.cos(turn)]])
        control = epipolar_distances(x1, x2, K1, P1, K2, Rx @ P2)
        median = lambda e: float(np.median(e)) if len(e) else float("nan")
        results.append((images[i].name, images[j].name, len(matches), median(error),
                        float(np.mean(error < 1.0)) if len(error) else float("nan"), median(control)))
    return results


def epipolar_distances(x1, x2, K1, P1, K2, P2):
    """Symmetric distance (px) of homogeneous matches x1 <-> x2 to the epipolar lines of cameras
    K [R | t]."""
    R = P2[:, :3] @ P1[:, :3].T
    t = P2[:, 3] - R @ P1[:, 3]
    tx = np.array([[0, -t[2], t[1]], [t[2], 0, -t[0]], [-t[1], t[0], 0]])
    F = np.linalg.inv(K2).T @ tx @ R @ np.linalg.inv(K1)
    l2, l1 = x1 @ F.T, x2 @ F
    e2 = np.abs(np.sum(l2 * x2, axis=1)) / np.linalg.norm(l2[:, :2], axis=1)
    e1 = np.abs(np.sum(l1 * x1, axis=1)) / np.linalg.norm(l1[:, :2], axis=1)
    return (e1 + e2) / 2


def run_checks(name: str, capture: Path, datasets: Path, extra_masks, log):
    """Prints the mesh-in-mask and epipolar checks of one capture; returns False when one fails."""
    ok = True
    names = sorted(p.name for p in (capture / "images").iterdir())
    if name == "video-orbit" or name == "fewviews-gray":
        listed = [l.split()[9] for l in (capture / "gt_sparse" / "images.txt").read_text().splitlines()
                  if l.strip() and not l.startswith("#") and len(l.split()) >= 10]
        if sorted(listed) != names:
            log(f"  check {name}: gt_sparse names differ from images/")
            ok = False
    masks, mesh = dict(extra_masks), None
    if name in ("cutout-orbit", "lowtex-orbit", "video-orbit"):
        mesh = datasets / "synthetic-orbit" / "gt_mesh_object.ply"
    elif name == "lowtex-turntable":
        mesh = datasets / "synthetic-turntable" / "gt_mesh.ply"
    if name == "cutout-orbit":
        for png in names[:: max(1, len(names) // 3)][:3]:
            masks[png] = np.asarray(Image.open(capture / "images" / png))[..., 3] > 0
    elif name.startswith("lowtex-"):
        source = datasets / ("synthetic-orbit" if name == "lowtex-orbit" else "synthetic-turntable")
        for jpg in names[:: max(1, len(names) // 3)][:3]:
            masks[jpg] = np.asarray(Image.open(source / "masks" / (Path(jpg).stem + ".png"))) > 0
    if mesh is not None and masks:
        for frame, projected, inside, inside_dilated in check_mesh_in_masks(capture, mesh, masks):
            good = inside_dilated >= 0.97
            ok &= good
            log(f"  check {name}: {frame}: {projected} mesh vertices in view, {inside * 100:.1f} % on the "
                f"mask ({inside_dilated * 100:.1f} % within 1 px) {'ok' if good else 'FAIL'}")
    n = len(names)
    if name == "video-orbit":
        pairs = [(0, 1), (4, 5), (n // 2, n // 2 + 3), (n - 1, 0)]
    elif name == "fewviews-gray":
        pairs = [(0, 1), (2, 4)]
    else:
        pairs = [(0, 1), (n // 2, n // 2 + 1)]
    # A wrong pose leaves about 1 in 200 matches within 1 px of its epipolar line by chance; with
    # the right one, every correct match is. Plain mutual-nearest matching keeps some wrong matches
    # (many on the low-texture captures), hence the criterion on the count within 1 px.
    for first, second, matches, median, within, control in check_epipolar(capture, pairs):
        good = within * matches >= 5 and within >= 0.3
        ok &= good
        log(f"  check {name}: {first} - {second}: {matches} SIFT matches, {round(within * matches)} "
            f"({within * 100:.0f} %) within 1 px of the epipolar line, median {median:.2f} px (with {second} "
            f"tilted by 1 degree: {control:.1f} px) {'ok' if good else 'FAIL'}")
    return ok


# ---------------------------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=REPO / "out" / "captures")
    parser.add_argument("--only", help="comma-separated capture names (default: all): " + ", ".join(CAPTURES))
    parser.add_argument("--datasets", type=Path, default=DATASETS, help="the shared datasets folder")
    parser.add_argument("--no-checks", action="store_true", help="skip the ground-truth checks")
    parser.add_argument("--check-only", action="store_true", help="only check captures already in --out")
    args = parser.parse_args()

    names = [n.strip() for n in args.only.split(",")] if args.only else CAPTURES
    unknown = [n for n in names if n not in CAPTURES]
    if unknown:
        parser.error(f"unknown capture {', '.join(unknown)}; known: {', '.join(CAPTURES)}")
    makers = {
        "video-orbit": (make_video_orbit, "synthetic-orbit"),
        "cutout-orbit": (make_cutout_orbit, "synthetic-orbit"),
        "lowtex-orbit": (make_lowtex, "synthetic-orbit"),
        "lowtex-turntable": (make_lowtex, "synthetic-turntable"),
        "fewviews-gray": (make_fewviews_gray, "fountain-P11"),
    }

    def log(message):
        print(message, flush=True)

    args.out.mkdir(parents=True, exist_ok=True)
    failed = []
    for name in names:
        make, source = makers[name]
        dataset = args.datasets / source
        final, work = args.out / name, args.out / f".{name}.tmp"
        if not args.check_only:
            if work.exists():
                shutil.rmtree(work)
            work.mkdir()
            start = time.perf_counter()
            log(f"{name}: from {dataset}")
            rng = np.random.default_rng([SEED, CAPTURES.index(name)])
            count = make(name, dataset, work, rng, log)
            if final.exists():
                shutil.rmtree(final)
            os.replace(work, final)
            log(f"{name}: {count} images in {final} ({time.perf_counter() - start:.0f} s)")
        elif not (final / "gt_sparse").is_dir():
            log(f"{name}: no {final} to check")
            failed.append(name)
            continue
        extra_masks = {}
        if not args.no_checks:
            if name == "video-orbit":
                extra_masks = video_check_masks(final, dataset)
            if not run_checks(name, final, args.datasets, extra_masks, log):
                failed.append(name)
    if failed:
        log(f"ground-truth check failed: {', '.join(failed)}")
        return 1
    return 0


def video_check_masks(capture: Path, dataset: Path):
    """Object masks of a few video frames: rendered frames' masks scaled down, and for in-between
    frames the mask warped along with the colour (re-synthesized here)."""
    cameras, K, width, height = load_synthetic(dataset)
    frames = cameras["frames"]
    poses = [Pose(f["R"], f["t"]) for f in frames]
    centres = np.array([p.centre for p in poses])
    rays = pixel_rays(K, width, height)
    _, gt = read_model(capture / "gt_sparse")
    records = [l.split(",") for l in (capture / "frames.csv").read_text().splitlines()[1:]]
    wanted = [next(r for r in records if r[2] == "key"), next(r for r in records if r[2] == "between"),
              next(r for r in records[len(records) // 2:] if r[2] == "between"),
              next(r for r in records if r[2] == "pause")]
    masks, cache = {}, {}
    for record in wanted:
        name = record[0]
        pose = next(p for n, p, _ in gt if n == name)
        # The frame's pose at the source scale (same rotation and centre; intrinsics of the source).
        sources = [int(Path(s).stem) for s in record[4].split()]
        for index in sources:
            if index not in cache:
                cache[index] = View(dataset, frames[index], K)
        if record[2] == "key":
            mask = cache[sources[0]].rgba[..., 3]
        else:
            distances = np.linalg.norm(centres[sources] - pose.centre, axis=1)
            ring, gap = list(VIDEO_RING), int(math.floor(float(record[1]))) % len(VIDEO_RING)
            spacing = np.linalg.norm(poses[ring[gap]].centre - poses[ring[(gap + 1) % len(ring)]].centre)
            weights = np.exp(-(distances / (0.5 * spacing)) ** 2) + 1e-12
            image, _ = synthesize(pose, [cache[i] for i in sources], weights, K, width, height, rays)
            mask = image[..., 3]
        small = Image.fromarray(to_uint8(mask * 255)).crop(VIDEO_CROP).resize(VIDEO_SIZE, Image.BILINEAR)
        masks[name] = np.asarray(small) >= 128
    return masks


if __name__ == "__main__":
    sys.exit(main())
