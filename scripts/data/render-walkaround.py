"""Renders a hand-held video walk around the furniture of a room, with its exact ground truth.

Usage (Blender 3.4, Cycles on the CPU, no denoiser):
  nice blender -b --python-exit-code 1 -P scripts/data/render-walkaround.py -- \
      --out DIR [--frames 100] [--samples 2] [--width 640 --height 360] [--seed 7]

Writes DIR/images/0000.jpg ..., DIR/gt_sparse/ (COLMAP text: cameras.txt with one PINHOLE camera,
images.txt, an empty points3D.txt; OpenCV's camera axes, metres) and, last, DIR/SOURCE.md.

The room (5.6 x 4.6 m, walls 2.6 m high, lit by a point lamp under its ceiling) holds a table with
four legs, three chairs, a shelf with boxes on it against one wall and a sofa, all built from
primitives with procedural (noise and Voronoi) textures; the floor is textured, two walls are plain
paint and two carry a textured band. The camera walks once around the furniture, the way a person
films a video: an ellipse at eye height whose distance to the middle varies, aimed at a point that
wanders over the furniture, with small smooth hand shake in position and aim. The path covers one
full turn so that its last frames see what its first frames saw (a loop to close).
"""

import argparse
import math
import os
import random
import sys
import time

import bpy
from mathutils import Matrix, Vector

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
from blender_capture import add_camera, glowing, opencv_cam_from_world, smooth_noise  # noqa: E402
from blender_capture import plain_material as matte_material  # noqa: E402
from blender_capture import procedural_material as textured_material  # noqa: E402

ROOM_X, ROOM_Y, WALL_HEIGHT = 5.6, 4.6, 2.6
EYE_HEIGHT = 1.5
LENS_MM, SENSOR_MM = 26.0, 36.0  # a phone's wide camera (about 70 degrees across)
# Light without noise at a few samples a pixel: direct light of point lamps (hard shadows, one
# shadow ray each) and, for the light a room's walls bounce around, a glow of this share of each
# surface's own colour instead of path-traced bounces (which need hundreds of samples to settle).
AMBIENT = 0.3


def parse_arguments():
    import sys
    argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    parser = argparse.ArgumentParser(prog="render-walkaround.py")
    parser.add_argument("--out", required=True)
    parser.add_argument("--frames", type=int, default=100)
    parser.add_argument("--samples", type=int, default=2)
    parser.add_argument("--width", type=int, default=640)
    parser.add_argument("--height", type=int, default=360)
    parser.add_argument("--seed", type=int, default=7)
    return parser.parse_args(argv)


def procedural_material(name, scale, colours, seed):
    # The finest noise octave a few pixels wide: no aliasing at two samples.
    return glowing(textured_material(name, scale, colours, seed, detail=3.0), AMBIENT)


def plain_material(name, colour):
    return glowing(matte_material(name, colour, roughness=0.9, specular=0.1), AMBIENT)


def box(centre, size, material, rotation_z=0.0):
    """An axis-aligned box (then turned about z) with its scale applied, so textures keep metric scale."""
    bpy.ops.mesh.primitive_cube_add(size=1.0, location=centre)
    obj = bpy.context.object
    obj.scale = size
    obj.rotation_euler = (0, 0, rotation_z)
    bpy.ops.object.transform_apply(location=False, rotation=False, scale=True)
    obj.data.materials.append(material)
    return obj


def furniture_at(parts, origin, angle, material):
    """Boxes given in a piece's own frame (centre, size), placed at origin and turned by angle about z."""
    c, s = math.cos(angle), math.sin(angle)
    for (x, y, z), size in parts:
        box((origin[0] + c * x - s * y, origin[1] + s * x + c * y, z), size, material, angle)


def chair_parts():
    seat, leg = 0.45, 0.04
    parts = [((0, 0, 0.45), (seat, seat, 0.05)), ((0, -seat / 2 + 0.02, 0.7), (seat, 0.04, 0.5))]
    for x in (-1, 1):
        for y in (-1, 1):
            parts.append(((x * (seat / 2 - leg), y * (seat / 2 - leg), 0.21), (leg, leg, 0.42)))
    return parts


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
    bpy.ops.object.light_add(type="POINT", location=(0.2, -0.1, WALL_HEIGHT - 0.2))
    lamp = bpy.context.object
    lamp.data.energy = 260.0
    lamp.data.shadow_soft_size = 0.0  # hard shadows: one shadow ray, no noise

    floor = procedural_material("floor", 6.0, [(0.3, 0.2, 0.12), (0.55, 0.4, 0.25), (0.42, 0.3, 0.2), (0.7, 0.55, 0.38)], 1.0)
    box((0, 0, -0.025), (ROOM_X, ROOM_Y, 0.05), floor)
    paint = plain_material("paint", (0.82, 0.8, 0.74))
    band = procedural_material("band", 5.0, [(0.25, 0.35, 0.45), (0.7, 0.72, 0.65), (0.5, 0.3, 0.25), (0.85, 0.8, 0.6)], 2.0)
    t = 0.1
    # Plain walls at -x and +y; the walls at +x and -y carry a textured band (a wallpaper strip).
    box((-ROOM_X / 2 - t / 2, 0, WALL_HEIGHT / 2), (t, ROOM_Y + 2 * t, WALL_HEIGHT), paint)
    box((0, ROOM_Y / 2 + t / 2, WALL_HEIGHT / 2), (ROOM_X + 2 * t, t, WALL_HEIGHT), paint)
    box((ROOM_X / 2 + t / 2, 0, WALL_HEIGHT / 2), (t, ROOM_Y + 2 * t, WALL_HEIGHT), paint)
    box((0, -ROOM_Y / 2 - t / 2, WALL_HEIGHT / 2), (ROOM_X + 2 * t, t, WALL_HEIGHT), paint)
    box((0, 0, WALL_HEIGHT + t / 2), (ROOM_X + 2 * t, ROOM_Y + 2 * t, t), paint)  # the ceiling
    box((ROOM_X / 2 - 0.005, 0, 1.2), (0.01, ROOM_Y - 0.4, 1.0), band)
    box((0, -ROOM_Y / 2 + 0.005, 1.2), (ROOM_X - 0.4, 0.01, 1.0), band)

    wood = procedural_material("wood", 10.0, [(0.35, 0.2, 0.1), (0.6, 0.4, 0.22), (0.45, 0.28, 0.15), (0.8, 0.6, 0.4)], 3.0)
    # The table in the middle: a top and four legs.
    table = [((0, 0, 0.74), (1.4, 0.8, 0.04))]
    for x in (-0.64, 0.64):
        for y in (-0.34, 0.34):
            table.append(((x, y, 0.36), (0.05, 0.05, 0.72)))
    furniture_at(table, (0.0, 0.1), math.radians(8), wood)
    fabric = procedural_material("chair", 16.0, [(0.1, 0.25, 0.4), (0.6, 0.65, 0.7), (0.2, 0.45, 0.35), (0.9, 0.85, 0.7)], 4.0)
    for origin, angle in (((0.0, -0.65), 0.0), ((-0.95, 0.15), -math.pi / 2), ((0.55, 0.85), math.pi + 0.3)):
        furniture_at(chair_parts(), origin, angle, fabric)
    # The shelf against the +y wall: two sides, four boards, boxes on them.
    shelf = [((-0.6, 0, 0.9), (0.04, 0.35, 1.8)), ((0.6, 0, 0.9), (0.04, 0.35, 1.8))]
    shelf += [((0, 0, z), (1.2, 0.35, 0.03)) for z in (0.05, 0.5, 0.95, 1.4, 1.79)]
    furniture_at(shelf, (-1.2, ROOM_Y / 2 - 0.2), 0.0, wood)
    books = procedural_material("books", 20.0, [(0.6, 0.1, 0.1), (0.95, 0.9, 0.3), (0.1, 0.3, 0.6), (0.2, 0.6, 0.3), (0.95, 0.95, 0.95)], 5.0)
    for z, x0, width, height in ((0.065, -0.5, 0.45, 0.3), (0.515, 0.1, 0.4, 0.25), (0.965, -0.45, 0.3, 0.35),
                                  (0.965, 0.2, 0.25, 0.2), (1.415, -0.2, 0.5, 0.28)):
        furniture_at([((x0 + width / 2, 0, z + height / 2), (width, 0.25, height))], (-1.2, ROOM_Y / 2 - 0.2), 0.0, books)
    # The sofa along the -x side, facing the table: a base, a back and two arms.
    sofa = procedural_material("sofa", 14.0, [(0.45, 0.12, 0.1), (0.75, 0.5, 0.35), (0.3, 0.25, 0.3), (0.9, 0.8, 0.7)], 6.0)
    sofa_parts = [((0, 0, 0.22), (0.9, 2.0, 0.44)), ((-0.35, 0, 0.6), (0.2, 2.0, 0.5)),
                  ((0, -1.0, 0.35), (0.9, 0.18, 0.7)), ((0, 1.0, 0.35), (0.9, 0.18, 0.7))]
    furniture_at(sofa_parts, (-2.1, -0.4), 0.0, sofa)
    # A low cabinet with a box and a lamp-like cylinder at +x, so the far side has something to see.
    furniture_at([((0, 0, 0.3), (0.5, 1.2, 0.6))], (2.3, -0.6), 0.0, wood)
    bpy.ops.mesh.primitive_cylinder_add(radius=0.12, depth=0.45, location=(2.3, -0.9, 0.825))
    bpy.context.object.data.materials.append(books)
    box((2.3, -0.3, 0.7), (0.3, 0.3, 0.2), fabric)
    return scene


def walk(args):
    """Camera positions and aim points of one loop around the furniture, hand shake included."""
    rng = random.Random(args.seed)
    n = args.frames
    radius_noise = smooth_noise(rng, n, 0.35)
    height_noise = smooth_noise(rng, n, 0.08)
    aim_x, aim_y, aim_z = (smooth_noise(rng, n, a) for a in (0.5, 0.4, 0.25))
    path = []
    for i in range(n):
        angle = 2 * math.pi * i / n - math.pi / 2
        rx, ry = 2.0 + radius_noise[i], 1.55 + 0.6 * radius_noise[i]
        shake = [rng.gauss(0, 0.01) for _ in range(3)]
        location = (rx * math.cos(angle) + shake[0], ry * math.sin(angle) + shake[1],
                    EYE_HEIGHT + height_noise[i] + shake[2])
        target = (-0.2 + aim_x[i] + rng.gauss(0, 0.02), 0.1 + aim_y[i] + rng.gauss(0, 0.02), 0.6 + aim_z[i] + rng.gauss(0, 0.02))
        roll = math.radians(rng.gauss(0, 0.6)) + math.radians(2.0) * math.sin(2 * math.pi * 2 * i / n)
        path.append((location, target, roll))
    return path


def main():
    args = parse_arguments()
    out = os.path.abspath(args.out)
    os.makedirs(os.path.join(out, "images"), exist_ok=True)
    os.makedirs(os.path.join(out, "gt_sparse"), exist_ok=True)
    if os.path.exists(os.path.join(out, "SOURCE.md")):
        os.remove(os.path.join(out, "SOURCE.md"))  # the capture is complete only once SOURCE.md is written again
    scene = build_scene(args)
    camera, focal_px = add_camera(scene, args.width, lens_mm=LENS_MM, sensor_mm=SENSOR_MM)
    camera.data.clip_start = 0.05

    poses = []
    started = time.time()
    for index, (location, target, roll) in enumerate(walk(args)):
        direction = Vector(target) - Vector(location)
        aim = direction.to_track_quat("-Z", "Y")
        camera.location = location
        camera.rotation_euler = (aim @ Matrix.Rotation(roll, 4, "Z").to_quaternion()).to_euler()
        bpy.context.view_layer.update()
        name = f"{index:04d}.jpg"
        scene.render.filepath = os.path.join(out, "images", name)
        bpy.ops.render.render(write_still=True)
        poses.append((name, opencv_cam_from_world(camera.matrix_world, Matrix.Identity(4))))
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
    with open(os.path.join(out, "SOURCE.md"), "w") as f:
        f.write(f"""# Rendered capture: a hand-held video walk around the furniture of a room

Made by `scripts/data/render-walkaround.py --frames {args.frames} --samples {args.samples} --seed {args.seed}`
(Blender {bpy.app.version_string}, Cycles CPU, {args.samples} samples, no denoiser), {args.width}x{args.height} JPEG, {args.frames} frames.

A room {ROOM_X} x {ROOM_Y} m (walls {WALL_HEIGHT} m, a plain ceiling, a point lamp; two walls plain paint, two with a textured band)
holding a table, three chairs, a shelf with boxes, a sofa and a low cabinet, built from boxes with procedural
textures. The camera walks once around the furniture at about {EYE_HEIGHT} m (an ellipse of about 2.0 x 1.55 m
whose distance varies by up to 0.35 m), aimed at a point wandering over the furniture, with smooth and
per-frame hand shake (about 1 cm, a few tenths of a degree, a slow roll of 2 degrees); its last frames see
what its first frames saw.

What is true:
- gt_sparse: COLMAP text, one PINHOLE camera f = {focal_px:.4f} px (a {LENS_MM:g} mm lens on a {SENSOR_MM:g} mm wide sensor),
  principal point at the image centre, no distortion; poses camFromWorld in OpenCV's axes, in metres, in the
  room's frame (z up, the floor at z = 0).
""")
    print(f"done: {args.frames} frames in {time.time() - started:.0f} s into {out}", flush=True)


main()
