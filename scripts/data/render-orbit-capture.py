"""Renders the bundled sample: a camera orbit all round a textured object, with exact ground truth.

Usage (Blender 3.4, Cycles on the CPU, no denoiser):
  nice blender -b --python-exit-code 1 -P scripts/data/render-orbit-capture.py -- \
      --out DIR [--views 24] [--samples 24] [--width 640 --height 480] [--quality 90] [--seed 1]

Writes DIR/images/0000.jpg ..., DIR/gt_sparse/ (COLMAP text: one PINHOLE camera, camFromWorld in
OpenCV's camera axes, metres, an empty points3D.txt), DIR/true_masks/<stem>.png (255 on the object
and its pedestal; ground truth, deliberately not named masks/: the sample is a capture as a phone
takes it, without masks) and, last, DIR/SOURCE.md.

The scene: Blender's monkey head (procedural Noise + Voronoi albedo, seeded by --seed) standing on
a low pedestal with a texture of its own, on a plain matte floor under a grey sky and a sun. The
camera walks once round it on two rings (RING_ELEVATIONS, alternate views, RING_RADIUS from the
target), always upright and looking at the target: all round, and two heights, as the report's
capture advice asks for. Deterministic: fixed seeds, no clock.
"""

import argparse
import math
import os
import sys
import time

import bpy
from mathutils import Matrix

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
from blender_capture import (OBJECT_INDEX, add_camera, add_mask_outputs, add_world_light,  # noqa: E402
                             clear_scene, configure_render, opencv_cam_from_world, place_camera,
                             plain_material, procedural_material, smooth_monkey, stand_on,
                             write_gt_sparse)

OBJECT_SIZE = 0.20                   # the monkey head's largest extent, metres
PEDESTAL_RADIUS = 0.09
PEDESTAL_HEIGHT = 0.03
RING_ELEVATIONS = (25.0, 50.0)       # degrees above the floor, alternate views
RING_RADIUS = 0.42                   # metres from the target
TARGET = (0.0, 0.0, 0.10)
FLOOR = (0.42, 0.42, 0.40)           # matte, linear RGB
OBJECT_COLOURS = [(0.55, 0.12, 0.05), (0.9, 0.75, 0.3), (0.15, 0.35, 0.6), (0.95, 0.95, 0.9)]
PEDESTAL_COLOURS = [(0.1, 0.1, 0.12), (0.6, 0.55, 0.5), (0.85, 0.82, 0.75)]
TEXTURE_DETAIL = 6.0                 # noise octaves: fewer render faster, more give finer features


def parse_arguments():
    argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    parser = argparse.ArgumentParser(prog="render-orbit-capture.py")
    parser.add_argument("--out", required=True)
    parser.add_argument("--views", type=int, default=24)
    parser.add_argument("--samples", type=int, default=24)
    parser.add_argument("--width", type=int, default=640)
    parser.add_argument("--height", type=int, default=480)
    parser.add_argument("--quality", type=int, default=90, help="JPEG quality")
    parser.add_argument("--seed", type=float, default=1.0, help="offsets the object's texture")
    return parser.parse_args(argv)


def build_scene(args):
    """The floor, the pedestal, the monkey head on it; returns the scene and the head's dimensions."""
    scene = bpy.context.scene
    configure_render(scene, args.width, args.height, args.samples, bounces=2)
    scene.render.image_settings.quality = args.quality
    add_world_light(scene)
    bpy.ops.mesh.primitive_plane_add(size=20.0, location=(0, 0, 0))
    bpy.context.object.data.materials.append(plain_material("floor", FLOOR, 1.0, 0.02))

    bpy.ops.mesh.primitive_cylinder_add(radius=PEDESTAL_RADIUS, depth=PEDESTAL_HEIGHT, vertices=128,
                                        location=(0, 0, PEDESTAL_HEIGHT / 2))
    pedestal = bpy.context.object
    pedestal.data.materials.append(procedural_material(
        "pedestal", 30.0, PEDESTAL_COLOURS, args.seed + 5.0, TEXTURE_DETAIL))
    pedestal.pass_index = OBJECT_INDEX

    bpy.ops.object.empty_add(location=(0, 0, 0))
    holder = bpy.context.object
    monkey = smooth_monkey(OBJECT_SIZE)
    monkey.data.materials.append(procedural_material("object", 8.0, OBJECT_COLOURS, args.seed, TEXTURE_DETAIL))
    monkey.pass_index = OBJECT_INDEX
    # Sunk a little into the pedestal: the chin rests on it with no gap of light under it.
    stand_on(monkey, PEDESTAL_HEIGHT, holder, gap=-0.004)
    return scene, tuple(monkey.dimensions)


def ring_of(view):
    return view % len(RING_ELEVATIONS)


def render(args, out):
    scene, dimensions = build_scene(args)
    camera, focal_px = add_camera(scene, args.width)
    masks = os.path.join(out, "masks-render")
    add_mask_outputs(scene, masks, {"true_masks": [OBJECT_INDEX]})
    poses = []
    started = time.time()
    for view in range(args.views):
        azimuth = 2 * math.pi * view / args.views
        place_camera(camera, azimuth, math.radians(RING_ELEVATIONS[ring_of(view)]), RING_RADIUS, TARGET)
        name = f"{view:04d}.jpg"
        scene.frame_current = view
        scene.render.filepath = os.path.join(out, "images", name)
        bpy.ops.render.render(write_still=True)
        os.replace(os.path.join(masks, "true_masks", f"mask{view:04d}.png"),
                   os.path.join(out, "true_masks", f"{view:04d}.png"))
        poses.append((name, opencv_cam_from_world(camera.matrix_world, Matrix.Identity(4))))
        print(f"rendered {name} ({time.time() - started:.0f} s)", flush=True)
    os.rmdir(os.path.join(masks, "true_masks"))
    os.rmdir(masks)
    write_gt_sparse(os.path.join(out, "gt_sparse"), args.width, args.height, focal_px, poses)
    return focal_px, dimensions, time.time() - started


def write_source(args, out, focal_px, dimensions, seconds):
    command = (f"nice blender -b --python-exit-code 1 -P scripts/data/render-orbit-capture.py -- --out DIR "
               f"--views {args.views} --samples {args.samples} --width {args.width} --height {args.height} "
               f"--quality {args.quality} --seed {args.seed:g}")
    rings = " and ".join(f"{elevation:g}" for elevation in RING_ELEVATIONS)
    with open(os.path.join(out, "SOURCE.md"), "w") as f:
        f.write(f"""# {os.path.basename(out)}: a rendered orbit all round a textured object

Made by this repository's `{command}`
(Blender {bpy.app.version_string}, Cycles CPU, {args.samples} samples, no denoiser; {seconds:.0f} s on two shared
cores), {args.width}x{args.height} JPEG (quality {args.quality}), {args.views} views. Deterministic (fixed seeds, no clock).
Everything is built from Blender's own primitives and procedural textures: no third-party images or
models.

How: the camera circles the static scene once, on two rings ({rings} degrees above the floor,
alternate views, {360 / args.views:g} degrees of azimuth a view), {RING_RADIUS} m from {TARGET}, upright and
looking at that point; a sun and a grey sky light it.
- object: Blender's monkey head (subdivided twice, smooth) with a procedural Noise + Voronoi albedo in
  object coordinates (seed {args.seed:g}), {dimensions[0]:.4f} x {dimensions[1]:.4f} x {dimensions[2]:.4f} m (x, y, z), standing on
  a pedestal (a cylinder of radius {PEDESTAL_RADIUS} m, {PEDESTAL_HEIGHT} m high, a finer procedural texture) in the
  middle of a plain matte floor (the plane z = 0).

What is true:
- gt_sparse: COLMAP text, one PINHOLE camera f = {focal_px:.4f} px, cx = {args.width / 2:g}, cy = {args.height / 2:g}
  (no distortion); poses camFromWorld in OpenCV's axes (x right, y down, z forward), metres; no points.
- true_masks/<stem>.png: 255 on the object and its pedestal, 0 elsewhere, exact (Cycles' object-index
  pass, no anti-aliasing). Ground truth for scoring, deliberately not named masks/: the sample is
  reconstructed as a phone's capture would be, without masks.
""")


def main():
    args = parse_arguments()
    out = os.path.abspath(args.out)
    if os.path.exists(os.path.join(out, "SOURCE.md")):
        os.remove(os.path.join(out, "SOURCE.md"))  # the capture is incomplete until it is written again
    for folder in ("images", "gt_sparse", "true_masks"):
        os.makedirs(os.path.join(out, folder), exist_ok=True)
    clear_scene()
    focal_px, dimensions, seconds = render(args, out)
    write_source(args, out, focal_px, dimensions, seconds)
    print(f"done: {args.views} views in {seconds:.0f} s into {out}", flush=True)


main()
