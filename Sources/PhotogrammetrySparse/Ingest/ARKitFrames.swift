import Foundation
import PhotogrammetryCore
import PhotogrammetryIO

/// The per-frame ARKit data a room-scanning app writes beside its video (`arkitData.json`):
/// each frame's camera pose, intrinsics, frame number and timestamp.
///
/// The file is a JSON array of frame objects, or an object whose `frames` holds that array. Per
/// frame: `cameraTransform`, ARKit's camera-to-world matrix (16 numbers flat, or 4 arrays of 4),
/// the camera's axes ARKit's (x right, y up, z toward the viewer); `cameraIntrinsics`, 3x3 (9
/// numbers flat, or 3 arrays of 3) in pixels of the camera's frame; `frameNumber`, the frame's
/// index in the video (decoding order, from 0); `frameTimestamp`, seconds. Other keys are ignored.
///
/// Matrices may be written row by row or column by column (simd's order, how ARKit holds them in
/// memory): the order is the one in which every frame's pose ends in the row (0, 0, 0, 1) and its
/// intrinsics in (0, 0, 1). When every camera sits at the origin both orders fit and the poses
/// differ (R or its transpose): column by column is taken then.
public struct ARKitFrames: Sendable, Equatable {
    /// One frame of the file, in the repository's types.
    public struct Frame: Sendable, Equatable {
        /// The frame's index in the file.
        public var index: Int
        /// Its index in the video, when the file gives it.
        public var frameNumber: Int?
        /// Seconds on the device's clock, when the file gives them.
        public var timestamp: Double?
        /// World-to-camera pose in ARKit's world (metres, y up), OpenCV camera axes (x right,
        /// y down, z forward), as ``Image/camFromWorld``.
        public var camFromWorld: Rigid3
        /// fx, fy, cx, cy in pixels of the camera's frame (the video's frame as coded, before any
        /// display rotation).
        public var intrinsics: SIMD4<Double>
    }

    /// How the file wrote its matrices.
    public enum MatrixOrder: String, Sendable {
        case rows, columns
    }

    public var frames: [Frame]
    /// The order `cameraTransform` was read in.
    public var poseOrder: MatrixOrder

    /// Reads `url`.
    /// - Throws: ``PipelineError/invalidInput(_:)``, one line naming the file and what is wrong.
    public static func load(_ url: URL) throws -> ARKitFrames {
        guard let data = try? Data(contentsOf: url) else { throw PipelineError.invalidInput("\(url.path): cannot be read") }
        return try parse(data, source: url.path)
    }

    /// Parses the bytes of an `arkitData.json`; `source` names it in errors.
    public static func parse(_ data: Data, source: String) throws -> ARKitFrames {
        func fail(_ what: String) -> PipelineError { .invalidInput("\(source): \(what)") }
        let object = try? JSONSerialization.jsonObject(with: data)
        guard let list = (object as? [Any]) ?? ((object as? [String: Any])?["frames"] as? [Any]) else {
            throw fail("not a JSON array of ARKit frames (nor an object with a \"frames\" array)")
        }
        guard !list.isEmpty else { throw fail("holds no frames") }
        var transforms: [[Double]] = [], raw: [(number: Int?, time: Double?, k: [Double])] = []
        for (index, element) in list.enumerated() {
            guard let frame = element as? [String: Any] else { throw fail("frame \(index) is not an object") }
            guard let transform = numbers(frame["cameraTransform"], count: 4) else {
                throw fail("frame \(index): cameraTransform is not a 4x4 matrix of finite numbers (16 flat, or 4 arrays of 4)")
            }
            guard let k = numbers(frame["cameraIntrinsics"], count: 3) else {
                throw fail("frame \(index): cameraIntrinsics is not a 3x3 matrix of finite numbers (9 flat, or 3 arrays of 3)")
            }
            var number: Int?
            if let value = frame["frameNumber"], !(value is NSNull) {
                guard let n = (value as? NSNumber)?.doubleValue, n.isFinite, n >= 0, n == n.rounded(), n < 1e9 else {
                    throw fail("frame \(index): frameNumber is not a whole number from 0")
                }
                number = Int(n)
            }
            var time: Double?
            if let value = frame["frameTimestamp"], !(value is NSNull) {
                guard let t = (value as? NSNumber)?.doubleValue, t.isFinite else { throw fail("frame \(index): frameTimestamp is not a finite number") }
                time = t
            }
            transforms.append(transform)
            raw.append((number, time, k))
        }
        let order = try poseOrder(transforms, fail)
        var frames: [Frame] = []
        for (index, (transform, entry)) in zip(transforms, raw).enumerated() {
            let m = matrix(transform, size: 4, order: order)
            let rotation = Matrix3(rows: SIMD3(m[0][0], m[0][1], m[0][2]), SIMD3(m[1][0], m[1][1], m[1][2]),
                                   SIMD3(m[2][0], m[2][1], m[2][2]))
            guard NerfstudioTransforms.isRotation(rotation) else {
                throw fail("frame \(index): cameraTransform's rotation is not orthonormal (a scaled or sheared matrix is not a pose)")
            }
            guard let intrinsics = intrinsics(entry.k) else {
                throw fail("frame \(index): cameraIntrinsics is not [fx 0 cx; 0 fy cy; 0 0 1] with fx, fy above 0, "
                           + "row by row or column by column")
            }
            // ARKit's camera axes are OpenGL's, as transforms.json's: one conversion for both.
            frames.append(Frame(index: index, frameNumber: entry.number, timestamp: entry.time,
                                camFromWorld: NerfstudioTransforms.camFromWorld(openGL: m), intrinsics: intrinsics))
        }
        return ARKitFrames(frames: frames, poseOrder: order)
    }

    /// A square matrix of `count` x `count` finite numbers, flat or nested, as written (flat); nil otherwise.
    static func numbers(_ value: Any?, count: Int) -> [Double]? {
        guard let list = value as? [Any] else { return nil }
        var flat: [Any] = list
        if list.count == count {
            guard let rows = list as? [[Any]], rows.allSatisfy({ $0.count == count }) else { return nil }
            flat = rows.flatMap { $0 }
        }
        guard flat.count == count * count else { return nil }
        let values = flat.compactMap { ($0 as? NSNumber)?.doubleValue }
        guard values.count == flat.count, values.allSatisfy(\.isFinite) else { return nil }
        return values
    }

    /// Rows of the `size` x `size` matrix whose numbers were written in `order`.
    static func matrix(_ flat: [Double], size: Int, order: MatrixOrder) -> [[Double]] {
        (0..<size).map { r in (0..<size).map { c in order == .rows ? flat[r * size + c] : flat[c * size + r] } }
    }

    /// The order every pose fits (ends in the row 0 0 0 1); columns when both do.
    static func poseOrder(_ transforms: [[Double]], _ fail: (String) -> PipelineError) throws -> MatrixOrder {
        func fits(_ flat: [Double], _ order: MatrixOrder) -> Bool {
            let bottom = matrix(flat, size: 4, order: order)[3]
            return zip(bottom, [0.0, 0, 0, 1]).allSatisfy { abs($0 - $1) <= 1e-6 }
        }
        if transforms.allSatisfy({ fits($0, .columns) }) { return .columns }
        if transforms.allSatisfy({ fits($0, .rows) }) { return .rows }
        let index = transforms.firstIndex { !fits($0, .columns) && !fits($0, .rows) }
        if let index { throw fail("frame \(index): cameraTransform has no row or column (0, 0, 0, 1): not a rigid transform") }
        throw fail("cameraTransform is written row by row in some frames and column by column in others")
    }

    /// fx, fy, cx, cy of a 3x3 calibration matrix in either order; nil when it is none.
    static func intrinsics(_ flat: [Double]) -> SIMD4<Double>? {
        for order in [MatrixOrder.rows, .columns] {
            let k = matrix(flat, size: 3, order: order)
            guard k[1][0] == 0, k[2][0] == 0, k[2][1] == 0, k[2][2] == 1, k[0][0] > 0, k[1][1] > 0 else { continue }
            return SIMD4(k[0][0], k[1][1], k[0][2], k[1][2])
        }
        return nil
    }
}
