import Foundation
import PhotogrammetryCore
import PhotogrammetryBridge
import PhotogrammetryIO
import PhotogrammetryDense

/// Stage 17: the surface textured from the dense stage's undistorted views (``TextureAtlas``:
/// view selection with occlusion, charts, packing, seam levelling), written as the model files
/// (OUTPUT's file, or `model.usdz`, `model.glb` and `model.obj` in the folder), each recording
/// the run's unit (``Report/lengthUnit``: metres with a metric scale, else unknown).
///
/// Texturing takes seconds, so it is not saved apart from the files: a rerun with the same key
/// finds the files and stops.
public struct ModelStage: CheckpointedStage {
    public struct Options: StageOptions {
        /// Texturing; the page size comes from the detail level, threads from the run.
        public var texture = TextureOptions()
        /// JPEG quality of the texture pages (0: PNG). Default 95: below the texture's own
        /// resampling error, and a quarter of PNG's size.
        public var jpegQuality = 95

        public init() {}

        public var keyText: String {
            var texture = self.texture
            texture.numThreads = 1
            return "texture=\(StageKey.describe(texture)) jpeg=\(jpegQuality)"
        }
        public func validate() throws {
            try texture.validate()
            guard (0...100).contains(jpegQuality) else { throw PipelineError.invalidOption("jpegQuality must be in 0...100") }
        }
    }

    /// What was written.
    public struct Output: Codable {
        public var files: [String]
        public var triangles: Int
        public var textureSize: Int
        /// Atlas pages.
        public var texturePages: Int
        public var charts: Int
        public var texelsPerPixel: Double
        public var untexturedFaces: Int
    }

    public static let name = "model"
    public var options: Options

    public init(options: Options) {
        self.options = options
    }

    public func run(_ scene: ReconstructionScene, _ context: StageContext) throws -> Output {
        let layout = context.layout
        let mesh = try ModelReader.read(layout.surfaceMesh)
        let views = DenseReconstruction.undistortedViews(of: scene.model, in: layout.denseWork)
        var texture = options.texture
        texture.numThreads = context.threads
        _ = context.progress?.update(stage: Self.name, done: 0, total: 2)
        let atlas = try TextureAtlas.make(positions: mesh.positions, triangles: mesh.triangles, colors: mesh.colors,
                                          views: views.map(\.view), imageURLs: views.map(\.imageURL),
                                          maskURLs: views.map(\.maskURL), options: texture)
        var textured = try mesh.textured(by: atlas, jpegQuality: options.jpegQuality)
        // The run's unit, whatever an older surface file says.
        textured.lengthUnit = scene.report.lengthUnit
        _ = context.progress?.update(stage: Self.name, done: 1, total: 2)
        try ModelExporter.write(textured, to: layout.modelFiles)
        _ = context.progress?.update(stage: Self.name, done: 2, total: 2)
        return Output(files: layout.modelFiles.map(\.lastPathComponent), triangles: textured.triangles.count,
                      textureSize: atlas.pageSize, texturePages: atlas.pageCount, charts: atlas.chartCount, texelsPerPixel: atlas.scale,
                      untexturedFaces: atlas.faceViews.filter { $0 < 0 }.count)
    }

    /// A loaded output stands only while its files are there.
    public func apply(_ output: Output, to scene: ReconstructionScene, _ context: StageContext) throws {
        for file in context.layout.modelFiles where !FileManager.default.fileExists(atPath: file.path) {
            throw PipelineError.io("\(file.path) is missing")
        }
        scene.report.triangles = output.triangles
        scene.report.textureSize = output.textureSize
        scene.report.texturePages = output.texturePages
        // Metres once a metric source scaled the model (depth images, pose priors); else unknown.
        scene.report.meshUnits = scene.report.lengthUnit.rawValue
    }
}
