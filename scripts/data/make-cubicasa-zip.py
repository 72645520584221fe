#!/usr/bin/env python3
"""Zips a posed capture as a room-scanning SDK (CubiCasa's layout) exports a room walk.

From DATASET (images/ in walk order, gt_sparse/ a COLMAP text model with one PINHOLE or
SIMPLE_PINHOLE camera, optionally depth/<stem>.png, 16-bit millimetres) writes ZIP holding:
  video.mp4            the images in name order, each held --repeat frames, H.264 at --fps
                       (OpenCV's FFmpeg writer, scripts/video/encode_video.cpp)
  arkitData.json       one object per video frame: cameraTransform (ARKit camera-to-world, camera
                       x right, y up, z toward the viewer; 16 numbers column by column, simd's
                       order), cameraIntrinsics (3x3, 9 numbers column by column), frameNumber
                       (from 0), frameTimestamp (seconds, starting at --t0)
  config.json          depthWidth, depthHeight (and what made the zip)
  allDepthFrames.bin   with depth/ (unless --no-depth): one float32 little-endian frame of
                       depthWidth x depthHeight metres per arkitData.json frame, row by row,
                       0 = no depth; nearest sample of the depth PNG at each depth pixel's centre,
                       optionally with a phone LiDAR's faults (--noise, --dropout)
  allConfidenceFrames.bin  with depth/ and depth_confidence/<stem>.png (8-bit, ARKit's levels
                       0 low, 1 medium, 2 high; scripts/data/simulate-phone-depth.py writes it):
                       one byte per depth pixel, the same frames and order, nearest sample
This is the layout docs/inputs.md documents and `photogrammetry reconstruct ZIP OUT` reads.

The other way, --names-of OUT: after `photogrammetry reconstruct ZIP OUT`, writes OUT/sparse-named,
OUT/sparse with each keyframe (frame-000123.jpg) named as DATASET's image it shows, for
`photogrammetry compare OUT/sparse-named DATASET/gt_sparse`, and prints the cameras' errors in
DATASET's frame without any alignment (the run is in the scan's frame and metres).

Usage: make-cubicasa-zip.py DATASET ZIP [--fps 10] [--repeat 1] [--depth-size 256x192]
                                        [--noise 0.0] [--dropout 0.0] [--seed 1] [--no-depth]
       make-cubicasa-zip.py DATASET --names-of OUT [--repeat 1]
Needs g++, OpenCV 4 with FFmpeg (Debian 12), python3 with numpy and Pillow.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile

import numpy as np
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))


def read_colmap_text(folder):
    """(camera params fx, fy, cx, cy; {name: (R, t)}) of a COLMAP text model with one pinhole camera."""
    cameras = {}
    for line in open(os.path.join(folder, "cameras.txt")):
        if line.startswith("#") or not line.strip():
            continue
        fields = line.split()
        model, params = fields[1], [float(v) for v in fields[4:]]
        if model == "PINHOLE":
            cameras[fields[0]] = params[:4]
        elif model == "SIMPLE_PINHOLE":
            cameras[fields[0]] = [params[0], params[0], params[1], params[2]]
        else:
            sys.exit(f"{folder}/cameras.txt: camera model {model} (only PINHOLE or SIMPLE_PINHOLE: ARKit's intrinsics have no distortion)")
    if len(cameras) != 1:
        sys.exit(f"{folder}/cameras.txt: {len(cameras)} cameras (want one)")
    poses = {}
    lines = [l for l in open(os.path.join(folder, "images.txt")) if not l.startswith("#")]
    for line in lines[0::2]:
        fields = line.split()
        if len(fields) < 10:
            continue
        qw, qx, qy, qz, tx, ty, tz = map(float, fields[1:8])
        r = quaternion_rotation(qw, qx, qy, qz)
        poses[" ".join(fields[9:])] = (r, np.array([tx, ty, tz]))
    return next(iter(cameras.values())), poses


def arkit_cam_to_world(r, t):
    """ARKit's camera-to-world of an OpenCV world-to-camera pose: the camera's y and z turned round."""
    m = np.eye(4)
    m[:3, :3] = r.T @ np.diag([1.0, -1.0, -1.0])
    m[:3, 3] = -r.T @ t
    return m


def column_by_column(m):
    return [float(v) for v in np.asarray(m).T.reshape(-1)]


def nearest(image, size):
    """`image` at `size`, the nearest sample at each pixel's centre."""
    w, h = size
    ys = np.minimum(((np.arange(h) + 0.5) * image.shape[0] / h).astype(int), image.shape[0] - 1)
    xs = np.minimum(((np.arange(w) + 0.5) * image.shape[1] / w).astype(int), image.shape[1] - 1)
    return image[np.ix_(ys, xs)]


def depth_frame(png, size, rng, noise, dropout):
    """The depth PNG (mm) as metres at `size`, nearest sample at each pixel's centre, with faults."""
    metres = nearest(np.asarray(Image.open(png)).astype(np.float64), size) / 1000.0
    if noise > 0:
        metres *= 1 + noise * rng.standard_normal(metres.shape)
    if dropout > 0:
        metres[rng.random(metres.shape) < dropout] = 0
    return metres.astype("<f4")


def quaternion_rotation(qw, qx, qy, qz):
    return np.array([
        [1 - 2 * (qy * qy + qz * qz), 2 * (qx * qy - qz * qw), 2 * (qx * qz + qy * qw)],
        [2 * (qx * qy + qz * qw), 1 - 2 * (qx * qx + qz * qz), 2 * (qy * qz - qx * qw)],
        [2 * (qx * qz - qy * qw), 2 * (qy * qz + qx * qw), 1 - 2 * (qx * qx + qy * qy)]])


def name_keyframes(dataset, out, repeat):
    """OUT/sparse-named: OUT/sparse with keyframes named as the dataset's images; prints pose errors."""
    names = sorted(os.listdir(os.path.join(dataset, "images")))
    report = json.load(open(os.path.join(out, "report.json")))
    photo = {k["image"]: names[k["frame"] // repeat] for k in report["video"]["keyframes"]}
    _, truth = read_colmap_text(os.path.join(dataset, "gt_sparse"))
    source, named = os.path.join(out, "sparse"), os.path.join(out, "sparse-named")
    os.makedirs(named, exist_ok=True)
    for f in ("cameras.txt", "points3D.txt"):
        shutil.copy(os.path.join(source, f), named)
    lines = open(os.path.join(source, "images.txt")).read().split("\n")
    written, centre_errors, angle_errors, i = [], [], [], 0
    while i < len(lines):
        fields = lines[i].split()
        if lines[i].startswith("#") or len(fields) < 10:
            written.append(lines[i])
            i += 1
            continue
        name = photo[" ".join(fields[9:])]
        written += [" ".join(fields[:9] + [name]), lines[i + 1] if i + 1 < len(lines) else ""]
        r = quaternion_rotation(*map(float, fields[1:5]))
        t = np.array([float(v) for v in fields[5:8]])
        r0, t0 = truth[name]
        centre_errors.append(np.linalg.norm(-r.T @ t + r0.T @ t0))
        angle_errors.append(np.degrees(np.arccos(np.clip((np.trace(r @ r0.T) - 1) / 2, -1, 1))))
        i += 2
    with open(os.path.join(named, "images.txt"), "w") as f:
        f.write("\n".join(written) + "\n")
    print(f"{named}: {len(centre_errors)} keyframes; in {dataset}'s frame without alignment: camera centres "
          f"median {np.median(centre_errors):.4f} m, max {max(centre_errors):.4f} m; rotations median "
          f"{np.median(angle_errors):.3f}°, max {max(angle_errors):.3f}°")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dataset")
    parser.add_argument("zip", nargs="?")
    parser.add_argument("--names-of", metavar="OUT")
    parser.add_argument("--fps", type=float, default=10)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--depth-size", default="256x192")
    parser.add_argument("--noise", type=float, default=0.0, help="relative Gaussian noise of each depth sample (0.01 = 1 %%)")
    parser.add_argument("--dropout", type=float, default=0.0, help="fraction of depth samples dropped (set to 0)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--t0", type=float, default=1000.0)
    parser.add_argument("--no-depth", action="store_true")
    args = parser.parse_args()
    if args.names_of:
        return name_keyframes(args.dataset, args.names_of, args.repeat)
    if not args.zip:
        parser.error("give ZIP, or --names-of OUT")
    (fx, fy, cx, cy), poses = read_colmap_text(os.path.join(args.dataset, "gt_sparse"))
    names = sorted(os.listdir(os.path.join(args.dataset, "images")))
    missing = [n for n in names if n not in poses]
    if missing:
        sys.exit(f"{args.dataset}: no true pose for {missing[:3]}")
    depth_size = tuple(int(v) for v in args.depth_size.split("x"))
    with tempfile.TemporaryDirectory() as work:
        encoder = os.path.join(work, "encode_video")
        subprocess.run(["g++", "-O1", "-std=c++17", "-o", encoder, os.path.join(HERE, "..", "video", "encode_video.cpp"),
                        "-I/usr/include/opencv4", "-lopencv_core", "-lopencv_imgproc", "-lopencv_imgcodecs", "-lopencv_videoio"],
                       check=True)
        video = os.path.join(work, "video.mp4")
        subprocess.run([encoder, video, "avc1", str(args.fps), "--repeat", str(args.repeat)]
                       + [os.path.join(args.dataset, "images", n) for n in names], check=True)
        k = [[fx, 0, cx], [0, fy, cy], [0, 0, 1]]
        frames = []
        for i in range(len(names) * args.repeat):
            r, t = poses[names[i // args.repeat]]
            frames.append({"frameNumber": i, "frameTimestamp": round(args.t0 + i / args.fps, 6),
                           "cameraTransform": column_by_column(arkit_cam_to_world(r, t)),
                           "cameraIntrinsics": column_by_column(k)})
        config = {"depthWidth": depth_size[0], "depthHeight": depth_size[1],
                  "madeBy": "scripts/data/make-cubicasa-zip.py", "fps": args.fps}
        depth_folder = os.path.join(args.dataset, "depth")
        with_depth = not args.no_depth and os.path.isdir(depth_folder)
        confidence_folder = os.path.join(args.dataset, "depth_confidence")
        with_confidence = with_depth and os.path.isdir(confidence_folder)
        partial = args.zip + ".part"
        with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as z:
            z.write(video, "video.mp4")
            z.writestr("arkitData.json", json.dumps(frames))
            z.writestr("config.json", json.dumps(config, indent=1))
            if with_depth:
                rng = np.random.default_rng(args.seed)
                with z.open("allDepthFrames.bin", "w", force_zip64=True) as out:
                    for i in range(len(frames)):
                        stem = os.path.splitext(names[i // args.repeat])[0]
                        out.write(depth_frame(os.path.join(depth_folder, stem + ".png"), depth_size, rng, args.noise,
                                              args.dropout).tobytes())
            if with_confidence:
                with z.open("allConfidenceFrames.bin", "w", force_zip64=True) as out:
                    for i in range(len(frames)):
                        stem = os.path.splitext(names[i // args.repeat])[0]
                        confidence = np.asarray(Image.open(os.path.join(confidence_folder, stem + ".png")))
                        out.write(nearest(confidence, depth_size).astype(np.uint8).tobytes())
        os.replace(partial, args.zip)
    print(f"{args.zip}: {len(frames)} frames of {len(names)} images at {args.fps:g} fps"
          + (f", depth {depth_size[0]}x{depth_size[1]}" if with_depth else ", no depth")
          + (" with confidence" if with_confidence else ""))


if __name__ == "__main__":
    main()
