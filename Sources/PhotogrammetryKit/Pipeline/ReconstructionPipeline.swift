import Foundation

/// The pipeline as a numbered script: each stage reads and extends one shared state.
///
/// 1. ingest, 2. features, 3. matching and verification, 4. sparse (tracks, incremental SfM,
/// bundle adjustment), 5. export (COLMAP model, report).
public final class ReconstructionPipeline {
    public let input: URL
    public let output: URL
    public let options: ReconstructionOptions
    let progress: ProgressSink?
    var report = Report()

    public init(input: URL, output: URL, options: ReconstructionOptions, progress: ProgressSink?) {
        self.input = input
        self.output = output
        self.options = options
        self.progress = progress
    }

    /// Where intermediate files live (feature checkpoints, unpacked zips).
    public var workDirectory: URL { output.appendingPathComponent("work", isDirectory: true) }

    /// Runs the pipeline and returns the report it also wrote to `OUTPUT/report.json`.
    @discardableResult
    public func run() throws -> Report {
        try options.validate()
        try FileManager.default.createDirectory(at: workDirectory, withIntermediateDirectories: true)
        report.detail = options.detail

        // 1. Ingest
        let capture = try timed("ingest") { try CaptureLoader.load(input: input, workspace: workDirectory) }
        report.imagesTotal = capture.imagesTotal
        report.rejectedImages = capture.rejected
        for rejected in capture.rejected { progress?.note("rejected \(rejected.name): \(rejected.reason)") }

        // 2. Features
        let extraction = try timed("features") {
            try FeatureExtraction.run(capture: capture, masks: Array(repeating: nil, count: capture.images.count),
                                      options: options.sift, threads: options.numThreads,
                                      cacheDirectory: try cacheDirectory("features-" + options.sift.cacheKey), progress: progress)
        }
        var usable = capture
        usable.images = []
        var features: [FeatureSet] = []
        for (i, image) in capture.images.enumerated() {
            if let set = extraction.features[i] {
                usable.images.append(image)
                features.append(set)
            } else if let failure = extraction.failures.first(where: { $0.index == i }) {
                report.rejectedImages.append(RejectedImage(name: image.name, reason: failure.reason))
                progress?.note("rejected \(image.name): \(failure.reason)")
            }
        }
        guard usable.images.count >= CaptureLoader.minimumImages else {
            throw PipelineError.tooFewImages(usable: usable.images.count, required: CaptureLoader.minimumImages,
                                             input: input.path)
        }

        // 3. Matching and geometric verification
        var setup = CameraSetup(capture: usable, fixed: options.fixedIntrinsics, model: options.cameraModel)
        let calibration = usable.images.indices.map { i -> Matrix3? in
            let id = setup.cameraOfImage[i]
            return setup.hasPrior[id] == true ? setup.cameras[id.rawValue - 1].calibrationMatrix : nil
        }
        let matching = try timed("matching") {
            try PairMatching.run(features: features, calibration: calibration, options: options.matching,
                                 threads: options.numThreads, progress: progress)
        }
        let graph = matching.graph
        if matching.staticFeatures.isTurntable {
            report.staticFeaturesDiscarded = matching.staticFeatures.discardedCount
            progress?.note(String(format: "fixed camera: %d static features discarded (%.0f%% of pairs static)",
                                  matching.staticFeatures.discardedCount, 100 * matching.staticFeatures.staticPairFraction))
        }

        // 4. Sparse reconstruction
        let model = try timed("sparse") { try reconstructSparse(usable, features, graph, &setup) }
        summarize(model, usable: usable, setup: setup)

        // 5. Export
        try timed("export") {
            try model.writeColmapText(to: output.appendingPathComponent("sparse", isDirectory: true))
        }
        // Last, so that it holds every stage's time; written whole or not at all.
        try writeAtomically(report.jsonData(), to: output.appendingPathComponent("report.json"))
        return report
    }

    /// Tracks, focal-length initialisation and incremental SfM.
    func reconstructSparse(_ capture: Capture, _ features: [FeatureSet], _ graph: MatchGraph,
                           _ setup: inout CameraSetup) throws -> Reconstruction {
        let tracks = TrackSet(graph: graph, keypointCounts: features.map(\.count))
        for (index, camera) in setup.cameras.enumerated() where setup.hasPrior[camera.id] != true {
            let scale = Double(max(camera.width, camera.height))
            if let f = FocalLengthEstimation.estimate(graph: graph, camera: camera, cameraOfImage: setup.cameraOfImage,
                                                      plausible: (0.3 * scale)...(6 * scale)) {
                setup.cameras[index].setFocalLength(f)
                setup.hasPrior[camera.id] = true
                progress?.note(String(format: "camera %d: focal length %.1f px from %@", camera.id.rawValue, f,
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
        var model = try mapper.run()
        model.removeUnregisteredImages()
        return model
    }

    /// Fills the report's statistics from the finished model.
    func summarize(_ model: Reconstruction, usable: Capture, setup: CameraSetup) {
        report.imagesRegistered = model.registeredImageIDs.count
        let usableCount = report.imagesTotal - report.rejectedImages.count
        report.alignmentRatio = usableCount > 0 ? Double(report.imagesRegistered) / Double(usableCount) : 0
        report.meanReprojectionErrorPx = model.meanReprojectionError
        report.points3D = model.points3D.count
        report.meanTrackLength = model.points3D.isEmpty ? 0 : Double(model.numObservations) / Double(model.points3D.count)
        let registeredNames = Set(model.images.values.map(\.name))
        report.unregisteredImages = usable.images.map(\.name).filter { !registeredNames.contains($0) }
        report.cameras = model.cameras.values.sorted { $0.id < $1.id }.map { camera in
            ReportCamera(id: camera.id.rawValue, model: camera.model.name, width: camera.width, height: camera.height,
                         params: camera.params,
                         images: model.images.values.filter { $0.cameraID == camera.id }.count)
        }
    }

    /// Runs one stage, records its wall time and tells the progress sink.
    func timed<T>(_ name: String, _ body: () throws -> T) throws -> T {
        let start = DispatchTime.now()
        let result = try body()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
        report.stages.append(Report.Stage(name: name, seconds: seconds))
        progress?.finished(stage: name, seconds: seconds)
        return result
    }

    /// A subfolder of the work directory, created on demand.
    func cacheDirectory(_ name: String) throws -> URL {
        let url = workDirectory.appendingPathComponent(name, isDirectory: true)
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
