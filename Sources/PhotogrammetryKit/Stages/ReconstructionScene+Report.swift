import Foundation
import PhotogrammetryCore
import PhotogrammetrySparse

/// What the stages write into the report from the scene.
extension ReconstructionScene {
    /// Records a rejected image and tells the user, with the event's code.
    func reject(_ name: String, _ reason: String, _ event: PipelineEvent, _ context: StageContext) {
        report.rejectedImages.append(RejectedImage(name: name, reason: reason))
        context.progress?.event(event, "rejected \(name): \(reason)", subject: name)
    }

    /// `report` with what the models hold: the largest one's statistics, every model, every image.
    func describingModels(_ report: Report) -> Report {
        var report = report
        summarize(&report)
        describeModels(&report)
        describeImages(&report)
        return report
    }

    /// Fills the report's statistics from the largest model.
    private func summarize(_ report: inout Report) {
        let model = self.model
        report.imagesRegistered = model.registeredImageIDs.count
        let usableCount = report.imagesTotal - report.rejectedImages.count
        report.alignmentRatio = usableCount > 0 ? Double(report.imagesRegistered) / Double(usableCount) : 0
        report.meanReprojectionErrorPx = model.meanReprojectionError
        report.meanReprojectionErrorPerPointPx = model.meanReprojectionErrorPerPoint
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

    /// Lists every model with its folder and size.
    private func describeModels(_ report: inout Report) {
        report.models = models.enumerated().map { n, model in
            let names = model.images.values.map(\.name).sorted()
            return ReportModel(folder: OutputLayout.sparseFolderName(n), images: names.count, points3D: model.points3D.count,
                               firstImage: names.first ?? "", lastImage: names.last ?? "")
        }
    }

    /// Lists every image of the capture with its status and what is known of it.
    private func describeImages(_ report: inout Report) {
        let features = Dictionary(zip(usable.images.map(\.name), self.features), uniquingKeysWith: { a, _ in a })
        // The texture that decides registration is the subject's. When the automatic masks were
        // set aside, the frames' features are the whole frame's, a busy backdrop's included: the
        // subject's texture is what the masks held.
        let subjectFeatures = maskedPasses.map { masked in
            Dictionary(zip(masked.state.usable.images.map(\.name), masked.state.features), uniquingKeysWith: { a, _ in a })
        }
        var modelImages: [String: Set<String>] = [:]
        for (n, other) in models.enumerated() { modelImages[OutputLayout.sparseFolderName(n)] = Set(other.images.values.map(\.name)) }
        let registered = Set(model.images.values.filter(\.isRegistered).map(\.name))
        let rejected = Dictionary(report.rejectedImages.map { ($0.name, $0.reason) }, uniquingKeysWith: { a, _ in a })
        let names = (capture.images.map(\.name) + capture.rejected.map(\.name)).sorted()
        report.images = names.map { name in
            var entry: ReportImage
            if let reason = rejected[name] {
                entry = ReportImage(name: name, status: "rejected", reason: reason)
            } else if registered.contains(name) {
                entry = ReportImage(name: name, status: "registered")
            } else if let other = report.models.dropFirst().first(where: { modelImages[$0.folder]?.contains(name) == true }) {
                entry = ReportImage(name: name, status: "unregistered",
                                    reason: "in \(other.folder), a model of \(other.images) images that did not join the largest")
            } else {
                entry = ReportImage(name: name, status: "unregistered", reason: "too few verified matches to a registered image")
            }
            if let set = features[name] {
                entry.features = set.count
                entry.blurScore = set.blurScore
                entry.contrastThreshold = set.contrastThreshold
                entry.featuresAtDefaultContrast = (subjectFeatures?[name] ?? set).countAtBaseThreshold
            }
            return entry
        }
    }

    /// Throws ``PipelineError/tooFewImages(usable:required:input:rejected:report:)`` when fewer
    /// than ``CaptureLoader/minimumImages`` of `usable` are left, after writing `report.json` with
    /// every image of `capture`, the rejected ones with their reasons: the run fails, but the user
    /// learns why each image was left out.
    func requireUsableImages(_ usable: [CaptureImage], of capture: Capture, _ context: StageContext) throws {
        guard usable.count < CaptureLoader.minimumImages else { return }
        let rejected = Dictionary(report.rejectedImages.map { ($0.name, $0.reason) }, uniquingKeysWith: { a, _ in a })
        let names = Set(capture.images.map(\.name) + capture.rejected.map(\.name))
        report.images = names.sorted().map { name in
            ReportImage(name: name, status: rejected[name] == nil ? "unregistered" : "rejected",
                        reason: rejected[name] ?? "not reconstructed: too few usable images")
        }
        let url = context.layout.reportJSON
        let written = (try? writeAtomically(report.jsonData(), to: url)) != nil
        throw PipelineError.tooFewImages(usable: usable.count, required: CaptureLoader.minimumImages, input: context.input.path,
                                         rejected: report.rejectedImages, report: written ? url.path : nil)
    }
}
