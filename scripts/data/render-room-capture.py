"""Renders a walk inside a room whose walls, floor and ceiling are plain paint, with exact ground
truth: the poses, the room's true surface and every frame's true depth.

Usage (Blender 3.4, Cycles on the CPU, no denoiser):
  nice blender -b --python-exit-code 1 -P scripts/data/render-room-capture.py -- \
      --out DIR [--frames 60] [--samples 2] [--width 640 --height 480] [--seed 3]

Writes DIR/images/0000.jpg ..., DIR/gt_sparse/ (COLMAP text: one PINHOLE camera, camFromWorld in
OpenCV's camera axes, metres, an empty points3D.txt), DIR/gt_mesh.ply (the room's true surface),
DIR/depth/0000.png ... (true depth, 16-bit millimetres) and, last, DIR/SOURCE.md.

The room (ROOM_X x ROOM_Y m, WALL_HEIGHT m high) is six single-sided planes of uniform matte colour,
so its envelope has no texture at all: only the lamp's smooth falloff shades it. What SfM can match
is a little furniture: a rug, two pictures on each wall, a table with books, a bowl and a vase on
it, a low cabinet, a plant and a crate, all with procedural (noise and Voronoi) textures. One point lamp under the
ceiling with hard shadows, and each surface's faint glow standing for the light the walls bounce
(as scripts/data/render-walkaround.py lights its room): noise-free at two samples, so plain paint
renders plain. The camera walks one loop inside the room at eye height, looking across it (so
consecutive frames see the far side from moving positions), its aim swinging left and right, up to
the ceiling and down to the floor. Deterministic: fixed seeds, no clock.
"""

import argparse
import math
import os
import random
import sys
import time

import bpy
import numpy as np
from mathutils import Matrix, Vector
from mathutils.bvhtree import BVHTree

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
from blender_capture import (add_camera, evaluated_triangles, glowing, opencv_cam_from_world, smooth_noise,  # noqa: E402
                             write_gt_sparse, write_ply)
from blender_capture import plain_material as matte_material  # noqa: E402
from blender_capture import procedural_material as textured_material  # noqa: E402

ROOM_X, ROOM_Y, WALL_HEIGHT = 5.0, 4.0, 2.6
EYE_HEIGHT = 1.45
LENS_MM, SENSOR_MM = 26.0, 36.0  # a phone's wide camera (about 70 degrees across)
AMBIENT = 0.3                    # the glow standing for bounced light, a share of each surface's colour
WALL = (0.78, 0.76, 0.70)        # linear RGB, matte
CEILING = (0.85, 0.85, 0.83)
FLOOR = (0.45, 0.36, 0.28)
LOOP = (1.5, 1.1)                # half-axes of the camera's loop about the room's middle, metres
CORNER_X, CORNER_Y = 1.0, 1.2    # with --corner: the part of the north-east corner outside the room (--corner-size)


def parse_arguments():
    argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    parser = argparse.ArgumentParser(prog="render-room-capture.py")
    parser.add_argument("--out", required=True)
    parser.add_argument("--frames", type=int, default=60)
    parser.add_argument("--samples", type=int, default=2)
    parser.add_argument("--width", type=int, default=640)
    parser.add_argument("--height", type=int, default=480)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--only", type=int, default=None, help="render only the first N frames (a timing check)")
    parser.add_argument("--corner", action="store_true",
                        help="an L-shaped room: its north-east corner (--corner-size) is walled off by two "
                             "plain walls that meet inside the room's bounding box")
    parser.add_argument("--corner-size", type=float, nargs=2, default=(CORNER_X, CORNER_Y), metavar=("X", "Y"),
                        help="with --corner: the walled-off corner's size in metres (keep it clear of the camera loop)")
    return parser.parse_args(argv)


def corner_flags(args):
    """The --corner options of the command that made a capture, as SOURCE.md gives it."""
    if not args.corner:
        return ""
    size = tuple(args.corner_size)
    return " --corner" + ("" if size == (CORNER_X, CORNER_Y) else f" --corner-size {size[0]} {size[1]}")


def procedural_material(name, scale, colours, seed):
    # The finest noise octave a few pixels wide: no aliasing at two samples.
    return glowing(textured_material(name, scale, colours, seed, detail=3.0), AMBIENT)


def plain_material(name, colour):
    return glowing(matte_material(name, colour, roughness=0.95, specular=0.05), AMBIENT)


def box(name, centre, size, material, rotation_z=0.0):
    """An axis-aligned box (then turned about z) with its scale applied, so textures keep metric scale."""
    bpy.ops.mesh.primitive_cube_add(size=1.0, location=centre)
    obj = bpy.context.object
    obj.name = name
    obj.scale = size
    obj.rotation_euler = (0, 0, rotation_z)
    bpy.ops.object.transform_apply(location=False, rotation=False, scale=True)
    obj.data.materials.append(material)
    return obj


def plane(corner, u, v, material, name):
    """A single-sided rectangle corner, corner+u, corner+u+v, corner+v (its normal u x v), split
    into a grid of about half-metre quads so that no triangle is long and thin."""
    corner, u, v = Vector(corner), Vector(u), Vector(v)
    nu, nv = max(1, round(u.length / 0.5)), max(1, round(v.length / 0.5))
    vertices = [corner + u * (i / nu) + v * (j / nv) for j in range(nv + 1) for i in range(nu + 1)]
    faces = [(j * (nu + 1) + i, j * (nu + 1) + i + 1, (j + 1) * (nu + 1) + i + 1, (j + 1) * (nu + 1) + i)
             for j in range(nv) for i in range(nu)]
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata([tuple(p) for p in vertices], [], faces)
    mesh.materials.append(material)
    obj = bpy.data.objects.new(name, mesh)
    bpy.context.scene.collection.objects.link(obj)
    return obj


def build_scene(args):
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    scene.render.engine = "CYCLES"
    scene.cycles.device = "CPU"
    scene.cycles.samples = args.samples
    scene.cycles.use_denoising = False  # Debian's Blender is built without OpenImageDenoise
    scene.cycles.max_bounces = 0
    scene.cycles.use_adaptive_sampling = False
    scene.cycles.seed = args.seed
    scene.render.threads_mode = "FIXED"
    scene.render.threads = 2
    scene.render.resolution_x, scene.render.resolution_y = args.width, args.height
    scene.render.resolution_percentage = 100
    scene.render.image_settings.file_format = "JPEG"
    scene.render.image_settings.quality = 92
    scene.view_settings.view_transform = "Standard"
    scene.render.use_motion_blur = False
    scene.render.use_persistent_data = True  # the scene is built once; frames only move the camera

    world = bpy.data.worlds.new("world")
    world.use_nodes = True
    world.node_tree.nodes["Background"].inputs["Strength"].default_value = 0.0
    scene.world = world
    # One lamp: with more, Cycles picks one at random per sample, which is noise at two samples.
    bpy.ops.object.light_add(type="POINT", location=(0.3, 0.2, WALL_HEIGHT - 0.6))
    lamp = bpy.context.object
    lamp.data.energy = 150.0
    lamp.data.shadow_soft_size = 0.0  # hard shadows: one shadow ray, no noise

    # The envelope: six planes facing into the room, the floor at z = 0, the middle at x = y = 0.
    x0, x1, y0, y1, h = -ROOM_X / 2, ROOM_X / 2, -ROOM_Y / 2, ROOM_Y / 2, WALL_HEIGHT
    wall, ceiling, floor = plain_material("wall", WALL), plain_material("ceiling", CEILING), plain_material("floor", FLOOR)
    if args.corner:
        # An L: the corner x > cx, y > cy is not the room; the floor and ceiling are two
        # rectangles each, and two inner walls close the corner off.
        corner_x, corner_y = args.corner_size
        cx, cy = x1 - corner_x, y1 - corner_y
        plane((x0, y0, 0), (ROOM_X, 0, 0), (0, cy - y0, 0), floor, "floor")
        plane((x0, cy, 0), (cx - x0, 0, 0), (0, corner_y, 0), floor, "floor")
        plane((x0, y0, h), (0, cy - y0, 0), (ROOM_X, 0, 0), ceiling, "ceiling")
        plane((x0, cy, h), (0, corner_y, 0), (cx - x0, 0, 0), ceiling, "ceiling")
        plane((x0, y0, 0), (0, 0, h), (ROOM_X, 0, 0), wall, "wall_s")
        plane((cx, y1, 0), (0, 0, h), (x0 - cx, 0, 0), wall, "wall_n")
        plane((x0, y1, 0), (0, 0, h), (0, -ROOM_Y, 0), wall, "wall_w")
        plane((x1, y0, 0), (0, 0, h), (0, cy - y0, 0), wall, "wall_e")
        plane((x1, cy, 0), (0, 0, h), (-corner_x, 0, 0), wall, "wall_inner_s")
        plane((cx, cy, 0), (0, 0, h), (0, corner_y, 0), wall, "wall_inner_w")
    else:
        plane((x0, y0, 0), (ROOM_X, 0, 0), (0, ROOM_Y, 0), floor, "floor")
        plane((x0, y0, h), (0, ROOM_Y, 0), (ROOM_X, 0, 0), ceiling, "ceiling")
        plane((x0, y0, 0), (0, 0, h), (ROOM_X, 0, 0), wall, "wall_s")
        plane((x1, y1, 0), (0, 0, h), (-ROOM_X, 0, 0), wall, "wall_n")
        plane((x0, y1, 0), (0, 0, h), (0, -ROOM_Y, 0), wall, "wall_w")
        plane((x1, y0, 0), (0, 0, h), (0, ROOM_Y, 0), wall, "wall_e")

    # The rug, 3 mm above the floor.
    rug = procedural_material("rug", 9.0, [(0.5, 0.12, 0.1), (0.85, 0.7, 0.45), (0.15, 0.2, 0.4), (0.9, 0.88, 0.8)], 1.0)
    box("rug", (0.1, -0.1, 0.0015), (2.2, 1.5, 0.003), rug)
    # Two pictures on each wall, 1 cm proud of it, at different heights and places: what lets SfM
    # tie a view of a plain wall to its neighbours.
    colours = [[(0.1, 0.3, 0.5), (0.8, 0.75, 0.6), (0.6, 0.2, 0.15), (0.95, 0.9, 0.7)],
               [(0.2, 0.4, 0.2), (0.9, 0.8, 0.3), (0.4, 0.15, 0.35), (0.85, 0.9, 0.95)],
               [(0.35, 0.2, 0.1), (0.7, 0.6, 0.5), (0.1, 0.1, 0.15), (0.95, 0.85, 0.75)],
               [(0.5, 0.5, 0.1), (0.2, 0.35, 0.6), (0.8, 0.3, 0.3), (0.9, 0.9, 0.9)]]
    pictures = [((-1.3, y0 + 0.005, 1.55), (0.9, 0.01, 0.65)), ((1.2, y0 + 0.005, 1.2), (0.5, 0.01, 0.7)),
                ((1.1, y1 - 0.005, 1.45), (0.7, 0.01, 0.9)), ((-0.3, y1 - 0.005, 1.75), (0.5, 0.01, 0.4)),
                ((x0 + 0.005, 0.7, 1.5), (0.01, 0.8, 0.6)), ((x0 + 0.005, -1.1, 1.3), (0.01, 0.45, 0.6)),
                ((x1 - 0.005, -0.6, 1.6), (0.01, 0.6, 0.6)), ((x1 - 0.005, 1.1, 1.25), (0.01, 0.7, 0.5))]
    if args.corner:
        # The east wall's second picture would be in the walled-off corner: it hangs on the inner
        # wall facing west instead.
        pictures[-1] = ((x1 - args.corner_size[0] - 0.005, y1 - args.corner_size[1] / 2, 1.25), (0.01, 0.7, 0.5))
    for index, (centre, size) in enumerate(pictures):
        box(f"picture{index}", centre, size, procedural_material(f"picture{index}", 7.0 + index, colours[index % 4], 2.0 + index))
    # The table in the middle, with books, a bowl and a vase.
    wood = procedural_material("wood", 10.0, [(0.35, 0.2, 0.1), (0.6, 0.4, 0.22), (0.45, 0.28, 0.15), (0.8, 0.6, 0.4)], 6.0)
    box("table_top", (0.1, -0.1, 0.735), (1.2, 0.7, 0.03), wood)
    for x in (-0.44, 0.64):
        for y in (-0.39, 0.19):
            box("table_leg", (x, y, 0.36), (0.05, 0.05, 0.72), wood)
    books = procedural_material("books", 20.0, [(0.6, 0.1, 0.1), (0.95, 0.9, 0.3), (0.1, 0.3, 0.6), (0.2, 0.6, 0.3), (0.95, 0.95, 0.95)], 7.0)
    box("books", (-0.2, -0.05, 0.80), (0.3, 0.22, 0.1), books, 0.3)
    bpy.ops.mesh.primitive_cylinder_add(radius=0.07, depth=0.3, location=(0.45, -0.25, 0.9))
    bpy.context.object.name = "vase"
    bpy.context.object.data.materials.append(books)
    bpy.ops.mesh.primitive_uv_sphere_add(radius=0.12, location=(0.2, 0.05, 0.87))
    bpy.context.object.name = "bowl"
    bpy.context.object.data.materials.append(rug)
    # A low cabinet against the north wall, west of its picture.
    box("cabinet", (-1.4, y1 - 0.25, 0.4), (1.0, 0.45, 0.8), wood)
    box("cabinet_box", (-1.55, y1 - 0.25, 0.9), (0.25, 0.25, 0.2), books)
    # A plant pot and its foliage in the south-east corner, a crate by the west wall.
    bpy.ops.mesh.primitive_cylinder_add(radius=0.18, depth=0.45, location=(x1 - 0.35, y0 + 0.35, 0.225))
    bpy.context.object.name = "plant_pot"
    bpy.context.object.data.materials.append(wood)
    foliage = procedural_material("foliage", 12.0, [(0.05, 0.2, 0.05), (0.3, 0.55, 0.2), (0.15, 0.35, 0.1), (0.6, 0.75, 0.4)], 8.0)
    bpy.ops.mesh.primitive_ico_sphere_add(subdivisions=2, radius=0.35, location=(x1 - 0.35, y0 + 0.35, 0.8))
    bpy.context.object.name = "foliage"
    bpy.context.object.data.materials.append(foliage)
    box("crate", (x0 + 0.3, -0.3, 0.2), (0.4, 0.5, 0.4), rug, 0.2)
    return scene


def walk(args):
    """Camera positions and aim points of one loop inside the room, looking across it, hand shake included."""
    rng = random.Random(args.seed)
    n = args.frames
    radius_noise = smooth_noise(rng, n, 0.25)
    height_noise = smooth_noise(rng, n, 0.08)
    path = []
    for i in range(n):
        angle = 2 * math.pi * i / n
        rx, ry = LOOP[0] + radius_noise[i], LOOP[1] + 0.7 * radius_noise[i]
        shake = [rng.gauss(0, 0.01) for _ in range(3)]
        location = (rx * math.cos(angle) + shake[0], ry * math.sin(angle) + shake[1], EYE_HEIGHT + height_noise[i] + shake[2])
        # Across the room, swinging 35 degrees either way twice a loop, and from 20 degrees down to
        # 10 degrees up three times a loop.
        heading = angle + math.pi + math.radians(35) * math.sin(2 * math.pi * 2 * i / n)
        pitch = math.radians(-5) + math.radians(15) * math.sin(2 * math.pi * 3 * i / n + 0.5)
        direction = (math.cos(heading) * math.cos(pitch), math.sin(heading) * math.cos(pitch), math.sin(pitch))
        target = tuple(p + d for p, d in zip(location, direction))
        roll = math.radians(rng.gauss(0, 0.6))
        path.append((location, target, roll))
    return path


def write_depth_png(path, depth_mm):
    """A 16-bit greyscale PNG through Blender's image writer (no other imaging library in Blender)."""
    height, width = depth_mm.shape
    image = bpy.data.images.new("depth", width, height, alpha=False, float_buffer=True, is_data=True)
    image.colorspace_settings.name = "Non-Color"
    # Blender's pixel rows run bottom-up; a 16-bit PNG stores value / 65535 of each float channel.
    grey = (depth_mm[::-1].astype(np.float32) / 65535.0).ravel()
    pixels = np.empty((grey.size, 4), dtype=np.float32)
    pixels[:, 0] = pixels[:, 1] = pixels[:, 2] = grey
    pixels[:, 3] = 1.0
    image.pixels.foreach_set(pixels.ravel())
    image.filepath_raw = path
    image.file_format = "PNG"
    settings = bpy.context.scene.render.image_settings
    settings.file_format, settings.color_mode, settings.color_depth = "PNG", "BW", "16"
    image.save_render(path)
    settings.file_format, settings.color_mode, settings.color_depth = "JPEG", "RGB", "8"
    bpy.data.images.remove(image)


def true_depth(tree, cam_from_world, focal_px, width, height):
    """Depth along the optical axis (OpenCV z) at every pixel centre, metres, 0 where no surface is hit."""
    rotation = cam_from_world.to_3x3()
    world_from_cam = rotation.transposed()
    centre = -(world_from_cam @ cam_from_world.translation)
    depth = np.zeros((height, width), dtype=np.float64)
    cx, cy = width / 2, height / 2
    for row in range(height):
        y = (row + 0.5 - cy) / focal_px
        for col in range(width):
            ray = Vector(((col + 0.5 - cx) / focal_px, y, 1.0))
            hit, _, _, distance = tree.ray_cast(centre, world_from_cam @ ray.normalized())
            if hit is not None:
                depth[row, col] = distance / ray.length  # the ray's z component per unit length is 1 / |ray|
    return depth


def main():
    args = parse_arguments()
    out = os.path.abspath(args.out)
    for folder in ("images", "depth", "gt_sparse"):
        os.makedirs(os.path.join(out, folder), exist_ok=True)
    if os.path.exists(os.path.join(out, "SOURCE.md")):
        os.remove(os.path.join(out, "SOURCE.md"))  # the capture is complete only once SOURCE.md is written again
    scene = build_scene(args)
    camera, focal_px = add_camera(scene, args.width, lens_mm=LENS_MM, sensor_mm=SENSOR_MM)
    camera.data.clip_start = 0.05
    bpy.context.view_layer.update()
    meshes = [obj for obj in bpy.context.scene.objects if obj.type == "MESH"]
    vertices, faces = evaluated_triangles(meshes)
    names = [obj.name for obj in meshes]
    write_ply(os.path.join(out, "gt_mesh.ply"), vertices, faces)
    tree = BVHTree.FromPolygons(vertices.tolist(), faces.tolist(), all_triangles=True)

    poses = []
    started = time.time()
    path = walk(args)
    for index, (location, target, roll) in enumerate(path[:args.only]):
        direction = Vector(target) - Vector(location)
        aim = direction.to_track_quat("-Z", "Y")
        camera.location = location
        camera.rotation_euler = (aim @ Matrix.Rotation(roll, 4, "Z").to_quaternion()).to_euler()
        bpy.context.view_layer.update()
        name = f"{index:04d}.jpg"
        scene.render.filepath = os.path.join(out, "images", name)
        bpy.ops.render.render(write_still=True)
        cam_from_world = opencv_cam_from_world(camera.matrix_world, Matrix.Identity(4))
        poses.append((name, cam_from_world))
        depth = true_depth(tree, cam_from_world, focal_px, args.width, args.height)
        write_depth_png(os.path.join(out, "depth", f"{index:04d}.png"), np.round(depth * 1000.0))
        print(f"rendered {name} ({time.time() - started:.0f} s)", flush=True)

    write_gt_sparse(os.path.join(out, "gt_sparse"), args.width, args.height, focal_px, poses)
    if args.only is not None:
        print(f"timing check: {len(poses)} frames in {time.time() - started:.0f} s; no SOURCE.md", flush=True)
        return
    with open(os.path.join(out, "SOURCE.md"), "w") as f:
        f.write(f"""# Rendered capture: a walk inside a room with plain painted walls, floor and ceiling

Made by `nice blender -b --python-exit-code 1 -P scripts/data/render-room-capture.py -- --out DIR --frames {args.frames} --samples {args.samples} --width {args.width} --height {args.height} --seed {args.seed}{corner_flags(args)}`
(Blender {bpy.app.version_string}, Cycles CPU, {args.samples} samples, no denoiser), {args.width}x{args.height} JPEG (quality 92), {args.frames} frames.

A room {ROOM_X} x {ROOM_Y} m, {WALL_HEIGHT} m high: four walls, the floor and the ceiling are single planes of
one matte colour each, no texture (only the lamp's falloff and the table's shadow shade them). Textured
(procedural noise and Voronoi): a rug on the floor, two pictures on each wall, a table in the middle with books,
a bowl and a vase, a low cabinet with a box against the north wall, a potted plant in the south-east corner, a
crate by the west wall.{f' The room is an L: its north-east corner, {args.corner_size[0]} x {args.corner_size[1]} m, is walled off by two plain inner walls (the east wall picture hangs on the western one).' if args.corner else ''} One point lamp under the ceiling, hard
shadows, each surface glowing at {AMBIENT} of its own colour for the light walls bounce. The camera walks one loop
about the room's middle at about {EYE_HEIGHT} m (an ellipse of {LOOP[0]} x {LOOP[1]} m whose size varies by up to 0.25 m),
looking across the room, its heading swinging 35 degrees either way twice a loop and its pitch from 20 degrees
down to 10 degrees up three times a loop, with about 1 cm of hand shake.

What is true:
- gt_sparse/: COLMAP text, one PINHOLE camera f = {focal_px:.4f} px (a {LENS_MM:g} mm lens on a {SENSOR_MM:g} mm wide sensor),
  principal point at the image centre, no distortion; poses camFromWorld in OpenCV's axes (x right, y down,
  z forward), metres, in the room's frame (z up, the floor at z = 0, the room's middle at x = y = 0).
- gt_mesh.ply: binary little-endian PLY, float32 x y z + triangles, {len(vertices)} vertices, {len(faces)} triangles, the
  evaluated geometry of every object in the frame of the poses, metres: {', '.join(dict.fromkeys(n.split('.')[0] for n in names))}.
  The envelope is single-sided, its faces' normals into the room, and has no thickness; hidden faces (under the
  table, the cabinet's back) count.
- depth/NNNN.png: uint16, depth along the optical axis (camera z) in millimetres, 0 = no surface, at pixel
  centres (ray cast against gt_mesh.ply's triangles from the true pose), the size of the image; as
  ../shared/datasets/synthetic-room's depth/.
""")
    print(f"done: {args.frames} frames in {time.time() - started:.0f} s into {out}", flush=True)


main()
