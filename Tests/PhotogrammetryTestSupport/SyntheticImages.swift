import Foundation
import XCTest
import PhotogrammetryCore
import PhotogrammetryBridge

/// A deterministic generator (SplitMix64), so synthetic scenes are identical on every run.
package struct BridgeTestRNG: RandomNumberGenerator {
    package var base: SeededGenerator
    package init(seed: UInt64) { base = SeededGenerator(seed: seed) }
    package mutating func next() -> UInt64 { base.next() }
    /// A standard normal sample (Box-Muller).
    package mutating func gaussian() -> Double {
        let u = Double.random(in: Double.ulpOfOne..<1, using: &self)
        let v = Double.random(in: 0..<1, using: &self)
        return (-2 * log(u)).squareRoot() * cos(2 * .pi * v)
    }
}

/// An 8-bit grey image that tests write as binary PGM (which OpenCV decodes).
package struct SyntheticGrayImage {
    package var width: Int
    package var height: Int
    package var pixels: [UInt8]

    package init(width: Int, height: Int, pixels: [UInt8]) {
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// Random Gaussian blobs on grey: blob-rich texture on which SIFT finds many stable features.
    package static func blobs(width: Int, height: Int, count: Int, seed: UInt64) -> SyntheticGrayImage {
        var rng = BridgeTestRNG(seed: seed)
        var field = [Double](repeating: 128, count: width * height)
        for _ in 0..<count {
            let cx = Double.random(in: 0..<Double(width), using: &rng)
            let cy = Double.random(in: 0..<Double(height), using: &rng)
            let sigma = Double.random(in: 2...9, using: &rng)
            let amplitude = Double.random(in: 40...110, using: &rng) * (Bool.random(using: &rng) ? 1 : -1)
            let radius = Int(3 * sigma)
            for y in max(0, Int(cy) - radius)...min(height - 1, Int(cy) + radius) {
                for x in max(0, Int(cx) - radius)...min(width - 1, Int(cx) + radius) {
                    let dx = Double(x) + 0.5 - cx, dy = Double(y) + 0.5 - cy
                    field[y * width + x] += amplitude * exp(-(dx * dx + dy * dy) / (2 * sigma * sigma))
                }
            }
        }
        return SyntheticGrayImage(width: width, height: height,
                         pixels: field.map { UInt8(max(0, min(255, $0.rounded()))) })
    }

    /// The window whose top-left pixel is (x, y).
    package func cropped(x: Int, y: Int, width: Int, height: Int) -> SyntheticGrayImage {
        var out = [UInt8](repeating: 0, count: width * height)
        for row in 0..<height {
            for column in 0..<width { out[row * width + column] = pixels[(row + y) * self.width + column + x] }
        }
        return SyntheticGrayImage(width: width, height: height, pixels: out)
    }

    /// Rotated 90 degrees clockwise: a point (x, y) moves to (height - y, x) in pixel coordinates
    /// whose top-left pixel centre is (0.5, 0.5).
    package func rotatedClockwise() -> SyntheticGrayImage {
        var out = [UInt8](repeating: 0, count: width * height)
        for row in 0..<height {
            for column in 0..<width { out[column * height + (height - 1 - row)] = pixels[row * width + column] }
        }
        return SyntheticGrayImage(width: height, height: width, pixels: out)
    }

    package func writePGM(to url: URL) throws {
        var data = Data("P5\n\(width) \(height)\n255\n".utf8)
        data.append(contentsOf: pixels)
        try data.write(to: url)
    }
}

/// A fresh temporary directory, removed when the test ends.
package func makeBridgeTestDirectory(_ test: XCTestCase) throws -> URL {
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("pgkit-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    test.addTeardownBlock { try? FileManager.default.removeItem(at: url) }
    return url
}

/// Runs a python3 script (always available on the build machines) with arguments.
package func runBridgeTestPython(_ script: String, arguments: [String] = []) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
    process.arguments = ["-c", script] + arguments
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw CVisionError(code: .internalError, message: "python3 failed: \(process.terminationStatus)")
    }
}
