/// Frames that repeat an earlier one: the camera paused (a video held still, a double tap).
///
/// A near-duplicate sees what its twin sees from the same place, so the pair triangulates
/// nothing, and registering it early only fills local bundle adjustment with copies. Such frames
/// are kept out of the initial pair and registered once no other image can be (they then join
/// at no cost). A frame repeats an earlier one when nearly every match between them (the 90th
/// percentile) moved by less than ``maxMotionFraction`` of the longer image side. The whole
/// distribution is asked, not its median, because a camera circling an object it fixates moves
/// the centre of the view hardly at all while the parallax at the edges is large.
public enum NearDuplicateFrames {
    /// 0.5 % of the longer side: a paused hand's jitter (3 px at 640). Even through the widest
    /// phone lens (focal length 0.36 × the longer side) that is under 0.8°, about half the minimum
    /// triangulation angle, so no track of the pair could be triangulated from it.
    public static let maxMotionFraction = 0.005

    /// Per image, whether it repeats an earlier image of the capture (by index; the first of a
    /// run of copies is never marked, so every run keeps one frame for the initial pair).
    /// - Parameters:
    ///   - keypoints: keypoint positions per image, in pixels.
    ///   - longerSide: per image, its longer side in pixels.
    public static func detect(graph: MatchGraph, keypoints: [[SIMD2<Double>]], longerSide: [Int]) -> [Bool] {
        var duplicate = Array(repeating: false, count: graph.numImages)
        for edge in graph.edges where !edge.matches.isEmpty {
            let i = edge.first, j = edge.second
            var motion = edge.matches.map { m -> Double in
                let d = keypoints[j][Int(m.y)] - keypoints[i][Int(m.x)]
                return (d * d).sum().squareRoot()
            }
            motion.sort()
            let nearlyAll = motion[min(motion.count - 1, (9 * motion.count) / 10)]
            if nearlyAll < maxMotionFraction * Double(min(longerSide[i], longerSide[j])) { duplicate[max(i, j)] = true }
        }
        return duplicate
    }
}
