# Blender (bpy 4.2 from PyPI; Debian's blender 3.4.1 has no USD exporter) writes a textured
# mesh as USD: the synthetic room's gt_mesh.ply (Z up, metres), smart-UV-projected, with a
# material whose base colour is a checker image; exported as .usdc with its texture.
import sys, bpy
ply, texture, out = sys.argv[sys.argv.index("--") + 1:]
bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.wm.ply_import(filepath=ply)
obj = bpy.context.selected_objects[0]
bpy.context.view_layer.objects.active = obj
bpy.ops.object.mode_set(mode="EDIT")
bpy.ops.mesh.select_all(action="SELECT")
bpy.ops.uv.smart_project(island_margin=0.01)
bpy.ops.object.mode_set(mode="OBJECT")
obj.location = (0.3, -0.2, 0.1)  # a non-identity transform, undone below by moving the data
obj.data.transform(__import__("mathutils").Matrix.Translation((-0.3, 0.2, -0.1)))
image = bpy.data.images.load(texture)
material = bpy.data.materials.new("Checker")
material.use_nodes = True
node = material.node_tree.nodes.new("ShaderNodeTexImage")
node.image = image
material.node_tree.links.new(node.outputs["Color"], material.node_tree.nodes["Principled BSDF"].inputs["Base Color"])
obj.data.materials.append(material)
bpy.ops.wm.usd_export(filepath=out, export_materials=True, generate_preview_surface=True, export_textures=True,
                      relative_paths=True, export_uvmaps=True, export_normals=True)
print("EXPORTED", out)
