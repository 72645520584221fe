import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

/// Keyframes from frames' measures: spaced by motion, the sharpest of each window, never a blurred frame.
final class KeyframeSelectionTests: XCTestCase {
    /// A 30 fps video whose picture moves `speed(i)` of the longer side per frame, with noisy
    /// sharpness around 100 and the listed frames blurred to 20. The measured position shakes by
    /// up to 0.001 about the true one, as the core's does about its reference: shake cancels out.
    func video(frames: Int, blurred: Set<Int> = [], seed: UInt64 = 1, speed: (Int) -> Double) -> [VideoFile.FrameMeasure] {
        var generator = SeededGenerator(seed: seed)
        var shake = 0.0
        return (0..<frames).map { i in
            let sharpness = blurred.contains(i) ? 20 : 100 + Double.random(in: -15...15, using: &generator)
            let next = Double.random(in: 0...0.001, using: &generator)
            defer { shake = next }
            return VideoFile.FrameMeasure(sharpness: sharpness, motion: i == 0 ? 0 : speed(i) + next - shake, time: Double(i) / 30)
        }
    }

    func testKeyframesFollowMotionNotTime() {
        // 600 frames: the first half moves slowly, the second three times as fast.
        let measures = video(frames: 600) { $0 < 300 ? 0.001 : 0.003 }
        let selection = KeyframeSelection.select(measures, fps: 30, options: .init())
        let frames = selection.keyframes.map(\.frame)
        XCTAssertEqual(Double(frames.count), 100, accuracy: 8, "about the target count")
        let slow = frames.filter { $0 < 300 }.count, fast = frames.filter { $0 >= 300 }.count
        XCTAssertEqual(Double(fast) / Double(slow), 3, accuracy: 0.6, "slow \(slow), fast \(fast)")
        XCTAssertEqual(frames, frames.sorted())
    }

    func testBlurredFramesAreNeverChosen() {
        var generator = SeededGenerator(seed: 3)
        let blurred = Set((0..<120).map { _ in Int.random(in: 0..<900, using: &generator) })
        let measures = video(frames: 900, blurred: blurred) { _ in 0.002 }
        let selection = KeyframeSelection.select(measures, fps: 30, options: .init())
        XCTAssertEqual(Set(selection.blurredFrames), blurred)
        XCTAssertTrue(Set(selection.keyframes.map(\.frame)).isDisjoint(with: blurred))
        XCTAssertGreaterThan(selection.keyframes.count, 90)
    }

    func testAHeldShotGivesTheSharpestOfItsFrames() {
        // Five views, each held for 10 frames, jumping 0.1 between them; one frame of each view sharpest.
        var measures = (0..<50).map { i in
            VideoFile.FrameMeasure(sharpness: 100, motion: i > 0 && i % 10 == 0 ? 0.1 : 0, time: Double(i) / 30)
        }
        for view in 0..<5 { measures[view * 10 + (view * 3) % 10].sharpness = 130 }
        let selection = KeyframeSelection.select(measures, fps: 30, options: .init())
        XCTAssertEqual(selection.keyframes.map(\.frame), [0, 13, 26, 39, 42])
        XCTAssertTrue(selection.keyframes[1].reason.contains("sharpest of frames 10-19"), selection.keyframes[1].reason)
    }

    func testTheStepStaysWithinItsBounds() {
        // A long fast video: the most motion between keyframes caps the step (more keyframes than the target).
        let fast = KeyframeSelection.select(video(frames: 3000) { _ in 0.01 }, fps: 30, options: .init())
        XCTAssertEqual(fast.step, KeyframeSelection.Options().maximumStep)
        XCTAssertGreaterThan(fast.keyframes.count, 150)
        // A camera at rest: the least step; hardly a keyframe.
        let still = KeyframeSelection.select(video(frames: 300) { _ in 0 }, fps: 30, options: .init())
        XCTAssertEqual(still.step, KeyframeSelection.Options().minimumStep)
        XCTAssertLessThanOrEqual(still.keyframes.count, 2)
    }

    func testLostTrackingMakesAKeyframeDue() {
        var measures = video(frames: 60) { _ in 0 }
        measures[30].lost = true
        let selection = KeyframeSelection.select(measures, fps: 30, options: .init())
        XCTAssertTrue(selection.keyframes.contains { $0.frame >= 30 }, "\(selection.keyframes)")
    }
}
