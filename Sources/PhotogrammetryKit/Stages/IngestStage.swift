import Foundation
import PhotogrammetryCore
import PhotogrammetrySparse
import PhotogrammetryBridge

/// Stage 1: the capture's images (a folder or a zip, unpacked safely) and the masks the run uses.
///
/// Not checkpointed: reading the images is what tells whether they changed. Its output key is
/// the contents of every image and mask it found (``ContentDigest``), so every later key follows
/// the bytes, not paths or modification times: a copy, or a zip unpacked again, resumes.
public struct IngestStage: ReconstructionStage {
    public struct Options: StageOptions {
        /// Which masks restrict features (and dense work). Default automatic.
        public var mask = MaskSelection.automatic
        /// The room is the subject: the capture's own masks are not used. Default false.
        public var room = false
        /// Where pose priors come from. Default automatic (a `transforms.json` beside the images).
        public var priors = PriorSelection.automatic
        /// How a video's keyframes are chosen (``KeyframeSelection/Options``).
        public var keyframes = KeyframeSelection.Options()
        /// The largest image decoded (`--max-megapixels`); larger ones are refused unread.
        public var decodeLimits = DecodeLimits()
        /// The printed markers given (`--markers`); nil: a `markers.json` beside the images, if
        /// any. Not in the key: only the metric-scale stage uses them, and keys on them.
        public var markers: MarkerSpec?
        /// Marker ids `--known-distance` names: the run then needs markers. Not in the key (as
        /// ``markers``).
        public var knownDistanceMarkerIDs: [Int] = []
        /// `--marker-frame`: the run then needs markers. Not in the key (as ``markers``).
        public var markerFrame = false

        public init() {}

        /// The masks' and priors' files by path when given (the contents of those the run finds
        /// enter the content digest): a run with another file is another run.
        public var keyText: String {
            let mask: String
            switch self.mask {
            case .automatic: mask = "auto"
            case .disabled: mask = "none"
            case .given(.directory(let folder)): mask = "dir:" + folder.standardizedFileURL.path
            case .given(let source): mask = source.cacheKey
            }
            let priors: String
            switch self.priors {
            case .automatic: priors = "auto"
            case .disabled: priors = "none"
            case .given(let url): priors = url.standardizedFileURL.path
            }
            return "mask=\(mask) room=\(room) priors=\(priors) keyframes=\(keyframes.keyText) "
                + "max_megapixels=\(DecodeLimits.megapixelsText(decodeLimits.maxPixels))"
        }

        public func validate() throws {
            try decodeLimits.validate()
            try keyframes.validate()
        }
    }

    /// The capture, its masks and the digest of their contents.
    public struct Output {
        public var capture: Capture
        public var masks: MaskSource?
        /// The capture's depth folder, if it carries one.
        public var depth = CaptureDepth(folder: nil)
        /// The pose priors the run uses, if any.
        public var priors: PosePriors?
        /// The printed markers the run measures scale with, if any.
        public var markers: CaptureMarkers?
        /// Every image's and mask's contents with the names they go by, hashed.
        public var contentDigest: String
    }

    public static let name = "ingest"
    public var options: Options

    public init(options: Options) {
        self.options = options
    }

    public func run(_ scene: ReconstructionScene, _ context: StageContext) throws -> Output {
        let capture = try CaptureLoader.load(input: context.input, workspace: context.layout.work,
                                             excluding: context.layout.root, keyframes: options.keyframes) {
            context.progress?.update(stage: Self.name, done: $0, total: $1) ?? true
        }
        // Too few images is the first thing to say (``apply`` says it); masks come after.
        guard capture.images.count >= CaptureLoader.minimumImages else { return Output(capture: capture, contentDigest: "") }
        let masks = try resolveMasks(capture, context)
        let scan = try resolveScan(capture)
        let depth = CaptureDepth.discover(in: capture).adding(scan)
        let priors = try resolvePriors(capture, scan: scan)
        let markers = try resolveMarkers(capture)
        var digest = contentDigest(capture, masks: masks, threads: context.threads)
        if let priors {
            var hash = StableHash()
            hash.add(digest)
            hash.add("priors " + priors.digest)
            digest = hash.hex
        }
        return Output(capture: capture, masks: masks, depth: depth, priors: priors, markers: markers, contentDigest: digest)
    }

    public func apply(_ output: Output, to scene: ReconstructionScene, _ context: StageContext) throws {
        let capture = output.capture
        scene.capture = capture
        scene.masks = output.masks
        scene.depth = output.depth
        scene.priors = output.priors
        scene.markers = output.markers
        scene.contentDigest = output.contentDigest
        scene.report.imagesTotal = capture.imagesTotal
        scene.report.rejectedImages = capture.rejected
        scene.report.video = capture.video
        for source in capture.video?.sources ?? [] {
            context.progress?.event(.videoKeyframes, "\(source.file): \(source.framesDecoded) frames decoded (\(source.codec), "
                + "\(source.width)x\(source.height), rotated \(source.rotationDeg)°), \(source.keyframes) keyframes, "
                + "\(source.blurredFrames.count) frames blurred")
            if let warning = source.warning { context.progress?.event(.videoKeyframes, warning) }
        }
        for rejected in capture.rejected {
            context.progress?.event(.imageRejected, "rejected \(rejected.name): \(rejected.reason)", subject: rejected.name)
        }
        try scene.requireUsableImages(capture.images, of: capture, context)
        if let masks = output.masks { context.progress?.event(.masksUsed, masks.summary) }
        if let priors = output.priors { context.progress?.event(.posePriors, priors.summary) }
        if case .directory? = output.masks {
            for image in capture.images where output.masks?.maskURL(for: image) == nil {
                context.progress?.event(.maskMissing, "\(image.name): no mask, the whole frame is used", subject: image.name)
            }
        }
    }

    /// The stage key and the contents of the images and masks it found.
    public func outputKey(_ key: String, _ scene: ReconstructionScene) -> String {
        var hash = StableHash()
        hash.add(key)
        hash.add(scene.contentDigest)
        return hash.hex
    }

    /// The contents of every image and mask (``ContentDigest``, hashed on `threads` threads),
    /// with the names they go by, the masks' kind and the rejected files with their reasons.
    /// (Depth PNGs are not among them: only the metric-scale stage reads them, and keys on them.)
    func contentDigest(_ capture: Capture, masks: MaskSource?, threads: Int) -> String {
        let images = capture.images
        let digests = ResultSlots<String>(count: images.count)
        parallelFor(images.count, threads: threads) { i in
            let mask = masks?.maskURL(for: images[i]).map(ContentDigest.file) ?? "-"
            digests[i] = ContentDigest.file(images[i].url) + "/" + mask
        }
        var hash = StableHash()
        for (image, digest) in zip(images, digests.values) {
            hash.add(image.name)
            hash.add(digest ?? "")
        }
        hash.add(masks?.cacheKey ?? "no masks")
        for rejected in capture.rejected {
            hash.add(rejected.name)
            hash.add(rejected.reason)
        }
        return hash.hex
    }

    /// The room scan a video capture carries (``ARKitScan``), unless priors are off (its
    /// depth frames then go unread too: the file that matches them to keyframes is a prior).
    func resolveScan(_ capture: Capture) throws -> ARKitScan? {
        guard options.priors != .disabled else { return nil }
        do {
            return try ARKitScan.discover(in: capture)
        } catch PipelineError.invalidInput(let message) where !message.hasSuffix("--priors none ignores it") {
            throw PipelineError.invalidInput(message + "; --priors none ignores it")
        }
    }

    /// The pose priors this run uses: given, or a `transforms.json` beside the images, or a
    /// room scan's `arkitData.json`, or none.
    func resolvePriors(_ capture: Capture, scan: ARKitScan?) throws -> PosePriors? {
        switch options.priors {
        case .disabled: return nil
        case .given(let url): return try PosePriors.load(url, images: capture.images)
        case .automatic:
            guard let url = PosePriors.discover(in: capture) else { return scan.map { PosePriors(scan: $0, images: capture.images) } }
            do {
                return try PosePriors.load(url, images: capture.images)
            } catch PipelineError.invalidInput(let message) where !message.hasSuffix("--priors none ignores it") {
                throw PipelineError.invalidInput(message + "; --priors none ignores it")
            }
        }
    }

    /// The markers this run measures scale with (``CaptureMarkers/resolve(given:in:)``); fails when
    /// `--known-distance` names markers and there are none, or names an id not in their dictionary.
    func resolveMarkers(_ capture: Capture) throws -> CaptureMarkers? {
        let markers = try CaptureMarkers.resolve(given: options.markers, in: capture)
        if options.markerFrame, markers == nil {
            throw PipelineError.invalidOption("--marker-frame needs markers, but the run has no --markers DICT:SIZE_M and the capture "
                                              + "no \(MarkerSpec.fileName)")
        }
        guard !options.knownDistanceMarkerIDs.isEmpty else { return markers }
        guard let markers else {
            throw PipelineError.invalidOption("--known-distance names markers, but the run has no --markers DICT:SIZE_M and the "
                                              + "capture no \(MarkerSpec.fileName)")
        }
        for id in options.knownDistanceMarkerIDs {
            do {
                try markers.spec.checkID(id)
            } catch let error as MarkerSpec.Invalid {
                throw PipelineError.invalidOption("--known-distance: \(error)")
            }
        }
        return markers
    }

    /// The masks this run uses: given, or carried by the capture (not for rooms), or none.
    func resolveMasks(_ capture: Capture, _ context: StageContext) throws -> MaskSource? {
        let source: MaskSource?
        switch options.mask {
        case .disabled: source = nil
        case .given(let given): source = given
        case .automatic: source = options.room ? nil : try MaskSource.discover(in: capture)
        }
        try source?.validate(against: capture)
        return source
    }
}
