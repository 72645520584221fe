import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
import PhotogrammetryTestSupport

/// The pose check on synthetic turntables and orbits: each check on a model made to fail it,
/// and the same model passing untouched.
final class PoseCheckTests: XCTestCase {
    /// A fixed camera over an object turning by `stepsDeg` (one per frame after the first), as
    /// cameras orbiting a still box of points at height 2; every point in front observes.
    func makeTurn(_ stepsDeg: [Double], points: Int = 300) -> Reconstruction {
        var rng = SplitMix64(seed: 7)
        var model = Reconstruction()
        let camera = Camera(id: CameraID(1), model: .pinhole, width: 800, height: 600, params: [700, 700, 400, 300])
        model.addCamera(camera)
        var angle = 0.0
        var keypoints: [[SIMD2<Double>]] = []
        var poses: [Rigid3] = []
        let positions = (0..<points).map { _ in SIMD3(rng.uniform(-1, 1), rng.uniform(-1, 1), rng.uniform(-0.8, 0.8)) }
        var tracks = [[TrackElement]](repeating: [], count: points)
        for k in 0...stepsDeg.count {
            if k > 0 { angle += stepsDeg[k - 1] * .pi / 180 }
            let pose = SyntheticScene.lookAt(from: SIMD3(5 * cos(angle), 5 * sin(angle), 2), to: .zero)
            poses.append(pose)
            var frame: [SIMD2<Double>] = []
            for (j, x) in positions.enumerated() {
                guard let pixel = camera.project(pose.apply(x)) else { continue }
                tracks[j].append(TrackElement(imageID: ImageID(k + 1), point2DIndex: frame.count))
                frame.append(pixel)
            }
            keypoints.append(frame)
        }
        for (k, pose) in poses.enumerated() {
            model.addImage(Image(id: ImageID(k + 1), name: String(format: "frame%03d.png", k), cameraID: camera.id,
                                 camFromWorld: pose, points2D: keypoints[k]))
        }
        for (j, x) in positions.enumerated() where tracks[j].count >= 2 {
            _ = model.addPoint3D(Point3D(position: x, track: tracks[j]))
        }
        return model
    }

    /// The measured pairs two-view geometry would give: every pair up to `reach` frames apart,
    /// and the first with the last, at their true relative poses in `truth`.
    func pairs(_ truth: Reconstruction, reach: Int = 2) -> [PoseCheck.MeasuredPair] {
        let ids = truth.images.keys.sorted()
        var result: [PoseCheck.MeasuredPair] = []
        for (a, first) in ids.enumerated() {
            for second in ids[(a + 1)...] where second.rawValue - first.rawValue <= reach
                || (first == ids.first && second == ids.last) {
                let pose = truth.images[second]!.camFromWorld! * truth.images[first]!.camFromWorld!.inverse
                result.append(.init(first: first, second: second, secondFromFirst: pose.rotation,
                                    direction: normalize(pose.translation), matches: 200))
            }
        }
        return result
    }

    /// - Parameter graph: the verified pairs (``trackGraph(_:reach:)``), if the parts and the
    ///   model's support of the pairs are to be judged too.
    func input(_ model: Reconstruction, pairs: [PoseCheck.MeasuredPair], turntable: Bool = true,
               graph: MatchGraph? = nil) -> PoseCheck.Input {
        let ids = model.images.keys.sorted()
        return PoseCheck.Input(order: model.images.values.map(\.name).sorted(), pairs: pairs, turntable: turntable, ordered: true,
                               links: graph.map { PoseCheck.links($0, names: ids.map { model.images[$0]!.name }) } ?? [],
                               support: graph.map { PoseCheck.pairSupport($0, model: model, imageIDs: ids.map { Optional($0) }) }
                                ?? [])
    }

    func check(_ result: PoseCheck.Result, _ name: String) -> PoseCheckSummary.Check {
        result.summary.checks.first { $0.name == name }!
    }

    func testAnEvenWholeTurnPasses() {
        let model = makeTurn(Array(repeating: 15, count: 23))
        let result = PoseCheck.run(model, input(model, pairs: pairs(model), graph: trackGraph(model, reach: 2)))
        XCTAssertTrue(result.summary.passed, "\(result.summary)")
        XCTAssertEqual(result.summary.checks.map(\.name),
                       ["parts", "inliers", "inlier_spread", "rotation_agreement", "loop_closure", "one_motion", "turn_axis",
                        "turn_rate", "turn_order", "turn_closure"])
        // A whole turn's loop is judged by its closure; every other check applies.
        XCTAssertTrue(result.summary.checks.filter { $0.name != "loop_closure" }.allSatisfy(\.applies))
        XCTAssertFalse(check(result, "loop_closure").applies)
        XCTAssertTrue(check(result, "loop_closure").evidence.contains("turn_closure"))
        XCTAssertEqual(check(result, "turn_closure").figure ?? 0, 15, accuracy: 0.1)
        XCTAssertEqual(result.confidence.count, 24)
        XCTAssertTrue(result.confidence.values.allSatisfy { $0.value == 1 && $0.reasons.isEmpty })
    }

    func testAFrameThatDidNotRegisterAndTwoSwappedFilesPass() {
        let full = makeTurn(Array(repeating: 15, count: 23))
        var model = full
        model.images[ImageID(7)]!.camFromWorld = nil  // a double step from frame 5 to 7
        // Frames 8 and 9 filed under each other's names: two jumps on the turn.
        model.images[ImageID(9)]!.name = "frame009.png"
        model.images[ImageID(10)]!.name = "frame008.png"
        let result = PoseCheck.run(model, input(model, pairs: pairs(full)))
        XCTAssertTrue(result.summary.passed, "\(result.summary)")
        let order = check(result, "turn_order")
        XCTAssertEqual(order.figure ?? 0, 2.0 / 22, accuracy: 0.001)
        XCTAssertTrue(order.evidence.contains("out of order in stretches"), order.evidence)
        XCTAssertEqual(check(result, "turn_rate").figure ?? 0, 2.0 / 22, accuracy: 0.001)
        XCTAssertEqual(result.confidence.count, 23)
    }

    func testABentRotationFailsRotationAgreementForThatFrame() {
        let truth = makeTurn(Array(repeating: 15, count: 23))
        var model = truth
        let bent = ImageID(10)
        let pose = model.images[bent]!.camFromWorld!
        model.images[bent]!.camFromWorld = Rigid3(rotation: Rotation.matrix(angleAxis: SIMD3(0, 0.35, 0)) * pose.rotation,
                                                  translation: pose.translation)
        let result = PoseCheck.run(model, input(model, pairs: pairs(truth)))
        XCTAssertFalse(result.summary.passed)
        let agreement = check(result, "rotation_agreement")
        XCTAssertFalse(agreement.passed)
        XCTAssertEqual(agreement.failingFrames, ["frame009.png"])
        XCTAssertTrue(agreement.evidence.hasPrefix("frame frame009.png disagrees with its own matches: its pairs'"),
                      agreement.evidence)
        XCTAssertEqual(agreement.figure ?? 0, 20, accuracy: 0.5)
        XCTAssertLessThan(result.confidence["frame009.png"]!.value, 0.5)
        XCTAssertTrue(result.confidence["frame009.png"]!.reasons.contains { $0.contains("miss its pairs'") })
        XCTAssertEqual(result.confidence["frame002.png"]!.value, 1)
        XCTAssertEqual(result.summary.reason, agreement.evidence)
    }

    func testAJumpedStepFailsTheClosureAndTheRateNamesIt() {
        var steps = Array(repeating: 15.0, count: 23)
        steps[11] = 55  // the object slipped by 40° on the plate
        let model = makeTurn(steps)
        let result = PoseCheck.run(model, input(model, pairs: pairs(model)))
        let closure = check(result, "turn_closure")
        XCTAssertFalse(closure.passed)
        XCTAssertEqual(closure.figure ?? 0, 25, accuracy: 0.1)
        let rate = check(result, "turn_rate")
        XCTAssertTrue(rate.evidence.contains("frame011.png → frame012.png 55.0°"), rate.evidence)
        XCTAssertTrue(check(result, "turn_axis").passed)
        XCTAssertTrue(check(result, "rotation_agreement").passed)
        XCTAssertFalse(result.summary.passed)
        XCTAssertLessThan(result.confidence["frame023.png"]!.value, 0.5)
    }

    /// `model` with its files' names permuted at random: the file order is not the turn's.
    func shuffledNames(_ model: Reconstruction) -> Reconstruction {
        var shuffled = model
        var rng = SplitMix64(seed: 3)
        var names = model.images.keys.sorted().map { model.images[$0]!.name }
        for i in stride(from: names.count - 1, to: 0, by: -1) {
            names.swapAt(i, Int(rng.uniform() * Double(i + 1)))
        }
        for (k, id) in model.images.keys.sorted().enumerated() { shuffled.images[id]!.name = names[k] }
        return shuffled
    }

    func testShuffledFilesOfARightTurnAreOutOfOrderButThePosesPass() {
        let model = makeTurn(Array(repeating: 15, count: 23))
        let shuffled = shuffledNames(model)
        let result = PoseCheck.run(shuffled, input(shuffled, pairs: pairs(model)))
        let order = check(result, "turn_order")
        XCTAssertTrue(order.evidence.hasPrefix("the files are out of order"), order.evidence)
        XCTAssertTrue(order.evidence.hasSuffix("step evenly about one axis"), order.evidence)
        XCTAssertGreaterThan(order.figure ?? 0, 0.8)
        XCTAssertTrue(order.passed)
        // Walked in the turn's order, every step is the turn's 15°.
        let rate = check(result, "turn_rate")
        XCTAssertTrue(rate.passed, rate.evidence)
        XCTAssertTrue(rate.evidence.contains("median 15.0°"), rate.evidence)
        XCTAssertTrue(check(result, "turn_axis").passed)
        XCTAssertTrue(result.summary.passed, "\(result.summary)")
    }

    func testShuffledFilesOfAnUnevenTurnFailInTheTurnsOwnOrder() {
        // Steps of 3° and 27° by turns: no even rate in any order of the frames.
        let model = makeTurn((0..<23).map { $0 % 2 == 0 ? 3 : 27 })
        let shuffled = shuffledNames(model)
        let result = PoseCheck.run(shuffled, input(shuffled, pairs: pairs(model)))
        let order = check(result, "turn_order")
        XCTAssertFalse(order.passed)
        XCTAssertTrue(order.evidence.hasSuffix("do not step evenly about one axis either"), order.evidence)
        XCTAssertFalse(check(result, "turn_rate").passed)
        XCTAssertFalse(result.summary.passed)
    }

    func testAnOpenArcPassesButFailsWhenItsEndsMatchAsNeighbours() {
        // 24 frames turning 4.5° a step, 104° in all: a partial capture passes.
        let model = makeTurn(Array(repeating: 4.5, count: 23))
        var measured = pairs(model)
        let arc = PoseCheck.run(model, input(model, pairs: measured))
        XCTAssertTrue(arc.summary.passed, "\(arc.summary)")
        XCTAssertFalse(check(arc, "turn_closure").applies)
        XCTAssertTrue(check(arc, "turn_closure").evidence.hasPrefix("an open arc"), check(arc, "turn_closure").evidence)
        // The same model where the first and last frames match as neighbours of a whole turn of
        // 15° steps: the backdrop's wrong poses folded the turn short.
        let truth = makeTurn(Array(repeating: 15, count: 23))
        measured.removeAll { $0.first == ImageID(1) && $0.second == ImageID(24) }
        measured += pairs(truth).filter { $0.first == ImageID(1) && $0.second == ImageID(24) }
        let folded = PoseCheck.run(model, input(model, pairs: measured))
        let loops = check(folded, "loop_closure")
        XCTAssertFalse(loops.passed)
        XCTAssertEqual(loops.failingFrames, ["frame000.png", "frame023.png"])
        XCTAssertFalse(folded.summary.passed)
    }

    func testFewAndClusteredInliersFailTheirFrames() {
        var model = makeTurn(Array(repeating: 15, count: 23), points: 1500)
        let few = ImageID(5), clustered = ImageID(8)
        // Frame 4 keeps 12 observations; frame 7 only those in the top-left corner of the object.
        var kept = 0
        for k in model.images[few]!.point3DIDs.indices where model.images[few]!.point3DIDs[k] != nil {
            kept += 1
            if kept > 12 { model.images[few]!.point3DIDs[k] = nil }
        }
        let image = model.images[clustered]!
        for (k, p) in image.points2D.enumerated() where p.x >= 300 || p.y >= 300 {
            model.images[clustered]!.point3DIDs[k] = nil
        }
        let result = PoseCheck.run(model, input(model, pairs: pairs(model)))
        XCTAssertEqual(check(result, "inliers").failingFrames, ["frame004.png"])
        XCTAssertEqual(check(result, "inliers").figure, 12)
        XCTAssertEqual(check(result, "inlier_spread").failingFrames, ["frame007.png"])
        XCTAssertLessThan(check(result, "inlier_spread").figure ?? 1, PoseCheck.minSpread)
        XCTAssertEqual(result.summary.failingFrames, ["frame004.png", "frame007.png"])
        XCTAssertLessThan(result.confidence["frame004.png"]!.value, 0.5)
    }

    func testLoopPairsThatDisagreeFailButOneTwinIsTolerated() {
        var options = SyntheticScene.Options()
        options.numImages = 24
        let orbit = SyntheticScene(options).reconstruction
        // Pairs across a long gap (6 or more of 24 frames apart) at their true poses.
        let ids = orbit.images.keys.sorted()
        var measured: [PoseCheck.MeasuredPair] = []
        for a in ids {
            for b in ids where b.rawValue > a.rawValue && (b.rawValue - a.rawValue == 1 || b.rawValue - a.rawValue >= 6) {
                let pose = orbit.images[b]!.camFromWorld! * orbit.images[a]!.camFromWorld!.inverse
                measured.append(.init(first: a, second: b, secondFromFirst: pose.rotation, direction: normalize(pose.translation),
                                      matches: 150))
            }
        }
        let loops = measured.filter { $0.second.rawValue - $0.first.rawValue >= 6 }.count
        let twist = Rotation.matrix(angleAxis: SIMD3(0.5, 0, 0))
        var oneTwin = measured
        let twin = oneTwin.firstIndex { $0.second.rawValue - $0.first.rawValue >= 6 }!
        oneTwin[twin].secondFromFirst = twist * oneTwin[twin].secondFromFirst
        let tolerated = PoseCheck.run(orbit, input(orbit, pairs: oneTwin, turntable: false))
        XCTAssertTrue(check(tolerated, "loop_closure").passed, "\(check(tolerated, "loop_closure"))")
        XCTAssertEqual(check(tolerated, "loop_closure").figure ?? 0, 1 / Double(loops), accuracy: 0.001)
        XCTAssertFalse(tolerated.summary.checks.contains { $0.name.hasPrefix("turn_") })
        // A model whose second half is turned against the first: every loop pair across it disagrees.
        var bent = orbit
        for id in ids where id.rawValue > 12 {
            let pose = bent.images[id]!.camFromWorld!
            bent.images[id]!.camFromWorld = Rigid3(rotation: pose.rotation * Rotation.matrix(angleAxis: SIMD3(0, 0, 0.6)),
                                                   translation: pose.translation)
        }
        let failed = PoseCheck.run(bent, input(bent, pairs: measured, turntable: false))
        let closure = check(failed, "loop_closure")
        XCTAssertFalse(closure.passed)
        XCTAssertGreaterThan(closure.figure ?? 0, PoseCheck.maxLoopDisagreeingShare)
        XCTAssertFalse(failed.summary.passed)
    }

    func testAWholeTurnWhosePlateMatchesItselfAcrossTheTurnPasses() {
        // Frames half a turn apart share little but a patterned plate, which matches itself
        // turned: their pairs miss a right model by tens of degrees. The turn's closure judges.
        let model = makeTurn(Array(repeating: 15, count: 23))
        var measured = pairs(model)
        let ids = model.images.keys.sorted()
        let twist = Rotation.matrix(angleAxis: SIMD3(0, 0, 1.0))
        for a in ids where a.rawValue + 12 <= ids.last!.rawValue {
            let b = ImageID(a.rawValue + 12)
            let pose = model.images[b]!.camFromWorld! * model.images[a]!.camFromWorld!.inverse
            measured.append(.init(first: a, second: b, secondFromFirst: twist * pose.rotation,
                                  direction: normalize(pose.translation), matches: 150))
        }
        let result = PoseCheck.run(model, input(model, pairs: measured))
        XCTAssertTrue(result.summary.passed, "\(result.summary)")
        XCTAssertTrue(check(result, "turn_closure").applies)
        // The same pairs over an open arc (no whole turn to close) are judged as loops.
        let arc = makeTurn(Array(repeating: 5, count: 23))
        var arcPairs = pairs(arc).filter { $0.second.rawValue - $0.first.rawValue <= 2 }
        for a in ids where a.rawValue + 12 <= ids.last!.rawValue {
            let b = ImageID(a.rawValue + 12)
            let pose = arc.images[b]!.camFromWorld! * arc.images[a]!.camFromWorld!.inverse
            arcPairs.append(.init(first: a, second: b, secondFromFirst: twist * pose.rotation,
                                  direction: normalize(pose.translation), matches: 150))
        }
        let open = PoseCheck.run(arc, input(arc, pairs: arcPairs))
        XCTAssertFalse(check(open, "turn_closure").applies)
        XCTAssertFalse(check(open, "loop_closure").passed, "\(check(open, "loop_closure"))")
    }

    func testAFailedCheckIsPosesUnreliableNeverGood() {
        var report = Report()
        report.imagesTotal = 24
        report.imagesRegistered = 24
        report.alignmentRatio = 1
        report.azimuthCoverageDeg = 206
        report.elevationSpreadDeg = 48
        report.poseCheck = PoseCheckSummary(passed: false, checks: [], failingFrames: ["a.png"],
                                            reason: "the turn steps add up to 206°", fix: "Mask the object.")
        let verdict = CaptureVerdict(report)
        XCTAssertEqual(verdict.level, .unreliable)
        XCTAssertEqual(verdict.headline, "Poses unreliable: the turn steps add up to 206°")
        XCTAssertEqual(verdict.problems.count, 1, "coverage from unreliable poses is not judged")
        let advice = CaptureAdvice.advise(report, largestGapDeg: (10, 164), meanElevationDeg: 20)
        XCTAssertEqual(advice, ["Poses unreliable: the turn steps add up to 206°. Mask the object."])
        report.poseCheck?.passed = true
        XCTAssertEqual(CaptureVerdict(report).level, .poor)
    }
}
