import Foundation
import PhotogrammetryCore

/// A ``MeshModel`` as binary STL: an 80-byte header (its text names the unit,
/// `lengthUnit: unknown` or `metres`), the triangle count, and per triangle its unit normal and
/// three corners (no colours: STL is for printing and CAD).
enum STLWriter {
    package static func data(_ model: MeshModel) -> Data {
        var out = ByteBuffer(capacity: 84 + 50 * model.triangles.count)
        var header = Array("Photogrammetry mesh (binary STL) \(model.lengthUnit.labelText)".utf8)
        header += [UInt8](repeating: 0x20, count: 80 - header.count)
        out.append(contentsOf: header)
        out.append(UInt32(model.triangles.count))
        for t in model.triangles {
            let a = model.positions[Int(t.x)], b = model.positions[Int(t.y)], c = model.positions[Int(t.z)]
            let n = cross(b - a, c - a)
            let length = (n * n).sum().squareRoot()
            out.append(length > 0 ? n / length : SIMD3<Float>(0, 0, 0))
            out.append(a)
            out.append(b)
            out.append(c)
            out.append(UInt16(0))
        }
        return out.data
    }

    private static func cross(_ u: SIMD3<Float>, _ v: SIMD3<Float>) -> SIMD3<Float> {
        SIMD3(u.y * v.z - u.z * v.y, u.z * v.x - u.x * v.z, u.x * v.y - u.y * v.x)
    }
}
