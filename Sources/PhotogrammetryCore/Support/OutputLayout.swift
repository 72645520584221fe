import Foundation

/// Where a run's files go: every output name is spelled here, once, so stages, commands and
/// tools downstream agree on them (DESIGN.md's layout).
///
/// OUTPUT is a folder, or the one model file wanted (`chair.usdz`, `.glb`, `.obj`, `.ply`, `.stl`):
/// then the working files (sparse model, report, dense cloud, checkpoints) go to a folder
/// beside it named after it without the extension (`chair/`), and the exporters write the file.
public struct OutputLayout: Sendable, Equatable {
    /// Extensions that make OUTPUT a model file rather than a folder.
    public static let modelFileExtensions: Set<String> = ["usdz", "glb", "obj", "ply", "stl"]

    /// The folder that holds the run's files.
    public let root: URL
    /// The model file OUTPUT named, if it named one.
    public let modelFile: URL?

    /// A layout rooted at `folder`.
    public init(folder: URL) {
        self.init(root: folder, modelFile: nil)
    }

    /// The layout OUTPUT names: a model file when it ends in a model extension, else a folder.
    public init(output: URL) {
        if Self.modelFileExtensions.contains(output.pathExtension.lowercased()) {
            self.init(root: output.deletingPathExtension(), modelFile: output)
        } else {
            self.init(folder: output)
        }
    }

    private init(root: URL, modelFile: URL?) {
        self.root = root
        self.modelFile = modelFile
    }

    /// `masks/`: a fixed camera's automatic masks (`<image stem>.png`, 8-bit, 255 = object).
    public var masks: URL { root.appendingPathComponent("masks", isDirectory: true) }

    /// Model `n` (0 = the largest) as a COLMAP model, text and binary: `sparse/`, then `sparse-2/`, ...
    public func sparse(_ n: Int = 0) -> URL { root.appendingPathComponent(Self.sparseFolderName(n), isDirectory: true) }
    /// The folder name of model `n`, as `report.json`'s `models` records it.
    public static func sparseFolderName(_ n: Int) -> String { n == 0 ? "sparse" : "sparse-\(n + 1)" }
    /// The largest model's registered views in nerfstudio's convention (beside `sparse/`).
    public var transformsJSON: URL { root.appendingPathComponent("transforms.json") }
    /// The images `transforms.json` names, where nerfstudio looks for them (`images/NAME`): hard
    /// links to the capture's files, copies, or upright JPEG conversions of what it cannot read.
    public var images: URL { root.appendingPathComponent("images", isDirectory: true) }
    /// The largest model's sparse points as PLY, `transforms.json`'s `ply_file_path` (the name
    /// nerfstudio's own COLMAP conversion gives it).
    public var sparsePointsPLY: URL { root.appendingPathComponent("sparse_pc.ply") }
    /// The largest model's registered cameras as a mesh of pyramids, for viewers.
    public var cameraFrusta: URL { root.appendingPathComponent("cameras.ply") }
    /// Statistics and diagnosis for programs.
    public var reportJSON: URL { root.appendingPathComponent("report.json") }
    /// The same for people.
    public var reportHTML: URL { root.appendingPathComponent("report.html") }
    /// The dense coloured point cloud with normals.
    public var denseCloud: URL { root.appendingPathComponent("dense.ply") }
    /// The mesh for AR Quick Look (a USDZ package of a USDA layer).
    public var modelUSDZ: URL { root.appendingPathComponent("model.usdz") }
    /// The mesh as glTF 2.0 binary.
    public var modelGLB: URL { root.appendingPathComponent("model.glb") }
    /// The mesh as Wavefront OBJ; its material library is ``modelMTL``.
    public var modelOBJ: URL { root.appendingPathComponent("model.obj") }
    /// The OBJ's material library (written beside it, named after it).
    public var modelMTL: URL { root.appendingPathComponent("model.mtl") }
    /// The mesh as binary PLY with colours.
    public var modelPLY: URL { root.appendingPathComponent("model.ply") }
    /// The mesh as binary STL.
    public var modelSTL: URL { root.appendingPathComponent("model.stl") }
    /// The model files a run writes into its folder: USDZ, GLB and OBJ (DESIGN.md's layout).
    public var folderModels: [URL] { [modelUSDZ, modelGLB, modelOBJ] }
    /// The models this run writes: the file OUTPUT named, or ``folderModels``.
    public var modelFiles: [URL] { modelFile.map { [$0] } ?? folderModels }
    /// The surface stage's mesh (vertex colours, before texturing), inside `work/`.
    public var surfaceMesh: URL { work.appendingPathComponent("surface.ply") }
    /// What `photogrammetry match` found.
    public var matches: URL { root.appendingPathComponent("matches.json") }

    /// Checkpoints and intermediate files.
    public var work: URL { root.appendingPathComponent("work", isDirectory: true) }
    /// A `texture` run's own working folder: `texture-work/` inside a folder OUTPUT, `x.glb.work/`
    /// beside a single-file OUTPUT `x.glb`. Never `work/`, which may hold a reconstruction's
    /// checkpoints, nor the `x/` a reconstruction of `x.glb` uses: a texturing run removes its
    /// working folder when it ends, and must not take another run's files with it.
    public var textureWork: URL {
        guard let modelFile else { return root.appendingPathComponent("texture-work", isDirectory: true) }
        return modelFile.deletingLastPathComponent()
            .appendingPathComponent(modelFile.lastPathComponent + ".work", isDirectory: true)
    }
    /// The stages' saved outputs (``CheckpointStore``).
    public var checkpoints: URL { work.appendingPathComponent("checkpoints", isDirectory: true) }
    /// The dense stage's undistorted views, depth maps and manifest.
    public var denseWork: URL { work.appendingPathComponent("dense", isDirectory: true) }
    /// A named checkpoint folder inside `work/` (feature caches are keyed by their options).
    public func checkpoint(_ name: String) -> URL { work.appendingPathComponent(name, isDirectory: true) }
    /// Inside the dense work folder `dense`: the undistorted views.
    public static func denseImages(in dense: URL) -> URL { dense.appendingPathComponent("images", isDirectory: true) }
    /// Inside the dense work folder: the views' masks.
    public static func denseMasks(in dense: URL) -> URL { dense.appendingPathComponent("masks", isDirectory: true) }
    /// Inside the dense work folder: the depth maps.
    public static func depthMaps(in dense: URL) -> URL { dense.appendingPathComponent("depth", isDirectory: true) }
    /// Inside the dense work folder: what the views were made from (``DenseManifest``).
    public static func denseManifest(in dense: URL) -> URL { dense.appendingPathComponent("manifest.json") }
    /// Where a zip input is unpacked, inside the work folder `work`.
    public static func unpackedInput(in work: URL) -> URL { work.appendingPathComponent("input", isDirectory: true) }
    /// Where a video input's keyframes are written (JPEG) and read from, with their manifest.
    public static func videoFrames(in work: URL) -> URL { work.appendingPathComponent("video", isDirectory: true) }
}
