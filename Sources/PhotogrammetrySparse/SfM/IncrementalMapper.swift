import PhotogrammetryCore

/// Incremental structure from motion over precomputed tracks, after COLMAP's mapper.
///
/// 1. choose an initial pair and triangulate it; 2. repeatedly register the image that sees the
/// most triangulated tracks (PnP; else from a pair's essential matrix, at a sequence's speed when
/// too few points fix the distance), continue and triangulate tracks, refine locally; 3. refine
/// globally whenever the model has grown enough; 4. reconstruct the images left over as detached
/// models (as COLMAP's mapper starts a new model when the first stops growing) and merge any two
/// that share enough tracks, then grow again; 5. at the end retriangulate, refine and filter
/// every model; the largest comes first.
/// Image `i` of the input becomes `ImageID(i + 1)`.
public final class IncrementalMapper {
    public let options: MapperOptions
    /// The model being built; every image is present, registered or not.
    public internal(set) var reconstruction: Reconstruction
    package let tracks: TrackSet
    package let graph: MatchGraph
    /// RGB of every keypoint of every image, for point colours.
    package let colors: [[SIMD3<UInt8>]]
    /// The point each track became, if it is triangulated.
    var pointOfTrack: [Point3DID?]
    /// The track each point came from.
    var trackOfPoint: [Point3DID: Int] = [:]
    var registrationTrials: [Int]
    /// Triangulated correspondences of each image when its registration last failed.
    var correspondencesAtLastFailure: [Int]
    var registrationOrder: [Int] = []
    /// Pairs (edge indices) already tried by ``registerByRelativePose()``.
    var relativeRegistrationTried = Set<Int>()
    /// Images registered from a pair rather than by PnP.
    public internal(set) var numRegisteredByRelativePose = 0
    /// Images registered from a pair at the distance their sequence's speed gives.
    var registeredByMotion = Set<Int>()
    /// How many images were registered at their sequence's speed.
    public var numRegisteredByMotion: Int { registeredByMotion.count }
    /// Whether the images are a sequence (``MapperOptions/motionPriorSequenceFraction``).
    package lazy var isSequence = options.isSequence(graph)
    /// Each image's pose prior (cam_from_world in the priors' frame), or nil for none: images PnP
    /// and pairs cannot register may join at their prior (``registerFromPrior()``).
    public var priorPoses: [Rigid3?]?
    /// Images registered at their pose prior.
    public internal(set) var numRegisteredFromPriors = 0
    /// Cameras whose focal length is known well enough to run plain PnP.
    var cameraCalibrated: [CameraID: Bool]
    var numRegisteredAtLastGlobalBundle = 0
    /// How often a freed principal point ran off; each doubles the images required next time.
    var principalPointRunOffs = 0
    /// Called after each registration with (registered, total).
    public var onProgress: ((Int, Int) -> Bool)?
    /// The images this mapper may register (nil: all); a detached model gets the leftovers.
    var allowedImages: [Bool]?
    /// The images a detached model may start from (nil: those it may register).
    var seedImages: [Bool]?
    /// A detached model's images that the model it is to join already holds: it registers at
    /// most ``MapperOptions/mergeMaxSharedImages`` of them, to align by (nil: none).
    var foreignImages: [Bool]?
    /// The view graph's averaged rotations that a registered pose must agree with; nil: no check.
    package var rotationCheck: RotationCheck?
    /// Models of leftover images that could not be merged yet.
    var detachedModels: [IncrementalMapper] = []
    /// The model as given, before anything was registered: the start of every detached model.
    let blankModel: Reconstruction
    /// Frames that repeat an earlier one (``NearDuplicateFrames``): never in the initial pair,
    /// registered only when no other image can be.
    let isNearDuplicate: [Bool]
    /// After ``run()``: every model of at least ``MapperOptions/minModelImages`` images (the
    /// first always), largest first. Every image is present in each, registered or not.
    public private(set) var models: [Reconstruction] = []

    /// Prepares a mapper.
    /// - Parameters:
    ///   - reconstruction: cameras and images (keypoints set, none registered).
    ///   - cameraHasPrior: cameras whose focal length comes from the user or EXIF.
    public convenience init(reconstruction: Reconstruction, tracks: TrackSet, graph: MatchGraph,
                            colors: [[SIMD3<UInt8>]], cameraHasPrior: [CameraID: Bool], options: MapperOptions) {
        let images = (0..<graph.numImages).map { reconstruction.images[ImageID($0 + 1)]! }
        let nearDuplicates = NearDuplicateFrames.detect(
            graph: graph, keypoints: images.map(\.points2D),
            longerSide: images.map { reconstruction.cameras[$0.cameraID]!.longerSide })
        self.init(reconstruction: reconstruction, tracks: tracks, graph: graph, colors: colors,
                  cameraHasPrior: cameraHasPrior, nearDuplicates: nearDuplicates, options: options)
    }

    /// A mapper over the same graph as another (a detached model), sharing its near-duplicates.
    package init(reconstruction: Reconstruction, tracks: TrackSet, graph: MatchGraph, colors: [[SIMD3<UInt8>]],
         cameraHasPrior: [CameraID: Bool], nearDuplicates: [Bool], options: MapperOptions) {
        self.reconstruction = reconstruction
        self.blankModel = reconstruction
        self.tracks = tracks
        self.graph = graph
        self.colors = colors
        self.options = options
        self.pointOfTrack = Array(repeating: nil, count: tracks.tracks.count)
        self.registrationTrials = Array(repeating: 0, count: graph.numImages)
        self.correspondencesAtLastFailure = Array(repeating: 0, count: graph.numImages)
        self.cameraCalibrated = cameraHasPrior
        self.isNearDuplicate = nearDuplicates
    }

    /// The number of registered images.
    public var numRegistered: Int { registrationOrder.count }

    /// Runs the whole incremental reconstruction and returns its largest model; ``models`` holds
    /// every model, largest first.
    public func run() throws -> Reconstruction {
        try options.validate()
        trace("near-duplicates: \((0..<graph.numImages).filter { isNearDuplicate[$0] })")
        trace("tracks: \(tracks.tracks.count), mean length \(tracks.meanTrackLength); inconsistent components "
              + "\(tracks.numInconsistent), split into \(tracks.numSplitTracks) tracks")
        guard try initialize() else { throw PipelineError.noInitialPair }
        if onProgress?(numRegistered, graph.numImages) == false { throw PipelineError.cancelled }
        try grow()
        while options.mergeDetachedModels, try mergeNextDetachedModel() {
            if onProgress?(numRegistered, graph.numImages) == false { throw PipelineError.cancelled }
            try grow()
        }
        try polish()
        // Models that joined nothing are results too (as COLMAP's mapper writes sparse/1, 2, ...).
        let kept = detachedModels.filter { $0.numRegistered >= options.minModelImages }
        for model in kept { try model.polish() }
        let all = [reconstruction] + kept.map(\.reconstruction)
        // Largest first; the main model wins a tie, as it was seeded by the best pair.
        models = all.enumerated()
            .sorted { ($0.element.registeredImageIDs.count, -$0.offset) > ($1.element.registeredImageIDs.count, -$1.offset) }
            .map(\.element)
        return models[0]
    }

    /// Final polish: fill in tracks the thresholds of the growing model left out, then refine.
    func polish() throws {
        try adjustGlobally()
        completeAndRetriangulate()
        try adjustGlobally()
        filterObservations(ofPoints: Array(reconstruction.points3D.keys))
        try adjustGlobally(final: true)
        reconstruction.updatePointErrors()
    }

    /// Registers images one by one until none can be added.
    func grow() throws {
        while let next = try registerNextImage() ?? registerByRelativePose() ?? registerFromPrior() {
            triangulateTracks(seenBy: next)
            try adjustLocally(around: next)
            if Double(numRegistered) >= Double(numRegisteredAtLastGlobalBundle) * options.globalBundleGrowthRatio {
                if options.retriangulateBeforeGlobalBundle { completeAndRetriangulate() }
                try adjustGlobally()
            }
            if onProgress?(numRegistered, graph.numImages) == false { throw PipelineError.cancelled }
        }
    }

    // MARK: - Shared helpers

    /// Whether this mapper may register image index `i`.
    func isAllowed(_ i: Int) -> Bool {
        guard allowedImages?[i] ?? true else { return false }
        guard let foreignImages, foreignImages[i] else { return true }
        return registrationOrder.filter { foreignImages[$0] }.count < options.mergeMaxSharedImages
    }

    /// Whether image index `i` may be in this mapper's initial pair.
    func isSeed(_ i: Int) -> Bool { seedImages?[i] ?? isAllowed(i) }

    /// The camera of image index `i`.
    package func camera(ofImage i: Int) -> Camera {
        let image = reconstruction.images[ImageID(i + 1)]!
        return reconstruction.cameras[image.cameraID]!
    }

    /// The pixel position of keypoint `k` of image index `i`.
    package func keypoint(_ i: Int, _ k: Int) -> SIMD2<Double> {
        reconstruction.images[ImageID(i + 1)]!.points2D[k]
    }

    /// Whether image index `i` is registered.
    package func isRegistered(_ i: Int) -> Bool { reconstruction.images[ImageID(i + 1)]!.isRegistered }

    /// Creates a 3D point for a track from the given observations.
    @discardableResult
    func addPoint(track t: Int, position: SIMD3<Double>, observations: [SIMD2<Int32>]) -> Point3DID {
        let first = observations[0]
        let point = Point3D(position: position, color: colors[Int(first.x)][Int(first.y)],
                            track: observations.map { TrackElement(imageID: ImageID(Int($0.x) + 1), point2DIndex: Int($0.y)) })
        let id = reconstruction.addPoint3D(point)
        pointOfTrack[t] = id
        trackOfPoint[id] = t
        return id
    }

    /// Deletes a point and frees its track for later triangulation.
    func deletePoint(_ id: Point3DID) {
        if let t = trackOfPoint.removeValue(forKey: id) { pointOfTrack[t] = nil }
        reconstruction.deletePoint3D(id)
    }

    /// Removes one observation; the point goes when fewer than two remain.
    package func deleteObservation(_ element: TrackElement, of id: Point3DID) {
        guard let point = reconstruction.points3D[id] else { return }
        if point.track.count <= 2 {
            deletePoint(id)
        } else {
            reconstruction.deleteObservation(element, from: id)
        }
    }
}
