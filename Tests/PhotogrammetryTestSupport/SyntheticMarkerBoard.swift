import Foundation
import PhotogrammetryCore
import PhotogrammetryBridge

/// A flat board of printed square markers in the plane z = 0 (metres) and grey pinhole views of
/// it at known poses, each pixel the mean of rays cast onto the board (exact geometry, antialiased):
/// ground truth for marker detection and marker scale.
package struct SyntheticMarkerBoard {
    package var dictionary: MarkerDictionary
    /// The printed side of every marker's black square, metres.
    package var side: Double
    /// Marker ids and their centres on the board, metres.
    package var markers: [(id: Int, centre: SIMD2<Double>)]
    /// The board's half-width: white paper within, grey floor beyond. Metres.
    package var halfWidth: Double
    /// Each marker's drawn cells (`cells` x `cells`, 0 or 255).
    private var bitmaps: [Int: [UInt8]] = [:]
    private let cells = 60

    package init(dictionary: MarkerDictionary, side: Double, markers: [(id: Int, centre: SIMD2<Double>)], halfWidth: Double) throws {
        (self.dictionary, self.side, self.markers, self.halfWidth) = (dictionary, side, markers, halfWidth)
        for marker in markers { bitmaps[marker.id] = try MarkerDetector.draw(dictionary, id: marker.id, side: cells) }
    }

    /// Eight markers of DICT_4X4_50 (ids 0-7), `side` metres each, around a 0.3 m board's edge.
    package static func ring(side: Double = 0.05) throws -> SyntheticMarkerBoard {
        let centres: [SIMD2<Double>] = [SIMD2(-0.11, -0.11), SIMD2(0, -0.11), SIMD2(0.11, -0.11), SIMD2(0.11, 0),
                                        SIMD2(0.11, 0.11), SIMD2(0, 0.11), SIMD2(-0.11, 0.11), SIMD2(-0.11, 0)]
        return try SyntheticMarkerBoard(dictionary: try MarkerDictionary(name: "DICT_4X4_50"), side: side,
                                        markers: centres.enumerated().map { ($0, $1) }, halfWidth: 0.15)
    }

    /// Marker `id`'s corners on the board in the detector's order: top-left, top-right,
    /// bottom-right, bottom-left as printed (the marker's top towards the board's +y).
    package func corners(of id: Int) -> [SIMD3<Double>] {
        let c = markers.first { $0.id == id }!.centre, h = side / 2
        return [SIMD3(c.x - h, c.y + h, 0), SIMD3(c.x + h, c.y + h, 0), SIMD3(c.x + h, c.y - h, 0), SIMD3(c.x - h, c.y - h, 0)]
    }

    /// The grey level of the board at `point` (metres, z = 0).
    package func grey(at point: SIMD2<Double>) -> Double {
        guard abs(point.x) <= halfWidth, abs(point.y) <= halfWidth else { return 110 }
        for marker in markers {
            let u = (point.x - marker.centre.x) / side + 0.5, v = (marker.centre.y - point.y) / side + 0.5
            guard u >= 0, u < 1, v >= 0, v < 1 else { continue }
            return bitmaps[marker.id]![Int(v * Double(cells)) * cells + Int(u * Double(cells))] == 0 ? 20 : 235
        }
        return 235
    }

    /// A `camera` (PINHOLE or SIMPLE_PINHOLE) view of the board from `camFromWorld` (metres),
    /// 8-bit grey, `samples` x `samples` rays a pixel averaged in linear light and encoded with the
    /// sRGB curve, as a camera's JPEG or a renderer's PNG is.
    package func render(_ camera: Camera, camFromWorld: Rigid3, samples: Int = 3) -> [UInt8] {
        let f = camera.focalLengths, c = camera.principalPoint
        let worldFromCam = camFromWorld.rotation.transposed, centre = camFromWorld.centerInWorld
        var pixels = [UInt8](repeating: 0, count: camera.width * camera.height)
        for y in 0..<camera.height {
            for x in 0..<camera.width {
                var sum = 0.0
                for sy in 0..<samples {
                    for sx in 0..<samples {
                        let u = Double(x) + (Double(sx) + 0.5) / Double(samples), v = Double(y) + (Double(sy) + 0.5) / Double(samples)
                        let direction = worldFromCam * SIMD3((u - c.x) / f.x, (v - c.y) / f.y, 1)
                        guard direction.z < 0 else { sum += Self.linear(110); continue }
                        let t = -centre.z / direction.z
                        sum += Self.linear(grey(at: SIMD2(centre.x + t * direction.x, centre.y + t * direction.y)))
                    }
                }
                pixels[y * camera.width + x] = UInt8((Self.encoded(sum / Double(samples * samples))).rounded())
            }
        }
        return pixels
    }

    /// An 8-bit sRGB code value as linear light in [0, 1].
    static func linear(_ code: Double) -> Double {
        let v = code / 255
        return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
    }

    /// Linear light in [0, 1] as an sRGB code value (0-255).
    static func encoded(_ light: Double) -> Double {
        255 * (light <= 0.0031308 ? 12.92 * light : 1.055 * pow(light, 1 / 2.4) - 0.055)
    }

    /// `count` views around the board at `distance` metres, `elevationDeg` up, looking at its
    /// centre: camFromWorld in metres.
    package static func orbit(count: Int, distance: Double, elevationDeg: Double) -> [Rigid3] {
        (0..<count).map { i in
            let azimuth = 2 * Double.pi * Double(i) / Double(count) + 0.3, elevation = elevationDeg * .pi / 180
            let centre = SIMD3(distance * cos(elevation) * cos(azimuth), distance * cos(elevation) * sin(azimuth),
                               distance * sin(elevation))
            return SyntheticScene.lookAt(from: centre, to: .zero)
        }
    }
}
