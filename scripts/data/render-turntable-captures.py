"""Renders fixed-camera turntable captures with exact ground truth, and captures built to break poses.

Usage (Blender 3.4, Cycles on the CPU, no denoiser):
  blender -b --python-exit-code 1 -P scripts/data/render-turntable-captures.py -- \
      --capture NAME --out DIR [--views 48] [--samples 24] [--width 640 --height 480]

NAME (see CAPTURES below for each one's scene and what is wrong with it):
  turntable-lowtex-busy     a textureless object (one matte colour, only shading) on a plain plate
                            before a busy static backdrop (wallpaper, posters, a shelf of books, a
                            wooden table, things on it)
  turntable-lowtex-plain    the same object and plate before a plain dark backdrop
  turntable-faint-busy      the object with a faint texture (clay colour -/+ FAINT_CONTRAST: 100-200
                            SIFT features on it) before turntable-lowtex-busy's backdrop
  turntable-textured-plain  the object procedurally textured, before the plain dark backdrop
  turntable-clay-blocks     a textureless object of other shapes (the sculpture: a bevelled block, a
                            ball on it, a ring beside it) in turntable-lowtex-*'s clay colour, on a
                            patterned plate (broken-slip's: the plate gives the poses, as a real
                            textureless scan's patterned mat does) before the plain dark backdrop
  broken-halves             the first half of the frames show one textured object, the second half
                            another one (same plate, backdrop, camera, turn)
  broken-slip               a textured object on a patterned plate that slips partway: from frame
                            SLIP_AT of 48 on it stands turned and shifted on the plate
  broken-shuffled           turntable-textured-plain's scene with the frames saved under a random
                            (seeded) permutation of the names

Writes DIR/images/0000.jpg ..., DIR/gt_sparse/ (COLMAP text, PINHOLE, cameras in the plate's frame,
as if the camera orbited a still plate; OpenCV's camera axes, metres), DIR/true_masks/ (255 on the
object and the plate, which turns rigidly with it), DIR/true_masks_object/ (255 on the object
alone), broken-slip's DIR/gt_sparse_object/ (cameras in the object's frame), the true geometry
where one rigid scene explains every frame (all captures but broken-halves and broken-slip):
DIR/gt_mesh.ply (the object alone) and DIR/gt_scene_mesh.ply (the object and the plate), binary
little-endian PLY, float32 x y z + triangles, the evaluated geometry (after modifiers) in the
plate's frame (gt_sparse's frame: the world at rotation 0), then counts COLMAP's SIFT features per
image with scripts/data/capture-features.py (the system's python3 and pycolmap: Blender's Python
has neither) and writes DIR/SOURCE.md last.

The camera is fixed, CAMERA_ELEVATION above the plate, looking at the object; the lights (a sun and
a grey sky) and the backdrop are fixed in the world; the plate turns 360 / views degrees a frame
about the world's z axis (counter-clockwise from above). Deterministic: fixed seeds, no clock.
"""

import argparse
import json
import math
import os
import random
import shutil
import subprocess
import sys
import time

import bpy
import numpy as np
from mathutils import Quaternion

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
from blender_capture import (OBJECT_INDEX, PLATE_INDEX, add_camera, add_mask_outputs,  # noqa: E402
                             add_world_light, clear_scene, configure_render, opencv_cam_from_world,
                             place_camera, plain_material, procedural_material, smooth_monkey,
                             stand_on, write_gt_sparse, evaluated_triangles, write_ply)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "lib"))
from pgscripts import read_cameras, read_images  # noqa: E402

HERE = os.path.dirname(os.path.realpath(__file__))
PLATE_RADIUS = 0.14
PLATE_THICKNESS = 0.015
OBJECT_SIZE = 0.20               # the object's largest extent, metres
CAMERA_ELEVATION = 25.0          # degrees above the plate's plane
CAMERA_DISTANCE = 0.40           # metres from the target
CAMERA_TARGET = (0.0, 0.0, 0.07)
CLAY = (0.72, 0.58, 0.45)        # the textureless object's one colour
PLAIN_PLATE = (0.30, 0.30, 0.31)
DARK = (0.025, 0.025, 0.027)     # the plain backdrop
FAINT_CONTRAST = 0.08            # the faint object's texture: clay colour times 1 -/+ this
OBJECT_COLOURS = [(0.55, 0.12, 0.05), (0.9, 0.75, 0.3), (0.15, 0.35, 0.6), (0.95, 0.95, 0.9)]
SECOND_COLOURS = [(0.1, 0.4, 0.15), (0.85, 0.85, 0.8), (0.5, 0.1, 0.4), (0.95, 0.6, 0.1)]
SLIP_AT = 20                     # of 48 frames: the first frame after the slip (scaled to --views)
SLIP_TURN = 40.0                 # degrees the object turns on the plate (about the plate's axis) ...
SLIP_SHIFT = (0.03, -0.02)       # ... and metres it moves on it (plate frame, x and y)
SHUFFLE_SEED = 7
TEXTURE_DETAIL = 4.0               # noise octaves of the procedural textures: fewer render faster

CAPTURES = {
    "turntable-lowtex-busy": dict(obj="clay", backdrop="busy", plate="plain"),
    "turntable-lowtex-plain": dict(obj="clay", backdrop="plain", plate="plain"),
    "turntable-faint-busy": dict(obj="faint", backdrop="busy", plate="plain"),
    "turntable-textured-plain": dict(obj="textured", backdrop="plain", plate="plain"),
    "turntable-clay-blocks": dict(obj="clay", shape="sculpture", backdrop="plain", plate="patterned"),
    "broken-halves": dict(obj="textured", second="sculpture", backdrop="plain", plate="plain"),
    "broken-slip": dict(obj="textured", backdrop="plain", plate="patterned", slip=True),
    "broken-shuffled": dict(obj="textured", backdrop="plain", plate="plain", shuffle=True),
}


def parse_arguments():
    argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    parser = argparse.ArgumentParser(prog="render-turntable-captures.py")
    parser.add_argument("--capture", choices=sorted(CAPTURES), required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--views", type=int, default=48)
    parser.add_argument("--samples", type=int, default=16)
    parser.add_argument("--width", type=int, default=640)
    parser.add_argument("--height", type=int, default=480)
    parser.add_argument("--quality", type=int, default=92, help="JPEG quality")
    parser.add_argument("--frames-from", help="broken-shuffled only: take the frames of this finished "
                        "turntable-textured-plain capture (same --views) instead of rendering them again")
    return parser.parse_args(argv)


def add_box(name, size, location, material, rotation_z=0.0, parent=None):
    bpy.ops.mesh.primitive_cube_add(size=1.0, location=location, rotation=(0, 0, math.radians(rotation_z)))
    box = bpy.context.object
    box.name = name
    box.scale = size
    box.data.materials.append(material)
    box.parent = parent
    return box


def busy_backdrop():
    """A room corner a phone on a tripod sees behind a turntable: a patterned wall with posters, a
    shelf of books, a wooden table with a box and a mug on it. All static."""
    rng = random.Random(3)
    bpy.ops.mesh.primitive_plane_add(size=3.0, location=(0, 0, -PLATE_THICKNESS))
    table = bpy.context.object
    table.data.materials.append(procedural_material(
        "table", 14.0, [(0.25, 0.14, 0.07), (0.5, 0.32, 0.17), (0.35, 0.2, 0.1), (0.62, 0.45, 0.28)], 11.0,
        TEXTURE_DETAIL))
    bpy.ops.mesh.primitive_plane_add(size=3.0, location=(0, 0.45, 1.5), rotation=(math.radians(90), 0, 0))
    wall = bpy.context.object
    wall.data.materials.append(procedural_material(
        "wallpaper", 9.0, [(0.75, 0.72, 0.62), (0.45, 0.5, 0.55), (0.85, 0.8, 0.7)], 12.0, TEXTURE_DETAIL))
    posters = [((-0.30, 0.17), (0.20, 0.26), [(0.9, 0.2, 0.1), (0.1, 0.1, 0.15), (0.95, 0.85, 0.2)]),
               ((0.05, 0.30), (0.26, 0.16), [(0.1, 0.3, 0.7), (0.95, 0.95, 0.95), (0.2, 0.6, 0.3)]),
               ((0.34, 0.14), (0.16, 0.22), [(0.6, 0.1, 0.5), (0.98, 0.9, 0.8), (0.1, 0.2, 0.2)])]
    for number, ((x, z), (w, h), colours) in enumerate(posters):
        bpy.ops.mesh.primitive_plane_add(size=1.0, location=(x, 0.447, z), rotation=(math.radians(90), 0, 0))
        poster = bpy.context.object
        poster.scale = (w, h, 1)
        poster.data.materials.append(procedural_material(
            f"poster{number}", 18.0 + 6 * number, colours, 20.0 + number, TEXTURE_DETAIL))
    shelf_z = 0.07
    add_box("shelf", (0.5, 0.09, 0.012), (0.02, 0.40, shelf_z), plain_material("shelf", (0.8, 0.78, 0.74), 0.7))
    x = -0.2
    while x < 0.24:
        width, height = rng.uniform(0.012, 0.03), rng.uniform(0.06, 0.1)
        colour = (rng.uniform(0.05, 0.9), rng.uniform(0.05, 0.9), rng.uniform(0.05, 0.9))
        add_box("book", (width, 0.07, height), (x + width / 2, 0.40, shelf_z + 0.006 + height / 2),
                plain_material("book", colour, 0.6, 0.3), rotation_z=rng.uniform(-3, 3))
        x += width + 0.002
    add_box("box", (0.1, 0.08, 0.07), (-0.33, 0.12, 0.035 - PLATE_THICKNESS), procedural_material(
        "box", 25.0, [(0.8, 0.7, 0.2), (0.2, 0.2, 0.6), (0.9, 0.9, 0.85)], 13.0, TEXTURE_DETAIL), rotation_z=25)
    bpy.ops.mesh.primitive_cylinder_add(radius=0.035, depth=0.09, location=(0.32, 0.14, 0.045 - PLATE_THICKNESS))
    bpy.context.object.data.materials.append(procedural_material(
        "mug", 30.0, [(0.1, 0.5, 0.5), (0.95, 0.95, 0.9), (0.7, 0.2, 0.2)], 14.0, TEXTURE_DETAIL))


def plain_backdrop():
    """A seamless dark backdrop: the table and the wall behind it alike, matte."""
    dark = plain_material("backdrop", DARK, 1.0, 0.02)
    bpy.ops.mesh.primitive_plane_add(size=3.0, location=(0, 0, -PLATE_THICKNESS))
    bpy.context.object.data.materials.append(dark)
    bpy.ops.mesh.primitive_plane_add(size=3.0, location=(0, 0.45, 1.5), rotation=(math.radians(90), 0, 0))
    bpy.context.object.data.materials.append(dark)


def sculpture(parent, material):
    """An object not rotationally symmetric, in `material`: a bevelled block, a ball on it, a ring
    beside it, standing at the plate's top (z = 0)."""
    parts = []
    bpy.ops.mesh.primitive_cube_add(size=0.09, location=(0.01, 0.0, 0.045), rotation=(0, 0, math.radians(20)))
    parts.append(bpy.context.object)
    bpy.ops.object.modifier_add(type="BEVEL")
    parts[-1].modifiers["Bevel"].width = 0.012
    parts[-1].modifiers["Bevel"].segments = 4
    bpy.ops.mesh.primitive_uv_sphere_add(radius=0.035, location=(0.03, 0.01, 0.12))
    parts.append(bpy.context.object)
    bpy.ops.mesh.primitive_torus_add(major_radius=0.04, minor_radius=0.012, location=(-0.06, -0.02, 0.052),
                                     rotation=(math.radians(90), 0, math.radians(60)))
    parts.append(bpy.context.object)
    for part in parts:
        bpy.ops.object.select_all(action="DESELECT")
        part.select_set(True)
        bpy.context.view_layer.objects.active = part
        bpy.ops.object.shade_smooth()
        part.data.materials.append(material)
        part.pass_index = OBJECT_INDEX
        part.parent = parent
    return parts


def extent(objects):
    """The x, y, z size (metres) of the objects' evaluated geometry together, in the world."""
    return tuple(float(size) for size in np.ptp(evaluated_triangles(objects)[0], axis=0))


def has_true_mesh(spec):
    """One rigid scene explains every frame: no second object, no slip."""
    return not spec.get("second") and not spec.get("slip")


def object_material(kind):
    if kind == "clay":
        return plain_material("clay", CLAY)
    if kind == "faint":
        return procedural_material("faint", 8.0, [tuple(c * (1 - FAINT_CONTRAST) for c in CLAY),
                                                  tuple(c * (1 + FAINT_CONTRAST) for c in CLAY)], 1.0, TEXTURE_DETAIL)
    return procedural_material("object", 8.0, OBJECT_COLOURS, 1.0, TEXTURE_DETAIL)


def build_scene(args, spec):
    scene = bpy.context.scene
    configure_render(scene, args.width, args.height, args.samples, bounces=2)
    scene.render.image_settings.quality = args.quality
    add_world_light(scene)

    # The plate: everything that turns on the turntable is parented to it.
    bpy.ops.object.empty_add(location=(0, 0, 0))
    plate = bpy.context.object
    plate.name = "plate"
    bpy.ops.mesh.primitive_cylinder_add(radius=PLATE_RADIUS, depth=PLATE_THICKNESS, vertices=128,
                                        location=(0, 0, -PLATE_THICKNESS / 2))
    disc = bpy.context.object
    disc.data.materials.append(
        plain_material("plate", PLAIN_PLATE, 0.9, 0.1) if spec["plate"] == "plain" else
        procedural_material("plate", 40.0, [(0.15, 0.15, 0.17), (0.8, 0.78, 0.72)], 6.0, TEXTURE_DETAIL))
    disc.pass_index = PLATE_INDEX
    disc.parent = plate

    # The object stands on a holder (an empty) so that it can slip on the plate.
    bpy.ops.object.empty_add(location=(0, 0, 0))
    holder = bpy.context.object
    holder.parent = plate
    if spec.get("shape") == "sculpture":
        first = sculpture(holder, object_material(spec["obj"]))
        dimensions = extent(first)
    else:
        monkey = smooth_monkey(OBJECT_SIZE)
        monkey.data.materials.append(object_material(spec["obj"]))
        monkey.pass_index = OBJECT_INDEX
        stand_on(monkey, 0.0, holder, gap=-0.002)
        first = [monkey]
        dimensions = tuple(monkey.dimensions)
    second = (sculpture(holder, procedural_material("second", 8.0, SECOND_COLOURS, 5.0, TEXTURE_DETAIL))
              if spec.get("second") else [])

    (busy_backdrop if spec["backdrop"] == "busy" else plain_backdrop)()
    return scene, plate, holder, first, second, disc, dimensions


def frame_names(args, spec):
    """The file name of each frame in turn order: 0000.jpg ..., or a seeded permutation of them."""
    names = [f"{view:04d}.jpg" for view in range(args.views)]
    if spec.get("shuffle"):
        random.Random(SHUFFLE_SEED).shuffle(names)
    return names


def slip_frame(args):
    return round(SLIP_AT * args.views / 48)


def render(args, spec, out):
    scene, plate, holder, first, second, disc, dimensions = build_scene(args, spec)
    if has_true_mesh(spec):
        write_true_meshes(out, plate, first, disc)
    camera, focal_px = add_camera(scene, args.width)
    place_camera(camera, -math.pi / 2, math.radians(CAMERA_ELEVATION), CAMERA_DISTANCE, CAMERA_TARGET)
    masks = os.path.join(out, "masks-render")
    add_mask_outputs(scene, masks, {"true_masks": [OBJECT_INDEX, PLATE_INDEX], "true_masks_object": [OBJECT_INDEX]})
    names = frame_names(args, spec)
    poses, object_poses = [], []
    started = time.time()
    for view, name in enumerate(names):
        plate.rotation_euler = (0, 0, 2 * math.pi * view / args.views)
        if spec.get("slip") and view >= slip_frame(args):
            holder.location = (SLIP_SHIFT[0], SLIP_SHIFT[1], 0)
            holder.rotation_euler = (0, 0, math.radians(SLIP_TURN))
        for part in second:
            part.hide_render = view < args.views // 2
        for part in first:
            part.hide_render = bool(second) and view >= args.views // 2
        bpy.context.view_layer.update()
        scene.frame_current = view
        scene.render.filepath = os.path.join(out, "images", name)
        bpy.ops.render.render(write_still=True)
        for folder in ("true_masks", "true_masks_object"):
            os.replace(os.path.join(masks, folder, f"mask{view:04d}.png"),
                       os.path.join(out, folder, os.path.splitext(name)[0] + ".png"))
        # Ground truth in the plate's frame (and the object's, where they differ).
        poses.append((name, opencv_cam_from_world(camera.matrix_world, plate.matrix_world)))
        object_poses.append((name, opencv_cam_from_world(camera.matrix_world, holder.matrix_world)))
        print(f"rendered {name} ({time.time() - started:.0f} s)", flush=True)
    for folder in ("true_masks", "true_masks_object"):
        os.rmdir(os.path.join(masks, folder))
    os.rmdir(masks)
    order = sorted(range(len(names)), key=lambda view: names[view])
    write_gt_sparse(os.path.join(out, "gt_sparse"), args.width, args.height, focal_px,
                    [poses[view] for view in order])
    if spec.get("slip"):
        write_gt_sparse(os.path.join(out, "gt_sparse_object"), args.width, args.height, focal_px,
                        [object_poses[view] for view in order])
    return focal_px, dimensions, names, time.time() - started


def write_true_meshes(out, plate, objects, disc):
    """DIR/gt_mesh.ply (the object) and DIR/gt_scene_mesh.ply (the object and the plate) in the
    plate's frame, written before the first frame is rendered (the plate at rotation 0)."""
    plate_from_world = plate.matrix_world.inverted()
    write_ply(os.path.join(out, "gt_mesh.ply"), *evaluated_triangles(objects, plate_from_world))
    write_ply(os.path.join(out, "gt_scene_mesh.ply"), *evaluated_triangles(objects + [disc], plate_from_world))


def shuffle_frames(args, source, out):
    """broken-shuffled from a rendered turntable-textured-plain: its frames, masks and poses under
    the permuted names."""
    with open(os.path.join(source, "SOURCE.md")) as f:
        if not f.readline().startswith("# turntable-textured-plain:"):
            raise SystemExit(f"{source}: not a turntable-textured-plain capture")
    poses = {image.name: image for image in read_images(os.path.join(source, "gt_sparse"))}
    camera = read_cameras(os.path.join(source, "gt_sparse"))[1]
    if len(poses) != args.views or (camera.width, camera.height) != (args.width, args.height):
        raise SystemExit(f"{source}: not {args.views} frames of {args.width}x{args.height}")
    names = frame_names(args, CAPTURES["broken-shuffled"])
    shuffled = []
    for view, name in enumerate(names):
        stem = f"{view:04d}"
        shutil.copyfile(os.path.join(source, "images", stem + ".jpg"), os.path.join(out, "images", name))
        for folder in ("true_masks", "true_masks_object"):
            shutil.copyfile(os.path.join(source, folder, stem + ".png"),
                            os.path.join(out, folder, os.path.splitext(name)[0] + ".png"))
        image = poses[stem + ".jpg"]
        pose = Quaternion(image.qvec).to_matrix().to_4x4()
        pose.translation = image.t
        shuffled.append((name, pose))
    write_gt_sparse(os.path.join(out, "gt_sparse"), args.width, args.height, camera.params[0], sorted(shuffled))
    return names


def count_features(out):
    """capture-features.py's JSON for the rendered capture."""
    proc = subprocess.run(["python3", os.path.join(HERE, "capture-features.py"), "--json", out],
                          check=True, capture_output=True, text=True)
    return json.loads(proc.stdout)


def what_is_wrong(args, spec, names):
    """SOURCE.md's account of a broken capture: what is wrong, what a correct tool must say."""
    half = args.views // 2
    if spec.get("second"):
        return f"""
## What is wrong, and what a correct tool must say

One capture of two things: frames 0000-{half - 1:04d} show the monkey head, frames {half:04d}-{args.views - 1:04d}
a different object (a bevelled block with a ball on it and a ring beside it, textured alike but with
other colours and another seed). Plate, backdrop, lights and camera are the same, and the turn goes
on without a break, so gt_sparse holds true camera poses relative to the plate for every frame; but
no single object is seen all the way round, and the two halves share nothing that turns except a
plain plate. A correct tool must not report one good model of {args.views} frames: at best a model of
one half (half a turn of one object) and the other half unregistered or in a model of its own, and
its verdict "poses unreliable" (or the two halves reported as unconnected), never "good capture".
"""
    if spec.get("slip"):
        at = slip_frame(args)
        return f"""
## What is wrong, and what a correct tool must say

The object slips on the plate: frames 0000-{at - 1:04d} show it standing as placed; from frame {at:04d}
on it stands turned {SLIP_TURN:g} degrees about the plate's axis and shifted ({SLIP_SHIFT[0]:g}, {SLIP_SHIFT[1]:g}) m
on the plate (as when a turntable jerks, or a hand nudges the object between shots), and stays so
while the plate goes on turning. The plate is patterned, so plate and object are both rich in
features and they disagree: gt_sparse (the plate's frame) is exact for the plate and for the object
before the slip; gt_sparse_object (the object's frame) is exact for the object in every frame. No
rigid scene explains all frames: after the slip, the object's apparent turn is {SLIP_TURN:g} degrees more
than the plate's. A correct tool must not merge the two into one "good" model: it reports "poses
unreliable" (features on the object and on the plate give poses {SLIP_TURN:g} degrees apart for frames
{at:04d} on; turn steps inconsistent at the slip) or it reconstructs one of the two rigid bodies and
says the other disagrees.
"""
    if spec.get("shuffle"):
        order = " ".join(os.path.splitext(name)[0] for name in names)
        return f"""
## What is wrong, and what a correct tool must say

The frames are saved under a random permutation of the names (Python's random.Random({SHUFFLE_SEED}).shuffle),
so the file order is not the turn order: consecutive names are on average about 90 degrees of
turn apart, not {360 / args.views:g}. The scene and the poses are those of turntable-textured-plain; gt_sparse
gives each file's true pose. Turn order (frame 0, 1, ... by file stem): {order}.
A tool that takes file order for turn order (sequential matching windows, a constant-rate turn
prior, guided matching along the turn) must find that consecutive frames do not follow one
plausible turn rate and say "poses unreliable" with that evidence, or not rely on order and
recover the true poses (then the capture is good, and AUC against gt_sparse shows it). It must
never report "good capture" with poses that follow the file order.
"""
    return ""


def true_meshes(spec, out):
    """SOURCE.md's lines on gt_mesh.ply and gt_scene_mesh.ply, where the capture has them."""
    if not has_true_mesh(spec):
        return ""
    counts = []
    for name in ("gt_mesh.ply", "gt_scene_mesh.ply"):
        with open(os.path.join(out, name), "rb") as f:
            header = f.read(400).split(b"end_header")[0].decode()
        counts.append([int(line.split()[2]) for line in header.splitlines() if line.startswith("element")])
    return f"""- gt_mesh.ply: the object alone, {counts[0][0]} vertices, {counts[0][1]} triangles; gt_scene_mesh.ply: the
  object and the plate (a closed cylinder, its top at z = 0), {counts[1][0]} vertices, {counts[1][1]} triangles.
  Binary little-endian PLY, float32 x y z + triangles, metres, the evaluated geometry (after
  modifiers: what Cycles renders) in the plate's frame, the frame of gt_sparse's poses (the world
  at rotation 0). For `eval_dense.py RECON EST_SPARSE gt_sparse gt_scene_mesh.ply gt_mesh.ply TAU`.
"""


def write_source(args, spec, out, focal_px, dimensions, names, seconds, features):
    obj = {"clay": f"Blender's monkey head (subdivided twice, smooth), one matte clay colour {CLAY} (linear RGB), "
                   "roughness 1: no texture, only shading",
           "faint": f"Blender's monkey head (subdivided twice, smooth), a faint procedural Noise + Voronoi "
                    f"texture in object coordinates: the clay colour {CLAY} times 1 -/+ {FAINT_CONTRAST} (linear "
                    "RGB), texture-poor but not textureless",
           "textured": "Blender's monkey head (subdivided twice, smooth), procedural Noise + Voronoi texture "
                       "in object coordinates"}[spec["obj"]]
    if spec.get("shape") == "sculpture":
        obj = (f"a bevelled block, a ball on it and a ring beside it (UV sphere, torus; smooth-shaded), one "
               f"matte clay colour {CLAY} (linear RGB), roughness 1: no texture, only shading")
    backdrop = {"busy": "busy and static: a wooden table, patterned wallpaper, three posters, a shelf of "
                        "books, a box and a mug on the table",
                "plain": f"plain and dark: table and wall matte {DARK} (linear RGB)"}[spec["backdrop"]]
    plate = {"plain": f"plain matte grey {PLAIN_PLATE} (linear RGB), rotationally symmetric",
             "patterned": "patterned (procedural Noise + Voronoi, dark and light), rich in features"}[spec["plate"]]
    command = (f"blender -b --python-exit-code 1 -P scripts/data/render-turntable-captures.py -- --capture "
               f"{args.capture} --out DIR --views {args.views} --samples {args.samples} --width {args.width} "
               f"--height {args.height} --quality {args.quality}"
               + (" --frames-from DIR/../turntable-textured-plain" if args.frames_from else ""))
    samples = ("the frames copied from turntable-textured-plain, rendered with its own samples" if args.frames_from
               else f"{args.samples} samples")
    with open(os.path.join(out, "SOURCE.md"), "w") as f:
        f.write(f"""# {args.capture}: a rendered fixed-camera turntable capture

Made by `{command}`
(Blender {bpy.app.version_string}, Cycles CPU, {samples}, no denoiser; {seconds:.0f} s), {args.width}x{args.height}
JPEG (quality {args.quality}), {args.views} frames, one turn. Deterministic (fixed seeds, no clock).

How: a fixed camera {CAMERA_ELEVATION:g} degrees above the plate's plane at {CAMERA_DISTANCE} m from
{CAMERA_TARGET} (the plate's top at z = 0) looks at the object; the plate (radius {PLATE_RADIUS} m) and
all on it turn {360 / args.views:g} degrees a frame about the world's z axis. The lights (a sun and a grey sky)
and the backdrop are fixed in the world, as with a real turntable: shading and shadows on the object
change as it turns.
- object: {obj}; {dimensions[0]:.4f} x {dimensions[1]:.4f} x {dimensions[2]:.4f} m (x, y, z), standing on the plate.
- plate: {plate}; it turns with the object.
- backdrop: {backdrop}.
- no masks/ (true_masks/ is ground truth for scoring, deliberately not named masks/).

What is true:
- gt_sparse: COLMAP text, one PINHOLE camera f = {focal_px:.4f} px, cx = {args.width / 2:g}, cy = {args.height / 2:g}
  (no distortion); poses camFromPlate in OpenCV's axes (x right, y down, z forward), metres, in the
  plate's (turning) frame: the frame a turntable reconstruction is in, as if the camera orbited a
  still plate.
- true_masks/<stem>.png: 255 on the object AND the plate (everything that turns rigidly), 0
  elsewhere; true_masks_object/<stem>.png: 255 on the object alone. Both exact (Cycles' object-index
  pass, no anti-aliasing: a pixel is the object's when its first sample hits it).
- COLMAP SIFT features (pycolmap {features["pycolmap"]}, default options, CPU) per image: median
  {features["median_all"]} in the whole image (min {features["min_all"]}, max {features["max_all"]}), median
  {features["median_object"]} on the object (min {features["min_object"]}, max {features["max_object"]};
  keypoints inside true_masks_object dilated by {features["dilate"]} px), median {features["median_turning"]} on
  object and plate (true_masks dilated alike).
{true_meshes(spec, out)}{what_is_wrong(args, spec, names)}""")


def main():
    args = parse_arguments()
    spec = CAPTURES[args.capture]
    out = os.path.abspath(args.out)
    if os.path.exists(os.path.join(out, "SOURCE.md")):
        os.remove(os.path.join(out, "SOURCE.md"))  # the capture is incomplete until it is written again
    for folder in ("images", "gt_sparse", "true_masks", "true_masks_object"):
        os.makedirs(os.path.join(out, folder), exist_ok=True)
    clear_scene()
    if args.frames_from:
        if args.capture != "broken-shuffled":
            raise SystemExit("--frames-from goes with --capture broken-shuffled")
        started = time.time()
        scene, plate, _, first, _, disc, dimensions = build_scene(args, spec)
        write_true_meshes(out, plate, first, disc)
        _, focal_px = add_camera(scene, args.width)
        names = shuffle_frames(args, os.path.abspath(args.frames_from), out)
        seconds = time.time() - started
    else:
        focal_px, dimensions, names, seconds = render(args, spec, out)
    features = count_features(out)
    write_source(args, spec, out, focal_px, dimensions, names, seconds, features)
    print(f"done: {args.views} views in {seconds:.0f} s into {out}; features median {features['median_all']}, "
          f"on the object {features['median_object']}", flush=True)


main()
