"""Renders a capture of a textured object on a board of printed ArUco markers, with its ground truth.

Usage (Blender 3.4, Cycles on the CPU, no denoiser):
  blender -b --python-exit-code 1 -P scripts/data/render-marker-capture.py -- \
      --scene orbit|turntable --out DIR [--views 36] [--samples 24] [--width 800 --height 600]

Writes DIR/images/0000.jpg ..., DIR/gt_sparse/ (COLMAP text: cameras.txt, images.txt, an empty
points3D.txt; OpenCV's camera axes, metres), DIR/markers.json and DIR/SOURCE.md (what is true: the
markers' printed size, the object's size).

The board is a white square of BOARD_SIDE metres lying in the plane z = 0 with eight markers of
DICT_4X4_50 (ids 0-7, MARKER_SIDE metres of black square each, the marker's one-cell border
included) around its edge; the object (Blender's monkey head, procedurally textured) stands in the
middle. orbit: the camera circles the static scene on two rings. turntable: a fixed camera, the board
and the object turn together on a plate (MARKER's ground truth is in the plate's frame, the frame
the reconstruction of a turntable capture is in), in front of a static textured backdrop.

The marker images come from OpenCV's aruco module (cv2.aruco of opencv-python-headless, run with the
system's python3: Blender's Python has no cv2); the board texture has 10 pixels per millimetre.
"""

import argparse
import json
import math
import os
import subprocess
import sys
import time

import bpy

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
from blender_capture import (add_camera, add_world_light, clear_scene, configure_render,  # noqa: E402
                             material_from_image, opencv_cam_from_world, place_camera,
                             procedural_material, smooth_monkey, stand_on, write_gt_sparse)

BOARD_SIDE = 0.30
MARKER_SIDE = 0.05
DICTIONARY = "DICT_4X4_50"
# Marker centres (x, y) on the board, metres: its corners and the middles of its sides.
MARKER_CENTRES = [(-0.11, -0.11), (0.0, -0.11), (0.11, -0.11), (0.11, 0.0),
                  (0.11, 0.11), (0.0, 0.11), (-0.11, 0.11), (-0.11, 0.0)]
OBJECT_SIZE = 0.13  # the object's largest extent, metres
TEXTURE_PX_PER_M = 10000


def parse_arguments():
    argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    parser = argparse.ArgumentParser(prog="render-marker-capture.py")
    parser.add_argument("--scene", choices=["orbit", "turntable"], required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--views", type=int, default=36)
    parser.add_argument("--samples", type=int, default=24)
    parser.add_argument("--width", type=int, default=800)
    parser.add_argument("--height", type=int, default=600)
    return parser.parse_args(argv)


def board_texture(path):
    """The board as a PNG (white, the markers black on it), drawn by cv2.aruco in the system's python3."""
    side_px = int(round(BOARD_SIDE * TEXTURE_PX_PER_M))
    marker_px = int(round(MARKER_SIDE * TEXTURE_PX_PER_M))
    placements = []
    for marker_id, (x, y) in enumerate(MARKER_CENTRES):
        # Image rows run from the board's +y edge down (v = 1 at the top of the texture).
        column = int(round((x + BOARD_SIDE / 2) * TEXTURE_PX_PER_M)) - marker_px // 2
        row = int(round((BOARD_SIDE / 2 - y) * TEXTURE_PX_PER_M)) - marker_px // 2
        placements.append((marker_id, row, column))
    program = (
        "import cv2, numpy as np, sys, json\n"
        "side, marker, path, placements = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], json.loads(sys.argv[4])\n"
        f"d = cv2.aruco.getPredefinedDictionary(cv2.aruco.{DICTIONARY})\n"
        "board = np.full((side, side), 255, np.uint8)\n"
        "for i, r, c in placements:\n"
        "    board[r:r + marker, c:c + marker] = cv2.aruco.generateImageMarker(d, i, marker, borderBits=1)\n"
        "cv2.imwrite(path, board)\n")
    subprocess.run(["python3", "-c", program, str(side_px), str(marker_px), path, json.dumps(placements)], check=True)


def build_scene(args, texture_path):
    scene = bpy.context.scene
    configure_render(scene, args.width, args.height, args.samples)
    add_world_light(scene)

    # The plate: everything that turns on a turntable is parented to it.
    bpy.ops.object.empty_add(location=(0, 0, 0))
    plate = bpy.context.object
    plate.name = "plate"

    bpy.ops.mesh.primitive_plane_add(size=BOARD_SIDE, location=(0, 0, 0))
    board = bpy.context.object
    board.data.materials.append(material_from_image("board", texture_path))
    board.parent = plate

    monkey = smooth_monkey(OBJECT_SIZE)
    monkey.data.materials.append(procedural_material(
        "object", 8.0, [(0.55, 0.12, 0.05), (0.9, 0.75, 0.3), (0.15, 0.35, 0.6), (0.95, 0.95, 0.9)], 1.0))
    stand_on(monkey, 0.0, plate)
    dimensions = tuple(monkey.dimensions)

    if args.scene == "orbit":
        # A textured floor around the board (static like everything else).
        bpy.ops.mesh.primitive_plane_add(size=2.0, location=(0, 0, -0.002))
        floor = bpy.context.object
        floor.data.materials.append(procedural_material(
            "floor", 40.0, [(0.15, 0.12, 0.1), (0.6, 0.5, 0.35), (0.3, 0.35, 0.3), (0.75, 0.7, 0.6)], 2.0))
    else:
        # A grey turntable disc under the board, turning, and a static textured backdrop.
        bpy.ops.mesh.primitive_cylinder_add(radius=0.24, depth=0.01, location=(0, 0, -0.0055))
        disc = bpy.context.object
        disc.data.materials.append(procedural_material("disc", 30.0, [(0.2, 0.2, 0.22), (0.45, 0.42, 0.4)], 3.0))
        disc.parent = plate
        bpy.ops.mesh.primitive_plane_add(size=3.0, location=(0, 0, -0.011))
        bpy.ops.mesh.primitive_plane_add(size=3.0, location=(0, 1.0, 0.5), rotation=(math.radians(90), 0, 0))
        backdrop = bpy.context.object
        backdrop.data.materials.append(procedural_material(
            "backdrop", 8.0, [(0.35, 0.35, 0.38), (0.65, 0.6, 0.55)], 4.0))
    return scene, plate, dimensions


def main():
    args = parse_arguments()
    out = os.path.abspath(args.out)
    os.makedirs(os.path.join(out, "images"), exist_ok=True)
    os.makedirs(os.path.join(out, "gt_sparse"), exist_ok=True)
    texture_path = os.path.join(out, "board-texture.png")
    board_texture(texture_path)
    clear_scene()
    scene, plate, dimensions = build_scene(args, texture_path)

    camera, focal_px = add_camera(scene, args.width)
    target = (0.0, 0.0, 0.04)

    poses = []
    started = time.time()
    for view in range(args.views):
        if args.scene == "orbit":
            ring = view % 2
            azimuth = 2 * math.pi * view / args.views
            elevation, radius = math.radians(28 if ring == 0 else 48), 0.5
        else:
            azimuth, elevation, radius = -math.pi / 2, math.radians(32), 0.55
            plate.rotation_euler = (0, 0, 2 * math.pi * view / args.views)
        place_camera(camera, azimuth, elevation, radius, target)
        name = f"{view:04d}.jpg"
        scene.render.filepath = os.path.join(out, "images", name)
        bpy.ops.render.render(write_still=True)
        # Ground truth in the plate's frame (the world's for an orbit: the plate does not turn).
        poses.append((name, opencv_cam_from_world(camera.matrix_world, plate.matrix_world)))
        print(f"rendered {name} ({time.time() - started:.0f} s)", flush=True)

    write_gt_sparse(os.path.join(out, "gt_sparse"), args.width, args.height, focal_px, poses)
    with open(os.path.join(out, "markers.json"), "w") as f:
        json.dump({"dictionary": DICTIONARY, "size_m": MARKER_SIDE}, f)
        f.write("\n")
    os.remove(texture_path)
    how = ("the camera circles the static scene on two rings (28 and 48 degrees up, alternate views), radius 0.5 m"
           if args.scene == "orbit" else
           "a fixed camera 32 degrees up at 0.55 m; the board and the object turn together on a plate, "
           f"{360 / args.views:g} degrees a view, before a static textured backdrop")
    with open(os.path.join(out, "SOURCE.md"), "w") as f:
        f.write(f"""# Rendered marker capture: {args.scene}

Made by `scripts/data/render-marker-capture.py --scene {args.scene} --views {args.views} --samples {args.samples}`
(Blender {bpy.app.version_string}, Cycles CPU, {args.samples} samples, no denoiser), {args.width}x{args.height} JPEG, {args.views} views:
{how}.

What is true:
- markers: {DICTIONARY}, ids 0-{len(MARKER_CENTRES) - 1}, each {MARKER_SIDE} m of black square (its one-cell border
  included), printed flat on a white board {BOARD_SIDE} m square in the plane z = 0; centres (m): {MARKER_CENTRES}.
- object: Blender's monkey head, {dimensions[0]:.4f} x {dimensions[1]:.4f} x {dimensions[2]:.4f} m (x, y, z), standing on the board.
- gt_sparse: COLMAP text, PINHOLE f = {focal_px:.4f} px, poses camFromWorld in OpenCV's axes, in metres, in the
  {"scene's" if args.scene == "orbit" else "plate's (turning) frame, the frame a turntable reconstruction is in"}.
- markers.json: {{"dictionary": "{DICTIONARY}", "size_m": {MARKER_SIDE}}}.
""")
    print(f"done: {args.views} views in {time.time() - started:.0f} s into {out}", flush=True)


main()
