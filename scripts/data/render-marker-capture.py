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
import numpy as np
from mathutils import Matrix, Vector

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


def clear_scene():
    bpy.ops.wm.read_factory_settings(use_empty=True)


def material_from_image(name, image_path):
    material = bpy.data.materials.new(name)
    material.use_nodes = True
    nodes, links = material.node_tree.nodes, material.node_tree.links
    shader = nodes["Principled BSDF"]
    shader.inputs["Roughness"].default_value = 0.9
    shader.inputs["Specular"].default_value = 0.1
    texture = nodes.new("ShaderNodeTexImage")
    texture.image = bpy.data.images.load(image_path)
    texture.interpolation = "Cubic"
    links.new(texture.outputs["Color"], shader.inputs["Base Color"])
    return material


def procedural_material(name, scale, colours, seed):
    """Noise and Voronoi over a colour ramp, in object coordinates: features SIFT can match."""
    material = bpy.data.materials.new(name)
    material.use_nodes = True
    nodes, links = material.node_tree.nodes, material.node_tree.links
    shader = nodes["Principled BSDF"]
    shader.inputs["Roughness"].default_value = 0.8
    shader.inputs["Specular"].default_value = 0.2
    coordinates = nodes.new("ShaderNodeTexCoord")
    mapping = nodes.new("ShaderNodeMapping")
    mapping.inputs["Location"].default_value = (seed * 1.7, seed * 3.1, seed * 0.7)
    links.new(coordinates.outputs["Object"], mapping.inputs["Vector"])
    noise = nodes.new("ShaderNodeTexNoise")
    noise.inputs["Scale"].default_value = scale
    noise.inputs["Detail"].default_value = 10.0
    noise.inputs["Roughness"].default_value = 0.6
    links.new(mapping.outputs["Vector"], noise.inputs["Vector"])
    voronoi = nodes.new("ShaderNodeTexVoronoi")
    voronoi.inputs["Scale"].default_value = scale * 0.6
    links.new(mapping.outputs["Vector"], voronoi.inputs["Vector"])
    mix = nodes.new("ShaderNodeMath")
    mix.operation = "MULTIPLY_ADD"
    mix.inputs[1].default_value = 0.7
    links.new(noise.outputs["Fac"], mix.inputs[0])
    weight = nodes.new("ShaderNodeMath")
    weight.operation = "MULTIPLY"
    weight.inputs[1].default_value = 0.3
    links.new(voronoi.outputs["Distance"], weight.inputs[0])
    links.new(weight.outputs["Value"], mix.inputs[2])
    ramp = nodes.new("ShaderNodeValToRGB")
    elements = ramp.color_ramp.elements
    elements[0].position, elements[0].color = 0.35, colours[0] + (1.0,)
    elements[1].position, elements[1].color = 0.6, colours[-1] + (1.0,)
    for position, colour in zip(np.linspace(0.35, 0.6, len(colours))[1:-1], colours[1:-1]):
        element = elements.new(float(position))
        element.color = colour + (1.0,)
    links.new(mix.outputs["Value"], ramp.inputs["Fac"])
    links.new(ramp.outputs["Color"], shader.inputs["Base Color"])
    return material


def build_scene(args, texture_path):
    scene = bpy.context.scene
    scene.render.engine = "CYCLES"
    scene.cycles.device = "CPU"
    scene.cycles.samples = args.samples
    # Debian's Blender is built without OpenImageDenoise: no denoiser, so a few more samples.
    scene.cycles.use_denoising = False
    scene.cycles.max_bounces = 3
    scene.render.resolution_x, scene.render.resolution_y = args.width, args.height
    scene.render.resolution_percentage = 100
    scene.render.image_settings.file_format = "JPEG"
    scene.render.image_settings.quality = 92
    scene.view_settings.view_transform = "Standard"
    scene.render.use_motion_blur = False

    world = bpy.data.worlds.new("world")
    world.use_nodes = True
    world.node_tree.nodes["Background"].inputs["Color"].default_value = (0.6, 0.6, 0.6, 1.0)
    world.node_tree.nodes["Background"].inputs["Strength"].default_value = 0.8
    scene.world = world
    bpy.ops.object.light_add(type="SUN", location=(0.5, -0.5, 2.0))
    sun = bpy.context.object
    sun.data.energy = 3.0
    sun.rotation_euler = (math.radians(35), math.radians(15), math.radians(30))

    # The plate: everything that turns on a turntable is parented to it.
    bpy.ops.object.empty_add(location=(0, 0, 0))
    plate = bpy.context.object
    plate.name = "plate"

    bpy.ops.mesh.primitive_plane_add(size=BOARD_SIDE, location=(0, 0, 0))
    board = bpy.context.object
    board.data.materials.append(material_from_image("board", texture_path))
    board.parent = plate

    bpy.ops.mesh.primitive_monkey_add(location=(0, 0, 0))
    monkey = bpy.context.object
    bpy.ops.object.modifier_add(type="SUBSURF")
    monkey.modifiers["Subdivision"].levels = 2
    monkey.modifiers["Subdivision"].render_levels = 2
    monkey.rotation_euler = (math.radians(0), 0, 0)
    bpy.context.view_layer.update()
    extent = max(monkey.dimensions)
    scale = OBJECT_SIZE / extent
    monkey.scale = (scale, scale, scale)
    bpy.context.view_layer.update()
    lowest = min((monkey.matrix_world @ Vector(corner)).z for corner in monkey.bound_box)
    monkey.location.z -= lowest - 0.002
    monkey.data.materials.append(procedural_material(
        "object", 8.0, [(0.55, 0.12, 0.05), (0.9, 0.75, 0.3), (0.15, 0.35, 0.6), (0.95, 0.95, 0.9)], 1.0))
    monkey.parent = plate
    bpy.context.view_layer.update()
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


def look_at(location, target):
    direction = Vector(target) - Vector(location)
    return direction.to_track_quat("-Z", "Y").to_euler()


def opencv_cam_from_world(camera_matrix_world, world_from_frame):
    """camFromFrame with OpenCV's axes (x right, y down, z forward) from Blender's camera (y up, -z forward)."""
    blender_cam_from_world = camera_matrix_world.inverted()
    flip = Matrix(((1, 0, 0, 0), (0, -1, 0, 0), (0, 0, -1, 0), (0, 0, 0, 1)))
    return flip @ blender_cam_from_world @ world_from_frame


def main():
    args = parse_arguments()
    out = os.path.abspath(args.out)
    os.makedirs(os.path.join(out, "images"), exist_ok=True)
    os.makedirs(os.path.join(out, "gt_sparse"), exist_ok=True)
    texture_path = os.path.join(out, "board-texture.png")
    board_texture(texture_path)
    clear_scene()
    scene, plate, dimensions = build_scene(args, texture_path)

    bpy.ops.object.camera_add()
    camera = bpy.context.object
    camera.data.sensor_fit = "HORIZONTAL"
    camera.data.sensor_width = 36.0
    camera.data.lens = 35.0
    camera.data.clip_start = 0.01
    scene.camera = camera
    focal_px = args.width * camera.data.lens / camera.data.sensor_width
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
        location = (radius * math.cos(elevation) * math.cos(azimuth),
                    radius * math.cos(elevation) * math.sin(azimuth),
                    target[2] + radius * math.sin(elevation))
        camera.location = location
        camera.rotation_euler = look_at(location, target)
        bpy.context.view_layer.update()
        name = f"{view:04d}.jpg"
        scene.render.filepath = os.path.join(out, "images", name)
        bpy.ops.render.render(write_still=True)
        # Ground truth in the plate's frame (the world's for an orbit: the plate does not turn).
        poses.append((name, opencv_cam_from_world(camera.matrix_world, plate.matrix_world)))
        print(f"rendered {name} ({time.time() - started:.0f} s)", flush=True)

    with open(os.path.join(out, "gt_sparse", "cameras.txt"), "w") as f:
        f.write("# Camera list with one line of data per camera:\n#   CAMERA_ID, MODEL, WIDTH, HEIGHT, PARAMS[]\n")
        f.write(f"1 PINHOLE {args.width} {args.height} {focal_px:.10g} {focal_px:.10g} {args.width / 2:.10g} {args.height / 2:.10g}\n")
    with open(os.path.join(out, "gt_sparse", "images.txt"), "w") as f:
        f.write("# Image list with two lines of data per image:\n#   IMAGE_ID, QW, QX, QY, QZ, TX, TY, TZ, CAMERA_ID, NAME\n")
        for index, (name, pose) in enumerate(poses):
            q = pose.to_quaternion()
            t = pose.translation
            f.write(f"{index + 1} {q.w:.12g} {q.x:.12g} {q.y:.12g} {q.z:.12g} {t.x:.12g} {t.y:.12g} {t.z:.12g} 1 {name}\n\n")
    open(os.path.join(out, "gt_sparse", "points3D.txt"), "w").write("# 3D point list (empty)\n")
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
