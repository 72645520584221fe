import CVision

/// The C core's option defaults (`cvis_*_options_default`), where each is written: the Swift
/// option structs start from these, so a default never lives in two places.
/// `OptionDefaultsTests` checks that a default Swift struct hands exactly these values back.
enum CoreDefaults {
    package static let sift: cvis_sift_options = { var o = cvis_sift_options(); cvis_sift_options_default(&o); return o }()
    package static let match: cvis_match_options = { var o = cvis_match_options(); cvis_match_options_default(&o); return o }()
    static let absolutePose: cvis_absolute_pose_options = {
        var o = cvis_absolute_pose_options()
        cvis_absolute_pose_options_default(&o)
        return o
    }()
    package static let triangulation: cvis_triangulation_options = {
        var o = cvis_triangulation_options()
        cvis_triangulation_options_default(&o)
        return o
    }()
    package static let markerDetection: cvis_marker_detection_options = {
        var o = cvis_marker_detection_options()
        cvis_marker_detection_options_default(&o)
        return o
    }()
    package static let twoView: cvis_two_view_options = { var o = cvis_two_view_options(); cvis_two_view_options_default(&o); return o }()
    package static let turnTracks: cvis_turn_track_options = {
        var o = cvis_turn_track_options()
        cvis_turn_track_options_default(&o)
        return o
    }()
    package static let turn: cvis_turn_options = { var o = cvis_turn_options(); cvis_turn_options_default(&o); return o }()
    package static let bundle: cvis_ba_options = { var o = cvis_ba_options(); cvis_ba_options_default(&o); return o }()
    package static let posePriors: cvis_ba_pose_priors = {
        var o = cvis_ba_pose_priors()
        cvis_ba_pose_priors_default(&o)
        return o
    }()
    package static let fusion: cvis_fusion_options = { var o = cvis_fusion_options(); cvis_fusion_options_default(&o); return o }()
    package static let patchMatch: cvis_patch_match_options = {
        var o = cvis_patch_match_options()
        cvis_patch_match_options_default(&o)
        return o
    }()
    package static let decodeLimits: cvis_decode_limits = {
        var o = cvis_decode_limits()
        cvis_decode_limits_default(&o)
        return o
    }()
    static let unzipLimits: cvis_unzip_limits = {
        var o = cvis_unzip_limits()
        cvis_unzip_limits_default(&o)
        return o
    }()
    package static let texture: cvis_texture_options = {
        var o = cvis_texture_options()
        cvis_texture_options_default(&o)
        return o
    }()
}
