#!/usr/bin/env python3
"""The GLB and the USDZ of one run, rendered alike by Blender: how far apart their colours are.

    scripts/bench/blender-colours.py RUN_FOLDER [--samples 64] [--size 400] [--keep DIR]

RUN_FOLDER holds `model.glb` and `model.usdz` (a `photogrammetry reconstruct` output). Both are
drawn by Debian's Blender 3.4 in Cycles from the same camera with the same lights and world (a
fixed seed, no denoising, the Standard view transform, 8-bit PNG), and the mean absolute pixel
difference over all pixels and channels is printed as a percentage of 255, and again over the
pixels that show either model (those that are not the flat background).

The GLB goes through Blender's own glTF importer, which multiplies COLOR_0 with the base-colour
texture as glTF 2.0 says. Debian's Blender is built without USD (`bpy.app.build_options.usd` is
False; `wm.usd_import` does not exist), so the USD side is read by usd-core (`pxr`, the reference
implementation: the package's stage composed, `metersPerUnit` and `upAxis` applied) in this
process, handed to Blender as JSON, and built there the way Blender's USD importer maps a
UsdPreviewSurface onto a Principled BSDF: `diffuseColor` from a UsdUVTexture (its
`sourceColorSpace`, its wrap mode) or a UsdPrimvarReader_float3 (a colour attribute), else its
value; `roughness`, `metallic`; `primvars:st` as the UV map; materials bound per GeomSubset.
The camera frames the GLB's bounding box, so a difference in scale or axes shows as a difference
in pixels too.

Needs python3 with usd-core (scripts/setup) and `blender` with python3-numpy (for its glTF importer).
"""

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile


# ---------------------------------------------------------------------------------------------
# Outside Blender: the USD stage read by usd-core, then Blender run on this same file.

def usd_scene(usdz, folder):
    """The meshes and materials of `usdz` (unpacked into `folder`) as plain lists, in metres, Z up."""
    from pxr import Usd, UsdGeom, UsdShade

    with zipfile.ZipFile(usdz) as package:
        package.extractall(folder)
        root_layer = os.path.join(folder, package.namelist()[0])  # the package's first file is its root layer
    stage = Usd.Stage.Open(root_layer)
    metres = UsdGeom.GetStageMetersPerUnit(stage)
    y_up = UsdGeom.GetStageUpAxis(stage) == UsdGeom.Tokens.y

    def to_blender(p):
        x, y, z = (metres * float(c) for c in p)
        return [x, -z, y] if y_up else [x, y, z]  # Y up to Blender's Z up, as the glTF importer turns it

    def material_of(prim):
        bound, _ = UsdShade.MaterialBindingAPI(prim).ComputeBoundMaterial()
        if not bound:
            return None
        surface = bound.ComputeSurfaceSource()[0]
        if not surface:
            return None
        result = {"name": bound.GetPrim().GetName(), "roughness": 0.5, "metallic": 0.0,
                  "diffuse": [0.18, 0.18, 0.18]}
        for name in ("roughness", "metallic"):
            value = surface.GetInput(name)
            if value and value.Get() is not None:
                result[name] = float(value.Get())
        diffuse = surface.GetInput("diffuseColor")
        if diffuse is None:
            return result
        if diffuse.HasConnectedSource():
            source, _, _ = diffuse.GetConnectedSource()
            shader = UsdShade.Shader(source.GetPrim())
            kind = shader.GetIdAttr().Get()
            if kind == "UsdUVTexture":
                asset = shader.GetInput("file").Get()
                space = shader.GetInput("sourceColorSpace")
                wrap = shader.GetInput("wrapS")
                result["texture"] = asset.resolvedPath or os.path.join(folder, asset.path)
                result["colour_space"] = space.Get() if space and space.Get() else "auto"
                result["wrap"] = wrap.Get() if wrap and wrap.Get() else "useMetadata"
            elif kind == "UsdPrimvarReader_float3":
                result["primvar"] = shader.GetInput("varname").Get()
                fallback = shader.GetInput("fallback")
                if fallback and fallback.Get() is not None:
                    result["diffuse"] = [float(c) for c in fallback.Get()]
        elif diffuse.Get() is not None:
            result["diffuse"] = [float(c) for c in diffuse.Get()]
        return result

    meshes = []
    for prim in stage.Traverse():
        if not prim.IsA(UsdGeom.Mesh):
            continue
        mesh = UsdGeom.Mesh(prim)
        counts = [int(c) for c in mesh.GetFaceVertexCountsAttr().Get()]
        indices = [int(i) for i in mesh.GetFaceVertexIndicesAttr().Get()]
        entry = {"name": prim.GetName(), "points": [to_blender(p) for p in mesh.GetPointsAttr().Get()],
                 "counts": counts, "indices": indices, "material": material_of(prim), "subsets": []}
        normals = mesh.GetNormalsAttr().Get()
        if normals is not None and len(normals) == len(entry["points"]) and mesh.GetNormalsInterpolation() == "vertex":
            entry["normals"] = [[float(n[0]), -float(n[2]), float(n[1])] if y_up else [float(c) for c in n] for n in normals]
        api = UsdGeom.PrimvarsAPI(prim)
        for primvar in api.GetPrimvars():
            name, value = primvar.GetPrimvarName(), primvar.ComputeFlattened()
            if value is None:
                continue
            if name == "st":
                entry["st"] = {"interpolation": primvar.GetInterpolation(), "values": [[float(u), float(v)] for u, v in value]}
            elif primvar.GetTypeName().role == "Color" or name == "displayColor":
                entry.setdefault("colours", {})[name] = {"interpolation": primvar.GetInterpolation(),
                                                         "values": [[float(c) for c in v] for v in value]}
        for subset in UsdGeom.Subset.GetGeomSubsets(mesh, familyName="materialBind"):
            entry["subsets"].append({"faces": [int(f) for f in subset.GetIndicesAttr().Get()],
                                     "material": material_of(subset.GetPrim())})
        meshes.append(entry)
    return {"meters_per_unit": metres, "y_up": y_up, "meshes": meshes}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", help="a reconstruct output folder holding model.glb and model.usdz")
    parser.add_argument("--samples", type=int, default=64)
    parser.add_argument("--size", type=int, default=400)
    parser.add_argument("--keep", help="write the two renders and the scene JSON into this folder")
    parser.add_argument("--blender", default=shutil.which("blender") or "blender")
    parser.add_argument("--bpy-python", help="run the Blender side in this Python, which has Blender as its `bpy` "
                        "module (PyPI's bpy, e.g. 4.2, built with USD: its own USD importer reads the USDZ)")
    args = parser.parse_args()
    glb, usdz = os.path.join(args.run, "model.glb"), os.path.join(args.run, "model.usdz")
    for path in (glb, usdz):
        if not os.path.isfile(path):
            sys.exit(f"{path}: no such file")
    with tempfile.TemporaryDirectory(prefix="blender-colours.") as work:
        out = os.path.abspath(args.keep) if args.keep else work
        os.makedirs(out, exist_ok=True)
        scene = os.path.join(out, "usd-scene.json")
        with open(scene, "w") as f:
            json.dump(usd_scene(usdz, os.path.join(work, "usdz")), f)
        side = ["--glb", os.path.abspath(glb), "--usdz", os.path.abspath(usdz), "--usd-scene", scene, "--out", out,
                "--samples", str(args.samples), "--size", str(args.size)]
        if args.bpy_python:
            command = [args.bpy_python, os.path.abspath(__file__), "--", *side]
        else:
            command = [args.blender, "-b", "--factory-startup", "--python-exit-code", "1", "-P", os.path.abspath(__file__),
                       "--", *side]
        # Blender embeds the system's Python and finds its standard library (and python3-numpy)
        # by the python3 on PATH: not a pyenv one, which has neither numpy for it nor the same prefix.
        env = {k: v for k, v in os.environ.items() if not k.startswith("PYENV")}
        env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if ".pyenv" not in p)
        result = subprocess.run(command, capture_output=True, text=True, env=env)
        lines = [line for line in result.stdout.splitlines() if line.startswith("colours:")]
        if result.returncode != 0 or not lines:
            sys.stderr.write(result.stdout[-4000:] + result.stderr[-4000:])
            sys.exit(f"blender failed (exit {result.returncode})")
        for line in lines:
            print(line[len("colours: "):])


# ---------------------------------------------------------------------------------------------
# Inside Blender: both models drawn alike.

def blender_main(argv):
    import bpy
    import numpy as np

    # Blender 3.4's glTF importer still names np.bool, which Debian 12's numpy 1.24 no longer has.
    if "bool" not in np.__dict__:
        np.bool = bool
    parser = argparse.ArgumentParser()
    for name in ("--glb", "--usdz", "--usd-scene", "--out"):
        parser.add_argument(name, required=True)
    parser.add_argument("--samples", type=int, default=64)
    parser.add_argument("--size", type=int, default=400)
    args = parser.parse_args(argv)

    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    scene.render.engine = "CYCLES"
    scene.cycles.device = "CPU"
    scene.cycles.samples = args.samples
    scene.cycles.seed = 0
    scene.cycles.use_denoising = False
    scene.cycles.use_adaptive_sampling = False
    scene.render.resolution_x = scene.render.resolution_y = args.size
    scene.render.resolution_percentage = 100
    scene.render.image_settings.file_format = "PNG"
    scene.render.image_settings.color_mode = "RGB"
    scene.render.image_settings.color_depth = "8"
    scene.view_settings.view_transform = "Standard"
    scene.view_settings.look = "None"
    scene.render.dither_intensity = 0  # no noise added to the 8-bit output
    world = bpy.data.worlds.new("World")
    world.use_nodes = True
    world.node_tree.nodes["Background"].inputs["Color"].default_value = (0.3, 0.3, 0.3, 1)
    world.node_tree.nodes["Background"].inputs["Strength"].default_value = 1.0
    scene.world = world
    sun = bpy.data.objects.new("Sun", bpy.data.lights.new("Sun", type="SUN"))
    sun.data.energy = 3.0
    sun.rotation_euler = (math.radians(50), 0, math.radians(30))
    scene.collection.objects.link(sun)

    def model_objects():
        return [o for o in scene.objects if o.type == "MESH"]

    def remove_models():
        for o in model_objects():
            bpy.data.objects.remove(o, do_unlink=True)

    def render(name):
        path = os.path.join(args.out, name)
        scene.render.filepath = path
        bpy.ops.render.render(write_still=True)
        image = bpy.data.images.load(path)
        pixels = np.array(image.pixels[:], dtype=np.float64).reshape(-1, 4)[:, :3]
        bpy.data.images.remove(image)
        return pixels

    # The GLB, through Blender's glTF importer; the camera frames its box.
    bpy.ops.import_scene.gltf(filepath=args.glb)
    bpy.context.view_layer.update()
    corners = np.array([o.matrix_world @ v.co for o in model_objects() for v in o.data.vertices])
    low, high = corners.min(axis=0), corners.max(axis=0)
    centre, radius = (low + high) / 2, float(np.linalg.norm(high - low)) / 2
    camera = bpy.data.objects.new("Camera", bpy.data.cameras.new("Camera"))
    camera.data.lens = 50
    direction = np.array([0.35, -0.85, 0.4])
    direction /= np.linalg.norm(direction)
    fov = 2 * math.atan(camera.data.sensor_width / 2 / camera.data.lens)
    camera.location = tuple(centre + direction * radius / math.sin(fov / 2) * 1.05)
    forward = centre - np.array(camera.location)
    camera.rotation_euler = __import__("mathutils").Vector(forward).to_track_quat("-Z", "Y").to_euler()
    camera.data.clip_start, camera.data.clip_end = radius * 0.01, radius * 100
    scene.collection.objects.link(camera)
    scene.camera = camera
    glb_pixels = render("glb.png")
    remove_models()

    if bpy.app.build_options.usd:
        # A Blender with USD reads the package itself.
        bpy.ops.wm.usd_import(filepath=args.usdz)
        print(f"colours: usd read by Blender {bpy.app.version_string}'s own USD importer")
        usd = {"meshes": []}
    else:
        # The USD stage as usd-core read it, built as Blender's USD importer maps UsdPreviewSurface.
        print(f"colours: Blender {bpy.app.version_string} has no USD importer: usd read by usd-core, built alike")
        with open(args.usd_scene) as f:
            usd = json.load(f)
    materials = {}

    def material(spec, mesh_data):
        if spec is None:
            return None
        key = json.dumps(spec, sort_keys=True)
        if key in materials:
            return materials[key]
        m = bpy.data.materials.new(spec["name"])
        m.use_nodes = True
        nodes, links = m.node_tree.nodes, m.node_tree.links
        bsdf = nodes["Principled BSDF"]
        bsdf.inputs["Roughness"].default_value = spec["roughness"]
        bsdf.inputs["Metallic"].default_value = spec["metallic"]
        bsdf.inputs["Base Color"].default_value = (*spec["diffuse"], 1)
        if "texture" in spec:
            node = nodes.new("ShaderNodeTexImage")
            node.image = bpy.data.images.load(spec["texture"])
            node.image.colorspace_settings.name = "Non-Color" if spec["colour_space"] == "raw" else "sRGB"
            node.extension = "EXTEND" if spec["wrap"] == "clamp" else "REPEAT"
            uv = nodes.new("ShaderNodeUVMap")
            uv.uv_map = "st"
            links.new(uv.outputs["UV"], node.inputs["Vector"])
            links.new(node.outputs["Color"], bsdf.inputs["Base Color"])
        elif "primvar" in spec:
            node = nodes.new("ShaderNodeVertexColor")
            node.layer_name = spec["primvar"]
            links.new(node.outputs["Color"], bsdf.inputs["Base Color"])
        materials[key] = m
        return m

    for entry in usd["meshes"]:
        faces, at = [], 0
        for count in entry["counts"]:
            faces.append(entry["indices"][at:at + count])
            at += count
        data = bpy.data.meshes.new(entry["name"])
        data.from_pydata(entry["points"], [], faces)
        data.update()
        if "st" in entry:
            layer = data.uv_layers.new(name="st")
            st = entry["st"]
            for loop in data.loops:
                key = loop.index if st["interpolation"] == "faceVarying" else loop.vertex_index
                layer.data[loop.index].uv = st["values"][key]
        for name, colours in entry.get("colours", {}).items():
            per_point = colours["interpolation"] in ("vertex", "varying")
            attribute = data.color_attributes.new(name, "FLOAT_COLOR", "POINT" if per_point else "CORNER")
            values = colours["values"]
            for i, element in enumerate(attribute.data):
                c = values[i] if len(values) > 1 else values[0]
                element.color = (*c, 1)
        slots = []
        for spec in [entry["material"]] + [s["material"] for s in entry["subsets"]]:
            m = material(spec, data)
            if m is not None and m not in slots:
                slots.append(m)
                data.materials.append(m)
        for subset in entry["subsets"]:
            m = material(subset["material"], data)
            if m is None:
                continue
            for face in subset["faces"]:
                data.polygons[face].material_index = slots.index(m)
        for polygon in data.polygons:
            polygon.use_smooth = True
        if "normals" in entry:  # the file's normals, as the glTF importer keeps NORMAL
            data.use_auto_smooth = True
            data.normals_split_custom_set_from_vertices(entry["normals"])
        obj = bpy.data.objects.new(entry["name"], data)
        scene.collection.objects.link(obj)
    usd_pixels = render("usd.png")

    difference = 100 * float(np.abs(glb_pixels - usd_pixels).mean())
    # The world is one flat colour with no ground, so a pixel that shows it exactly shows no model.
    background = glb_pixels[0]
    model = np.any(glb_pixels != background, axis=1) | np.any(usd_pixels != background, axis=1)
    inside = 100 * float(np.abs(glb_pixels[model] - usd_pixels[model]).mean()) if model.any() else 0.0
    print(f"colours: glb mean {255 * glb_pixels.mean():.2f}, usd mean {255 * usd_pixels.mean():.2f} (of 255)")
    print(f"colours: mean absolute pixel difference glb vs usd: {difference:.3f} % of 255 "
          f"({args.size}x{args.size}, {args.samples} samples); {inside:.3f} % over the "
          f"{100 * model.mean():.1f} % of pixels that show a model")


if __name__ == "__main__":
    try:
        import bpy  # noqa: F401
    except ImportError:
        main()
    else:
        blender_main(sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else [])
        # PyPI's bpy 4.2 can crash while tearing itself down, after the figures are out.
        sys.stdout.flush()
        os._exit(0)
