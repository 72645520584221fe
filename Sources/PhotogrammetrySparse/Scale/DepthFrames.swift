import Foundation
import PhotogrammetryCore

/// A room scan's depth frames in one file (`allDepthFrames.bin`), in the one layout read: no
/// header, frame after frame, each `width` x `height` little-endian float32 depths in metres
/// along the camera's axis, row by row from the top-left pixel of the camera's frame (the video
/// as coded, before display rotation); 0 or a non-finite value where there is no depth. One
/// frame per `arkitData.json` frame, in its order. The size is `depthWidth` and `depthHeight`
/// of `config.json`, else ARKit's scene depth, 256 x 192; the file's length must be exactly
/// that many frames of that size.
///
/// Their confidence, when the scan has it (`allConfidenceFrames.bin` beside them): no header,
/// one byte per depth pixel in the same order and frames, ARKit's levels (0 low, 1 medium,
/// 2 high); its length must be exactly `count` frames of `width` x `height` bytes.
public struct DepthFrames: Sendable, Equatable {
    public let file: URL
    public let width: Int
    public let height: Int
    public let count: Int
    /// The confidence frames' file, or nil.
    public let confidenceFile: URL?

    /// ARKit's scene depth size (`ARFrame.sceneDepth`), used when `config.json` gives none.
    public static let defaultSize = (width: 256, height: 192)

    /// Checks that `file` holds `count` frames of `width` x `height`.
    /// - Throws: ``PipelineError/invalidInput(_:)`` naming the file and what did not fit.
    public init(file: URL, width: Int, height: Int, count: Int, sizeSource: String, confidenceFile: URL? = nil) throws {
        let bytes = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.int64Value
        guard let bytes else { throw PipelineError.invalidInput("\(file.path): cannot be read") }
        if let confidenceFile {
            let confidenceBytes = (try? FileManager.default.attributesOfItem(atPath: confidenceFile.path)[.size] as? NSNumber)?.int64Value
            let expected = Int64(width) * Int64(height) * Int64(count)
            guard confidenceBytes == expected else {
                throw PipelineError.invalidInput("\(confidenceFile.path): \(confidenceBytes.map(String.init) ?? "unreadable, not") bytes "
                    + "is not \(count) frames of \(width)x\(height) one-byte confidences (\(expected) bytes; \(sizeSource))")
            }
        }
        self.confidenceFile = confidenceFile
        let frameBytes = Int64(width) * Int64(height) * 4
        guard bytes == frameBytes * Int64(count) else {
            let frames = Double(bytes) / Double(frameBytes)
            throw PipelineError.invalidInput("\(file.path): \(bytes) bytes is not \(count) frames (one per arkitData.json frame) of "
                + "\(width)x\(height) float32 depths (\(frameBytes * Int64(count)) bytes; \(sizeSource)), but "
                + String(format: "%.4g", frames) + " such frames: only that layout is read")
        }
        self.file = file
        self.width = width
        self.height = height
        self.count = count
    }

    /// Depth frame `index`, turned clockwise by `rotationDegrees` (a multiple of 90) as the
    /// video's frames are for display.
    /// - Throws: ``PipelineError/invalidInput(_:)`` when the file cannot be read there.
    public func frame(_ index: Int, rotationDegrees: Int = 0) throws -> MetricDepthImage {
        precondition(index >= 0 && index < count, "a frame of the file")
        let data = try Self.read(file, frame: index, bytes: width * height * 4)
        var metres = [Float](repeating: 0, count: width * height)
        data.withUnsafeBytes { bytes in
            for i in 0..<metres.count {
                metres[i] = Float(bitPattern: UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: 4 * i, as: UInt32.self)))
            }
        }
        var image = MetricDepthImage(width: width, height: height, metres: metres)
        if let confidenceFile { image.confidence = [UInt8](try Self.read(confidenceFile, frame: index, bytes: width * height)) }
        for _ in 0..<(((rotationDegrees / 90) % 4) + 4) % 4 { image = image.turnedClockwise() }
        return image
    }

    /// Frame `index` of `frameBytes` bytes of `file`.
    private static func read(_ file: URL, frame index: Int, bytes frameBytes: Int) throws -> Data {
        guard let handle = try? FileHandle(forReadingFrom: file) else { throw PipelineError.invalidInput("\(file.path): cannot be read") }
        defer { try? handle.close() }
        let data: Data?
        do {
            try handle.seek(toOffset: UInt64(index) * UInt64(frameBytes))
            data = try handle.read(upToCount: frameBytes)
        } catch {
            data = nil
        }
        guard let data, data.count == frameBytes else {
            throw PipelineError.invalidInput("\(file.path): frame \(index) cannot be read whole")
        }
        return data
    }
}

extension MetricDepthImage {
    /// This depth image turned 90° clockwise: pixel (x, y) goes to (height - 1 - y, x).
    func turnedClockwise() -> MetricDepthImage {
        func turn<T>(_ values: [T]) -> [T] {
            var turned = values
            for y in 0..<height {
                for x in 0..<width { turned[x * height + (height - 1 - y)] = values[y * width + x] }
            }
            return turned
        }
        var image = MetricDepthImage(width: height, height: width, metres: turn(metres))
        image.confidence = confidence.map(turn)
        return image
    }
}
