import PhotogrammetryCore

extension MeshModel {
    /// Whether the exporters write the vertex colours: not when every material has a texture.
    ///
    /// glTF 2.0 multiplies `COLOR_0` with `baseColorTexture` (Blender's importer does, as the
    /// specification says), and other clients may do the same with OBJ's `v x y z r g b` or PLY's
    /// vertex colours, which would darken the texture by the colours; in USD the texture
    /// replaces `displayColor`, which is then only weight. A model with an untextured material
    /// keeps them, since its faces show them.
    package var writesVertexColors: Bool { uvs == nil || materials.contains { $0.texture == nil } }
}
