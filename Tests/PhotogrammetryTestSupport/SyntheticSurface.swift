import Foundation
import XCTest
import PhotogrammetryCore
import PhotogrammetryBridge

/// Seeded synthetic surfaces for the meshing tests: sampled spheres (closed) and half-spheres
/// (open) with outward normals and colours, and subdivided icospheres.
package enum SyntheticSurface {
    /// `count` points on the sphere of `radius` about the origin (only z >= `minZ` when given),
    /// uniformly by area, with outward normals; red above the equator, blue below.
    package static func sphereCloud(count: Int, radius: Float = 1, minZ: Float? = nil, noise: Float = 0, seed: UInt64 = 7) throws -> PointCloud {
        var random = SeededGenerator(seed: seed)
        var points: [SIMD3<Float>] = [], normals: [SIMD3<Float>] = [], colors: [SIMD3<UInt8>] = []
        while points.count < count {
            let z = Float.random(in: -1...1, using: &random)
            let phi = Float.random(in: 0..<(2 * .pi), using: &random)
            let r = (1 - z * z).squareRoot()
            let n = SIMD3(r * cos(phi), r * sin(phi), z)
            if let minZ, n.z * radius < minZ { continue }
            points.append(n * (radius + Float.random(in: -1...1, using: &random) * noise))
            normals.append(n)
            colors.append(z >= 0 ? SIMD3(200, 30, 30) : SIMD3(30, 30, 200))
        }
        return try PointCloud(points: points, normals: normals, colors: colors)
    }

    /// An icosahedron subdivided `levels` times onto the sphere of `radius`: 20 x 4^levels triangles.
    package static func icosphere(levels: Int, radius: Float = 1) -> (positions: [SIMD3<Float>], triangles: [SIMD3<Int32>]) {
        let t = (1 + Float(5).squareRoot()) / 2
        var positions: [SIMD3<Float>] = [
            [-1, t, 0], [1, t, 0], [-1, -t, 0], [1, -t, 0], [0, -1, t], [0, 1, t],
            [0, -1, -t], [0, 1, -t], [t, 0, -1], [t, 0, 1], [-t, 0, -1], [-t, 0, 1],
        ].map { normalize($0) }
        var triangles: [SIMD3<Int32>] = [
            [0, 11, 5], [0, 5, 1], [0, 1, 7], [0, 7, 10], [0, 10, 11], [1, 5, 9], [5, 11, 4], [11, 10, 2],
            [10, 7, 6], [7, 1, 8], [3, 9, 4], [3, 4, 2], [3, 2, 6], [3, 6, 8], [3, 8, 9], [4, 9, 5],
            [2, 4, 11], [6, 2, 10], [8, 6, 7], [9, 8, 1],
        ]
        for _ in 0..<levels {
            var midpoints: [UInt64: Int32] = [:]
            func midpoint(_ a: Int32, _ b: Int32) -> Int32 {
                let key = UInt64(min(a, b)) << 32 | UInt64(max(a, b))
                if let index = midpoints[key] { return index }
                positions.append(normalize((positions[Int(a)] + positions[Int(b)]) / 2))
                midpoints[key] = Int32(positions.count - 1)
                return Int32(positions.count - 1)
            }
            var next: [SIMD3<Int32>] = []
            next.reserveCapacity(triangles.count * 4)
            for f in triangles {
                let ab = midpoint(f.x, f.y), bc = midpoint(f.y, f.z), ca = midpoint(f.z, f.x)
                next += [SIMD3(f.x, ab, ca), SIMD3(f.y, bc, ab), SIMD3(f.z, ca, bc), SIMD3(ab, bc, ca)]
            }
            triangles = next
        }
        return (positions.map { $0 * radius }, triangles)
    }

    /// A coloured icosphere as the exporters take it.
    package static func icosphereModel(levels: Int, radius: Float = 0.5) -> MeshModel {
        let (positions, triangles) = icosphere(levels: levels, radius: radius)
        return MeshModel(positions: positions, normals: positions.map { normalize($0) },
                         colors: positions.map { $0.z >= 0 ? SIMD3(220, 40, 40) : SIMD3(40, 40, 220) },
                         triangles: triangles)
    }

    package static func normalize(_ v: SIMD3<Float>) -> SIMD3<Float> { v / (v * v).sum().squareRoot() }

    /// The centroid of each triangle of `model`.
    package static func centroids(_ model: MeshModel) -> [SIMD3<Float>] {
        model.triangles.map { (model.positions[Int($0.x)] + model.positions[Int($0.y)] + model.positions[Int($0.z)]) / 3 }
    }
}

/// Checks run by an external tool in Python (the USD compliance checker, trimesh), installed by
/// scripts/setup. A missing module fails the test with the fix, never skips it: CI installs them.
package enum PythonCheck {
    /// Runs `script` with python3; returns standard output. Fails the test when python3 or a
    /// module is missing or the script exits non-zero.
    package static func run(_ script: String, modules: [String], file: StaticString = #filePath, line: UInt = #line) throws -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        let prelude = modules.map { "try:\n    import \($0)\nexcept ImportError as e:\n    print('MISSING-MODULE', e); raise SystemExit(3)\n" }.joined()
        process.arguments = ["python3", "-c", prelude + script]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        do { try process.run() } catch {
            XCTFail("python3 not found: run scripts/setup (\(error))", file: file, line: line)
            return nil
        }
        let output = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let errors = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        if process.terminationStatus == 3, output.contains("MISSING-MODULE") {
            XCTFail("python module missing (\(output.trimmingCharacters(in: .whitespacesAndNewlines))): run scripts/setup, which installs usd-core==26.3 and trimesh", file: file, line: line)
            return nil
        }
        guard process.terminationStatus == 0 else {
            XCTFail("python check failed (\(process.terminationStatus)): \(output) \(errors)", file: file, line: line)
            return nil
        }
        return output
    }

    /// Whether python3 imports `module`: for the few checks that a missing tool skips rather
    /// than fails.
    package static func canImport(_ module: String) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", "import \(module)"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }
}
