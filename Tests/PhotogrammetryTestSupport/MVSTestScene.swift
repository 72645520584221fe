import Foundation
import PhotogrammetryCore
import PhotogrammetryBridge

/// A procedurally textured surface ray-cast from small pinhole cameras, for PatchMatch tests.
///
/// The texture is a sum of sinusoids in world coordinates (wavelengths of a few pixels at the
/// cameras' distance), so every view sees the same surface pattern; each pixel averages 2 x 2
/// rays. World and camera axes agree for the reference: x right, y down, z forward.
package struct MVSTestScene {
    /// What the rays hit: planes (`n . X + d = 0`, n towards the cameras) and an optional sphere.
    package enum Surface {
        case plane(normal: SIMD3<Double>, offset: Double)
        case sphere(center: SIMD3<Double>, radius: Double)
        /// A plane only where it lies within the box from `lower` to `upper`: a panel, a partition.
        case panel(normal: SIMD3<Double>, offset: Double, lower: SIMD3<Double>, upper: SIMD3<Double>)
    }

    package var surfaces: [Surface]
    package var views: [MVSView]
    /// The sphere's texture as `mean + contrast * (texture - 0.5)`; nil: the planes' texture.
    package var sphereTone: (mean: Double, contrast: Double)?
    /// Points within `radius` of `center` are plain grey (0.5): a patch with no texture at all,
    /// as a painted wall. nil: textured everywhere.
    package var blank: (center: SIMD3<Double>, radius: Double)?
    /// Surfaces (by index) painted one plain tone each, no texture at all, as a room's bare walls
    /// and ceiling (where two of different tone meet, the crease is an edge), but for `pictures`.
    package var plainSurfaces: [Int: Double] = [:]
    /// Discs that keep the texture on plain surfaces: pictures on a bare wall.
    package var pictures: [(center: SIMD3<Double>, radius: Double)] = []
    private var waves: [(direction: SIMD3<Double>, phase: Double, amplitude: Double)] = []

    /// A scene seen by a reference camera at (0, 0, -4) looking at the origin and `sources`
    /// cameras on a ring of radius `baseline` around it, also looking at the origin.
    package init(surfaces: [Surface], sources: Int = 4, baseline: Double = 0.7, width: Int = 160,
         height: Int = 120, focal: Double = 150, seed: UInt64 = 7) {
        self.surfaces = surfaces
        var centres = [SIMD3<Double>(0, 0, -4)]
        for k in 0..<sources {
            let angle = 2 * Double.pi * Double(k) / Double(sources) + 0.3
            centres.append(SIMD3(baseline * cos(angle), baseline * sin(angle), -4))
        }
        views = centres.map { c in
            MVSView(width: width, height: height, fx: focal, fy: focal, cx: Double(width) / 2,
                    cy: Double(height) / 2, camFromWorld: MVSTestScene.lookAt(from: c, to: .zero))
        }
        var rng = BridgeTestRNG(seed: seed)
        for _ in 0..<10 {
            var direction = SIMD3(rng.gaussian(), rng.gaussian(), rng.gaussian())
            direction /= (direction * direction).sum().squareRoot()
            let wavelength = Double.random(in: 0.12...0.45, using: &rng)
            waves.append((direction * (2 * .pi / wavelength), Double.random(in: 0..<(2 * .pi), using: &rng),
                          Double.random(in: 0.04...0.09, using: &rng)))
        }
    }

    /// camFromWorld of a camera at `center` looking at `target` (image y roughly along world y).
    package static func lookAt(from center: SIMD3<Double>, to target: SIMD3<Double>) -> Rigid3 {
        func normalize(_ v: SIMD3<Double>) -> SIMD3<Double> { v / (v * v).sum().squareRoot() }
        func cross(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> SIMD3<Double> {
            SIMD3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
        }
        let z = normalize(target - center)
        let x = normalize(cross(SIMD3(0, 1, 0), z))
        let y = cross(z, x)
        let rotation = Matrix3(rows: x, y, z)
        return Rigid3(rotation: rotation, translation: -(rotation * center))
    }

    /// The nearest hit along a ray: distance along the unit direction, whether it is the sphere, and
    /// which surface it is.
    package func hit(origin: SIMD3<Double>, direction: SIMD3<Double>) -> (t: Double, sphere: Bool, surface: Int)? {
        var best: (t: Double, sphere: Bool, surface: Int)?
        for (index, surface) in surfaces.enumerated() {
            switch surface {
            case let .plane(n, d):
                let denominator = (n * direction).sum()
                guard abs(denominator) > 1e-12 else { continue }
                let t = -((n * origin).sum() + d) / denominator
                if t > 0, t < (best?.t ?? .infinity) { best = (t, false, index) }
            case let .panel(n, d, lower, upper):
                let denominator = (n * direction).sum()
                guard abs(denominator) > 1e-12 else { continue }
                let t = -((n * origin).sum() + d) / denominator
                let point = origin + t * direction
                let within = (0..<3).allSatisfy { point[$0] >= lower[$0] - 1e-9 && point[$0] <= upper[$0] + 1e-9 }
                if t > 0, within, t < (best?.t ?? .infinity) { best = (t, false, index) }
            case let .sphere(c, r):
                let o = origin - c
                let b = (o * direction).sum(), q = (o * o).sum() - r * r
                let disc = b * b - q
                guard disc >= 0 else { continue }
                let t = -b - disc.squareRoot()
                if t > 0, t < (best?.t ?? .infinity) { best = (t, true, index) }
            }
        }
        return best
    }

    /// The texture's intensity in [0, 1] at a world point.
    package func intensity(_ p: SIMD3<Double>) -> Double {
        if let blank, ((p - blank.center) * (p - blank.center)).sum() <= blank.radius * blank.radius { return 0.5 }
        var value = 0.5
        for wave in waves { value += wave.amplitude * sin((wave.direction * p).sum() + wave.phase) }
        return min(1, max(0, value))
    }

    /// Renders view `index`: 8-bit grey pixels, the z-depth at each pixel centre (0: no hit) and
    /// whether the centre ray hits the sphere.
    package func render(_ index: Int) -> (pixels: [UInt8], depth: [Float], onSphere: [Bool]) {
        let view = views[index]
        let camToWorld = view.camFromWorld.inverse
        let origin = view.camFromWorld.centerInWorld
        var pixels = [UInt8](repeating: 0, count: view.width * view.height)
        var depth = [Float](repeating: 0, count: view.width * view.height)
        var onSphere = [Bool](repeating: false, count: view.width * view.height)
        for y in 0..<view.height {
            for x in 0..<view.width {
                var sum = 0.0
                for sub in 0..<4 {
                    let px = Double(x) + 0.25 + 0.5 * Double(sub % 2), py = Double(y) + 0.25 + 0.5 * Double(sub / 2)
                    let rayCam = SIMD3((px - view.cx) / view.fx, (py - view.cy) / view.fy, 1)
                    var direction = camToWorld.rotation * rayCam
                    direction /= (direction * direction).sum().squareRoot()
                    if let h = hit(origin: origin, direction: direction) {
                        let point = origin + h.t * direction
                        let inPicture = pictures.contains { ((point - $0.center) * (point - $0.center)).sum() <= $0.radius * $0.radius }
                        let value = inPicture ? intensity(point) : plainSurfaces[h.surface] ?? intensity(point)
                        if h.sphere, let tone = sphereTone {
                            sum += min(1, max(0, tone.mean + tone.contrast * (value - 0.5)))
                        } else {
                            sum += value
                        }
                    }
                }
                pixels[y * view.width + x] = UInt8((sum / 4 * 255).rounded())
                let rayCam = SIMD3((Double(x) + 0.5 - view.cx) / view.fx, (Double(y) + 0.5 - view.cy) / view.fy, 1)
                var direction = camToWorld.rotation * rayCam
                let norm = (direction * direction).sum().squareRoot()
                direction /= norm
                if let h = hit(origin: origin, direction: direction) {
                    depth[y * view.width + x] = Float(h.t / norm)  // z-depth: rayCam has z = 1
                    onSphere[y * view.width + x] = h.sphere
                }
            }
        }
        return (pixels, depth, onSphere)
    }

    /// Writes every view as PGM into `directory` and returns the files and the reference's
    /// ground truth.
    package func write(to directory: URL) throws -> (files: [URL], depth: [Float], onSphere: [Bool]) {
        var files: [URL] = []
        var truth: ([Float], [Bool]) = ([], [])
        for index in views.indices {
            let rendered = render(index)
            let url = directory.appendingPathComponent(String(format: "view%02d.pgm", index))
            try SyntheticGrayImage(width: views[index].width, height: views[index].height, pixels: rendered.pixels)
                .writePGM(to: url)
            files.append(url)
            if index == 0 { truth = (rendered.depth, rendered.onSphere) }
        }
        return (files, truth.0, truth.1)
    }
}
