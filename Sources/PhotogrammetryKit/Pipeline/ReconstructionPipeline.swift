import Foundation

/// The pipeline as a numbered script: each stage reads and extends one shared state.
///
/// 1. ingest, 2. features (masks, blur rejection), 3. matching and verification (static
/// features of a fixed camera out), 4. sparse (tracks, incremental SfM, bundle adjustment),
/// 5. diagnostics (capture kind, coverage, advice), 6. export of the sparse model, 7. dense
/// (depth maps, fusion into `dense.ply`; not with `sparseOnly`), then the report page and JSON.
public final class ReconstructionPipeline {
    public let input: URL
    /// Where every output goes.
    public let layout: OutputLayout
    /// The folder of the run's files (`layout.root`).
    public var output: URL { layout.root }
    public let options: ReconstructionOptions
    let progress: ProgressSink?
    var report = Report()
    /// The stage running now, which a failure is reported against; nil between stages.
    var runningStage: String?

    public convenience init(input: URL, output: URL, options: ReconstructionOptions, progress: ProgressSink?) {
        self.init(input: input, layout: OutputLayout(folder: output), options: options, progress: progress)
    }

    public init(input: URL, layout: OutputLayout, options: ReconstructionOptions, progress: ProgressSink?) {
        self.input = input
        self.layout = layout
        self.options = options
        self.progress = progress
    }

    /// Where intermediate files live (feature checkpoints, unpacked zips).
    public var workDirectory: URL { layout.work }

    /// Runs the pipeline and returns the report it also wrote to `OUTPUT/report.json`; a failure
    /// is also told to the progress sink (``PipelineEvent/stageFailed``) before it is thrown.
    @discardableResult
    public func run() throws -> Report {
        try announcingFailure { try runStages() }
    }

    /// The stages of ``run()``.
    private func runStages() throws -> Report {
        try options.validate()
        try OutputFolder.prepare(output, work: workDirectory)
        report.detail = options.detail.rawValue
        report.input = input.standardizedFileURL.path
        report.options = options.fingerprintText
        report.optionsFingerprint = options.fingerprint

        // 1. Ingest
        let capture = try timed("ingest") { try CaptureLoader.load(input: input, workspace: workDirectory) }
        report.imagesTotal = capture.imagesTotal
        report.rejectedImages = capture.rejected
        for rejected in capture.rejected {
            progress?.event(.imageRejected, "rejected \(rejected.name): \(rejected.reason)", subject: rejected.name)
        }
        try requireUsableImages(capture.images, of: capture)

        // 2. Features (masked), blurred frames out
        let masks = try within("masks") { try resolveMasks(capture) }
        let (usable, features) = try extractFeatures(capture, masks: masks)

        // 3. Matching and geometric verification
        let (cameraSetup, matching) = try matchPairs(usable, features)
        var setup = cameraSetup
        let graph = matching.graph
        let turntable = try detectFixedCamera(matching.staticFeatures, usable, masks: masks)

        // 4. Sparse reconstruction; when it leaves images out, a second pass matches the pairs
        //    the first model suggests (transitive, spatial) and reconstructs again with them.
        var models = try timed("sparse") { try reconstructSparse(usable, features, graph, &setup) }
        if models[0].registeredImageIDs.count < usable.images.count {
            models = try reconstructSecondPass(models, matching: matching, setup: cameraSetup, usable, features)
        }
        let model = models[0]
        summarize(model, usable: usable)
        describeModels(models)
        describeImages(capture, models: models, features: Dictionary(uniqueKeysWithValues: zip(usable.images.map(\.name), features)))

        // 5. Diagnostics
        try timed("diagnostics") {
            let context = CaptureDiagnosis.Context(room: options.room, turntable: turntable)
            CaptureDiagnosis.diagnose(model, context: context, report: &report)
        }
        announceDiagnosis()

        // 6. Export of the sparse model, before the dense stage: a failure there leaves it whole.
        try timed("export") {
            try writeModels(models)
        }

        // 7. Dense: depth maps and fusion into dense.ply
        var denseFailure: Error?
        if !options.sparseOnly {
            do {
                try reconstructDense(model, capture: usable, masks: masks)
            } catch PipelineError.cancelled {
                throw PipelineError.cancelled
            } catch {
                denseFailure = error
            }
        }

        // The page shows the timings too, so it goes last but one, just before report.json.
        report.complete = denseFailure == nil
        try within("report") {
            try writeReportPage(capture)
            // Last, so that it holds every stage's time; written whole or not at all.
            try writeAtomically(report.jsonData(), to: layout.reportJSON)
        }
        if let denseFailure {
            runningStage = "dense"
            throw denseFailure
        }
        return report
    }

    /// Features of every image under the capture's masks; drops images that fail and frames
    /// too blurred to use, and returns what is left.
    func extractFeatures(_ capture: Capture, masks: MaskSource?) throws -> (Capture, [FeatureSet]) {
        let sift = options.featureResolution.siftOptions(for: capture, options.sift)
        if sift.maxImageSize != options.sift.maxImageSize {
            progress?.event(.fewViewsFullResolution, "few views: features at full resolution (\(sift.maxImageSize) px)")
        }
        let cacheKey = "features-" + sift.cacheKey + (masks.map { "-" + $0.cacheKey } ?? "")
        let extraction = try timed("features") {
            try FeatureExtraction.run(capture: capture, masks: masks, options: sift,
                                      threads: options.numThreads, cacheDirectory: try cacheDirectory(cacheKey),
                                      progress: progress)
        }
        report.masks = extraction.maskSummary(masks)
        var candidates: [(CaptureImage, FeatureSet)] = []
        for (i, image) in capture.images.enumerated() {
            if let set = extraction.features[i] {
                candidates.append((image, set))
            } else if let failure = extraction.failures.first(where: { $0.index == i }) {
                reject(image.name, failure.reason, .featuresFailed)
            }
        }
        // A blank frame (a lens cap, a black frame between takes) is not blurred, and its zero
        // sharpness must not lower the median the blur floor is taken from.
        let isBlank = { (set: FeatureSet) in set.contrast < self.options.blankContrast }
        let floor = blurFloor(candidates.filter { !isBlank($0.1) }.map { $0.1.blurScore })
        report.blurFloor = floor
        var usable = capture
        usable.images = []
        var features: [FeatureSet] = []
        for (image, set) in candidates {
            if isBlank(set) {
                reject(image.name, String(format: "blank (no contrast: grey levels vary by %.2f of 255)", 255 * set.contrast), .frameBlank)
            } else if let floor, set.blurScore < floor {
                reject(image.name, String(format: "blurred: sharpness %.2g below the capture's floor %.2g", set.blurScore, floor),
                       .frameBlurred)
            } else {
                usable.images.append(image)
                features.append(set)
            }
        }
        try requireUsableImages(usable.images, of: capture)
        return (usable, features)
    }

    /// Whether a fixed camera took the capture (a turntable), and the evidence in the report.
    ///
    /// Background features that stood still show it; when masks hid the background from the
    /// features (a mask per frame around the object), the masked-out background itself does:
    /// it does not change between frames.
    func detectFixedCamera(_ staticFeatures: StaticFeatures, _ capture: Capture, masks: MaskSource?) throws -> Bool {
        if staticFeatures.isTurntable {
            report.staticFeaturesDiscarded = staticFeatures.discardedCount
            report.turntableEvidence = "static features"
            progress?.event(.fixedCamera, String(format: "fixed camera: %d static features discarded (%.0f%% of pairs static)",
                                  staticFeatures.discardedCount, 100 * staticFeatures.staticPairFraction))
            return true
        }
        guard let masks, !options.room, options.matching.stillBackground.enabled else { return false }
        let still = try StillBackground.test(capture, masks: masks, options: options.matching.stillBackground,
                                             threads: options.numThreads)
        guard still.isStill, let change = still.medianChange else { return false }
        report.turntableEvidence = "still background"
        progress?.event(.fixedCamera, String(format: "fixed camera: the background outside the masks did not change (median %.3f over %d frame pairs)",
                              change, still.conclusivePairs))
        return true
    }

    /// The masks this run uses: given, or carried by the capture (not for rooms), or none.
    func resolveMasks(_ capture: Capture) throws -> MaskSource? {
        let source: MaskSource?
        switch options.mask {
        case .disabled: source = nil
        case .given(let given): source = given
        case .automatic: source = options.room ? nil : try MaskSource.discover(in: capture)
        }
        try source?.validate(against: capture)
        if let source { progress?.event(.masksUsed, source.summary) }
        if case .directory? = source {
            for image in capture.images where source?.maskURL(for: image) == nil {
                progress?.event(.maskMissing, "\(image.name): no mask, the whole frame is used", subject: image.name)
            }
        }
        return source
    }

    /// The blur score below which a frame is rejected, relative to the capture's median; nil
    /// when blur rejection is off or there are too few frames to compare.
    func blurFloor(_ scores: [Double]) -> Double? {
        guard options.blurFloorFraction > 0, scores.count >= CaptureLoader.minimumImages,
              let median = scores.median() else { return nil }
        return options.blurFloorFraction * median
    }

    /// Records a rejected image and tells the user, with the event's code.
    func reject(_ name: String, _ reason: String, _ event: PipelineEvent) {
        report.rejectedImages.append(RejectedImage(name: name, reason: reason))
        progress?.event(event, "rejected \(name): \(reason)", subject: name)
    }

    /// Tracks, focal-length initialisation and incremental SfM; every model, largest first.
    func reconstructSparse(_ capture: Capture, _ features: [FeatureSet], _ graph: MatchGraph,
                           _ setup: inout CameraSetup) throws -> [Reconstruction] {
        let tracks = TrackSet(graph: graph, keypointCounts: features.map(\.count))
        for (index, camera) in setup.cameras.enumerated() where setup.hasPrior[camera.id] != true {
            let scale = Double(max(camera.width, camera.height))
            if let f = FocalLengthEstimation.estimate(graph: graph, camera: camera, cameraOfImage: setup.cameraOfImage,
                                                      plausible: (0.3 * scale)...(6 * scale)) {
                setup.cameras[index].setFocalLength(f)
                setup.hasPrior[camera.id] = true
                progress?.event(.focalLengthEstimated, String(format: "camera %d: focal length %.1f px from %@", camera.id.rawValue, f,
                                      "fundamental matrices"))
            }
        }
        var reconstruction = Reconstruction()
        for camera in setup.cameras { reconstruction.addCamera(camera) }
        for (i, image) in capture.images.enumerated() {
            reconstruction.addImage(Image(id: ImageID(i + 1), name: image.name, cameraID: setup.cameraOfImage[i],
                                          points2D: features[i].keypointPositions()))
        }
        var mapperOptions = options.mapper
        mapperOptions.numThreads = options.numThreads
        mapperOptions.seed = options.seed
        mapperOptions.refineIntrinsics = !setup.isFixed
        let mapper = IncrementalMapper(reconstruction: reconstruction, tracks: tracks, graph: graph,
                                       colors: features.map(\.colors), cameraHasPrior: setup.hasPrior,
                                       options: mapperOptions)
        mapper.onProgress = { [progress] done, total in progress?.update(stage: "sparse", done: done, total: total) ?? true }
        _ = try mapper.run()
        return mapper.models.map { model in
            var model = model
            model.removeUnregisteredImages()
            return model
        }
    }

    /// The second pass of stages 3 and 4: transitive and spatial pairs from the first model,
    /// matched and verified; when they add edges, SfM runs again on the larger graph and wins if
    /// its largest model holds more images.
    func reconstructSecondPass(_ first: [Reconstruction], matching: PairMatching.Result, setup: CameraSetup,
                               _ usable: Capture, _ features: [FeatureSet]) throws -> [Reconstruction] {
        guard options.matching.rematch.transitive || options.matching.rematch.spatial else { return first }
        let rematched = try timed("rematching") {
            try PairMatching.rematch(matching, reconstruction: first[0], features: features,
                                     calibration: setup.trustedCalibration(imageCount: usable.images.count),
                                     options: options.matching, threads: options.numThreads, progress: progress)
        }
        let added = rematched.graph.edges.count - matching.graph.edges.count
        guard added > 0 else { return first }
        var retrySetup = setup
        let retry = try timed("sparse (second pass)") {
            try reconstructSparse(usable, features, rematched.graph, &retrySetup)
        }
        let better = retry[0].registeredImageIDs.count > first[0].registeredImageIDs.count
        progress?.event(.secondPass, "second pass: \(added) new verified pairs; largest model \(retry[0].registeredImageIDs.count) images "
                       + "against \(first[0].registeredImageIDs.count)" + (better ? ", kept" : ", first pass kept"))
        return better ? retry : first
    }

    /// The output folder of model `n` (0 = the largest): `sparse`, then `sparse-2`, `sparse-3`, ...
    static func modelFolder(_ n: Int) -> String { OutputLayout.sparseFolderName(n) }

    /// Writes every model as a COLMAP text model and removes the extra models of an earlier run.
    func writeModels(_ models: [Reconstruction]) throws {
        for (n, model) in models.enumerated() {
            try model.writeColmapText(to: layout.sparse(n))
        }
        for n in models.count... {
            let stale = layout.sparse(n)
            guard FileManager.default.fileExists(atPath: stale.path) else { break }
            try FileManager.default.removeItem(at: stale)
        }
    }

    /// Runs one stage, records its wall time and tells the progress sink.
    func timed<T>(_ name: String, _ body: () throws -> T) throws -> T {
        let start = DispatchTime.now()
        let result = try within(name, body)
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
        report.stages.append(Report.Stage(name: name, seconds: seconds))
        progress?.finished(stage: name, seconds: seconds)
        return result
    }

    /// A subfolder of the work directory, created on demand.
    func cacheDirectory(_ name: String) throws -> URL {
        let url = layout.checkpoint(name)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

extension Reconstruction {
    /// Drops unregistered images (and cameras no image uses), as a COLMAP model holds only
    /// registered images.
    public mutating func removeUnregisteredImages() {
        images = images.filter { $0.value.isRegistered }
        let used = Set(images.values.map(\.cameraID))
        cameras = cameras.filter { used.contains($0.key) }
    }
}
