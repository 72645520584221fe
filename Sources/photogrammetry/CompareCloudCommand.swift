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
    static let help = """
    usage: photogrammetry compare-cloud CLOUD_OR_MESH REFERENCE_MESH --sparse MODEL
                          --reference-sparse GT_MODEL --tau T [--region OBJECT_MESH] [--spacing S]

    Compares a reconstructed point cloud or mesh (PLY) with a reference mesh (PLY), as ETH3D and
    Tanks and Temples do. The reconstruction is mapped into the reference frame by the similarity
    that aligns the camera centres of MODEL onto those of GT_MODEL (COLMAP text models, images
    matched by name). A mesh is sampled uniformly by area at spacing S.

      --tau T            distance threshold in reference units (e.g. 0.01 for 1 cm in metres)
      --spacing S        surface sample spacing, reference units (default T / 5)
      --region MESH      evaluate only this part of the reference: accuracy counts our points
                         inside its bounding box, completeness samples its surface

    Prints JSON: accuracy, completeness and f1 in PERCENT (0-100); tau; sample_spacing;
    evaluated_points (ours counted for accuracy); reference_samples (counted for completeness);
    similarity {scale, rotation (row-major 3x3), translation} taking ours to the reference.
    """

    static func run(_ arguments: [String]) throws {
        if arguments.contains("--help") || arguments.contains("-h") {
            print(help)
            return
        }
        let parser = ArgumentParser(valueOptions: ["sparse", "reference-sparse", "tau", "region", "spacing"], flags: [])
        let parsed = try parser.parse(arguments)
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
                try RegularFile.checkColmapText(in: Reconstruction.colmapModelDirectory(URL(fileURLWithPath: model)))
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
