import Foundation
import PhotogrammetryCore

extension ViewerScene {
    /// The scene as the JSON the viewer's script reads: arrays as base64 of little-endian typed
    /// arrays (positions as 16-bit steps within `box`, so a coordinate is off by at most
    /// 1/131070 of the box's side), names and numbers as plain JSON. Slashes are escaped, so
    /// the text is safe inside a `<script>` element.
    func pageJSON() throws -> String {
        var object: [String: Any] = [
            "cameras": cameras.map(Self.cameraObject),
            "sparse": Self.pointsObject(sparsePoints),
        ]
        if let mesh { object["mesh"] = Self.meshObject(mesh) }
        if let densePoints { object["dense"] = Self.pointsObject(densePoints) }
        if let up { object["up"] = [up.x, up.y, up.z] }
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }

    private static func cameraObject(_ camera: Camera) -> [String: Any] {
        [
            "name": camera.name, "size": [camera.width, camera.height],
            "f": [camera.focalLengths.x, camera.focalLengths.y],
            "c": [camera.principalPoint.x, camera.principalPoint.y],
            "R": camera.camFromWorld.rotation.rowMajor,
            "t": [camera.camFromWorld.translation.x, camera.camFromWorld.translation.y, camera.camFromWorld.translation.z],
        ]
    }

    private static func pointsObject(_ points: Points) -> [String: Any] {
        let (box, quantised) = quantise(points.positions)
        return [
            "box": box, "positions": quantised, "count": points.positions.count, "source": points.sourceCount,
            "colors": Data(points.colors.flatMap { [$0.x, $0.y, $0.z] }).base64EncodedString(),
        ]
    }

    private static func meshObject(_ mesh: Mesh) -> [String: Any] {
        let (box, quantised) = quantise(mesh.positions)
        let wide = mesh.positions.count > Int(UInt16.max)
        var indices = Data(capacity: mesh.triangles.count * 3 * (wide ? 4 : 2))
        for triangle in mesh.triangles {
            for index in [triangle.x, triangle.y, triangle.z] {
                if wide { withUnsafeBytes(of: UInt32(index).littleEndian) { indices.append(contentsOf: $0) } }
                else { withUnsafeBytes(of: UInt16(index).littleEndian) { indices.append(contentsOf: $0) } }
            }
        }
        var object: [String: Any] = [
            "box": box, "positions": quantised, "indices": indices.base64EncodedString(), "indexBits": wide ? 32 : 16,
            "groups": mesh.groups.map { [$0.first, $0.count, $0.texture] },
            "textures": mesh.texturesJPEG.map { $0.base64EncodedString() },
        ]
        if let uvs = mesh.uvs {
            let (uvBox, quantisedUVs) = quantise(uvs.map { SIMD3($0.x, $0.y, 0) })
            object["uvBox"] = uvBox
            object["uvs"] = quantisedUVs
        } else {
            object["colors"] = Data(mesh.colors.flatMap { [$0.x, $0.y, $0.z] }).base64EncodedString()
        }
        if let reduction = mesh.reduction { object["reduction"] = reduction }
        return object
    }

    /// The box around `values` (min x, y, z, max x, y, z) and each value as three 16-bit steps
    /// within it, base64.
    private static func quantise(_ values: [SIMD3<Float>]) -> (box: [Double], base64: String) {
        var lo = SIMD3<Float>(repeating: .infinity), hi = -lo
        for value in values where all(value .== value) {
            lo = pointwiseMin(lo, value)
            hi = pointwiseMax(hi, value)
        }
        if values.isEmpty || !all(lo .<= hi) { lo = .zero; hi = .zero }
        let span = hi - lo
        var data = Data(capacity: values.count * 6)
        for value in values {
            for axis in 0..<3 {
                let t = span[axis] > 0 ? (value[axis] - lo[axis]) / span[axis] : 0
                let step = UInt16((min(1, max(0, t.isFinite ? t : 0)) * 65535).rounded())
                withUnsafeBytes(of: step.littleEndian) { data.append(contentsOf: $0) }
            }
        }
        return ([lo.x, lo.y, lo.z, hi.x, hi.y, hi.z].map(Double.init), data.base64EncodedString())
    }
}
