import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
import PhotogrammetryTestSupport

/// The verified pairs matching would find in `model`: every pair of images up to `reach` apart
/// (by id), each keypoint matched with the other image's keypoint of the same 3D point.
func trackGraph(_ model: Reconstruction, reach: Int) -> MatchGraph {
    let ids = model.images.keys.sorted()
    var keypoint: [ImageID: [Point3DID: Int]] = [:]
    for (pointID, point) in model.points3D {
        for element in point.track { keypoint[element.imageID, default: [:]][pointID] = element.point2DIndex }
    }
    var graph = MatchGraph(numImages: ids.count)
    for (a, first) in ids.enumerated() {
        for (b, second) in ids.enumerated() where b > a && b - a <= reach {
            let shared = (keypoint[first] ?? [:]).keys.filter { keypoint[second]?[$0] != nil }.sorted()
            let matches = shared.map { SIMD2(Int32(keypoint[first]![$0]!), Int32(keypoint[second]![$0]!)) }
            if !matches.isEmpty { graph.edges.append(.init(first: a, second: b, matches: matches, configuration: .calibrated)) }
        }
    }
    return graph
}

/// The pose check's parts (two subjects in one capture) and one-motion (part of the scene moved
/// differently) checks, each on a capture made to fail it and one that passes.
final class PoseCheckPartsTests: XCTestCase {
    func orbit(_ images: Int = 24) -> Reconstruction {
        var options = SyntheticScene.Options()
        options.numImages = images
        options.numPoints = 400
        return SyntheticScene(options).reconstruction
    }

    func input(_ model: Reconstruction, _ graph: MatchGraph, ordered: Bool = true) -> PoseCheck.Input {
        let names = model.images.keys.sorted().map { model.images[$0]!.name }
        let ids = model.images.keys.sorted().map { Optional($0) }
        return PoseCheck.Input(order: names, pairs: [], turntable: false, ordered: ordered,
                               links: PoseCheck.links(graph, names: names),
                               support: PoseCheck.pairSupport(graph, model: model, imageIDs: ids))
    }

    func check(_ result: PoseCheck.Result, _ name: String) -> PoseCheckSummary.Check {
        result.summary.checks.first { $0.name == name }!
    }

    /// `graph` without the pairs joining frames before index `cut` with frames from it on.
    func cutting(_ graph: MatchGraph, at cut: Int) -> MatchGraph {
        var graph = graph
        graph.edges.removeAll { $0.first < cut && $0.second >= cut }
        return graph
    }

    func testTwoHalvesThatShareNoMatchesAreTwoParts() {
        var model = orbit()
        let graph = cutting(trackGraph(model, reach: 2), at: 12)
        // The mapper made a model of the first half; the second did not register with it.
        for id in model.images.keys where id.rawValue > 12 { model.images[id]!.camFromWorld = nil }
        let result = PoseCheck.run(model, input(model, graph))
        let parts = check(result, "parts")
        XCTAssertFalse(parts.passed)
        XCTAssertEqual(parts.figure, 12)
        XCTAssertEqual(parts.failingFrames, (13...24).map { String(format: "image%03d.png", $0) })
        XCTAssertTrue(parts.evidence.hasPrefix("the frames show 2 parts that share no matches: frames image001.png–image012.png "
                                               + "(12) and frames image013.png–image024.png (12)"), parts.evidence)
        XCTAssertTrue(parts.evidence.contains("none between the parts"), parts.evidence)
        XCTAssertTrue(parts.evidence.hasSuffix("no single model, and this one holds frames image001.png–image012.png"),
                      parts.evidence)
        XCTAssertFalse(result.summary.passed)
        XCTAssertEqual(result.summary.reason, parts.evidence, "the parts speak first")
        XCTAssertTrue(result.summary.fix?.hasPrefix("One subject per capture") ?? false)
        // The verdict and advice: poses unreliable with the parts, no coverage and no texture advice.
        var report = Report()
        report.imagesTotal = 24
        report.imagesRegistered = 12
        report.alignmentRatio = 0.5
        report.azimuthCoverageDeg = 170
        report.elevationSpreadDeg = 2
        report.images = (1...24).map { k in
            var entry = ReportImage(name: String(format: "image%03d.png", k), status: k <= 12 ? "registered" : "unregistered")
            entry.features = 300
            return entry
        }
        report.poseCheck = result.summary
        let verdict = CaptureVerdict(report)
        XCTAssertEqual(verdict.level, .unreliable)
        XCTAssertTrue(verdict.headline.hasPrefix("Poses unreliable: the frames show 2 parts"), verdict.headline)
        let advice = CaptureAdvice.advise(report, largestGapDeg: (10, 190), meanElevationDeg: 20)
        XCTAssertEqual(advice.count, 1, "\(advice)")
        XCTAssertTrue(advice[0].contains("One subject per capture"), advice[0])
    }

    func testAStrayGroupOrABridgeOfEnoughMatchesIsOnePart() {
        let model = orbit()
        let full = trackGraph(model, reach: 2)
        let whole = PoseCheck.run(model, input(model, full))
        XCTAssertTrue(check(whole, "parts").passed)
        XCTAssertTrue(check(whole, "parts").applies)
        XCTAssertEqual(check(whole, "parts").figure, 0)
        // Three frames cut off at the end: frames that did not align, not a second subject.
        let stray = PoseCheck.run(model, input(model, cutting(full, at: 21)))
        XCTAssertTrue(check(stray, "parts").passed, check(stray, "parts").evidence)
        XCTAssertEqual(check(stray, "parts").figure, 3)
        // Halves bridged by one pair of as many matches as a pose needs: one part; of fewer: two.
        var bridged = cutting(full, at: 12)
        var bridge = full.edges.first { $0.first == 11 && $0.second == 12 }!
        XCTAssertGreaterThan(bridge.matches.count, PoseCheck.minLinkMatches)
        bridge.matches = Array(bridge.matches.prefix(PoseCheck.minLinkMatches))
        bridged.edges.append(bridge)
        XCTAssertTrue(check(PoseCheck.run(model, input(model, bridged)), "parts").passed)
        bridged.edges[bridged.edges.count - 1].matches.removeLast()
        let weak = check(PoseCheck.run(model, input(model, bridged)), "parts")
        XCTAssertFalse(weak.passed)
        XCTAssertTrue(weak.evidence.contains("at most \(PoseCheck.minLinkMatches - 1) between two of them"), weak.evidence)
        // Three weak pairs across the cut join the halves together: a frame is posed from all of them.
        var threeWeak = cutting(full, at: 12)
        for (a, b) in [(10, 12), (11, 12), (11, 13)] {
            var pair = full.edges.first { $0.first == a && $0.second == b }!
            pair.matches = Array(pair.matches.prefix(PoseCheck.minLinkMatches / 3))
            threeWeak.edges.append(pair)
        }
        XCTAssertTrue(check(PoseCheck.run(model, input(model, threeWeak)), "parts").passed)
    }

    func testMatchesTheModelDoesNotExplainFailOneMotionAtThatFrame() {
        let model = orbit()
        var graph = trackGraph(model, reach: 2)
        let right = PoseCheck.run(model, input(model, graph))
        let passing = check(right, "one_motion")
        XCTAssertTrue(passing.passed, passing.evidence)
        XCTAssertTrue(passing.applies)
        XCTAssertEqual(passing.figure, 1)
        XCTAssertTrue(right.summary.passed, "\(right.summary)")
        // From frame 13 on part of the scene moved: the pair 12-13's matches follow another
        // motion (each keypoint of 12 matched with the keypoint of another point in 13).
        let slip = graph.edges.firstIndex { $0.first == 11 && $0.second == 12 }!
        let matches = graph.edges[slip].matches
        graph.edges[slip].matches = matches.indices.map { SIMD2(matches[$0].x, matches[($0 + 17) % matches.count].y) }
        let moved = PoseCheck.run(model, input(model, graph))
        let failing = check(moved, "one_motion")
        XCTAssertFalse(failing.passed)
        XCTAssertEqual(failing.failingFrames, ["image013.png"])
        XCTAssertLessThan(failing.figure ?? 1, 0.1)
        XCTAssertTrue(failing.evidence.hasPrefix("at frame image013.png the scene moved two ways: the model explains "),
                      failing.evidence)
        XCTAssertFalse(moved.summary.passed)
        XCTAssertLessThan(moved.confidence["image013.png"]!.value, 0.5)
        XCTAssertEqual(moved.confidence["image020.png"]!.value, 1)
        XCTAssertTrue(moved.summary.fix?.contains("slipped") ?? false)
        // Out of capture order there are no consecutive frames to judge.
        XCTAssertFalse(check(PoseCheck.run(model, input(model, graph, ordered: false)), "one_motion").applies)
        // Consecutive files that are not neighbours (a ring's last frame and the next ring's
        // first) share a few chance matches: not judged. As many as a true neighbour's are.
        let typical = graph.edges.filter { $0.second == $0.first + 1 }.map(\.matches.count).sorted()
        let neighbourly = PoseCheck.minNeighbourShare * Double(typical[typical.count / 2])
        let scrambled = graph.edges[slip].matches
        XCTAssertGreaterThan(Int(neighbourly * 0.8), PoseCheck.minLinkMatches)
        graph.edges[slip].matches = Array(scrambled.prefix(Int(neighbourly * 0.8)))
        let chance = check(PoseCheck.run(model, input(model, graph)), "one_motion")
        XCTAssertTrue(chance.passed, chance.evidence)
        graph.edges[slip].matches = Array(scrambled.prefix(Int(neighbourly * 1.25)))
        XCTAssertFalse(check(PoseCheck.run(model, input(model, graph)), "one_motion").passed)
    }

    func testAMatchBetweenTwoPointsAtOnePlaceIsExplained() {
        var model = orbit(6)
        let graph = trackGraph(model, reach: 1)
        let edge = graph.edges.first { $0.first == 0 && $0.second == 1 }!
        // The second keypoint of a match observes a duplicate of the first's point (a track
        // the mapper did not merge): explained by projection, not by identity.
        let k1 = Int(edge.matches[0].x), k2 = Int(edge.matches[0].y)
        model.images[ImageID(1)]!.point3DIDs[k1] = nil
        let original = model.images[ImageID(2)]!.point3DIDs[k2]!
        let duplicate = model.addPoint3D(Point3D(position: model.points3D[original]!.position,
                                                 track: [TrackElement(imageID: ImageID(2), point2DIndex: k2)]))
        model.images[ImageID(2)]!.point3DIDs[k2] = duplicate
        let support = PoseCheck.pairSupport(graph, model: model, imageIDs: model.images.keys.sorted().map { Optional($0) })
        let pair = support.first { $0.first == ImageID(1) && $0.second == ImageID(2) }!
        XCTAssertEqual(pair.judged, edge.matches.count)
        XCTAssertEqual(pair.explained, pair.judged)
        // Moved off by more than the allowed error, it is not.
        model.points3D[duplicate]!.position += 0.3 * SIMD3(1, 1, 0)
        let moved = PoseCheck.pairSupport(graph, model: model, imageIDs: model.images.keys.sorted().map { Optional($0) })
        XCTAssertEqual(moved.first { $0.first == ImageID(1) && $0.second == ImageID(2) }!.explained, pair.judged - 1)
    }
}
