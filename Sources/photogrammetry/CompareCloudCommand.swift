import Foundation
import PhotogrammetryKit
import PhotogrammetryCore
import PhotogrammetryBridge
import PhotogrammetryIO
import PhotogrammetrySparse

/// `photogrammetry compare-cloud CLOUD_OR_MESH REFERENCE_MESH --sparse MODEL --reference-sparse
/// GT_MODEL --tau T [--region OBJECT_MESH] [--spacing S]`: dense accuracy, completeness and F1
/// against a reference surface, as JSON.
enum CompareCloudCommand {
    static func run(_ arguments: [String]) throws {
        let parsed = try CommandSpec.compareCloud.parse(arguments)
        guard parsed.positionals.count == 2 else {
            throw ArgumentParser.Failure(description: "compare-cloud takes CLOUD_OR_MESH and REFERENCE_MESH (PLY files)")
        }
        guard let sparse = parsed["sparse"], let referenceSparse = parsed["reference-sparse"] else {
            throw ArgumentParser.Failure(description: "compare-cloud needs --sparse MODEL and --reference-sparse GT_MODEL")
        }
        guard let tauText = parsed["tau"], let tau = Double(tauText), tau > 0, tau.isFinite else {
            throw ArgumentParser.Failure(description: "compare-cloud needs --tau T, a positive distance")
        }
        var spacing: Double?
        if let text = parsed["spacing"] {
            guard let value = Double(text), value > 0, value.isFinite else {
                throw ArgumentParser.Failure(description: "--spacing wants a positive distance")
            }
            spacing = value
        }
        // Every file is checked before any is opened: a named pipe would block the read forever.
        do {
            for path in parsed.positionals + [parsed["region"]].compactMap({ $0 }) {
                try RegularFile.check(URL(fileURLWithPath: path), kind: "a PLY file")
            }
            for model in [sparse, referenceSparse] {
                try RegularFile.checkColmapModel(in: Reconstruction.colmapModelDirectory(URL(fileURLWithPath: model)))
            }
        } catch { throw MeshFailure("\(error)") }
        let comparison = try compareClouds(
            ours: URL(fileURLWithPath: parsed.positionals[0]),
            reference: URL(fileURLWithPath: parsed.positionals[1]),
            region: parsed["region"].map { URL(fileURLWithPath: $0) },
            sparse: URL(fileURLWithPath: sparse), referenceSparse: URL(fileURLWithPath: referenceSparse),
            tau: tau, sampleSpacing: spacing)
        print(comparison.jsonString())
    }
}
