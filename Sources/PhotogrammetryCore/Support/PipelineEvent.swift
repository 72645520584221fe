/// Something a run tells its user besides progress, with a stable numeric code.
///
/// As a phone capture SDK's feedback codes, the numbers are the contract: a program acting on
/// "frame blurred" tests `code == 212`, never the wording of the message, which may change. Codes
/// are grouped by stage in hundreds (1xx ingest, 2xx features, 3xx matching, 4xx sparse, 5xx
/// diagnosis, 6xx dense, 7xx metric scale, 8xx model files, 9xx the run, 10xx batch); a number once given is never reused. The raw
/// values below are the only place the numbers are written (the compiler refuses a duplicate).
public enum PipelineEvent: Int, CaseIterable, Sendable {
    // 1xx ingest
    case imageRejected = 100
    case tooFewImages = 101
    case posePriors = 102
    case videoKeyframes = 103
    case automaticMasks = 150
    // 2xx features
    case featuresResumed = 200
    case fewViewsFullResolution = 201
    case contrastLowered = 202
    case masksUsed = 203
    case alphaMasks = 204
    case maskMissing = 205
    case featuresFailed = 210
    case frameBlank = 211
    case frameBlurred = 212
    // 3xx matching
    case pairsSelected = 300
    case matchingFinished = 301
    case fixedCamera = 302
    case rematching = 303
    // 4xx sparse
    case focalLengthEstimated = 400
    case secondPass = 401
    case severalModels = 402
    case priorAlignment = 403
    case finerFeatures = 404
    case finerFeaturesFailed = 405
    case evenTurn = 406
    // 5xx diagnosis
    case lowAlignment = 500
    case incompleteCircle = 501
    case singleRing = 502
    case lowTexture = 503
    case anglesNotReported = 504
    case posesUnreliable = 505
    // 6xx dense
    case denseResumed = 600
    case denseImageSkipped = 601
    case denseSensorDepthRefused = 602
    // 7xx metric scale
    case metricScale = 700
    case depthUnusable = 701
    case markerFrame = 702
    case markerFrameUnavailable = 703
    // 8xx model files
    case usdCoreUnavailable = 800
    // 9xx the run
    case stageFailed = 900
    case stageResumed = 901
    case stageStarted = 902
    /// The closing events: a run's last line is exactly one of these three.
    case finished = 903
    case failed = 904
    case interrupted = 905
    // 10xx batch
    case captureStarted = 1000
    case captureFinished = 1001
    case captureFailed = 1002
    case captureSkipped = 1003
    case batchFinished = 1004

    /// How much the event matters.
    public enum Severity: String, Sendable {
        /// What the run did, nothing to act on.
        case info
        /// Something left out or worse than it could be; the run goes on.
        case warning
        /// A run (or, in a batch, a capture) failed.
        case error
    }

    /// The code, as JSON and the README's table write it.
    public var code: Int { rawValue }

    /// The case name in snake case ("frame_blurred"): a readable twin of the code.
    public var name: String {
        var out = ""
        for character in String(describing: self) {
            if character.isUppercase { out += "_" + character.lowercased() } else { out.append(character) }
        }
        return out
    }

    public var severity: Severity {
        switch self {
        case .tooFewImages, .stageFailed, .captureFailed, .failed: .error
        case .imageRejected, .contrastLowered, .maskMissing, .featuresFailed, .frameBlank, .frameBlurred,
             .finerFeaturesFailed, .severalModels, .lowAlignment, .incompleteCircle, .singleRing, .lowTexture, .posesUnreliable, .denseImageSkipped,
             .denseSensorDepthRefused, .depthUnusable, .markerFrameUnavailable, .usdCoreUnavailable, .interrupted: .warning
        default: .info
        }
    }

    /// What `subject` holds in the event's JSON line (null when nothing).
    public var subjectKind: String? {
        switch self {
        case .imageRejected, .maskMissing, .featuresFailed, .frameBlank, .frameBlurred, .finerFeaturesFailed, .denseImageSkipped,
             .denseSensorDepthRefused, .depthUnusable: "image"
        case .stageFailed, .stageResumed, .stageStarted: "stage"
        case .captureStarted, .captureFinished, .captureFailed, .captureSkipped: "capture"
        default: nil
        }
    }

    /// One line on when the event happens, for the README's table.
    public var summary: String {
        switch self {
        case .imageRejected: "a file of the capture cannot be used (not a regular file, empty, truncated, too small, a control character in its name, a zip inside, an undecodable format)"
        case .tooFewImages: "fewer than 3 usable images: the run stops (report.json lists the reasons)"
        case .posePriors: "pose priors (`transforms.json` beside the images or `--priors`): for how many images, from which file"
        case .videoKeyframes: "a video's keyframes were chosen: frames decoded, keyframes, frames left out as blurred (`video` in report.json)"
        case .automaticMasks: "a fixed camera's frames were segmented from their own background: masks written to `masks/` and used, or why not (`automatic_masks` in report.json)"
        case .featuresResumed: "features of some images loaded from the checkpoint of an earlier run (`work/features-*`)"
        case .fewViewsFullResolution: "a capture of few views (at most 64 MP in all) is detected at full resolution"
        case .contrastLowered: "frames with fewer than 500 features had SIFT's contrast threshold lowered (a plain surface)"
        case .masksUsed: "masks restrict features: which ones (`mask.json`, `masks/`, `--mask`)"
        case .alphaMasks: "RGBA cut-outs mask themselves with their alpha channel"
        case .maskMissing: "a masks folder has no mask for this image: the whole frame is used"
        case .featuresFailed: "feature extraction failed on an image (undecodable, a mask of another size): left out"
        case .frameBlank: "a frame without contrast (a lens cap) is left out"
        case .frameBlurred: "a frame whose sharpness is below 0.3 of the capture's median is left out as blurred"
        case .pairsSelected: "which image pairs are matched, and how they were chosen"
        case .matchingFinished: "pairs matched and verified, with timings"
        case .fixedCamera: "a fixed camera took the capture (turntable): static background features discarded, or a still background outside the masks"
        case .rematching: "the second matching pass: transitive and spatial pairs"
        case .focalLengthEstimated: "a camera's focal length from the fundamental matrices"
        case .secondPass: "SfM ran again on the graph of the second matching pass; which result was kept"
        case .severalModels: "the images make more than one model (`sparse-2/`, ...)"
        case .priorAlignment: "a model was put in the pose priors' frame: the similarity's scale, the cameras that agreed, the priors' spread"
        case .finerFeatures: "images left out got finer features (one octave further down), with their partners; SfM ran again, and which result was kept"
        case .finerFeaturesFailed: "an image's finer features could not be extracted: it keeps the features it had"
        case .evenTurn: "a turntable's masked passes left most frames out: its frames were posed as one even turn from point tracks, or why not (`even_turn` in report.json)"
        case .lowAlignment: "below 90 % of the usable images registered: texture, blur or overlap"
        case .incompleteCircle: "the cameras cover less than 300° of azimuth: walk the rest of the circle"
        case .singleRing: "less than 15° of elevation spread: add a higher or lower ring"
        case .lowTexture: "the median frame has fewer than 500 features at the default contrast: a textureless surface"
        case .posesUnreliable: "the poses fail the pose check (inliers, rotation agreement, loop closures, the turn): the model may be wrong, and why"
        case .anglesNotReported: "azimuth coverage and elevation spread are null (a walk-through, too few cameras), and why"
        case .denseResumed: "depth maps (and the cloud) reused from an earlier run"
        case .denseImageSkipped: "an image gets no depth map (no source view, no depth range)"
        case .denseSensorDepthRefused: "a view's sensor depth does not join the cloud: it disagrees with the photographs' depth (scale or spread beyond 5 %), is unreadable, or cannot be scaled"
        case .metricScale: "the model's metric scale from the user (`--scale`, `--known-distance`), printed markers, the views' depth images or the pose priors (factor, spread, points, markers or cameras), or why a source gave none"
        case .depthUnusable: "a view's depth image cannot give scale (no metric range, not in the photo's frame, unreadable): not used"
        case .markerFrame: "`--marker-frame`: the model is in the marker board's frame (markers fitted, the corners' distance from the plane, the marker giving +X)"
        case .markerFrameUnavailable: "`--marker-frame` asked for, but too few markers were located or they are not on one plane: the model is stood upright instead"
        case .usdCoreUnavailable: "usd-core (Python's `pxr`) could not be used: `model.usdz` written with a text layer, or a USD file read by the text reader; the message names the file and why"
        case .stageFailed: "a stage failed: the run stops with this error (a dense failure leaves the sparse outputs complete)"
        case .stageResumed: "a stage's output was loaded from its checkpoint (`work/checkpoints/`, same key: same inputs and options), not computed"
        case .stageStarted: "a stage starts (its name is the subject)"
        case .finished: "the run's last line when it wrote its outputs: `status`, `outputs` (each file or folder by name with its path), `report` (images registered and total, verdict, mean reprojection error, triangles), `seconds`"
        case .failed: "the run's last line when it failed: `message` is the error line the command prints"
        case .interrupted: "the run's last line after SIGINT or SIGTERM: `signal`, `exit_status` (130 or 143), `message`, the line the command prints (what a rerun does: reconstruct resumes from the checkpoints)"
        case .captureStarted: "batch: a capture starts"
        case .captureFinished: "batch: a capture finished and its report.json is complete"
        case .captureFailed: "batch: a capture failed (its error); the batch goes on"
        case .captureSkipped: "batch: a capture already finished with the same options is not run again"
        case .batchFinished: "batch: every capture of this process's shard is done; the counts"
        }
    }
}
