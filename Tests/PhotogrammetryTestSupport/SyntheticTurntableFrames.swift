import Foundation
import PhotogrammetryCore

/// Frames of a fixed camera watching a textureless object turn before a busy backdrop, drawn in
/// 2-D with their true masks: the trap of automatic masks in miniature.
///
/// The object is a uniform grey hub that covers the same pixels in every frame (a turning object
/// stays in place and, plain, looks the same from every side) with an arm that sweeps around it.
/// The backdrop is coloured blobs. With `cameraStep` > 0 the camera moves instead: each frame is
/// the window of a larger backdrop shifted by that many pixels per frame.
package struct SyntheticTurntableFrames {
    package var width = 240
    package var height = 180
    package var frames = 24
    /// Hub radius and arm length, width (pixels) about the frame's centre.
    package var hubRadius = 26.0
    package var armLength = 62.0
    package var armWidth = 14.0
    /// Pixels the camera moves per frame (0: a fixed camera).
    package var cameraStep = 0
    /// Per-pixel sensor noise (grey levels) and the seed of backdrop and noise.
    package var noise = 1.5
    package var seed: UInt64 = 7

    package init() {}

    /// Whether frame `i`'s object covers pixel (x, y).
    package func isObject(_ i: Int, x: Int, y: Int) -> Bool {
        let dx = Double(x) + 0.5 - Double(width) / 2, dy = Double(y) + 0.5 - Double(height) / 2
        if dx * dx + dy * dy <= hubRadius * hubRadius { return true }
        let angle = 2 * Double.pi * Double(i) / Double(frames)
        let along = dx * cos(angle) + dy * sin(angle), across = -dx * sin(angle) + dy * cos(angle)
        return along >= 0 && along <= armLength && abs(across) <= armWidth / 2
    }

    /// Frame `i`'s true mask, row-major.
    package func trueMask(_ i: Int) -> [Bool] {
        (0..<(width * height)).map { isObject(i, x: $0 % width, y: $0 / width) }
    }

    /// Writes the frames as `frame-NN.png` into `folder`; returns their URLs in order.
    package func write(to folder: URL) throws -> [URL] {
        let margin = cameraStep * frames
        let backdropWidth = width + margin
        let backdrop = Self.blobBackdrop(width: backdropWidth, height: height, seed: seed)
        var rng = SeededGenerator(seed: seed &+ 1)
        var urls: [URL] = []
        for i in 0..<frames {
            var pixels = [SIMD3<UInt8>](repeating: .zero, count: width * height)
            for y in 0..<height {
                for x in 0..<width {
                    var colour = isObject(i, x: x, y: y) ? SIMD3<Double>(150, 150, 150) : backdrop[y * backdropWidth + x + cameraStep * i]
                    colour += SIMD3(repeating: noise * Self.gaussian(&rng))
                    let byte = colour.clamped(lowerBound: .zero, upperBound: SIMD3(repeating: 255)).rounded(.toNearestOrEven)
                    pixels[y * width + x] = SIMD3(UInt8(byte.x), UInt8(byte.y), UInt8(byte.z))
                }
            }
            let url = folder.appendingPathComponent(String(format: "frame-%02d.png", i))
            try TestPNG.writeRGB(pixels, width: width, height: height, to: url)
            urls.append(url)
        }
        return urls
    }

    /// Coloured Gaussian blobs on a mid-grey: a busy backdrop.
    static func blobBackdrop(width: Int, height: Int, seed: UInt64) -> [SIMD3<Double>] {
        var rng = SeededGenerator(seed: seed)
        var field = [SIMD3<Double>](repeating: SIMD3(120, 110, 100), count: width * height)
        for _ in 0..<(width * height / 90) {
            let cx = Double.random(in: 0..<Double(width), using: &rng), cy = Double.random(in: 0..<Double(height), using: &rng)
            let sigma = Double.random(in: 2...7, using: &rng)
            let amplitude = SIMD3(Double.random(in: -90...90, using: &rng), Double.random(in: -90...90, using: &rng),
                                  Double.random(in: -90...90, using: &rng))
            let radius = Int(3 * sigma)
            for y in max(0, Int(cy) - radius)...min(height - 1, Int(cy) + radius) {
                for x in max(0, Int(cx) - radius)...min(width - 1, Int(cx) + radius) {
                    let dx = Double(x) + 0.5 - cx, dy = Double(y) + 0.5 - cy
                    field[y * width + x] += amplitude * exp(-(dx * dx + dy * dy) / (2 * sigma * sigma))
                }
            }
        }
        return field
    }

    static func gaussian(_ rng: inout SeededGenerator) -> Double {
        let u = Double.random(in: Double.ulpOfOne..<1, using: &rng), v = Double.random(in: 0..<1, using: &rng)
        return (-2 * log(u)).squareRoot() * cos(2 * .pi * v)
    }

    /// Intersection over union of a mask (255 = object, row-major) and the truth.
    package static func iou(_ mask: [UInt8], _ truth: [Bool]) -> Double {
        var both = 0, either = 0
        for (m, t) in zip(mask, truth) {
            both += (m >= 128 && t) ? 1 : 0
            either += (m >= 128 || t) ? 1 : 0
        }
        return either == 0 ? 1 : Double(both) / Double(either)
    }
}
