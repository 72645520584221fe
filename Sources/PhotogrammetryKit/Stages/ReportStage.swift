import Foundation
import PhotogrammetryCore
import PhotogrammetryBridge
import PhotogrammetryIO
import PhotogrammetryDense

/// Stage 18: `report.html` (thumbnails made in parallel) and, last, `report.json`.
///
/// Not checkpointed: it records this run's timings, so every run writes it. `report.json` goes
/// last of all the run's files and whole (a temporary name, then a rename): a report that says
/// `complete` comes from a run that finished.
public struct ReportStage: ReconstructionStage {
    public static let name = "report"
    public let options = NoStageOptions()

    public init() {}

    /// Writes both files; returns the report as written.
    public func run(_ scene: ReconstructionScene, _ context: StageContext) throws -> Report {
        let start = DispatchTime.now()
        var report = scene.report
        // Whether the run did all it was asked: not after a failure of dense, surface or model.
        report.complete = !scene.incomplete
        try writePage(report, scene: scene, context)
        // This stage's own time, up to the JSON (which holds it).
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
        report.stages.append(Report.Stage(name: Self.name, seconds: seconds, peakMemoryMB: PeakMemory.megabytes()))
        try writeAtomically(report.jsonData(), to: context.layout.reportJSON)
        return report
    }

    public func apply(_ output: Report, to scene: ReconstructionScene, _ context: StageContext) throws {
        scene.report = output
    }

    /// The model this run wrote, nil without one (or when it cannot be read: the page then has
    /// no renders and no model in its 3D view rather than no report).
    func writtenModel(_ context: StageContext) -> MeshModel? {
        let written = context.layout.modelFiles.filter { FileManager.default.fileExists(atPath: $0.path) }
        // The same model in any of its files; a USDZ is read through usd-core's helper process,
        // the others in this one.
        guard let file = written.first(where: { ModelFormat(url: $0) != .usdz }) ?? written.first else { return nil }
        return try? ModelReader.read(file)
    }

    /// Renders of `model`, from around it and from three of the dense stage's undistorted
    /// views; nil without a model. A model that cannot be drawn leaves the page without renders
    /// rather than failing the report.
    func modelRenders(_ model: MeshModel?, _ scene: ReconstructionScene, _ context: StageContext) -> ModelRenders? {
        guard let model else { return nil }
        let views = DenseReconstruction.undistortedViews(of: scene.model, in: context.layout.denseWork)
        return try? ModelRenders.make(model: model, cameras: views.map { ($0.name, $0.view, $0.imageURL) })
    }

    /// Four frames spread over the capture with their automatic masks shown, also when the pose
    /// check set them aside (the page shows what was judged); none when the run made none (a
    /// preview that cannot be made is left out).
    func maskedThumbnails(_ report: Report, scene: ReconstructionScene, layout: OutputLayout) -> [(name: String, jpeg: Data)] {
        guard let automatic = report.automaticMasks, automatic.used || automatic.rejectedByPoseCheck == true else { return [] }
        let masks = scene.masks ?? .directory(layout.masks)
        let images = scene.capture.images
        let picks = Set((0..<4).map { $0 * images.count / 4 }).sorted()
        return picks.compactMap { index in
            let image = images[index]
            guard let mask = masks.maskURL(for: image), let jpeg = try? Thumbnail.maskedJPEG(of: image.url, mask: mask) else { return nil }
            return (image.name, jpeg)
        }
    }

    /// Writes `report.html` with a thumbnail of every image (made in parallel, skipped when one fails).
    func writePage(_ report: Report, scene: ReconstructionScene, _ context: StageContext) throws {
        let capture = scene.capture
        let urls = Dictionary(capture.images.map { ($0.name, $0.url) }, uniquingKeysWith: { a, _ in a })
        let names = report.images.map(\.name).filter { urls[$0] != nil }
        let slots = ResultSlots<Data>(count: names.count)
        parallelFor(names.count, threads: context.threads) { i in
            slots[i] = try? Thumbnail.jpeg(of: urls[names[i]]!, maxSide: 160, quality: 75)
        }
        var thumbnails: [String: Data] = [:]
        for (name, data) in zip(names, slots.values) { thumbnails[name] = data }
        let model = writtenModel(context)
        let viewer = scene.model.registeredImageIDs.isEmpty ? nil
            : ViewerScene.make(model: model, sparse: scene.model, modelFrame: report.modelFrame, layout: context.layout)
        let page = ReportHTML.render(report, thumbnails: thumbnails, renders: modelRenders(model, scene, context),
                                     maskedThumbnails: maskedThumbnails(report, scene: scene, layout: context.layout),
                                     viewer: viewer)
        try writeAtomically(Data(page.utf8), to: context.layout.reportHTML)
    }
}
