import Foundation
import PhotogrammetryCore
import PhotogrammetryBridge
import PhotogrammetryIO
import PhotogrammetrySparse
import PhotogrammetryDense

/// Every subcommand's specification. Defaults are read from the option structs the commands
/// start from (`ReconstructionOptions()`, `SurfaceOptions()`, `DecodeLimits()`), never retyped;
/// a default that is a behaviour rather than a value is described.
extension CommandSpec {
    /// Every subcommand, in the order the global usage lists them.
    public static let all: [CommandSpec] = [
        reconstruct, diagnose, match, batch, batchSummary, compare, compareCloud, stats, render, mesh, texture, helpCommand,
    ]

    /// The subcommand called `name`, if there is one.
    public static func named(_ name: String) -> CommandSpec? { all.first { $0.name == name } }

    // MARK: - Subcommands

    public static let reconstruct = CommandSpec(
        "reconstruct",
        abstract: "Reconstructs a capture: a sparse model, a dense point cloud, a textured mesh and a report.",
        arguments: [.input, .modelOutput],
        options: [.detail(ReconstructionOptions().detail, sizing: Option.Sized.allCases)]
            + Option.pipeline(before: [.room, .planarPriors, .closeEnvelope, .mask, .autoMask, .intrinsics, .priors, .sensorDepth, .markers,
                                       .markerFrame, .scale, .knownDistance,
                                       Option("sparse-only", "Stop after the sparse model and the report: no dense cloud, no mesh."),
                                       Option("no-mesh", "Stop after the dense cloud: no mesh, no model files.")]),
        discussion: [
            "Writes OUTPUT/sparse/ (a COLMAP model, text and binary), report.json, report.html, dense.ply, "
                + "transforms.json with images/ and sparse_pc.ply (nerfstudio loads OUTPUT as it is), cameras.ply and the models (" + folderModelNames + "); working files and checkpoints go to "
                + "OUTPUT/work/, and the same command run again resumes from them.",
        ])

    public static let diagnose = CommandSpec(
        "diagnose",
        abstract: "Features and poses only, then the capture diagnosis: on the terminal, or as the report's JSON.",
        arguments: [.input],
        options: [
            Option("json", "Print the report as JSON on standard output instead of the summary (progress then goes to the "
                   + "terminal or nowhere)."),
            Option("output", value: "DIR", "Keep the working files and the report in DIR: a rerun resumes from them.",
                   default: "a private temporary folder, removed at the end"),
        ] + Option.pipeline(before: [.room, .mask, .autoMask, .intrinsics, .priors]))

    public static let match = CommandSpec(
        "match",
        abstract: "Ingest, features and matching only (stages 1-3): OUTPUT/matches.json with the pairs tried, the verified "
            + "ones with their match counts, and timings.",
        arguments: [.input, Argument("OUTPUT", "A folder (. for the current one).")],
        options: [Option("transitive", "Add one pass of transitive pairs after matching.")]
            + Option.pipeline(before: [.room, .mask, .autoMask, .intrinsics, .priors]))

    public static let batch = CommandSpec(
        "batch",
        abstract: "Reconstructs every capture of a list or folder into OUT_ROOT/NAME, resumably, in shards a cluster's job "
            + "array picks.",
        arguments: [
            Argument("LIST_OR_DIR", "A list file (one INPUT per line) or a folder (its subfolders and zips, sorted)."),
            Argument("OUT_ROOT", "Where each capture's OUTPUT folder and the record go: OUT_ROOT/batch.json, or "
                     + "batch-shard-I-of-N.json for a shard."),
        ],
        options: [
            Option("shard", value: "I/N", "Run the captures k with k mod N = I (I from 0, below N).",
                   default: "the whole batch, or the shard Slurm's array variables or JOB_COMPLETION_INDEX name"),
            Option("shards", value: "N", "The number of shards an index from the environment divides the batch into: "
                   + "JOB_COMPLETION_INDEX (a Kubernetes Indexed Job's completions), or checked against Slurm's array."),
            Option("dry-run", "Print the shard and, per capture, whether it would run or be skipped; write nothing."),
        ] + reconstruct.options.filter { $0.name != Option.help.name },
        discussion: [
            "Every option but " + list(batchOwnOptions.map { "--" + $0 }, "and") + " goes to each capture's "
                + "reconstruct, as typed. A finished capture is skipped, so the same command run again finishes the "
                + "batch. Exit code 1 when a capture failed or was interrupted; the table and the record name them.",
        ])

    /// The options `batch` keeps for itself; the others go to every capture's reconstruct.
    public static let batchOwnOptions = ["shard", "shards", "dry-run", "progress"]

    public static let batchSummary = CommandSpec(
        "batch-summary",
        abstract: "Merges every shard's record of a batch into one table and OUT_ROOT/batch-summary.json.",
        arguments: [Argument("OUT_ROOT", "The folder a batch wrote.")],
        options: [],
        discussion: ["Exit code 1 when a capture failed, is missing, unfinished or ran twice."])

    public static let compare = CommandSpec(
        "compare",
        abstract: "Pose accuracy of a model against a reference model (AUC, errors), as JSON.",
        arguments: [Argument("MODEL", "A COLMAP model folder, text or binary (or a reconstruction's OUTPUT folder)."),
                    Argument("REFERENCE", "The reference, a COLMAP model folder (text or binary); images are matched by name.")],
        options: [])

    public static let compareCloud = CommandSpec(
        "compare-cloud",
        abstract: "Dense accuracy, completeness and F1 of a cloud or mesh against a reference mesh, as JSON.",
        arguments: [Argument("CLOUD_OR_MESH", "The reconstructed point cloud or mesh (PLY)."),
                    Argument("REFERENCE_MESH", "The reference mesh (PLY).")],
        options: [
            Option("sparse", value: "MODEL", "Our COLMAP model (text or binary): the similarity that aligns its camera centres onto "
                   + "GT_MODEL's (images matched by name) maps the reconstruction into the reference frame.", required: true),
            Option("reference-sparse", value: "GT_MODEL", "The reference's COLMAP model (text or binary).", required: true),
            Option("tau", value: "T", "Distance threshold in reference units (0.01 for 1 cm in metres).", required: true),
            Option("region", value: "MESH", "Evaluate only this part of the reference: accuracy counts our points inside "
                   + "its bounding box, completeness samples its surface.", default: "the whole reference"),
            Option("spacing", value: "S", "Surface sample spacing in reference units; a mesh is sampled uniformly by area.",
                   default: "T / 5"),
        ],
        discussion: [
            "Compares as ETH3D and Tanks and Temples do. Prints JSON: accuracy, completeness and f1 in percent (0-100); "
                + "tau; sample_spacing; evaluated_points (ours counted for accuracy); reference_samples (counted for "
                + "completeness); similarity {scale, rotation (row-major 3x3), translation} taking ours to the reference.",
        ])

    public static let stats = CommandSpec(
        "stats",
        abstract: "Vertices, triangles, bounding box, texture pages and file size of model files, ours and other tools'.",
        arguments: [Argument("MODEL_FILE", "A model file: " + list(readableModels, "or") + ".", repeats: true)],
        options: [
            Option("json", "Print an array of objects (file, format, vertices, triangles, size [x, y, z], size_unit, "
                   + "texture_pages, texture_sizes [[w, h]], file_bytes) instead of a table."),
        ],
        discussion: [
            "The bounding box's size is in metres (size_unit m) where the file says so (USD's metersPerUnit, glTF, our "
                + "OBJ, PLY and STL comments), else in the file's own units (size_unit unknown): a file that records "
                + "lengthUnit unknown (a run without a metric source) or names no unit.",
            usdReading,
        ])

    /// The longer side of `render`'s views when SIZE is not given (without --cameras).
    public static let renderSide = 1024
    /// The SIZEs `render` accepts.
    public static let renderSides = 16...RenderViews.largestSide

    public static let render = CommandSpec(
        "render",
        abstract: "RGBA PNGs of a model, flat-shaded: four views around it, or one per image of a COLMAP model.",
        arguments: [
            Argument("FILE", "A model file: " + list(readableModels.map { $0 == ".obj" ? ".obj (with its .mtl and texture)" : $0 }, "or")
                     + "."),
            Argument("OUT_DIR", "The folder the PNGs go to."),
            Argument("SIZE", "The longer side in pixels, \(renderSides.lowerBound) to \(renderSides.upperBound).",
                     isOptional: true, defaultValue: "\(renderSide); with --cameras each image's size"),
        ],
        options: [
            Option("cameras", value: "MODEL", "A COLMAP model folder (text or binary), or a reconstruction's OUTPUT folder: one PNG per "
                   + "registered image, named after it (IMG_0001.jpg -> OUT_DIR/IMG_0001.png), from its pose with its "
                   + "camera's focal length and principal point at its image size (scaled so that the longer side is SIZE "
                   + "when given). Distortion is ignored: the render shows what the undistorted photo shows. Fisheye cameras "
                   + "are refused.", default: "four views around it: "
                   + RenderViews.orbitAzimuths.map { "\($0.name).png" }.joined(separator: ", ")),
        ],
        discussion: [
            "Draws with the core's z-buffer rasteriser: ambient light only (each pixel is the texture's or the vertex "
                + "colours' own colour, unlit; STL grey), both sides of every triangle, a transparent background (alpha 255 "
                + "where the surface covers the pixel centre, else 0), no anti-aliasing.",
            "Without --cameras the four views look at the bounding box's centre from +Z, +X, -Z, -X (Y up) at 30 degrees "
                + "elevation, the box filling the frame with a 5% margin.",
            usdReading,
        ])

    public static let mesh = CommandSpec(
        "mesh",
        abstract: "Meshes a point cloud with normals (our dense.ply, a LiDAR scan) and exports the mesh.",
        arguments: [Argument("CLOUD.ply", "A PLY point cloud with normals (nx, ny, nz); colours optional."), .modelOutput],
        options: [
            .detail(SurfaceOptions().detail, sizing: [.mesh]),
            Option("room", "The cloud is a room: unseen space stays open (aggressive trimming)."),
            .threads(default: SurfaceOptions().numThreads),
            .progress,
        ],
        discussion: [
            "Screened Poisson, trimmed where the cloud gives no support, cleaned, coloured from the nearest points and "
                + "decimated below the level's triangle cap.",
        ])

    public static let texture = CommandSpec(
        "texture",
        abstract: "Textures a mesh from elsewhere (LiDAR, RoomPlan, another tool) from a capture's photos at poses in the "
            + "mesh's frame.",
        arguments: [
            Argument("MESH", "The mesh: " + list(readableModels, "or") + "."),
            Argument("CAPTURE", "A folder or .zip of images."),
            .modelOutput,
        ],
        options: [
            Option("priors", value: "transforms.json", "The photos' poses and intrinsics in the mesh's frame, in nerfstudio's "
                   + "convention (an ARKit capture's export).", default: "a transforms.json beside the images"),
            Option("poses", value: "SOURCE", "priors: the priors' poses and intrinsics as they are. sfm: our own sparse "
                   + "reconstruction pulled by the priors (their drift corrected, the model in their frame; in the "
                   + "working folder's sfm/, resumable), then aligned to the mesh by ICP of its points against the surface (a similarity): for "
                   + "priors that drift or whose frame is a little off the mesh's.",
                   default: TexturePoses.priors.rawValue, allowed: TexturePoses.allCases.map(\.rawValue)),
            // A texturing run's defaults are a reconstruction's.
            .detail(ReconstructionOptions().detail, sizing: [.texture]),
            Option("mask", value: "mask.json|MASK_DIR|none", "As for reconstruct: masks keep the background off the mesh.",
                   default: Option.mask.defaultValue),
            .threads(default: ReconstructionOptions().numThreads),
            .maxMegapixels,
            .progress,
        ],
        discussion: [
            "Per face the sharpest unoccluded view is chosen, the charts are packed into one page of the level's size and "
                + "exposure is levelled across seams; faces no photo sees keep the mesh's colour. Aligning SfM poses to a "
                + "mesh without priors is not built yet.",
            usdReading,
            "Working files (undistorted views, an unpacked zip) go to a folder of the run's own, OUTPUT/texture-work/, or "
                + "for a file x.glb x.glb.work/ beside it (never a reconstruction's work/), and are removed when the run "
                + "ends, however it ends; only --poses sfm's checkpoints (its sfm/) stay after a failure, for the rerun "
                + "to resume. A second run to the same OUTPUT while one works is refused.",
        ])

    public static let helpCommand = CommandSpec(
        "help",
        abstract: "Shows the global usage, or a subcommand's arguments and options.",
        arguments: [Argument("SUBCOMMAND", "The subcommand to show.", isOptional: true, defaultValue: "all, briefly")],
        options: [Option("markdown", "Print the reference of every subcommand as Markdown (docs/cli.md).")])

    /// How `texture` gets its views' poses (`--poses`).
    public enum TexturePoses: String, CaseIterable, Sendable {
        case priors, sfm
    }

    // MARK: - Shared texts

    /// "model.usdz, model.glb and model.obj": what a folder OUTPUT receives.
    static var folderModelNames: String {
        list(OutputLayout(folder: URL(fileURLWithPath: "/")).folderModels.map(\.lastPathComponent), "and")
    }

    /// ".glb", ".obj", ...: the endings that make OUTPUT one model file.
    static var modelFileEndings: [String] { OutputLayout.modelFileExtensions.sorted().map { "." + $0 } }

    /// The model files `stats`, `render` and `texture` read.
    static let readableModels = [".usdz", ".usd", ".usda", ".usdc", ".glb", ".obj", ".ply", ".stl"]

    /// How `stats`, `render` and `texture` read USD files.
    static let usdReading = "USD files (text or binary layers, packages as RoomPlan, Object Capture, Reality Composer and "
        + "Blender write them) are read by OpenUSD's usd-core (Python's pxr, run with python3 or the Python "
        + "\(USDCore.pythonVariable) names): every visible Mesh prim through its transforms, one mesh in metres "
        + "(metersPerUnit), Y up (a Z-up stage turned -90° about X), the texture of each face's bound material. Without "
        + "usd-core a warning line says so and the text reader reads text layers, points as stored (metersPerUnit applied)."

    /// "a, b and c" (`conjunction` "and"), "a, b or c": values in help texts and messages.
    public static func list(_ items: [String], _ conjunction: String) -> String {
        items.count < 2 ? items.joined() : items.dropLast().joined(separator: ", ") + " \(conjunction) " + items.last!
    }
}

extension CommandSpec.Argument {
    /// INPUT of reconstruct, diagnose and match.
    static let input = Self("INPUT", "A folder of photos (in it or in its images/ subfolder, any depth), a .zip of one, "
                            + "or a video (\(VideoFrames.extensions.sorted().map { "." + $0 }.joined(separator: ", "))), "
                            + "or a folder or .zip whose only media are videos.")

    /// OUTPUT of the commands that write a model.
    static let modelOutput = Self("OUTPUT", "A folder (. for the current one) for " + CommandSpec.folderModelNames
                                  + ", or the one model file wanted, ending in "
                                  + CommandSpec.list(CommandSpec.modelFileEndings, "or") + ": then the working files go to a folder beside it named after it.")
}

extension CommandSpec.Option {
    /// The options reconstruct, diagnose and match share: `first`, then threads, seed,
    /// progress, pairs and the rest, with the defaults of `ReconstructionOptions()`.
    static func pipeline(before first: [Self]) -> [Self] {
        let defaults = ReconstructionOptions()
        return first + [
            Self("camera-model", value: "MODEL", "The camera model to self-calibrate, as COLMAP names it (any case).",
                 default: "SIMPLE_RADIAL, or SIMPLE_RADIAL_FISHEYE for a fisheye-short EXIF focal length",
                 allowed: CameraModel.allCases.map(\.name)),
            .threads(default: defaults.numThreads),
            Self("seed", value: "N", "Seed of every randomised step: the same seed, the same result.", default: "\(defaults.seed)"),
            .progress,
            Self("pairs", value: "STRATEGY", "Which image pairs are matched: auto matches every pair while that is "
                 + "affordable and retrieved pairs beyond, or with pose priors the views they say overlap; the others force "
                 + "one way.",
                 default: defaults.matching.pairs.strategy.rawValue,
                 allowed: PairSelectionOptions.Strategy.allCases.map(\.rawValue)),
            Self("neighbours", value: "K", "How many retrieved images each image is matched with (a positive integer).",
                 default: "\(defaults.matching.pairs.retrievalNeighbours)"),
            Self("keyframes", value: "N", "Keyframes wanted over a video (at least 3).", default: "\(defaults.keyframes.target)"),
            .maxMegapixels,
        ]
    }

    /// What a detail level sizes, for `--detail`'s help.
    enum Sized: CaseIterable {
        case denseImages, mesh, texture

        /// "dense images of 640/960/1280/1920/full-size px on the longer side", from the levels themselves.
        var text: String {
            let levels = DetailLevel.allCases
            switch self {
            case .denseImages:
                return "dense images of " + levels.map { $0.denseMaxImageSide.map(String.init) ?? "full-size" }.joined(separator: "/")
                    + " px on the longer side"
            case .mesh:
                return "a mesh of at most " + levels.map { $0.maxTriangles.map { "\($0 / 1000)k" } ?? "all" }.joined(separator: "/")
                    + " triangles"
            case .texture:
                let pages = levels.last!.maxTexturePages
                return "a texture page of " + levels.map { "\($0.textureSize / 1024)K" }.joined(separator: "/")
                    + (pages > 1 ? " (\(levels.last!.rawValue): up to \(pages) pages)" : "")
            }
        }
    }

    /// `--detail LEVEL`, defaulting to `level`; `sized` is what the level sets the size of.
    static func detail(_ level: DetailLevel, sizing sized: [Sized]) -> Self {
        let levels = DetailLevel.allCases
        return Self("detail", value: "LEVEL", "How much detail to keep. From \(levels.first!.rawValue) to \(levels.last!.rawValue): "
                    + sized.map(\.text).joined(separator: ", ") + ".",
                    default: level.rawValue, allowed: levels.map(\.rawValue))
    }

    /// `--threads N`: checked as the command line is parsed, the range and message written once
    /// (``ReconstructionOptions/threadCounts``).
    static func threads(default count: Int) -> Self {
        let range = ReconstructionOptions.threadCounts
        return Self("threads", value: "N", "Worker threads, \(range.lowerBound) to \(range.upperBound).", default: "\(count)") { text in
            guard let n = Int(text), range.contains(n) else {
                throw ArgumentParser.Failure(description: ReconstructionOptions.threadCountMessage(text))
            }
        }
    }

    static let room = Self("room", "The room is the subject (a walk-through): masks the capture carries are not used, pairs "
                           + "are chosen as for a walk, and the mesh leaves unseen space open, except for the room's "
                           + "floor, walls and ceiling once the dense stage has found them.")

    static let planarPriors = Self("planar-priors", value: "auto|on|off", "Planar priors in the dense stage: each depth "
                                   + "map's large planes are found among its confidently matched pixels, and pixels with no "
                                   + "texture to match (bare walls, floors, ceilings) between the matched parts of one plane "
                                   + "take it, where other views do not see through it and agree with it. In a room seen "
                                   + "from inside, its envelope (floor, ceiling and four walls, square to each other, less "
                                   + "any corner walled off, as in an L) is found once among every view's matches and fills "
                                   + "the bare parts those planes leave; the report gives its size. On an object it "
                                   + "fills bare flat faces (a box, a block) but lays planes across bare curves, and on a "
                                   + "textured one it only costs time, so auto leaves it off for objects.",
                                   default: "auto: on with --room, off otherwise",
                                   allowed: ["auto", "on", "off"])

    static let closeEnvelope = Self("close-envelope", value: "on|off", "When planar priors found a room's envelope: "
                                    + "its floor, walls and ceiling where the views matched nothing (the floor under the "
                                    + "furniture and across the middle of the room, the ceiling overhead) are closed on their "
                                    + "planes, in each one's median colour, except where a view saw through (a doorway, a "
                                    + "window). dense.ply keeps only what the views matched; the report gives the area "
                                    + "closed. Off leaves the mesh to what the views matched.",
                                    default: ReconstructionOptions().closeEnvelope ? "on" : "off")

    static let mask = Self("mask", value: "mask.json|MASK_DIR|none", "Masks that restrict features, and the dense and mesh "
                           + "work: a mask.json ({\"rect\": {\"x\", \"y\", \"width\", \"height\"}}, one rectangle in upright "
                           + "pixels for every frame), or a folder of one PNG per image named by its stem (255 keeps); none "
                           + "ignores the masks the capture carries.",
                           default: "masks/ or mask.json beside the images, if any")

    static let autoMask = Self("auto-mask", value: "on|off", "Without masks, a fixed camera's frames (a turntable before a "
                               + "still background) are segmented from their own background: what moves is the object, its "
                               + "masks go to OUTPUT/masks/ and are used as --mask's would be, unless the poses made with them fail the "
                               + "pose check; off keeps the whole frames.",
                               default: "on")

    static let sensorDepth = Self("sensor-depth", value: "on|off", "A phone's depth the capture carries (depth/ PNGs, "
                                  + "HEIC depth items, a room scan's depth frames) fills what the photographs' depth maps "
                                  + "leave empty (plain walls); off uses it for the metric scale alone.",
                                  default: ReconstructionOptions().sensorDepth ? "on" : "off")

    static let intrinsics = Self("intrinsics", value: "fx,fy,cx,cy", "Fixes a PINHOLE camera: four finite numbers, fx and "
                                 + "fy above zero.", default: "self-calibrated from EXIF")

    static let priors = Self("priors", value: "transforms.json|none", "Pose priors in nerfstudio's convention (what ARKit "
                             + "capture apps export): the run is put in their frame and units. none ignores the one the "
                             + "capture carries (and a room scan's arkitData.json with its depth frames).",
                             default: "a transforms.json beside the images, else a video's arkitData.json, if any")

    static let markers = Self("markers", value: "DICT:SIZE_M", "Printed square markers that give the model its metres: "
                              + "OpenCV's dictionary (any case, DICT_ optional: 4X4_50, 5X5_100, ARUCO_ORIGINAL, APRILTAG_36h11...) and "
                              + "the printed side of a marker's black square in metres, its border included (a ChArUco board: its "
                              + "markers' side). Each marker's corners are triangulated from the views that see it. A markers.json "
                              + "beside the images says the same: {\"dictionary\": \"DICT_4X4_50\", \"size_m\": 0.05}, "
                              + "optionally with sizes of particular ids, \"sizes_m\": {\"3\": 0.1}.",
                              default: "a markers.json beside the images, if any; else no marker is looked for")

    static let markerFrame = Self("marker-frame", "Put the model in the frame of the printed marker board (needs --markers or "
                                  + "a markers.json): the origin at the markers' centre on the board, +Y the board's normal "
                                  + "on the cameras' side, +X along the lowest id's top edge. Without enough markers located "
                                  + "(2) the model is stood upright as usual; with pose priors it stays in their frame.")

    static let scale = Self("scale", value: "FACTOR", "Metres per model unit: the model is multiplied by it. The scale's "
                            + "sources, first found first: --scale or --known-distance, markers, depth images (a depth/ "
                            + "folder, HEIC depth), pose priors.",
                            default: "from markers, depth images or pose priors, if any; else SfM's arbitrary unit") { text in
        _ = try ScaleArguments.scale(text)
    }

    static let knownDistance = Self("known-distance", value: "SPEC", "Two points and the metres between them: "
                                    + "3,7=0.5 for the centres of markers 3 and 7 (their dictionary from --markers or "
                                    + "markers.json), or IMAGE@X,Y+IMAGE@X,Y/IMAGE@X,Y+IMAGE@X,Y=METRES for two points each "
                                    + "picked in two or more photos (X,Y: the pixel's column and row in an image viewer, "
                                    + "from 0 at the top-left; + joins a point's views, / separates the two points). The points "
                                    + "are triangulated from the registered views.",
                                    default: "none")

    static let progress = Self("progress", value: "MODE", "Progress: a redrawn line on standard error (tty), one JSON object "
                               + "per line on standard output (json), or none.",
                               default: "tty when standard error is a terminal, else none",
                               allowed: ProgressMode.allCases.map(\.rawValue))

    static let maxMegapixels = Self("max-megapixels", value: "N", "Images (and masks, depth images, video frames) declaring "
                                    + "more megapixels are refused before they are decoded; above 0, at most "
                                    + "\(Int(DecodeLimits.largestMegapixels)).",
                                    default: DecodeLimits.megapixelsText(DecodeLimits().maxPixels))
}
