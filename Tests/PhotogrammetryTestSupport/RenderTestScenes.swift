import Foundation
import PhotogrammetryCore
import PhotogrammetryBridge

/// Small models and cameras for the renderer's tests: a cube, squares at known depths, a
/// textured quad filling a camera's frame texel for pixel.
package enum RenderTestScenes {
    /// The cube [0, 1]^3 as 8 shared vertices and 12 triangles, one colour.
    package static func cube(color: SIMD3<UInt8> = SIMD3(200, 120, 40)) -> MeshModel {
        let positions = (0..<8).map { (k: Int) -> SIMD3<Float> in
            let x = Float(k & 1), y = Float((k >> 1) & 1), z = Float((k >> 2) & 1)
            return SIMD3<Float>(x, y, z)
        }
        let quads: [[Int32]] = [[0, 2, 3, 1], [4, 5, 7, 6], [0, 1, 5, 4], [2, 6, 7, 3], [0, 4, 6, 2], [1, 3, 7, 5]]
        let triangles = quads.flatMap { q in [SIMD3(q[0], q[1], q[2]), SIMD3(q[0], q[2], q[3])] }
        return MeshModel(positions: positions, normals: [SIMD3<Float>](repeating: .zero, count: 8),
                         colors: [SIMD3<UInt8>](repeating: color, count: 8), triangles: triangles)
    }

    /// An axis-aligned square in the plane z = `depth`, from `low` to `high` in x and y.
    package static func square(low: Float, high: Float, depth: Float, color: SIMD3<UInt8>) -> MeshModel {
        let positions = [SIMD3(low, low, depth), SIMD3(high, low, depth), SIMD3(high, high, depth), SIMD3(low, high, depth)]
        return MeshModel(positions: positions, normals: [SIMD3<Float>](repeating: SIMD3(0, 0, -1), count: 4),
                         colors: [SIMD3<UInt8>](repeating: color, count: 4), triangles: [SIMD3(0, 1, 2), SIMD3(0, 2, 3)])
    }

    /// Concatenates models (vertex colours only).
    package static func merged(_ models: [MeshModel]) -> MeshModel {
        var result = MeshModel(positions: [], normals: [], colors: [], triangles: [])
        for m in models {
            let base = Int32(result.positions.count)
            result.positions += m.positions
            result.normals += m.normals
            result.colors += m.colors
            result.triangles += m.triangles.map { $0 &+ base }
        }
        return result
    }

    /// A camera at the origin looking down +Z (the identity pose).
    package static func frontCamera(width: Int, height: Int, focal: Double) -> RenderCamera {
        RenderCamera(width: width, height: height, focalLengths: SIMD2(focal, focal),
                     principalPoint: SIMD2(Double(width), Double(height)) / 2, camFromWorld: .identity)
    }

    /// A side x side texture with a checkerboard of 8-texel squares in blue and gradients in red
    /// (x) and green (y), so that no flip or mirror of it matches it; RGB, top row first.
    package static func checkerTexture(side: Int = 64) -> PixelImage {
        var pixels: [UInt8] = []
        for y in 0..<side {
            for x in 0..<side {
                pixels += [UInt8(x * 255 / (side - 1)), UInt8(y * 255 / (side - 1)), ((x / 8 + y / 8) % 2 == 0) ? 255 : 0]
            }
        }
        return PixelImage(width: side, height: side, channels: 3, pixels: pixels)
    }

    /// `image` upside down.
    package static func flippedVertically(_ image: PixelImage) -> PixelImage {
        let row = image.width * image.channels
        var pixels: [UInt8] = []
        for y in (0..<image.height).reversed() { pixels += image.pixels[(y * row)..<((y + 1) * row)] }
        return PixelImage(width: image.width, height: image.height, channels: image.channels, pixels: pixels)
    }

    /// `image` as PNG bytes (stored zlib blocks, see ``TestPNG``).
    package static func png(_ image: PixelImage) -> Data {
        let raw = TestPNG.rows(width: image.width, height: image.height, channels: 3) { x, y in Array(image[x, y]) }
        return TestPNG.encoded(raw, width: image.width, height: image.height, colorType: 2)
    }

    /// A quad at depth 1 that fills ``frontCamera(width:height:focal:)`` of side `side` and
    /// focal `side` exactly, textured with `texture` (v up: the image's top row at the top of
    /// the frame), so that pixel (x, y) should show texel (x, y).
    package static func texturedQuad(_ texture: PixelImage) -> MeshModel {
        var quad = square(low: -0.5, high: 0.5, depth: 1, color: SIMD3(90, 90, 90))
        // The camera's y runs down: y = -0.5 is the frame's top row, the texture's top (v = 1).
        quad.uvs = [SIMD2(0, 1), SIMD2(1, 1), SIMD2(1, 0), SIMD2(0, 0)]
        quad.material.texture = MeshMaterial.Texture(data: png(texture), fileName: "checker.png",
                                                     width: texture.width, height: texture.height)
        return quad
    }

    /// Peak signal-to-noise ratio in dB of the RGB channels of `render` (RGBA) against `reference`
    /// (RGB, same size); infinity for identical images.
    package static func psnr(_ render: PixelImage, _ reference: PixelImage) -> Double {
        var squared = 0.0
        for y in 0..<reference.height {
            for x in 0..<reference.width {
                let a = render[x, y], b = reference[x, y]
                for k in 0..<3 {
                    let d = Double(a[a.startIndex + k]) - Double(b[b.startIndex + k])
                    squared += d * d
                }
            }
        }
        let mse = squared / Double(3 * reference.width * reference.height)
        return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
    }
}
