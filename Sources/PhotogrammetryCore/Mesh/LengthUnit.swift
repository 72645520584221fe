import Foundation

/// What one unit of a model's coordinates is: a metre, or not known.
///
/// A reconstruction is in metres only when a metric source made it so (depth images, pose
/// priors, printed markers, a scale or a distance the user gave); structure from motion alone
/// fixes the shape up to an unknown scale. Every exported file says which, in the form its
/// readers look for (``LengthUnit/metadataKey``): USD `customLayerData`, glTF `asset.extras`,
/// an OBJ comment, a PLY comment, STL's header text.
public enum LengthUnit: String, Sendable, Equatable, Codable, CaseIterable {
    /// One unit is one metre.
    case metres
    /// The scale is arbitrary (structure from motion without a metric source).
    case unknown

    /// The key under which files record the unit (`customLayerData`, `asset.extras`, comments),
    /// its value ``rawValue``.
    public static let metadataKey = "lengthUnit"
}
