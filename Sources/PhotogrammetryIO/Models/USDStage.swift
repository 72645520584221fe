import Foundation
import PhotogrammetryCore

/// A USD stage's meshes as usd-core read them (``USDCore``, `read`): every UsdGeom.Mesh the
/// stage shows (active, visible, not of guide or proxy purpose, instance proxies included), in
/// traversal order, with its local-to-world transform, its primvars flattened (indices
/// resolved) with their interpolation, its bound material and `materialBind` GeomSubsets; the
/// materials' UsdUVTexture images (read through OpenUSD's asset resolver, so from inside a
/// package too); the stage's `metersPerUnit`, `upAxis` and root layer's `customLayerData`
/// `lengthUnit`.
///
/// Nothing the helper wrote is trusted: every array reference must lie in its output, and
/// ``mesh(_:)`` applies the checks of ``ModelCheck`` that the text reader applies, in the same
/// words ("Mesh 0: point 1 has a non-finite coordinate (nan)").
struct USDStage {
    /// `[offset, count]`: `count` 4-byte values from byte `offset` of `arrays.bin`.
    struct ArrayReference: Decodable {
        var offset: Int
        var count: Int

        init(from decoder: Decoder) throws {
            var container = try decoder.unkeyedContainer()
            offset = try container.decode(Int.self)
            count = try container.decode(Int.self)
        }
    }

    struct Primvar: Decodable {
        var array: ArrayReference
        /// USD's interpolation token: constant, uniform, varying, vertex or faceVarying.
        var interpolation: String
    }

    struct Subset: Decodable {
        var faces: ArrayReference
        /// Index into ``Header/materials``, -1 for none.
        var material: Int
    }

    struct Mesh: Decodable {
        var path: String
        /// Local to world, row-major, for row vectors (USD's convention: `p' = p M`).
        var matrix: [Double]
        var leftHanded: Bool
        var points: ArrayReference
        var counts: ArrayReference
        var indices: ArrayReference
        var normals: Primvar?
        var uv: Primvar?
        var color: Primvar?
        /// Index into ``Header/materials``, -1 for none.
        var material: Int
        var subsets: [Subset]
    }

    struct Material: Decodable {
        var path: String
        /// The image's file in the helper's folder (a key of ``USDStage/textures``), or nil.
        var texture: String?
        /// The image's name as the layer gives it.
        var source: String?
        /// The surface's unconnected diffuseColor (linear), or nil.
        var color: [Double]?
    }

    struct Header: Decodable {
        var metersPerUnit: Double
        var upAxis: String
        var lengthUnit: String?
        var meshes: [Mesh]
        var materials: [Material]
    }

    let header: Header
    let arrays: Data
    /// The texture images by their file name in the helper's folder.
    let textures: [String: Data]
    /// The file, as messages name it.
    let name: String

    /// The most mesh data (points, indices, primvars) the helper may hand over.
    static let maxArrayBytes = 2 << 30
    /// The most texture bytes, all images together.
    static let maxTextureBytes = 1 << 30

    /// Reads `url` with usd-core; nil when usd-core cannot be run, after telling so in one line
    /// (the caller then reads it with the text reader).
    /// - Throws: ``ModelStatsError`` naming the file: what usd-core refused, or what the checks refuse.
    static func read(_ url: URL) throws -> USDStage? {
        let name = url.path
        do {
            return try USDCore.run({ folder in
                ["read", url.path, folder.path, String(maxArrayBytes), String(maxTextureBytes)]
            }) { outcome -> USDStage? in
                switch outcome {
                case .unavailable(let reason):
                    ModelNotices.post("\(name): read by the text reader (text layers only, prim transforms and upAxis not applied): \(reason)")
                    return nil
                case .done(let folder):
                    return try USDStage(folder: folder, name: name)
                }
            }
        } catch let failure as USDCore.Failure {
            throw ModelStatsError(message: "\(name): \(failure.message)")
        }
    }

    /// The helper's results in `folder`.
    init(folder: URL, name: String) throws {
        self.name = name
        let damaged = { (what: String) in ModelStatsError(message: "\(name): usd-core's output is damaged (\(what))") }
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        do {
            header = try decoder.decode(Header.self, from: Data(contentsOf: folder.appendingPathComponent("result.json")))
            arrays = try Data(contentsOf: folder.appendingPathComponent("arrays.bin"))
        } catch {
            throw damaged("\(error)".split(separator: "\n").first.map(String.init) ?? "unreadable")
        }
        var textures: [String: Data] = [:]
        for material in header.materials {
            guard let file = material.texture, textures[file] == nil else { continue }
            guard !file.contains("/"), let data = try? Data(contentsOf: folder.appendingPathComponent(file)) else {
                throw damaged("no texture \(file)")
            }
            textures[file] = data
        }
        self.textures = textures
        for (k, mesh) in header.meshes.enumerated() {
            let references = [mesh.points, mesh.counts, mesh.indices] + [mesh.normals, mesh.uv, mesh.color].compactMap { $0?.array }
                + mesh.subsets.map(\.faces)
            guard references.allSatisfy(fits), mesh.matrix.count == 16,
                  ([mesh.material] + mesh.subsets.map(\.material)).allSatisfy({ (-1..<header.materials.count).contains($0) }) else {
                throw damaged("Mesh \(k)")
            }
        }
    }

    private func fits(_ reference: ArrayReference) -> Bool {
        let (length, overflow) = reference.count.multipliedReportingOverflow(by: 4)
        return !overflow && reference.offset % 4 == 0 && ModelCheck.fits(offset: reference.offset, length: length, within: arrays.count)
    }

    func floats(_ reference: ArrayReference) -> [Float] {
        arrays.withUnsafeBytes { raw in
            (0..<reference.count).map { raw.loadUnaligned(fromByteOffset: reference.offset + 4 * $0, as: Float.self) }
        }
    }

    func ints(_ reference: ArrayReference) -> [Int32] {
        arrays.withUnsafeBytes { raw in
            (0..<reference.count).map { raw.loadUnaligned(fromByteOffset: reference.offset + 4 * $0, as: Int32.self) }
        }
    }

    // MARK: - Checked meshes

    /// An affine map, `linear * p + translation`.
    struct Affine {
        var linear: Matrix3
        var translation: SIMD3<Double>

        func apply(_ point: SIMD3<Float>) -> SIMD3<Double> { linear * SIMD3<Double>(point) + translation }

        /// What normals go through: the inverse transpose, up to a positive factor (the
        /// cofactor matrix, its sign that of the determinant).
        var normalMatrix: Matrix3 {
            let (r0, r1, r2) = linear.rows
            let cofactor = Matrix3(rows: cross(r1, r2), cross(r2, r0), cross(r0, r1))
            return linear.determinant < 0 ? -1 * cofactor : cofactor
        }
    }

    /// One mesh, checked: finite points, face vertex counts that add up to the indices, every
    /// index naming a point, a finite transform.
    struct CheckedMesh {
        /// Local points.
        var points: [SIMD3<Float>]
        var counts: [Int32]
        var indices: [Int32]
        /// Local to the Y-up world in stage units: the prim's transform, then ``upRotation``.
        var transform: Affine
        /// Whether triangles must be turned round to face outward counter-clockwise (a
        /// left-handed orientation, or a mirroring transform).
        var flipsWinding: Bool

        var faces: Int { counts.count }
    }

    /// The rotation that makes the stage Y-up: none for a Y-up stage; for a Z-up one −90°
    /// about X, taking (x, y, z) to (x, z, −y) (Z up becomes Y up, Y becomes −Z).
    var upRotation: Matrix3 {
        header.upAxis == "Z" ? Matrix3(rows: SIMD3(1, 0, 0), SIMD3(0, 0, 1), SIMD3(0, -1, 0)) : .identity
    }

    /// `metersPerUnit`, refused unless positive and finite.
    func metersPerUnit() throws -> Double {
        let value = header.metersPerUnit
        guard value.isFinite, value > 0 else {
            throw ModelStatsError(message: "\(name): metersPerUnit \(value) is not a positive finite number")
        }
        return value
    }

    /// What one unit is: unknown when the root layer's `customLayerData` says so, else metres.
    var lengthUnit: LengthUnit { LengthUnit(metricFormatValue: header.lengthUnit) }

    func mesh(_ k: Int) throws -> CheckedMesh {
        let mesh = header.meshes[k]
        let flat = floats(mesh.points)
        guard flat.count % 3 == 0 else { throw ModelStatsError(message: "\(name): Mesh \(k): points are not triples") }
        try ModelCheck.requireFinite(flat, components: 3, name: name, what: "coordinate") { "Mesh \(k): point \($0)" }
        let points = (0..<flat.count / 3).map { SIMD3(flat[3 * $0], flat[3 * $0 + 1], flat[3 * $0 + 2]) }
        let counts = ints(mesh.counts), indices = ints(mesh.indices)
        guard counts.allSatisfy({ $0 >= 0 && $0 < 1 << 20 }), counts.reduce(0, { $0 + Int($1) }) == indices.count else {
            throw ModelStatsError(message: "\(name): Mesh \(k): faceVertexCounts do not add up to faceVertexIndices")
        }
        for (i, index) in indices.enumerated() {
            try ModelCheck.requireIndex(Int(index), count: points.count, name: name, referrer: "Mesh \(k): faceVertexIndices[\(i)]",
                                        target: "point")
        }
        guard mesh.matrix.allSatisfy(\.isFinite) else {
            throw ModelStatsError(message: "\(name): Mesh \(k) (\(mesh.path)): its transform is not finite")
        }
        // USD's row-vector matrix M (p' = p M + t) is, for column vectors, Mᵀ.
        let m = mesh.matrix
        let linear = Matrix3(rows: SIMD3(m[0], m[4], m[8]), SIMD3(m[1], m[5], m[9]), SIMD3(m[2], m[6], m[10]))
        let transform = Affine(linear: upRotation * linear, translation: upRotation * SIMD3(m[12], m[13], m[14]))
        return CheckedMesh(points: points, counts: counts, indices: indices, transform: transform,
                           flipsWinding: mesh.leftHanded != (linear.determinant < 0))
    }
}
