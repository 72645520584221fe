import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
import PhotogrammetryTestSupport

/// Circular motion adjusted to tracks: a turn made up here, observed with noise and outliers, is
/// found again from a wrong start, under each way the angles may move.
final class TurnMotionTests: XCTestCase {
    static let frames = 48
    static let step = 7.5 * Double.pi / 180

    /// Points on a cylinder round the axis (the object), seen in every frame that faces them;
    /// 0.3 px noise and a fifth of the observations thrown 5-40 px off.
    static func observed(_ truth: TurnMotion, seed: UInt64) -> [TurnMotion.Observation] {
        var generator = SeededGenerator(seed: seed)
        var observations: [TurnMotion.Observation] = []
        for (j, point) in truth.points.enumerated() {
            for i in 0..<frames {
                let pose = truth.camFromPlate(i)
                let inCamera = pose.apply(point)
                let normal = pose.rotation * SIMD3(point.x, point.y, 0)
                guard inCamera.z > 0, dot(normal, inCamera) < 0 else { continue }
                var xy = SIMD2(truth.focalLength * inCamera.x / inCamera.z, truth.focalLength * inCamera.y / inCamera.z)
                    + truth.principalPoint
                xy += SIMD2(Double.random(in: -0.5...0.5, using: &generator), Double.random(in: -0.5...0.5, using: &generator))
                if Double.random(in: 0..<1, using: &generator) < 0.2 {
                    xy += SIMD2(Double.random(in: 5...40, using: &generator), Double.random(in: -40...40, using: &generator))
                }
                observations.append(.init(frame: i, point: j, xy: xy))
            }
        }
        return observations
    }

    static func truth() -> TurnMotion {
        var generator = SeededGenerator(seed: 7)
        let points = (0..<600).map { _ -> SIMD3<Double> in
            let a = Double.random(in: 0..<(2 * .pi), using: &generator)
            return SIMD3(0.3 * cos(a), 0.3 * sin(a), Double.random(in: -0.5...(-0.1), using: &generator))
        }
        return TurnMotion(rig: TurnMotion.rig(elevation: 25 * .pi / 180), angles: (0..<frames).map { step * Double($0) },
                          focalLength: 600, principalPoint: SIMD2(320, 240), points: points, observations: [])
    }

    func start(_ truth: TurnMotion) -> TurnMotion {
        var start = truth
        start.observations = Self.observed(truth, seed: 3)
        start.rig = TurnMotion.rig(elevation: 40 * .pi / 180)
        start.focalLength = 700
        start.angles = (0..<Self.frames).map { 2 * .pi * Double($0) / Double(Self.frames) * 1.05 }
        return start
    }

    func testEvenStepsFindTheFocalLengthTheStepAndTheRig() throws {
        let truth = Self.truth()
        var motion = start(truth)
        for _ in 0..<2 {
            try motion.triangulate()
            XCTAssertTrue(try motion.adjust(.even).isUsable)
        }
        XCTAssertEqual(motion.focalLength, 600, accuracy: 6)
        XCTAssertEqual(motion.angles[1] - motion.angles[0], Self.step, accuracy: 0.02 * .pi / 180)
        let rigError = Rotation.angleDegrees(between: Rotation.matrix(angleAxis: motion.rig), and: Rotation.matrix(angleAxis: truth.rig))
        XCTAssertLessThan(rigError, 0.3)
    }

    func testAClosedTurnHoldsItsStepAndFreeAnglesFollowTheirFrames() throws {
        let truth = Self.truth()
        var closed = start(truth)
        try closed.triangulate()
        _ = try closed.adjust(.evenClosed)
        XCTAssertEqual(closed.angles[47] - closed.angles[0], 47 * Self.step, accuracy: 1e-9)
        XCTAssertEqual(closed.focalLength, 600, accuracy: 6)
        var free = closed
        free.angles[20] += 2 * .pi / 180
        _ = try free.adjust(.free)
        XCTAssertEqual(free.angles[0], closed.angles[0], "the first angle is the gauge")
        XCTAssertEqual(free.angles[20] - free.angles[0], 20 * Self.step, accuracy: 0.05 * .pi / 180)
    }

    func testTheOutliersAreTheObservationsThatMiss() throws {
        var motion = start(Self.truth())
        try motion.triangulate()
        _ = try motion.adjust(.even)
        try motion.triangulate()
        _ = try motion.adjust(.even)
        let errors = try motion.reprojectionErrors()
        let share = Double(errors.filter { $0 < 2 }.count) / Double(errors.count)
        XCTAssertEqual(share, 0.8, accuracy: 0.03, "a fifth were thrown off by 5 px or more")
    }

    func testAnObservationOfNoFrameIsRefused() {
        var motion = Self.truth()
        motion.observations = [.init(frame: 48, point: 0, xy: .zero)]
        XCTAssertThrowsError(try motion.adjust(.even)) { error in
            XCTAssertTrue("\(error)".contains("frame 48"), "\(error)")
        }
    }
}
