import Foundation
import PhotogrammetryCore
import PhotogrammetryBridge

extension TextureSummary {
    /// Features per frame at SIFT's default contrast threshold on templeRing (47 views of a
    /// plaster temple, all of which register): the median, for the advice's comparison.
    static let referenceCapture = (name: "templeRing", medianFeatures: 875)

    /// Measures the texture of the usable frames of a report: features at the default contrast
    /// threshold (before adaptation lowered it; the kept count for reports without it).
    ///
    /// The verdict is absolute, not relative to the other frames: when every frame is plain the
    /// median frame is as starved as the rest, and only the working count tells.
    /// - Returns: nil when no usable frame has a feature count.
    public static func measure(_ images: [ReportImage],
                               workingFeatures: Int = SIFTOptions.workingFeatureCount) -> TextureSummary? {
        let counts = images.filter { $0.status != "rejected" }.compactMap(\.textureFeatures).sorted()
        guard !counts.isEmpty else { return nil }
        let median = counts[counts.count / 2]
        return TextureSummary(medianFeatures: median, workingFeatures: workingFeatures,
                              starvedFrames: counts.filter { $0 < workingFeatures }.count,
                              verdict: median < workingFeatures ? "low" : "textured")
    }

    /// The one-sentence figure: "122 features per image (the median, SIFT at its default contrast)
    /// where a working capture has 500 (templeRing has 875)".
    package var figure: String {
        "\(medianFeatures) features per image (the median, SIFT at its default contrast) where a working capture has "
            + "\(workingFeatures) (\(Self.referenceCapture.name) has \(Self.referenceCapture.medianFeatures))"
    }
}

extension ReportImage {
    /// Features at the default contrast threshold, or the kept features when that is unknown.
    var textureFeatures: Int? { featuresAtDefaultContrast ?? features }
}
