import Foundation

/// What a run found, as `report.json`: statistics, rejected images and stage timings.
public struct Report: Codable, Sendable {
    /// This program's version: what `photogrammetry --version` prints and every report, record
    /// and checkpoint key records.
    public static let programVersion = "0.1.0"

    /// One stage: its wall time, its peak memory, and whether it was skipped or resumed.
    public struct Stage: Codable, Sendable {
        public var name: String
        public var seconds: Double
        /// Peak resident memory during the stage, MiB (`VmHWM`, reset as the stage starts; the
        /// process's peak so far where the kernel refuses the reset); nil where unknown.
        public var peakMemoryMB: Double?
        /// The output came from the stage's checkpoint (an earlier run), not from a run.
        public var resumed = false
        /// The stage's skip flag was set (`dense` with `--sparse-only`): it did not run.
        public var skipped = false

        public init(name: String, seconds: Double, peakMemoryMB: Double? = nil, resumed: Bool = false, skipped: Bool = false) {
            self.name = name
            self.seconds = seconds
            self.peakMemoryMB = peakMemoryMB
            self.resumed = resumed
            self.skipped = skipped
        }

        package enum CodingKeys: String, CodingKey { case name, seconds, peakMemoryMB = "peak_memory_mb", resumed, skipped }

        public init(from decoder: Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            name = try container.decode(String.self, forKey: .name)
            seconds = try container.decode(Double.self, forKey: .seconds)
            // Reports of earlier versions have only the two fields above.
            peakMemoryMB = try container.decodeIfPresent(Double.self, forKey: .peakMemoryMB)
            resumed = try container.decodeIfPresent(Bool.self, forKey: .resumed) ?? false
            skipped = try container.decodeIfPresent(Bool.self, forKey: .skipped) ?? false
        }

        public func encode(to encoder: Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            try container.encode(seconds, forKey: .seconds)
            try container.encode(peakMemoryMB, forKey: .peakMemoryMB)
            try container.encode(resumed, forKey: .resumed)
            try container.encode(skipped, forKey: .skipped)
        }
    }

    public var imagesTotal = 0
    public var imagesRegistered = 0
    /// Registered images / usable images.
    public var alignmentRatio = 0.0
    /// The mean over the largest model's observations (every observation of every point weighs
    /// the same), pixels.
    public var meanReprojectionErrorPx = 0.0
    /// The mean over its points of each point's mean over its observations, pixels: COLMAP's
    /// "mean reprojection error" (each point weighs the same, however long its track). Nil in
    /// older reports.
    public var meanReprojectionErrorPerPointPx: Double?
    public var points3D = 0
    public var meanTrackLength = 0.0
    public var rejectedImages: [RejectedImage] = []
    /// Usable images that did not register, by name.
    public var unregisteredImages: [String] = []
    public var cameras: [ReportCamera] = []
    public var captureKind: String?
    public var azimuthCoverageDeg: Double?
    public var elevationSpreadDeg: Double?
    /// Why the angular measures are null, when they are (walkthroughs, too few cameras).
    public var angularMeasuresNote: String?
    /// Where "up" came from: "gravity", "camera up vectors" or "camera-centre plane".
    public var upSource: String?
    /// Registered cameras per coverage-dial cell: 2 elevation rings (below / from
    /// ``ReportImage/upperRingElevationDeg``) by 16 azimuth sectors of 22.5°, sector 0 from azimuth 0.
    public var coverageSectors: [[Int]]?
    /// Features discarded because they stayed put while the object turned (turntable captures).
    public var staticFeaturesDiscarded = 0
    /// What showed a fixed camera (turntable captures): "static features" (background features
    /// that stood still), "automatic masks" (segmentation found the camera fixed) or "still
    /// background" (the masked-out background did not change).
    public var turntableEvidence: String?
    /// How a turntable whose masked passes left most frames out was posed as one even turn from
    /// point tracks, or why not; nil when that was not tried.
    public var evenTurn: String?
    /// Blur scores below this were rejected: ``blurFloorFraction`` times the capture's median score.
    public var blurFloor: Double?
    /// The fraction of the capture's median blur score that made ``blurFloor``; nil without a floor.
    public var blurFloorFraction: Double?
    /// Where the masks came from, e.g. "alpha channel of 100 images"; nil without masks.
    public var masks: String?
    /// Whether a fixed camera's frames were segmented from their own background, and why (or
    /// why not); nil when the stage did not run.
    public var automaticMasks: AutomaticMasksSummary?
    /// Whether the frames have the texture registration needs (set by the diagnosis).
    public var texture: TextureSummary?
    /// Whether the poses pass the checks that need no ground truth (set by the diagnosis); nil
    /// when no model was checked.
    public var poseCheck: PoseCheckSummary?
    /// Every image of the capture with its status, for the per-image table.
    public var images: [ReportImage] = []
    /// The videos the images are keyframes of: sources, keyframes and why; nil for photos.
    public var video: VideoSummary?
    /// Every model the mapper built, largest first: the first is `sparse/`, the others
    /// `sparse-2/`, `sparse-3/`, ... (images that joined no model count in none).
    public var models: [ReportModel] = []
    public var advice: [String] = []
    public var detail: String = "full"
    /// Points in `dense.ply`; nil when the dense stage did not run (`--sparse-only`, `diagnose`).
    public var densePoints: Int?
    /// Of ``densePoints``, those made from the capture's sensor depth (a phone's LiDAR or
    /// TrueDepth images) where the photographs' depth maps had none; the rest are the
    /// photographs'. Nil when the capture has no sensor depth or the dense stage did not run.
    public var densePointsSensorDepth: Int?
    /// Views whose sensor depth joined the cloud; nil as ``densePointsSensorDepth``.
    public var denseSensorDepthViews: Int?
    /// The room's envelope the dense stage found; nil when it found none (not a room seen from
    /// inside, or planar priors off) or did not run.
    public var denseRoomEnvelope: RoomEnvelope?
    /// Triangles of the model files; nil without the mesh stages.
    public var triangles: Int?
    /// Side of a texture page in pixels, and the number of pages; nil without the mesh stages.
    public var textureSize: Int?
    public var texturePages: Int?
    /// What one unit of the model files is, a ``LengthUnit`` raw value: "metres" when the model
    /// was scaled to metres (``metricScale``), else "unknown" (``Report/lengthUnit``).
    public var meshUnits: String?
    /// Metres per unit of the reconstruction as SfM made it, by which `sparse/` and everything
    /// after it were multiplied; nil when no scale is known.
    public var metricScale: Double?
    /// Where ``metricScale`` came from: "user" (`--scale`), "known_distance" (`--known-distance`),
    /// "markers" (printed markers: `--markers`, `markers.json`), "lidar_depth" (the views' depth
    /// images), "pose_priors" (the model was put in the priors' frame: `transforms.json`,
    /// `--priors`) or "none"; the first of these there is sets it.
    public var scaleSource: String? = "none"
    /// Half the 16-84 % range of the points' depth ratios over the factor (one point's scatter);
    /// with pose priors, of the camera-pair distance ratios (priors over SfM).
    public var metricScaleSpread: Double?
    /// Points whose depth ratios gave the factor; with pose priors, the cameras whose priors did;
    /// with markers, the corners of the markers that did (4 per marker); with a known distance, 2.
    public var metricScalePoints: Int?
    /// Printed markers whose edges gave the factor (outliers left out); with a known distance
    /// between two markers, 2; nil for other sources.
    public var metricScaleMarkers: Int?
    /// Why there is no metric scale although views carry depth images.
    public var metricScaleNote: String?
    /// The model files' frame: "marker_board" (`--marker-frame`: origin and +Y on the printed
    /// marker board), "upright" (+Y up, centred), "pose_priors" (the priors' frame) or
    /// "reconstruction" (as SfM left it: the cameras could not tell up).
    public var modelFrame: String?
    /// Why the model is not in the marker board's frame although `--marker-frame` asked for it.
    public var modelFrameNote: String?
    public var stages: [Stage] = []
    public var version = Report.programVersion
    /// The capture read, absolute.
    public var input: String?
    /// ``ReconstructionOptions/fingerprintText`` and ``ReconstructionOptions/fingerprint`` of the run.
    public var options: String?
    public var optionsFingerprint: String?
    /// Whether the run finished all it was asked (false when too few images stopped it, or the
    /// dense stage failed): what a batch rerun skips.
    public var complete = false

    package enum CodingKeys: String, CodingKey {
        case imagesTotal = "images_total", imagesRegistered = "images_registered"
        case alignmentRatio = "alignment_ratio", meanReprojectionErrorPx = "mean_reprojection_error_px"
        case meanReprojectionErrorPerPointPx = "mean_reprojection_error_per_point_px"
        case points3D = "points3D", meanTrackLength = "mean_track_length"
        case rejectedImages = "rejected_images", unregisteredImages = "unregistered_images"
        case cameras, captureKind = "capture_kind", azimuthCoverageDeg = "azimuth_coverage_deg"
        case elevationSpreadDeg = "elevation_spread_deg", angularMeasuresNote = "angular_measures_note"
        case upSource = "up_source", coverageSectors = "coverage_sectors"
        case staticFeaturesDiscarded = "static_features_discarded", turntableEvidence = "turntable_evidence"
        case evenTurn = "even_turn"
        case blurFloor = "blur_floor", blurFloorFraction = "blur_floor_fraction"
        case masks, texture, poseCheck = "pose_check", images, video
        case automaticMasks = "automatic_masks"
        case models, advice, detail, densePoints = "dense_points", triangles
        case densePointsSensorDepth = "dense_points_sensor_depth", denseSensorDepthViews = "dense_sensor_depth_views"
        case denseRoomEnvelope = "dense_room_envelope"
        case textureSize = "texture_size", texturePages = "texture_pages", meshUnits = "mesh_units", stages, version
        case metricScale = "metric_scale", scaleSource = "scale_source", metricScaleSpread = "metric_scale_spread"
        case metricScalePoints = "metric_scale_points", metricScaleNote = "metric_scale_note"
        case metricScaleMarkers = "metric_scale_markers"
        case modelFrame = "model_frame", modelFrameNote = "model_frame_note"
        case input, options, optionsFingerprint = "options_fingerprint", complete
    }

    public init() {}

    /// The report as pretty, key-sorted JSON; absent optionals are written as null.
    public func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data = try encoder.encode(self)
        // JSONEncoder omits nil optionals; the schema wants the keys present as null.
        guard var object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else { return data }
        for key in ["capture_kind", "azimuth_coverage_deg", "elevation_spread_deg", "angular_measures_note", "up_source",
                    "coverage_sectors", "turntable_evidence", "even_turn", "blur_floor", "blur_floor_fraction", "masks", "texture",
                    "dense_points", "dense_points_sensor_depth", "dense_sensor_depth_views", "dense_room_envelope", "triangles",
                    "texture_size", "texture_pages", "mesh_units", "input", "options", "options_fingerprint",
                    "metric_scale", "scale_source", "metric_scale_spread", "metric_scale_points", "metric_scale_note", "metric_scale_markers",
                    "model_frame", "model_frame_note", "video", "automatic_masks", "pose_check",
                    "mean_reprojection_error_per_point_px"]
            where object[key] == nil {
            object[key] = NSNull()
        }
        return try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
    }
}

/// One image as the report shows it: its status and, once registered, where it looks from.
public struct ReportImage: Codable, Sendable {
    /// Cameras at or above this elevation (degrees) fall in the dial's upper ring.
    public static let upperRingElevationDeg = 20.0

    public var name: String
    /// "registered", "unregistered" or "rejected".
    public var status: String
    /// Why a rejected or unregistered image is so.
    public var reason: String?
    /// SIFT features kept (after masks and static-feature rejection).
    public var features: Int?
    /// Gradient energy of the downscaled grey image: higher is sharper.
    public var blurScore: Double?
    /// The SIFT contrast threshold its features were detected at (lowered from 0.04 when the
    /// frame had too few features there).
    public var contrastThreshold: Double?
    /// Features at the default contrast threshold (before adaptation): the frame's texture
    /// (inside the automatic masks when the pose check set them aside: the subject's texture).
    public var featuresAtDefaultContrast: Int?
    /// Camera azimuth and elevation about the object centre, degrees (orbit and turntable).
    public var azimuthDeg: Double?
    public var elevationDeg: Double?
    /// Camera centre and viewing direction in the horizontal plane of the diagnosis frame (x, y).
    public var centerTop: [Double]?
    public var directionTop: [Double]?
    /// How far the pose check trusts the registered pose, 0-1 (``PoseCheckSummary``).
    public var confidence: Double?
    /// Why ``confidence`` is below 1, one phrase per check with its figure.
    public var confidenceReasons: [String]?

    public init(name: String, status: String, reason: String? = nil) {
        self.name = name
        self.status = status
        self.reason = reason
    }

    package enum CodingKeys: String, CodingKey {
        case name, status, reason, features, blurScore = "blur_score", contrastThreshold = "contrast_threshold"
        case featuresAtDefaultContrast = "features_at_default_contrast", azimuthDeg = "azimuth_deg"
        case elevationDeg = "elevation_deg", centerTop = "center_top", directionTop = "direction_top"
        case confidence, confidenceReasons = "confidence_reasons"
    }
}

/// Texture as registration needs it: features per frame at SIFT's default contrast threshold
/// against what a frame needs (``SIFTOptions/workingFeatureCount``).
public struct TextureSummary: Codable, Sendable, Equatable {
    /// Median over the usable frames of their features at the default contrast threshold.
    public var medianFeatures: Int
    /// Features a frame needs to register.
    public var workingFeatures: Int
    /// Frames below the working count at the default threshold.
    public var starvedFrames: Int
    /// "textured", or "low" when the median frame is below the working count.
    public var verdict: String

    public init(medianFeatures: Int, workingFeatures: Int, starvedFrames: Int, verdict: String) {
        self.medianFeatures = medianFeatures
        self.workingFeatures = workingFeatures
        self.starvedFrames = starvedFrames
        self.verdict = verdict
    }

    package enum CodingKeys: String, CodingKey {
        case medianFeatures = "median_features", workingFeatures = "working_features"
        case starvedFrames = "starved_frames", verdict
    }
}

/// A camera as the report shows it.
public struct ReportCamera: Codable, Sendable {
    public var id: Int
    public var model: String
    public var width: Int
    public var height: Int
    public var params: [Double]
    public var images: Int

    public init(id: Int, model: String, width: Int, height: Int, params: [Double], images: Int) {
        self.id = id
        self.model = model
        self.width = width
        self.height = height
        self.params = params
        self.images = images
    }
}

/// One model of the capture: its folder and size.
public struct ReportModel: Codable, Sendable, Equatable {
    /// The folder under OUTPUT holding it as a COLMAP text model (`sparse`, `sparse-2`, ...).
    public var folder: String
    public var images: Int
    public var points3D: Int
    /// The first and last registered image by name, to say which stretch of the capture it is.
    public var firstImage: String
    public var lastImage: String

    package enum CodingKeys: String, CodingKey {
        case folder, images, points3D = "points3D", firstImage = "first_image", lastImage = "last_image"
    }

    public init(folder: String, images: Int, points3D: Int, firstImage: String, lastImage: String) {
        self.folder = folder
        self.images = images
        self.points3D = points3D
        self.firstImage = firstImage
        self.lastImage = lastImage
    }
}
