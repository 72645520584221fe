import Foundation
import PhotogrammetryCore
import PhotogrammetryBridge
import PhotogrammetryDense

/// Stage 15: depth maps of the registered images at the detail level, fused into `dense.ply`
/// (its header naming the run's unit, `comment lengthUnit unknown` or `metres`), under the masks
/// the features used (none for rooms unless given). A capture's sensor depth (`depth/`, HEIC
/// depth items, a room scan's depth frames) fills what the photographs' depth maps leave empty.
///
/// Checkpointed twice over: the stage's output (the point count) under its key, and inside,
/// every view and depth map under its own inputs (`work/dense/manifest.json`), so a run killed
/// half-way keeps the depth maps it finished. Any failure becomes one ``DenseReconstructionError``
/// line that says the sparse outputs are complete; a cancel stays ``PipelineError/cancelled``.
public struct DenseStage: CheckpointedStage {
    public struct Options: StageOptions {
        /// PatchMatch, fusion, source views. Defaults from the C core; threads from the context.
        public var dense = DenseOptions()
        /// Working resolution. Default full.
        public var detail = DetailLevel.full
        /// Seed of PatchMatch's random initialisation. Default 0.
        public var seed: UInt64 = 0
        /// The capture is a room (`--room`): fusion asks at least
        /// ``DenseOptions/roomFusionMinViews`` views of the photographs. Default false.
        public var room = false
        /// The capture's sensor depth joins fusion (`--sensor-depth`). Default true.
        public var sensorDepth = true
        /// Planar priors in PatchMatch (`--planar-priors`); nil (auto) turns them on for rooms. On the
        /// rendered bare room they raised completeness at 5 cm from 20 to 37 %, accuracy staying
        /// above 98 % (99.6 → 98.2 % within 5 cm), and changed synthetic-room, whose walls are
        /// textured, by nothing that matters (docs/benchmarks.md, Rooms). Objects are left without them: they are
        /// not measured on objects yet. Default nil.
        public var planarPriors: Bool? = nil
        /// A room's envelope, once found, is closed where the cloud has nothing (`--close-envelope`):
        /// points on its planes, apart from `dense.ply`, that the surface stage meshes with it
        /// (``DenseReconstruction/envelopeClosing(in:)``). Default true.
        public var closeEnvelope = true

        public init() {}

        /// The options as the stage runs them with `threads`.
        func effective(threads: Int) -> DenseOptions {
            var dense = self.dense
            dense.detail = detail
            dense.patchMatch.numThreads = threads
            dense.patchMatch.seed = seed
            if let planarPriors {
                dense.patchMatch.planarPriors = planarPriors
            } else if room {
                dense.patchMatch.planarPriors = true
            }
            dense.fusion.numThreads = threads
            if room { dense.fusion.minNumViews = max(dense.fusion.minNumViews, DenseOptions.roomFusionMinViews) }
            return dense
        }

        /// Names `closeEnvelope` only when it is off, so that runs made before it resume.
        public var keyText: String {
            "dense=\(StageKey.describe(effective(threads: 1))) sensorDepth=\(sensorDepth)" + (closeEnvelope ? "" : " closeEnvelope=false")
        }
        public func validate() throws { try dense.validate() }
    }

    /// Points in the fused cloud, those from sensor depth, and what was reused from an earlier run.
    public struct Output: Codable {
        public var points: Int
        public var reusedDepthMaps: Int
        public var reusedCloud: Bool
        /// Nil when the capture has no sensor depth.
        public var sensorPoints: Int?
        public var sensorViews: Int?
        /// Nil when the dense stage found no room's envelope.
        public var roomEnvelope: RoomEnvelope?
    }

    public static let name = "dense"
    public var options: Options

    public init(options: Options) {
        self.options = options
    }

    public func run(_ scene: ReconstructionScene, _ context: StageContext) throws -> Output {
        let model = scene.model, masks = scene.masks
        let byName = Dictionary(scene.usable.images.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var inputs: [ImageID: DenseReconstruction.Input] = [:]
        for (id, image) in model.images where image.isRegistered {
            guard let source = byName[image.name] else { continue }
            inputs[id] = DenseReconstruction.Input(name: image.name, url: source.url,
                                                   maskURL: masks?.maskURL(for: source), keepRect: masks?.keepRect)
        }
        let layout = context.layout
        let stage = DenseReconstruction(model: model, inputs: inputs, options: options.effective(threads: context.threads),
                                        directory: layout.denseWork, cloudURL: layout.denseCloud, threads: context.threads,
                                        progress: context.progress, lengthUnit: scene.report.lengthUnit,
                                        sensorDepth: options.sensorDepth ? Self.sensorDepth(scene, threads: context.threads) : nil,
                                        closesEnvelope: options.closeEnvelope)
        do {
            let result = try stage.run()
            if result.reusedDepthMaps > 0 {
                context.progress?.event(.denseResumed, "dense: \(result.reusedDepthMaps) depth maps reused from an earlier run"
                                        + (result.reusedCloud ? ", and the cloud" : ""))
            }
            // HEIC photos are looked into for depth items; when none had one, there was no sensor depth.
            let sensor = stage.sensorDepth != nil && (result.sensorViews > 0 || !result.refusedSensorDepth.isEmpty)
            return Output(points: result.points, reusedDepthMaps: result.reusedDepthMaps, reusedCloud: result.reusedCloud,
                          sensorPoints: sensor ? result.sensorPoints : nil, sensorViews: sensor ? result.sensorViews : nil,
                          roomEnvelope: RoomEnvelope(planes: result.envelope, closedArea: result.closedArea))
        } catch PipelineError.cancelled {
            throw PipelineError.cancelled
        } catch {
            let reason: String
            switch error {
            case let error as DenseReconstructionError: reason = error.message
            case let error as CVisionError: reason = error.message
            default: reason = "\(error)"
            }
            throw DenseReconstructionError("\(reason); the sparse model in \(layout.sparse().path) "
                                           + "and the report are complete")
        }
    }

    /// A loaded output stands only while `dense.ply` is there, and the envelope's closing when it
    /// closed some.
    public func apply(_ output: Output, to scene: ReconstructionScene, _ context: StageContext) throws {
        var needed = [context.layout.denseCloud]
        if (output.roomEnvelope?.closedArea ?? 0) > 0 { needed.append(DenseReconstruction.envelopeClosing(in: context.layout.denseWork)) }
        for file in needed where !FileManager.default.fileExists(atPath: file.path) {
            throw PipelineError.io("\(file.path) is missing")
        }
        scene.report.densePoints = output.points
        scene.report.densePointsSensorDepth = output.sensorPoints
        scene.report.denseSensorDepthViews = output.sensorViews
        scene.report.denseRoomEnvelope = output.roomEnvelope
    }

    /// The capture's sensor depth as the dense stage reads it, nil when it has none: each
    /// image's depth read when its view needs it (what cannot be read is left out here; the
    /// metric-scale stage has already said why).
    static func sensorDepth(_ scene: ReconstructionScene, threads: Int) -> DenseReconstruction.SensorDepthSource? {
        let depth = scene.depth, images = scene.usable.images
        let key = depth.digest(of: images, threads: threads)
        guard !key.isEmpty || images.contains(where: { ["heic", "heif"].contains($0.url.pathExtension.lowercased()) })
        else { return nil }
        let byName = Dictionary(images.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        return DenseReconstruction.SensorDepthSource(key: key.isEmpty ? "heic" : key) { name in
            guard let image = byName[name], case .depth(let found) = depth.load(image) else { return nil }
            return found
        }
    }
}

extension RoomEnvelope {
    /// The room of `planes` (normals into the room), in a model stood upright (+Y up): the box of
    /// the first six, less a notch per pair after them (what lies behind both of a pair's faces,
    /// each face parallel to the box's side behind it); nil without the box.
    init?(planes: [WorldPlane], closedArea: Double? = nil) {
        guard planes.count >= 6, planes.count % 2 == 0 else { return nil }
        // Opposite sides: their normals point against each other, and their offsets add up to the
        // distance between them.
        var extents: [(along: SIMD3<Double>, size: Double)] = []
        var rest = Array(planes.prefix(6))
        while let plane = rest.first {
            rest.removeFirst()
            guard let opposite = rest.indices.min(by: { (rest[$0].normal * plane.normal).sum() < (rest[$1].normal * plane.normal).sum() })
            else { return nil }
            extents.append((plane.normal, plane.offset + rest[opposite].offset))
            rest.remove(at: opposite)
        }
        let up = extents.indices.max { abs(extents[$0].along.y) < abs(extents[$1].along.y) }!
        let floor = extents.indices.filter { $0 != up }.map { extents[$0].size }.sorted(by: >)
        // A notch's depth along a face: from the face to the box's side behind it, which faces
        // the same way.
        func depth(_ face: WorldPlane) -> Double {
            let behind = planes.prefix(6).max { ($0.normal * face.normal).sum() < ($1.normal * face.normal).sum() }!
            return behind.offset - face.offset
        }
        let faces = Array(planes.dropFirst(6))
        let cut = stride(from: 0, to: faces.count, by: 2).map { depth(faces[$0]) * depth(faces[$0 + 1]) }.reduce(0, +)
        self.init(height: extents[up].size, length: floor[0], width: floor[1], floorArea: floor[0] * floor[1] - cut,
                  notches: faces.count / 2, closedArea: closedArea)
    }
}
