import Foundation
import PhotogrammetryCore
import PhotogrammetryBridge

/// A cloud comparison that cannot be set up (too few shared cameras to align the models).
public struct CloudComparisonError: Error, CustomStringConvertible, LocalizedError, Equatable {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
    public var errorDescription: String? { message }
}

extension CloudComparison {
    /// The similarity taking `model`'s world frame onto `reference`'s, from camera centres.
    ///
    /// Images are matched by name; the registered images both models share are aligned with
    /// ``PoseComparison/Similarity/robustAlignment(from:to:)`` (least median of squares, then
    /// least squares on the inliers), as ``PoseComparison`` does.
    /// - Throws: ``CloudComparisonError`` when fewer than three registered images are shared or
    ///   their centres do not fix a similarity (all in one place).
    public static func similarity(model: Reconstruction, reference: Reconstruction) throws
        -> PoseComparison.Similarity {
        var modelCenters: [String: SIMD3<Double>] = [:]
        for image in model.images.values.sorted(by: { $0.id < $1.id }) {
            if let pose = image.camFromWorld, modelCenters[image.name] == nil {
                modelCenters[image.name] = pose.centerInWorld
            }
        }
        var source: [SIMD3<Double>] = [], target: [SIMD3<Double>] = []
        for image in reference.images.values.sorted(by: { $0.id < $1.id }) {
            guard let pose = image.camFromWorld, let center = modelCenters[image.name] else { continue }
            source.append(center)
            target.append(pose.centerInWorld)
        }
        guard source.count >= 3 else {
            throw CloudComparisonError(
                "the models share \(source.count) registered images by name; aligning them needs 3")
        }
        guard let (similarity, _) = PoseComparison.Similarity.robustAlignment(from: source, to: target) else {
            throw CloudComparisonError("the shared camera centres do not determine a similarity")
        }
        return similarity
    }
}

/// Compares a reconstructed cloud or mesh with a reference mesh, aligning by the sparse models.
///
/// - Parameters:
///   - ours: PLY of the reconstruction (a point cloud, or a mesh whose surface is sampled).
///   - reference: PLY of the reference mesh (or cloud).
///   - region: PLY of the part of the reference to evaluate (e.g. the object without the
///     ground), or nil.
///   - sparse: The COLMAP text model the reconstruction belongs to (a folder with `images.txt`,
///     or a reconstruction's output folder with `sparse/`).
///   - referenceSparse: The reference's COLMAP text model (same image names).
///   - tau: Distance threshold, reference units.
///   - sampleSpacing: Surface sample spacing, default `tau / 5`.
/// - Throws: ``ColmapTextError``, ``ColmapBinaryError``, ``CVisionError`` or ``CloudComparisonError`` as one line.
public func compareClouds(ours: URL, reference: URL, region: URL?, sparse: URL, referenceSparse: URL,
                          tau: Double, sampleSpacing: Double? = nil) throws -> CloudComparison {
    let model = try Reconstruction.readColmap(from: Reconstruction.colmapModelDirectory(sparse))
    let truth = try Reconstruction.readColmap(from: Reconstruction.colmapModelDirectory(referenceSparse))
    let similarity = try CloudComparison.similarity(model: model, reference: truth)
    let ourCloud = try PointCloud.load(ours)
    let referenceCloud = try PointCloud.load(reference)
    let regionCloud = try region.map { try PointCloud.load($0) }
    return try ourCloud.compare(with: referenceCloud, region: regionCloud, similarity: similarity,
                                tau: tau, sampleSpacing: sampleSpacing)
}
