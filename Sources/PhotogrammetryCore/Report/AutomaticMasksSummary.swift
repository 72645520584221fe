import Foundation

/// What fixed-camera segmentation did, as `report.json`'s `automatic_masks`: whether the run's
/// masks came from the frames' own still background, the evidence for the fixed camera, and why
/// no masks were made when none were.
public struct AutomaticMasksSummary: Codable, Sendable, Equatable {
    /// The masks were made and the run used them (`OUTPUT/masks/`).
    public var used: Bool
    /// Why they were or were not made ("a fixed camera: 74 % of the textured background stayed
    /// still", "the capture's own masks are used", "turned off with --auto-mask off", ...).
    public var reason: String
    /// Frames the background model was built from; 0 when none was built.
    public var frames: Int
    /// Share of the textured background that stayed within noise of its background in 80 % of
    /// the frames; nil when no model was built.
    public var stableShare: Double?
    /// Share of the frame that is still structure: textured and never changing (a backdrop's
    /// texture, a plate's rim; the fixed-camera evidence, as a moving camera changes every
    /// textured pixel); nil when no model was built.
    public var stillStructureShare: Double?
    /// Mean share of a frame the masks keep; nil without masks.
    public var meanObjectShare: Double?
    /// Share of the frame the object covers in every frame (enclosed by what moved, never
    /// changing itself); nil without masks.
    public var coreShare: Double?
    /// The masks' folder relative to the output (`masks`); nil without masks.
    public var folder: String?
    /// The poses made with the masks failed the pose check, and the sparse passes ran again
    /// without them: `used` is then false, or true when without them the images made no model
    /// (`reason` says which, and what failed); false when they passed, nil when the check did not
    /// judge them (no masks made).
    public var rejectedByPoseCheck: Bool?

    public init(used: Bool, reason: String, frames: Int = 0, stableShare: Double? = nil, stillStructureShare: Double? = nil,
                meanObjectShare: Double? = nil, coreShare: Double? = nil, folder: String? = nil) {
        self.used = used
        self.reason = reason
        self.frames = frames
        self.stableShare = stableShare
        self.stillStructureShare = stillStructureShare
        self.meanObjectShare = meanObjectShare
        self.coreShare = coreShare
        self.folder = folder
    }

    enum CodingKeys: String, CodingKey {
        case used, reason, frames, stableShare = "stable_share", stillStructureShare = "still_structure_share"
        case meanObjectShare = "mean_object_share", coreShare = "core_share", folder
        case rejectedByPoseCheck = "rejected_by_pose_check"
    }
}
