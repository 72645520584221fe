"""What the Blender capture renderers share: Cycles settings, materials, the camera, ground truth.

Imported by the render-*.py scripts beside it inside Blender 3.4 (`blender -b -P SCRIPT`), which
puts nothing on sys.path: each script adds its own folder first.
"""

import math
import os

import bpy
import numpy as np
from mathutils import Matrix, Vector

# Object pass indices the mask outputs select (0: everything static).
OBJECT_INDEX = 1
PLATE_INDEX = 2


def clear_scene():
    bpy.ops.wm.read_factory_settings(use_empty=True)


def configure_render(scene, width, height, samples, bounces=3):
    """Cycles on the CPU, JPEG stills, no motion blur, no denoiser."""
    scene.render.engine = "CYCLES"
    scene.cycles.device = "CPU"
    scene.cycles.samples = samples
    # Debian's Blender is built without OpenImageDenoise: no denoiser, so a few more samples.
    scene.cycles.use_denoising = False
    scene.cycles.max_bounces = bounces
    # One diffuse bounce lights the shadows enough; more costs time the shared cores do not have.
    scene.cycles.diffuse_bounces = 1
    scene.cycles.glossy_bounces = 1
    scene.cycles.transmission_bounces = 0
    scene.cycles.volume_bounces = 0
    scene.cycles.transparent_max_bounces = 0
    scene.render.threads_mode = "FIXED"
    scene.render.threads = 2
    scene.render.resolution_x, scene.render.resolution_y = width, height
    scene.render.resolution_percentage = 100
    scene.render.image_settings.file_format = "JPEG"
    scene.render.image_settings.quality = 92
    scene.view_settings.view_transform = "Standard"
    scene.render.use_motion_blur = False


def add_world_light(scene, background=0.6, strength=0.8, sun_energy=3.0):
    """A grey sky and a sun, both fixed in the world."""
    world = bpy.data.worlds.new("world")
    world.use_nodes = True
    world.node_tree.nodes["Background"].inputs["Color"].default_value = (background, background, background, 1.0)
    world.node_tree.nodes["Background"].inputs["Strength"].default_value = strength
    scene.world = world
    bpy.ops.object.light_add(type="SUN", location=(0.5, -0.5, 2.0))
    sun = bpy.context.object
    sun.data.energy = sun_energy
    sun.rotation_euler = (math.radians(35), math.radians(15), math.radians(30))
    return sun


def principled_material(name, roughness, specular):
    """A node material with its Principled BSDF set: (material, nodes, links, shader)."""
    material = bpy.data.materials.new(name)
    material.use_nodes = True
    nodes, links = material.node_tree.nodes, material.node_tree.links
    shader = nodes["Principled BSDF"]
    shader.inputs["Roughness"].default_value = roughness
    shader.inputs["Specular"].default_value = specular
    return material, nodes, links, shader


def material_from_image(name, image_path):
    material, nodes, links, shader = principled_material(name, 0.9, 0.1)
    texture = nodes.new("ShaderNodeTexImage")
    texture.image = bpy.data.images.load(image_path)
    texture.interpolation = "Cubic"
    links.new(texture.outputs["Color"], shader.inputs["Base Color"])
    return material


def plain_material(name, colour, roughness=1.0, specular=0.05):
    """One colour, matte: only shading varies over it."""
    material, _, _, shader = principled_material(name, roughness, specular)
    shader.inputs["Base Color"].default_value = tuple(colour) + (1.0,)
    return material


def procedural_material(name, scale, colours, seed, detail=10.0):
    """Noise (`detail` octaves) and Voronoi over a colour ramp, in object coordinates: features SIFT
    can match."""
    material, nodes, links, shader = principled_material(name, 0.8, 0.2)
    coordinates = nodes.new("ShaderNodeTexCoord")
    mapping = nodes.new("ShaderNodeMapping")
    mapping.inputs["Location"].default_value = (seed * 1.7, seed * 3.1, seed * 0.7)
    links.new(coordinates.outputs["Object"], mapping.inputs["Vector"])
    noise = nodes.new("ShaderNodeTexNoise")
    noise.inputs["Scale"].default_value = scale
    noise.inputs["Detail"].default_value = detail
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


def glowing(material, ambient):
    """`material` with a faint glow of `ambient` times its own colour: a closed room's ambient light
    (what its walls bounce around) without path-traced bounces, which need hundreds of samples to
    settle; it costs no shadow rays, as it is not sampled as a light."""
    material.cycles.sample_as_light = False
    nodes, links = material.node_tree.nodes, material.node_tree.links
    shader = nodes["Principled BSDF"]
    ramp = next((node for node in nodes if node.type == "VALTORGB"), None)
    if ramp is not None:
        links.new(ramp.outputs["Color"], shader.inputs["Emission"])
    else:
        shader.inputs["Emission"].default_value = shader.inputs["Base Color"].default_value
    shader.inputs["Emission Strength"].default_value = ambient
    return material


def smooth_monkey(size):
    """Blender's monkey head, subdivided twice, scaled to `size` metres of largest extent."""
    bpy.ops.mesh.primitive_monkey_add(location=(0, 0, 0))
    monkey = bpy.context.object
    bpy.ops.object.modifier_add(type="SUBSURF")
    monkey.modifiers["Subdivision"].levels = 2
    monkey.modifiers["Subdivision"].render_levels = 2
    bpy.ops.object.shade_smooth()
    bpy.context.view_layer.update()
    scale = size / max(monkey.dimensions)
    monkey.scale = (scale, scale, scale)
    return monkey


def stand_on(obj, z, parent, gap=0.002):
    """Moves `obj` so that its lowest point is `gap` metres above height `z` (below it when
    negative: sunk in), then parents it."""
    bpy.context.view_layer.update()
    lowest = min((obj.matrix_world @ Vector(corner)).z for corner in obj.bound_box)
    obj.location.z -= lowest - z - gap
    obj.parent = parent
    bpy.context.view_layer.update()


def add_camera(scene, width, lens_mm=35.0, sensor_mm=36.0):
    """A pinhole camera (horizontal sensor fit); returns it and its focal length in pixels."""
    bpy.ops.object.camera_add()
    camera = bpy.context.object
    camera.data.sensor_fit = "HORIZONTAL"
    camera.data.sensor_width = sensor_mm
    camera.data.lens = lens_mm
    camera.data.clip_start = 0.01
    scene.camera = camera
    return camera, width * lens_mm / sensor_mm


def place_camera(camera, azimuth, elevation, radius, target):
    """On the sphere of `radius` about `target`, looking at it."""
    location = (target[0] + radius * math.cos(elevation) * math.cos(azimuth),
                target[1] + radius * math.cos(elevation) * math.sin(azimuth),
                target[2] + radius * math.sin(elevation))
    camera.location = location
    camera.rotation_euler = (Vector(target) - Vector(location)).to_track_quat("-Z", "Y").to_euler()
    bpy.context.view_layer.update()


def smooth_noise(rng, count, amplitude, periods=(1, 2, 3, 5)):
    """A smooth random closed curve over count frames: sines of whole periods with random phases."""
    phase = [rng.uniform(0, 2 * math.pi) for _ in periods]
    weight = [rng.uniform(0.5, 1.0) / p for p in periods]
    total = sum(weight)
    return [amplitude * sum(w * math.sin(2 * math.pi * p * i / count + f) for p, w, f in zip(periods, weight, phase)) / total
            for i in range(count)]


def opencv_cam_from_world(camera_matrix_world, world_from_frame):
    """camFromFrame with OpenCV's axes (x right, y down, z forward) from Blender's camera (y up, -z forward)."""
    blender_cam_from_world = camera_matrix_world.inverted()
    flip = Matrix(((1, 0, 0, 0), (0, -1, 0, 0), (0, 0, -1, 0), (0, 0, 0, 1)))
    return flip @ blender_cam_from_world @ world_from_frame


def write_gt_sparse(folder, width, height, focal_px, poses):
    """COLMAP text model: one PINHOLE camera, images [(name, camFromFrame Matrix)], no points."""
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "cameras.txt"), "w") as f:
        f.write("# Camera list with one line of data per camera:\n#   CAMERA_ID, MODEL, WIDTH, HEIGHT, PARAMS[]\n")
        f.write(f"1 PINHOLE {width} {height} {focal_px:.10g} {focal_px:.10g} {width / 2:.10g} {height / 2:.10g}\n")
    with open(os.path.join(folder, "images.txt"), "w") as f:
        f.write("# Image list with two lines of data per image:\n"
                "#   IMAGE_ID, QW, QX, QY, QZ, TX, TY, TZ, CAMERA_ID, NAME\n")
        for index, (name, pose) in enumerate(poses):
            q = pose.to_quaternion()
            t = pose.translation
            f.write(f"{index + 1} {q.w:.12g} {q.x:.12g} {q.y:.12g} {q.z:.12g} "
                    f"{t.x:.12g} {t.y:.12g} {t.z:.12g} 1 {name}\n\n")
    with open(os.path.join(folder, "points3D.txt"), "w") as f:
        f.write("# 3D point list (empty)\n")


def evaluated_triangles(objects, frame_from_world=None):
    """The objects' evaluated geometry (after modifiers: what Cycles renders), triangulated:
    vertices (n x 3 float32) in the world, or in the frame `frame_from_world` maps the world to,
    and faces (m x 3 int32)."""
    depsgraph = bpy.context.evaluated_depsgraph_get()
    vertices, faces = [], []
    offset = 0
    for obj in objects:
        evaluated = obj.evaluated_get(depsgraph)
        mesh = evaluated.to_mesh()
        mesh.calc_loop_triangles()
        matrix = obj.matrix_world if frame_from_world is None else frame_from_world @ obj.matrix_world
        vertices += [tuple(matrix @ v.co) for v in mesh.vertices]
        faces += [tuple(offset + i for i in triangle.vertices) for triangle in mesh.loop_triangles]
        offset += len(mesh.vertices)
        evaluated.to_mesh_clear()
    return np.array(vertices, dtype=np.float32).reshape(-1, 3), np.array(faces, dtype=np.int32).reshape(-1, 3)


def write_ply(path, vertices, faces):
    """Binary little-endian PLY: float32 x y z, triangles as uchar count + int32 indices; written
    under a temporary name, then renamed."""
    with open(path + ".tmp", "wb") as f:
        f.write((f"ply\nformat binary_little_endian 1.0\nelement vertex {len(vertices)}\n"
                 "property float x\nproperty float y\nproperty float z\n"
                 f"element face {len(faces)}\nproperty list uchar int vertex_indices\nend_header\n").encode())
        f.write(vertices.astype("<f4").tobytes())
        rows = np.zeros(len(faces), dtype=[("n", "u1"), ("i", "<i4", 3)])
        rows["n"], rows["i"] = 3, faces
        f.write(rows.tobytes())
    os.replace(path + ".tmp", path)


def add_mask_outputs(scene, folder, outputs):
    """Compositor outputs of exact masks (no anti-aliasing) from the object-index pass.

    outputs: {subfolder: [pass indices]}; each render then writes FOLDER/<subfolder>/mask####.png
    (8-bit grey, 255 on an object whose pass index is listed, the frame number from
    scene.frame_current). The index pass takes no pixel filter: a pixel is the object's when its
    first sample hits it.
    """
    bpy.context.view_layer.use_pass_object_index = True
    scene.use_nodes = True
    tree = scene.node_tree
    layers = tree.nodes.get("Render Layers") or tree.nodes.new("CompositorNodeRLayers")
    if not tree.nodes.get("Composite"):
        composite = tree.nodes.new("CompositorNodeComposite")
        tree.links.new(layers.outputs["Image"], composite.inputs["Image"])
    for subfolder, indices in outputs.items():
        combined = None
        for index in indices:
            mask = tree.nodes.new("CompositorNodeIDMask")
            mask.index = index
            mask.use_antialiasing = False
            tree.links.new(layers.outputs["IndexOB"], mask.inputs["ID value"])
            if combined is None:
                combined = mask.outputs["Alpha"]
            else:
                union = tree.nodes.new("CompositorNodeMath")
                union.operation = "MAXIMUM"
                tree.links.new(combined, union.inputs[0])
                tree.links.new(mask.outputs["Alpha"], union.inputs[1])
                combined = union.outputs["Value"]
        output = tree.nodes.new("CompositorNodeOutputFile")
        output.base_path = os.path.join(folder, subfolder)
        output.format.file_format = "PNG"
        output.format.color_mode = "BW"
        output.format.color_depth = "8"
        output.file_slots[0].path = "mask"
        tree.links.new(combined, output.inputs[0])
