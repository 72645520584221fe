import Foundation
import PhotogrammetryCore
import PhotogrammetryBridge

/// Stage 7: a depth map for every registered image, fused into a coloured point cloud.
///
/// 1. plan: source views, depth range and sparse points per image (``NeighbourViews``);
/// 2. undistortion of the registered images to pinhole views at the detail level's working size,
///    with their masks, in parallel (`work/dense/images/NAME.png`, `work/dense/masks/NAME.png`);
/// 3. PatchMatch: a photometric pass over every image, then a geometric pass that also asks the
///    sources' photometric maps to agree (`work/dense/depth/NAME.photometric.cvdm`, `.geometric.cvdm`);
/// 4. sensor depth, when the capture has a phone's depth images: each brought into its view
///    (`work/dense/depth/NAME.sensor.cvdm`) and scaled to the model by the pixels it shares with
///    the photographs' maps (``SensorDepthSource``);
/// 5. fusion of the depth maps into `OUTPUT/dense.ply`, sensor depth filling the pixels the
///    photographs' maps left empty;
/// 6. a room whose envelope the planar-prior pass found: the envelope closed on its planes where
///    the cloud has nothing, in a file of its own (``envelopeClosing(in:)``).
///
/// Every product is recorded in `work/dense/manifest.json` (``DenseManifest``) and reused by a
/// rerun whose inputs are unchanged; a detail level with another working size changes every
/// view and so redoes everything (one with the same size, as `full` and `raw` for 1600 px
/// frames, redoes nothing). Depth maps live on disk and are read through the workspace's bounded cache, so
/// memory does not grow with the number of images.
public struct DenseReconstruction {
    /// One registered image as the dense stage reads it.
    public struct Input: Sendable {
        /// The image's name in the model (relative to the capture's image folder).
        public var name: String
        public var url: URL
        /// Its mask file, when the capture's masks are one file per image.
        public var maskURL: URL?
        /// The keep-rectangle, when the capture's mask is one.
        public var keepRect: CGRect?

        public init(name: String, url: URL, maskURL: URL? = nil, keepRect: CGRect? = nil) {
            self.name = name
            self.url = url
            self.maskURL = maskURL
            self.keepRect = keepRect
        }
    }

    /// What the stage made.
    public struct Result: Sendable {
        /// Points in the fused cloud.
        public var points: Int
        /// Geometric depth maps fused.
        public var depthMaps: Int
        /// Depth maps (photometric and geometric) computed by this run.
        public var computedDepthMaps: Int
        /// Depth maps reused from an earlier run with the same inputs.
        public var reusedDepthMaps: Int
        /// Whether the cloud was reused as well.
        public var reusedCloud: Bool
        /// Of ``points``, those made from sensor depth (their first view's pixel was the sensor's).
        public var sensorPoints: Int
        /// Views whose sensor depth joined fusion.
        public var sensorViews: Int
        /// Views whose sensor depth was refused, with the reason.
        public var refusedSensorDepth: [RejectedImage]
        /// Images left without a depth map, with the reason.
        public var skippedImages: [RejectedImage]
        /// The room's envelope the planar-prior pass used (six planes, world frame), or empty.
        public var envelope: [WorldPlane]
        /// The area of the envelope closed where the cloud has nothing (``envelopeClosing(in:)``), in the
        /// model's units squared; 0 without an envelope.
        public var closedArea: Double
        /// Seconds per step: "dense: undistortion", "dense: depth maps", "dense: sensor depth"
        /// (with sensor depth), "dense: fusion", "dense: envelope closing" (rooms with an envelope).
        public var stepSeconds: [Report.Stage]
    }

    public let model: Reconstruction
    public let inputs: [ImageID: Input]
    public let options: DenseOptions
    /// The dense working folder, `OUTPUT/work/dense`.
    public let directory: URL
    /// Where the cloud goes, `OUTPUT/dense.ply`.
    public let cloudURL: URL
    /// Threads for undistortion (PatchMatch and fusion take theirs from ``options``).
    public let threads: Int
    package let progress: ProgressSink?
    /// The model's unit, which the cloud's header names (`comment lengthUnit metres`).
    public let lengthUnit: LengthUnit
    /// The capture's sensor depth, or nil.
    public let sensorDepth: SensorDepthSource?
    /// Whether a room's envelope, once found, is closed where the cloud has nothing (step 6).
    public let closesEnvelope: Bool

    public init(model: Reconstruction, inputs: [ImageID: Input], options: DenseOptions, directory: URL,
                cloudURL: URL, threads: Int, progress: ProgressSink?, lengthUnit: LengthUnit = .unknown,
                sensorDepth: SensorDepthSource? = nil, closesEnvelope: Bool = true) {
        self.lengthUnit = lengthUnit
        self.closesEnvelope = closesEnvelope
        self.sensorDepth = sensorDepth
        self.model = model
        self.inputs = inputs
        self.options = options
        self.directory = directory
        self.cloudURL = cloudURL
        self.threads = threads
        self.progress = progress
    }

    var imagesFolder: URL { OutputLayout.denseImages(in: directory) }
    var masksFolder: URL { OutputLayout.denseMasks(in: directory) }
    var depthFolder: URL { OutputLayout.depthMaps(in: directory) }

    /// A file name for an image name that may hold folders.
    static func flatName(_ name: String) -> String { name.replacingOccurrences(of: "/", with: "__") }

    /// Runs the steps.
    /// - Throws: ``DenseReconstructionError`` when no depth map or no point can be made,
    ///   ``PipelineError/cancelled`` when the progress sink asks to stop, a ``CVisionError``
    ///   when the workspace or the fusion fails.
    public func run() throws -> Result {
        try options.validate()
        for folder in [directory, imagesFolder, masksFolder, depthFolder] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
        let ids = model.registeredImageIDs.filter { inputs[$0] != nil }
        guard ids.count >= 2 else {
            throw DenseReconstructionError("\(ids.count) registered image\(ids.count == 1 ? "" : "s"), at least 2 needed")
        }
        let store = ManifestStore(manifest: DenseManifest.load(from: directory), folder: directory)
        var skipped: [RejectedImage] = []
        var steps: [Report.Stage] = []

        // 1. Plan, 2. undistortion
        let plan = NeighbourViews(model: model, options: options.neighbourOptions)
        let views = try step("dense: undistortion", &steps) { try undistort(ids, store: store, skipped: &skipped) }
        // 3. Depth maps, photometric then geometric
        let workspace = try MVSWorkspace(views: views.map(\.view), imageFiles: views.map(\.imageURL),
                                         maskFiles: views.map(\.maskURL), cacheBytes: options.cacheBytes)
        let jobs = depthJobs(views, plan: plan, skipped: &skipped)
        guard !jobs.isEmpty else {
            throw DenseReconstructionError("no registered image has a source view and a depth range to match")
        }
        let maps = try step("dense: depth maps", &steps) {
            try computeDepthMaps(jobs, views: views, workspace: workspace, store: store, skipped: &skipped)
        }
        // 4. Sensor depth
        let sensor = try sensorDepth.map { source in
            try step("dense: sensor depth", &steps) {
                try sensorDepthMaps(source, views: views, measured: maps.fused, workspace: workspace, store: store)
            }
        }
        // 5. Fusion
        let fused = try step("dense: fusion", &steps) {
            try fuse(maps, sensor: sensor, views: views, workspace: workspace, store: store)
        }
        // 6. The room's envelope, closed where the cloud has nothing
        var closedArea = 0.0
        if maps.envelope.isEmpty || !closesEnvelope {
            try? FileManager.default.removeItem(at: Self.envelopeClosing(in: directory))
        } else {
            closedArea = try step("dense: envelope closing", &steps) {
                try closeEnvelope(maps, workspace: workspace, store: store, reusedCloud: fused.reused)
            }
        }
        for image in skipped {
            progress?.event(.denseImageSkipped, "dense: \(image.name) skipped: \(image.reason)", subject: image.name)
        }
        for image in sensor?.refused ?? [] {
            progress?.event(.denseSensorDepthRefused, "dense: \(image.name): \(image.reason)", subject: image.name)
        }
        return Result(points: fused.points, depthMaps: maps.fused.compactMap { $0 }.count,
                      computedDepthMaps: maps.computed, reusedDepthMaps: maps.reused, reusedCloud: fused.reused,
                      sensorPoints: fused.sensorPoints, sensorViews: sensor?.viewsWithDepth ?? 0,
                      refusedSensorDepth: sensor?.refused ?? [], skippedImages: skipped, envelope: maps.envelope,
                      closedArea: closedArea, stepSeconds: steps)
    }

    /// Runs one step, records its wall time and tells the progress sink.
    package func step<T>(_ name: String, _ steps: inout [Report.Stage], _ body: () throws -> T) throws -> T {
        let start = DispatchTime.now()
        let result = try body()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
        steps.append(Report.Stage(name: name, seconds: seconds))
        progress?.finished(stage: name, seconds: seconds)
        return result
    }
}

/// Why the dense stage stopped, as one line.
public struct DenseReconstructionError: Error, CustomStringConvertible, Equatable {
    public let message: String
    public init(_ message: String) {
        self.message = message.split(whereSeparator: \.isNewline).joined(separator: " ")
    }
    public var description: String { "dense reconstruction: \(message)" }
}

/// The manifest shared by the steps (and by concurrent depth maps), saved after every change so
/// that an interrupted run keeps what it finished.
final class ManifestStore: @unchecked Sendable {
    private var manifest: DenseManifest
    private let folder: URL
    private let lock = NSLock()

    package init(manifest: DenseManifest, folder: URL) {
        self.manifest = manifest
        self.folder = folder
    }

    /// A copy of the manifest as it stands.
    package var current: DenseManifest { lock.lock(); defer { lock.unlock() }; return manifest }

    /// Changes the manifest and writes it.
    package func update(_ change: (inout DenseManifest) -> Void) throws {
        lock.lock()
        defer { lock.unlock() }
        change(&manifest)
        try manifest.save(to: folder)
    }
}
