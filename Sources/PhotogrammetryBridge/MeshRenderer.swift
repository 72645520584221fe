import CVision
import Foundation
import PhotogrammetryCore

/// A pinhole camera to render from: image size, intrinsics in pixels (the top-left image corner
/// at (0, 0)) and the pose `camFromWorld`. No distortion.
public struct RenderCamera: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var focalLengths: SIMD2<Double>
    public var principalPoint: SIMD2<Double>
    public var camFromWorld: Rigid3
    /// Geometry nearer to the camera than this depth is clipped away (model units).
    public var nearDepth: Double

    public init(width: Int, height: Int, focalLengths: SIMD2<Double>, principalPoint: SIMD2<Double>,
                camFromWorld: Rigid3, nearDepth: Double = 1e-4) {
        (self.width, self.height, self.focalLengths, self.principalPoint) = (width, height, focalLengths, principalPoint)
        (self.camFromWorld, self.nearDepth) = (camFromWorld, nearDepth)
    }

    /// The pixel `pointInWorld` projects to, nil behind the camera.
    public func project(_ pointInWorld: SIMD3<Double>) -> SIMD2<Double>? {
        let p = camFromWorld.apply(pointInWorld)
        guard p.z > 0 else { return nil }
        return focalLengths * SIMD2(p.x / p.z, p.y / p.z) + principalPoint
    }
}

/// Renders a ``MeshModel`` offscreen with the C++ core's z-buffer rasteriser: ambient light
/// only (each pixel is the texel or the interpolated vertex colour, unlit), both sides of every
/// triangle, no anti-aliasing; alpha 255 where the surface covers a pixel centre, else 0 on a
/// transparent black background.
///
/// The mesh is flattened (and its textures decoded) once, so rendering many views is cheap;
/// a model of several materials is drawn as one mesh per material into one depth buffer.
public final class MeshRenderer {
    private let positions: [Float]
    private let colors: [UInt8]
    private let uvs: [Float]?
    /// Per material, its faces (flat vertex indices) and decoded texture (nil: vertex colours).
    private let parts: [(faces: [Int32], texture: PixelImage?)]

    /// Prepares `model` for rendering.
    /// - Throws: ``ModelExportError`` for a malformed model, ``CVisionError`` when its texture
    ///   cannot be decoded.
    public init(_ model: MeshModel) throws {
        let n = model.positions.count
        guard model.colors.isEmpty || model.colors.count == n, model.uvs.map({ $0.count == n }) ?? true else {
            throw ModelExportError(message: "mesh: colours and texture coordinates need one entry per vertex")
        }
        for t in model.triangles where t.min() < 0 || Int(t.max()) >= n {
            throw ModelExportError(message: "mesh: a triangle refers to a missing vertex")
        }
        positions = model.positions.flatMap { [$0.x, $0.y, $0.z] }
        colors = model.colors.flatMap { [$0.x, $0.y, $0.z] }
        let textured = model.uvs != nil && model.materials.contains { $0.texture != nil }
        uvs = textured ? model.uvs!.flatMap { [$0.x, $0.y] } : nil
        parts = try zip(model.materials, model.trianglesByMaterial).compactMap { material, group in
            guard !group.isEmpty else { return nil }
            let faces = group.flatMap { [model.triangles[$0].x, model.triangles[$0].y, model.triangles[$0].z] }
            let texture = try material.texture.flatMap { textured ? try PixelImage(decoding: $0.data, channels: 3) : nil }
            return (faces, texture)
        }
    }

    /// The model as `camera` sees it, RGBA.
    /// - Throws: ``CVisionError`` for a camera out of range (size 1...16384, positive focal
    ///   lengths and near depth).
    public func render(_ camera: RenderCamera) throws -> PixelImage {
        var rgba = [UInt8](repeating: 0, count: max(0, camera.width * camera.height * 4))
        var c = cvis_render_camera()
        c.width = Int32(clamping: camera.width)
        c.height = Int32(clamping: camera.height)
        c.fx = camera.focalLengths.x
        c.fy = camera.focalLengths.y
        c.cx = camera.principalPoint.x
        c.cy = camera.principalPoint.y
        let r = camera.camFromWorld.rotation.rowMajor, t = camera.camFromWorld.translation
        c.rotation = (r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8])
        c.translation = (t.x, t.y, t.z)
        c.near_depth = camera.nearDepth
        // The parts' textures stay pinned while the core reads them: nested closures, one per part.
        func draw(_ meshes: [cvis_render_mesh], from next: Int) throws {
            guard next < parts.count else {
                try meshes.withUnsafeBufferPointer { try check(cvis_render_meshes($0.baseAddress, Int32($0.count), &c, &rgba)) }
                return
            }
            try parts[next].faces.withUnsafeBufferPointer { f in
                try withOptionalBuffer(parts[next].texture?.pixels) { tex in
                    var mesh = meshes[0]
                    mesh.num_faces = Int64(f.count / 3)
                    mesh.faces = f.baseAddress
                    mesh.texture = parts[next].texture == nil ? nil : tex
                    mesh.texture_width = Int32(parts[next].texture?.width ?? 0)
                    mesh.texture_height = Int32(parts[next].texture?.height ?? 0)
                    try draw(next == 0 ? [mesh] : meshes + [mesh], from: next + 1)
                }
            }
        }
        try positions.withUnsafeBufferPointer { p in
            try colors.withUnsafeBufferPointer { col in
                try withOptionalBuffer(uvs) { uv in
                    var shared = cvis_render_mesh()
                    shared.num_vertices = Int64(positions.count / 3)
                    shared.positions = p.baseAddress
                    shared.colors = colors.isEmpty ? nil : col.baseAddress
                    shared.uvs = uv
                    try draw([shared], from: 0)
                }
            }
        }
        return PixelImage(width: camera.width, height: camera.height, channels: 4, pixels: rgba)
    }
}

/// Calls `body` with the array's base address, or nil for a nil (or empty) array.
private func withOptionalBuffer<T, R>(_ array: [T]?, _ body: (UnsafePointer<T>?) throws -> R) rethrows -> R {
    guard let array, !array.isEmpty else { return try body(nil) }
    return try array.withUnsafeBufferPointer { try body($0.baseAddress) }
}
