import Foundation
import PhotogrammetryCore
import PhotogrammetryBridge

/// Reads a model file's whole surface as a ``MeshModel``: positions, triangles, vertex colours,
/// texture coordinates and the texture image, from our exports and other tools' files in the
/// same formats (`photogrammetry render`). ``ModelStats`` reads the same files for their counts.
///
/// What a format lacks is filled in: grey (180) vertex colours (a textured file of ours has
/// none: its texture is the colour), zero normals. USD files are read by OpenUSD (usd-core,
/// ``USDCore``) as one mesh in metres, Y up, prim transforms applied (``model(_:)``); without
/// usd-core by the text reader, which reads text layers' points as stored but for a metric
/// layer's `metersPerUnit`. Transforms of glTF nodes are not applied (positions as stored, as
/// ``ModelStats`` reports them). ``MeshModel/lengthUnit`` is what the file records
/// (``LengthUnit``; the form per format in `LengthUnit+Files.swift`).
public enum ModelReader {
    /// The grey of a surface without colours.
    public static let grey = SIMD3<UInt8>(180, 180, 180)

    /// Reads `url`, the format from its extension (`.usdz`, `.usd`, `.usda`, `.usdc`, `.glb`,
    /// `.obj`, `.ply`, `.stl`).
    /// - Throws: ``ModelStatsError`` naming the file: missing, not a regular file, unreadable,
    ///   what usd-core refuses,
    ///   unknown extension, malformed (a non-finite value, an index naming nothing, a declared
    ///   size the file does not hold: the checks of ``ModelCheck``), or a texture it names that
    ///   is missing.
    public static func read(_ url: URL) throws -> MeshModel {
        let data = try contents(of: url)
        let name = url.path
        let folder = url.deletingLastPathComponent()
        let ext = url.pathExtension.lowercased()
        let model: MeshModel
        switch ext {
        case "usdz", "usda", "usd", "usdc":
            if let stage = try usdStage(url, data: data) {
                model = try self.model(stage)
            } else if ext == "usdz" {
                model = try usdz(data, name: name)
            } else {
                model = try usda(data, name: name, package: [])
            }
        case "glb": model = try glb(data, name: name, folder: folder)
        case "obj": model = try obj(data, name: name, folder: folder)
        case "ply": model = try ply(url)
        case "stl": model = try stl(data, name: name)
        default:
            throw ModelStatsError(message: "\(name): unknown model format '.\(ext)' (want usdz, usda, glb, obj, ply, stl)")
        }
        return model
    }

    /// `url` read by usd-core, a package's zip structure checked first (entries that overlap or
    /// are compressed); nil when usd-core cannot be run (said in one line), for the text reader.
    static func usdStage(_ url: URL, data: Data) throws -> USDStage? {
        if url.pathExtension.lowercased() == "usdz" { _ = try StoredZip.entries(of: data, name: url.path) }
        return try USDStage.read(url)
    }

    /// The bytes of the model file at `url` (memory-mapped).
    /// - Throws: ``ModelStatsError``: no such file, not a regular file (a folder, a named pipe,
    ///   a device: checked before it is opened), or unreadable.
    static func contents(of url: URL) throws -> Data {
        let name = url.path
        try RegularFile.check(url, kind: "a model file")
        do { return try Data(contentsOf: url, options: .mappedIfSafe) } catch {
            throw ModelStatsError(message: "\(name): cannot read (\(error.localizedDescription))")
        }
    }

    /// A texture image's bytes as a material texture, named `fileName`.
    package static func texture(_ data: Data, fileName: String) -> MeshMaterial.Texture {
        let size = ModelStats.imageSize(data)
        return MeshMaterial.Texture(data: data, fileName: fileName, width: size?.width ?? 0, height: size?.height ?? 0)
    }

    /// An sRGB byte for a linear colour component in 0...1 (glTF and USD colours are linear).
    static func sRGBByte(linear value: Double) -> UInt8 {
        let c = value.isNaN ? 0 : min(max(value, 0), 1)  // readers refuse NaN; no trap if one slips through
        let encoded = c <= 0.0031308 ? 12.92 * c : 1.055 * pow(c, 1 / 2.4) - 0.055
        return UInt8((encoded * 255).rounded())
    }

    /// A model from what a reader found, with zero normals where they are missing and grey where
    /// colours are.
    package static func model(positions: [SIMD3<Float>], normals: [SIMD3<Float>]? = nil, colors: [SIMD3<UInt8>]?,
                      uvs: [SIMD2<Float>]?, triangles: [SIMD3<Int32>], texture: MeshMaterial.Texture?,
                      name: String) throws -> MeshModel {
        try model(positions: positions, normals: normals, colors: colors, uvs: uvs, triangles: triangles,
                  textures: [texture], materialOfTriangle: nil, name: name)
    }

    /// A model of one material per texture of `textures` (nil: a material without one), each
    /// triangle's given by `materialOfTriangle` (nil: all the first's).
    package static func model(positions: [SIMD3<Float>], normals: [SIMD3<Float>]? = nil, colors: [SIMD3<UInt8>]?,
                      uvs: [SIMD2<Float>]?, triangles: [SIMD3<Int32>], textures: [MeshMaterial.Texture?],
                      materialOfTriangle: [Int32]?, name: String) throws -> MeshModel {
        let n = positions.count
        guard !triangles.isEmpty else { throw ModelStatsError(message: "\(name): no triangles") }
        for t in triangles where t.min() < 0 || Int(t.max()) >= n {
            throw ModelStatsError(message: "\(name): a face refers to a missing vertex")
        }
        let colors = colors.flatMap { $0.count == n ? $0 : nil } ?? [SIMD3<UInt8>](repeating: grey, count: n)
        let uvs = uvs.flatMap { $0.count == n ? $0 : nil }
        let normals = normals.flatMap { $0.count == n ? $0 : nil } ?? [SIMD3<Float>](repeating: .zero, count: n)
        var result = MeshModel(positions: positions, normals: normals, colors: colors, uvs: uvs, triangles: triangles)
        let textures = textures.isEmpty ? [nil] : textures
        result.materials = textures.enumerated().map { m, texture in
            MeshMaterial(name: textures.count == 1 ? "surface" : "surface_\(m)", texture: uvs == nil ? nil : texture)
        }
        if textures.count > 1 {
            guard let materialOfTriangle, materialOfTriangle.count == triangles.count,
                  materialOfTriangle.allSatisfy({ $0 >= 0 && Int($0) < textures.count }) else {
                throw ModelStatsError(message: "\(name): a face refers to a missing material")
            }
            result.materialOfTriangle = materialOfTriangle
        }
        return result
    }
}
