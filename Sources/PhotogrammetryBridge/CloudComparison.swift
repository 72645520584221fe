import Foundation
import PhotogrammetryCore

/// How well a reconstructed cloud or mesh matches a reference surface at a distance threshold.
///
/// The measures of ETH3D (Schöps et al. 2017) and Tanks and Temples (Knapitsch et al. 2017):
/// accuracy is the share of reconstructed points within ``tau`` of the reference surface,
/// completeness the share of the reference surface (samples spread uniformly by area) within
/// ``tau`` of a reconstructed point, and F1 their harmonic mean. All three are percentages,
/// 0–100. The reconstruction is first mapped into the reference frame by ``similarity``,
/// usually found from the two sparse models' camera centres (see
/// ``similarity(model:reference:)``). Made by ``PointCloud/compare(with:region:similarity:tau:sampleSpacing:)``
/// or ``compareClouds(ours:reference:region:sparse:referenceSparse:tau:sampleSpacing:)``.
public struct CloudComparison: Codable, Equatable, Sendable {
    /// Percent (0–100) of evaluated points within ``tau`` of the reference surface.
    public var accuracy: Double
    /// Percent (0–100) of reference surface samples within ``tau`` of a reconstructed point.
    public var completeness: Double
    /// Harmonic mean of accuracy and completeness, percent (0 when both are 0).
    public var f1: Double
    /// The distance threshold, reference units.
    public var tau: Double
    /// Spacing of the surface samples, reference units.
    public var sampleSpacing: Double
    /// The reconstructed points counted for accuracy (a mesh's surface samples; only those
    /// inside the region's bounding box when there is a region).
    public var evaluatedPoints: Int
    /// The reference surface samples counted for completeness.
    public var referenceSamples: Int
    /// The similarity that mapped the reconstruction into the reference frame.
    public var similarity: Similarity3

    /// Creates a comparison result.
    public init(accuracy: Double, completeness: Double, f1: Double, tau: Double, sampleSpacing: Double,
                evaluatedPoints: Int, referenceSamples: Int, similarity: Similarity3) {
        self.accuracy = accuracy
        self.completeness = completeness
        self.f1 = f1
        self.tau = tau
        self.sampleSpacing = sampleSpacing
        self.evaluatedPoints = evaluatedPoints
        self.referenceSamples = referenceSamples
        self.similarity = similarity
    }

    package enum CodingKeys: String, CodingKey {
        case accuracy, completeness, f1, tau
        case sampleSpacing = "sample_spacing"
        case evaluatedPoints = "evaluated_points"
        case referenceSamples = "reference_samples"
        case similarity
    }

    enum SimilarityKeys: String, CodingKey {
        case scale, rotation, translation
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        accuracy = try container.decode(Double.self, forKey: .accuracy)
        completeness = try container.decode(Double.self, forKey: .completeness)
        f1 = try container.decode(Double.self, forKey: .f1)
        tau = try container.decode(Double.self, forKey: .tau)
        sampleSpacing = try container.decode(Double.self, forKey: .sampleSpacing)
        evaluatedPoints = try container.decode(Int.self, forKey: .evaluatedPoints)
        referenceSamples = try container.decode(Int.self, forKey: .referenceSamples)
        let nested = try container.nestedContainer(keyedBy: SimilarityKeys.self, forKey: .similarity)
        let rotation = try nested.decode([Double].self, forKey: .rotation)
        let translation = try nested.decode([Double].self, forKey: .translation)
        guard rotation.count == 9, translation.count == 3 else {
            throw DecodingError.dataCorruptedError(
                forKey: .rotation, in: nested,
                debugDescription: "rotation needs 9 (row-major) and translation 3 numbers")
        }
        similarity = Similarity3(
            scale: try nested.decode(Double.self, forKey: .scale),
            rotation: Matrix3(rowMajor: rotation),
            translation: SIMD3(translation[0], translation[1], translation[2]))
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(accuracy, forKey: .accuracy)
        try container.encode(completeness, forKey: .completeness)
        try container.encode(f1, forKey: .f1)
        try container.encode(tau, forKey: .tau)
        try container.encode(sampleSpacing, forKey: .sampleSpacing)
        try container.encode(evaluatedPoints, forKey: .evaluatedPoints)
        try container.encode(referenceSamples, forKey: .referenceSamples)
        var nested = container.nestedContainer(keyedBy: SimilarityKeys.self, forKey: .similarity)
        try nested.encode(similarity.scale, forKey: .scale)
        try nested.encode(similarity.rotation.rowMajor, forKey: .rotation)
        let t = similarity.translation
        try nested.encode([t.x, t.y, t.z], forKey: .translation)
    }

    /// Pretty-printed JSON with sorted keys; the similarity's rotation is row-major.
    public func jsonString() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        guard let data = try? encoder.encode(self) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}
