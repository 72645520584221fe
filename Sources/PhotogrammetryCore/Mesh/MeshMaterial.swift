import Foundation

/// The one material of a ``MeshModel``: a physically based base colour, roughness and
/// metalness, and an optional texture page (the texture atlas, once texturing lands).
///
/// Without a texture the surface shows its vertex colours (USD `displayColor`, glTF
/// `COLOR_0`, OBJ's `v x y z r g b`); with one, the texture replaces them.
public struct MeshMaterial: Sendable, Equatable {
    /// The material's name in the files (a valid identifier: letters, digits, `_`).
    public var name: String
    /// Base colour factor (linear RGB, 0–1), multiplied with vertex colours or the texture.
    public var baseColor: SIMD3<Float>
    /// Microfacet roughness, 0 (mirror) to 1 (matte). Scanned surfaces are mostly matte.
    public var roughness: Float
    /// 0 for dielectrics (everything a photo capture shows, in practice).
    public var metallic: Float
    /// The base-colour image (PNG or JPEG) and its name inside the exported file, or nil.
    public var texture: Texture?

    /// A base-colour image.
    public struct Texture: Sendable, Equatable {
        /// The encoded image (PNG or JPEG bytes).
        public var data: Data
        /// Its file name inside packages and beside OBJ files, e.g. `texture_0.png`.
        public var fileName: String
        /// Its size in pixels.
        public var width: Int
        public var height: Int

        public init(data: Data, fileName: String, width: Int, height: Int) {
            (self.data, self.fileName, self.width, self.height) = (data, fileName, width, height)
        }
    }

    public init(name: String = "surface", baseColor: SIMD3<Float> = SIMD3(1, 1, 1), roughness: Float = 0.9,
                metallic: Float = 0, texture: Texture? = nil) {
        self.name = name
        self.baseColor = baseColor
        self.roughness = roughness
        self.metallic = metallic
        self.texture = texture
    }
}
