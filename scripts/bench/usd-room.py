#!/usr/bin/env python3
"""A RoomPlan-like USDZ of a synthetic room, for `photogrammetry texture` and the closing
measurements of USD reading.

usage: scripts/bench/usd-room.py DATASET OUT_DIR    (DATASET: e.g. ../shared/datasets/synthetic-room)

The room's gt_mesh.ply (Blender's frame: Z up, metres) is turned Y up as RoomPlan's exports are
((x, y, z) -> (x, z, -y)) and split into its connected parts, each a Mesh under its own Xform in
/Room/Walls, /Room/Floors or /Room/Objects (by the part's box: a thin vertical slab over 1.5 m
tall is a wall, a thin horizontal one at the bottom a floor; the rest objects), the Xform
translating to the part's centre and turning it about Y (k * 23 degrees for part k), the Mesh
holding the points in that Xform's frame. Writes to OUT_DIR:

  room.usdz         binary layer (usd-core), Y up, metersPerUnit 1
  room-yup.ply      the same surface as one mesh in the same frame (the control)
  transforms.json   the true poses in that frame, nerfstudio's convention (OpenGL camera axes)
  sparse-yup/       the true poses as a COLMAP text model in that frame (for eval_texture.py)

Needs numpy, trimesh and usd-core.
"""
import json, math, os, sys
import numpy as np, trimesh
from pxr import Usd, UsdGeom, Sdf, UsdUtils, Gf

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "lib"))
from pgscripts import read_cameras, read_images, rotation_to_quaternion  # noqa: E402

dataset, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
UP = np.array([[1, 0, 0], [0, 0, 1], [0, -1, 0]], float)  # Z up -> Y up

truth = trimesh.load(os.path.join(dataset, "gt_mesh.ply"), process=False)
vertices = np.asarray(truth.vertices, float) @ UP.T
room = trimesh.Trimesh(vertices, truth.faces, process=False)
room.export(os.path.join(out, "room-yup.ply"))

# Connected by edges, each face in one part (trimesh's split can put a face in two).
labels = trimesh.graph.connected_component_labels(room.face_adjacency, node_count=len(room.faces))
parts = [room.submesh([np.flatnonzero(labels == label)], append=True) for label in np.unique(labels)]
low = room.bounds[0][1]
stage = Usd.Stage.CreateNew(os.path.join(out, "Room.usdc"))
UsdGeom.SetStageUpAxis(stage, UsdGeom.Tokens.y)
UsdGeom.SetStageMetersPerUnit(stage, 1.0)
stage.SetDefaultPrim(UsdGeom.Xform.Define(stage, "/Room").GetPrim())
counts = {"Walls": 0, "Floors": 0, "Objects": 0}
for k, part in enumerate(parts):
    extent = part.extents
    thin = extent.min() < 0.05
    if thin and extent[1] > 1.5 and np.argmin(extent) != 1:
        group = "Walls"
    elif thin and np.argmin(extent) == 1 and part.bounds[0][1] < low + 0.05:
        group = "Floors"
    else:
        group = "Objects"
    name = "%s/%s%d" % (group, group[:-1], counts[group])
    counts[group] += 1
    centre = part.bounds.mean(axis=0)
    angle = 23.0 * k
    a = math.radians(angle)
    # The Xform's RotateY(angle) takes local to world: world = R local + centre.
    rotation = np.array([[math.cos(a), 0, math.sin(a)], [0, 1, 0], [-math.sin(a), 0, math.cos(a)]])
    local = (np.asarray(part.vertices) - centre) @ rotation  # R^T (p - c), as rows
    holder = UsdGeom.Xform.Define(stage, "/Room/" + name)
    holder.AddTranslateOp().Set(Gf.Vec3d(*centre))
    holder.AddRotateYOp().Set(angle)
    mesh = UsdGeom.Mesh.Define(stage, "/Room/" + name + "/Mesh")
    mesh.CreatePointsAttr([Gf.Vec3f(*p) for p in local])
    mesh.CreateFaceVertexCountsAttr([3] * len(part.faces))
    mesh.CreateFaceVertexIndicesAttr([int(i) for i in np.asarray(part.faces).ravel()])
    mesh.CreateSubdivisionSchemeAttr(UsdGeom.Tokens.none)
stage.GetRootLayer().Save()
usdz = os.path.join(out, "room.usdz")
assert UsdUtils.CreateNewARKitUsdzPackage(Sdf.AssetPath(os.path.join(out, "Room.usdc")), usdz)
print("%s: %d parts (%s), %d triangles" % (usdz, len(parts), ", ".join("%d %s" % (n, g.lower()) for g, n in counts.items()),
                                           len(room.faces)))

# The poses in the Y-up frame: X_cam = R X_zup + t = (R UP^T) X_yup + t.
cameras = read_cameras(os.path.join(dataset, "gt_sparse"))
images = sorted(read_images(os.path.join(dataset, "gt_sparse")), key=lambda image: image.name)
camera = cameras[images[0].camera_id]
fx, fy, cx, cy = camera.params[:4] if camera.model == "PINHOLE" else (camera.params[0], camera.params[0], *camera.params[1:3])
frames = []
sparse = os.path.join(out, "sparse-yup")
os.makedirs(sparse, exist_ok=True)
with open(os.path.join(sparse, "cameras.txt"), "w") as f:
    f.write("1 PINHOLE %d %d %r %r %r %r\n" % (camera.width, camera.height, fx, fy, cx, cy))
with open(os.path.join(sparse, "points3D.txt"), "w") as f:
    pass
with open(os.path.join(sparse, "images.txt"), "w") as f:
    for k, image in enumerate(images):
        R = np.array(image.R) @ UP.T
        t = np.array(image.t)
        q = rotation_to_quaternion(R.tolist())
        f.write("%d %r %r %r %r %r %r %r 1 %s\n\n" % (k + 1, *map(float, q), *map(float, t), image.name))
        cam_to_world = R.T
        m = np.eye(4)
        m[:3, 0] = cam_to_world[:, 0]
        m[:3, 1] = -cam_to_world[:, 1]
        m[:3, 2] = -cam_to_world[:, 2]
        m[:3, 3] = -R.T @ t
        frames.append({"file_path": "images/" + image.name, "transform_matrix": m.tolist()})
with open(os.path.join(out, "transforms.json"), "w") as f:
    json.dump({"camera_model": "OPENCV", "fl_x": fx, "fl_y": fy, "cx": cx, "cy": cy, "w": camera.width,
               "h": camera.height, "frames": frames}, f, indent=1)
print("%s: %d frames; %s" % (os.path.join(out, "transforms.json"), len(frames), sparse))
