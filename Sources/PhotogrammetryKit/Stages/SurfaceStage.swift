import Foundation
import PhotogrammetryCore
import PhotogrammetryBridge
import PhotogrammetryIO
import PhotogrammetryDense

/// Stage 16: the surface of the dense cloud (screened Poisson, trimmed, cleaned, coloured,
/// decimated to the detail level's cap; ``SurfaceReconstruction``), saved as `work/surface.ply`
/// (its header comment naming the run's unit). A room's cloud is joined by the points closing its
/// envelope where the cloud has nothing (``DenseReconstruction/envelopeClosing(in:)``).
public struct SurfaceStage: CheckpointedStage {
    public struct Options: StageOptions {
        /// Poisson, trimming, cleaning and decimation; detail and room come from the run.
        public var surface = SurfaceOptions()

        public init() {}

        public var keyText: String {
            var surface = self.surface
            surface.numThreads = 1
            return "surface=\(StageKey.describe(surface))"
        }
        public func validate() throws { try surface.validate() }
    }

    /// The mesh's size and how it was made.
    public struct Output: Codable {
        public var triangles: Int
        public var vertices: Int
        public var poissonDepth: Int
        public var poissonTriangles: Int
        /// Triangles cut to the masks' visual hull.
        public var outsideHullTriangles: Int
        public var steps: [SurfaceResult.StepTiming]
    }

    public static let name = "surface"
    public var options: Options

    public init(options: Options) {
        self.options = options
    }

    public func run(_ scene: ReconstructionScene, _ context: StageContext) throws -> Output {
        let layout = context.layout
        var cloud = try PointCloud.load(layout.denseCloud)
        var surface = options.surface
        // A room's envelope where the cloud has nothing, closed on its planes by the dense stage.
        let closing = DenseReconstruction.envelopeClosing(in: layout.denseWork)
        if surface.room, scene.report.denseRoomEnvelope != nil, FileManager.default.fileExists(atPath: closing.path) {
            cloud = try cloud.joined(with: PointCloud.load(closing))
        }
        surface.numThreads = context.threads
        // An object is kept to where the sparse points are, and to what the cameras look at:
        // the features found the object, while the dense cloud also holds whatever background
        // PatchMatch could fill (templeRing's dark backdrop); an orbit's sparse points also
        // reach over the ground to the horizon (``Reconstruction/viewedRegion()``). The cloud's
        // own extent is the fallback.
        if !surface.room, surface.region == nil {
            let sparse = BoundingBox(quantilesOf: scene.model.points3D.values.map(\.position),
                                     lower: SurfaceOptions.regionQuantile,
                                     upper: 1 - SurfaceOptions.regionQuantile)
            let viewed = scene.model.viewedRegion()
            surface.region = sparse.map { box in viewed.flatMap { box.intersection($0) } ?? box } ?? viewed
        }
        let result = try SurfaceReconstruction(options: surface).run(cloud: cloud, hull: hull(scene, layout)) { done, total in
            context.progress?.update(stage: Self.name, done: done, total: total) ?? true
        } stepStarted: { step, estimate in
            context.progress?.step(stage: Self.name, step, estimatedSeconds: estimate)
        }
        var model = result.mesh.meshModel()
        model.lengthUnit = scene.report.lengthUnit
        try ModelExporter.write(model, to: layout.surfaceMesh)
        return Output(triangles: model.triangles.count, vertices: model.positions.count, poissonDepth: result.depth,
                      poissonTriangles: result.poissonTriangles, outsideHullTriangles: result.outsideHullTriangles,
                      steps: result.timings)
    }

    /// An object capture with masks: their visual hull over the dense stage's undistorted views
    /// and masks (which are the capture's masks, and 0 only where the undistorted pixel falls
    /// outside the photo besides). Rooms and unmasked captures have none.
    func hull(_ scene: ReconstructionScene, _ layout: OutputLayout) -> VisualHull? {
        guard !options.surface.room, scene.masks != nil else { return nil }
        let views = DenseReconstruction.undistortedViews(of: scene.model, in: layout.denseWork)
        guard !views.isEmpty else { return nil }
        return VisualHull(views: views.map(\.view), maskURLs: views.map(\.maskURL))
    }

    /// A loaded output stands only while `work/surface.ply` is there.
    public func apply(_ output: Output, to scene: ReconstructionScene, _ context: StageContext) throws {
        guard FileManager.default.fileExists(atPath: context.layout.surfaceMesh.path) else {
            throw PipelineError.io("\(context.layout.surfaceMesh.path) is missing")
        }
        scene.report.triangles = output.triangles
    }
}
