import Foundation
import PhotogrammetryKit
import PhotogrammetryCore
import PhotogrammetryBridge

/// The `photogrammetry` command: dispatches to a subcommand and turns failures into one line
/// on standard error and a non-zero exit code.
let usage = """
usage:
  photogrammetry reconstruct INPUT OUTPUT [--detail preview|reduced|medium|full|raw] [--room]
                 [--mask mask.json|MASK_DIR|none] [--intrinsics fx,fy,cx,cy] [--sparse-only] [--no-mesh]
                 [--camera-model SIMPLE_RADIAL|RADIAL|SIMPLE_RADIAL_FISHEYE|...]
                 [--threads N] [--seed N] [--progress tty|json|none]
                 [--pairs auto|exhaustive|retrieval|sequential] [--neighbours K] [--keyframes N]
                 [--max-megapixels N]   # images declaring more than N MP (default \(DecodeLimits.megapixelsText(DecodeLimits().maxPixels))) are refused unread
                 # INPUT: a folder or .zip of photos, or a video (.mp4/.mov, or a folder/zip of them)
  photogrammetry diagnose INPUT [--json] [--output DIR] [--room] [--mask mask.json|MASK_DIR|none]
                 [--intrinsics fx,fy,cx,cy] [--threads N] [--progress tty|json|none]
  photogrammetry match INPUT OUTPUT [--pairs auto|exhaustive|retrieval|sequential] [--transitive] [same options]
                 # stages 1-3 only: OUTPUT/matches.json (pairs tried, verified, timings)
  photogrammetry batch LIST_OR_DIR OUT_ROOT [--shard I/N | --shards N] [--dry-run] [reconstruct options]
                 # every capture (a LIST file: one input per line; a DIR: its subfolders and zips,
                 # sorted) into OUT_ROOT/NAME; finished ones skipped; OUT_ROOT/batch.json, or
                 # batch-shard-I-of-N.json with a shard (--shard, Slurm arrays, JOB_COMPLETION_INDEX + --shards N)
  photogrammetry batch-summary OUT_ROOT     # all shards' records: one table, OUT_ROOT/batch-summary.json
  photogrammetry compare MODEL REFERENCE
  photogrammetry compare-cloud CLOUD_OR_MESH REFERENCE_MESH --sparse MODEL --reference-sparse GT_MODEL --tau T [--region MESH] [--spacing S]
  photogrammetry mesh CLOUD.ply OUTPUT [--detail preview|reduced|medium|full|raw] [--room] [--threads N]
                 # Poisson mesh of a cloud with normals: OUTPUT/model.usdz, model.glb, model.obj,
                 # or the one file OUTPUT names (.usdz/.glb/.obj/.ply/.stl)
  photogrammetry texture MESH CAPTURE OUTPUT [--priors transforms.json] [--detail LEVEL] [--mask ...]
                 [--max-megapixels N]
                 # a mesh from elsewhere textured from the capture's photos at the priors' poses
  photogrammetry stats MODEL_FILE... [--json]  # vertices, triangles, bounding box, textures, bytes
  photogrammetry render FILE OUT_DIR [SIZE] [--cameras MODEL]
                 # RGBA PNGs of a model, flat-shaded: front/right/back/left.png (SIZE: longer side,
                 # default 1024), or one per image of a COLMAP text model (its camera and size)
  photogrammetry --version
"""

var arguments = Array(CommandLine.arguments.dropFirst())
guard let command = arguments.first else {
    FileHandle.standardError.write(Data((usage + "\n").utf8))
    exit(2)
}
arguments.removeFirst()

// SIGINT and SIGTERM end every command alike: its cleanups, one line, exit 130 or 143. Commands
// whose every file is written under a temporary name and renamed resume where they stopped.
Interruption.install()
if command == "reconstruct" || command == "match" {
    Interruption.advice = "run the same command again to resume from the checkpoints"
} else if command == "texture" {
    Interruption.advice = "its working files are removed (with --poses sfm the rerun resumes the SfM)"
}

do {
    switch command {
    case "reconstruct": try ReconstructCommand.run(arguments)
    case "diagnose": try DiagnoseCommand.run(arguments)
    case "match": try MatchCommand.run(arguments)
    case "batch": try BatchCommand.run(arguments)
    case "batch-summary": try BatchSummaryCommand.run(arguments)
    case "compare": try CompareCommand.run(arguments)
    case "compare-cloud": try CompareCloudCommand.run(arguments)
    case "mesh": try MeshCommand.run(arguments)
    case "texture": try TextureCommand.run(arguments)
    case "stats": try StatsCommand.run(arguments)
    case "render": try RenderCommand.run(arguments)
    case "--version", "version": print("photogrammetry 0.1.0")
    case "--help", "-h", "help": print(usage)
    default:
        throw ArgumentParser.Failure(description: "unknown command '\(command)'")
    }
} catch let failure as ArgumentParser.Failure {
    // One line, as for every other failure (exit code 2 tells them apart): the usage is one
    // `--help` away, not a screenful that pushes the line that matters off the terminal.
    FileHandle.standardError.write(Data("photogrammetry: error: \("\(failure)".escapingControlCharacters)\n".utf8))
    exit(2)
} catch {
    // On a terminal, first clear the progress line a stage may have left.
    let clear = isatty(2) != 0 ? "\r\u{1B}[2K" : ""
    FileHandle.standardError.write(Data("\(clear)photogrammetry: error: \("\(error)".escapingControlCharacters)\n".utf8))
    exit(1)
}
