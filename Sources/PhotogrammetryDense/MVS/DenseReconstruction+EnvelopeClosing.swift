import Foundation
import PhotogrammetryCore
import PhotogrammetryBridge

extension DenseReconstruction {
    /// Where the points closing the room's envelope are kept: beside the depth maps, apart from
    /// `dense.ply`, which holds only what the views saw. Meshing reads both.
    public static func envelopeClosing(in directory: URL) -> URL {
        directory.appendingPathComponent("envelope-closing.ply")
    }

    /// Step 6: the room's envelope closed where the cloud has nothing
    /// (`MVSWorkspace.closeEnvelope`), or reused with the cloud. Returns the area closed.
    func closeEnvelope(_ maps: DepthMapFiles, workspace: MVSWorkspace, store: ManifestStore,
                       reusedCloud: Bool) throws -> Double {
        let url = Self.envelopeClosing(in: directory)
        let stage = "dense: envelope closing"
        if reusedCloud, let area = store.current.cloud?.closedArea, Self.exists(url) {
            _ = progress?.update(stage: stage, done: 1, total: 1)
            return area
        }
        _ = progress?.update(stage: stage, done: 0, total: 1)
        let cloud = try PointCloud.load(cloudURL)
        let (closing, area) = try workspace.closeEnvelope(maps.envelope, depthMaps: maps.photometric, cloud: cloud,
                                                         threads: options.patchMatch.numThreads)
        try closing.save(to: url)
        try store.update { $0.cloud?.closedArea = area }
        if progress?.update(stage: stage, done: 1, total: 1) == false { throw PipelineError.cancelled }
        return area
    }
}
