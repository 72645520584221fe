import CVision
import Foundation

/// How much the background outside the masks changes between two frames, measured by the C++ core.
public enum BackgroundChange {
    /// The median absolute grey change (intensity in [0, 1]) over textured background pixels of
    /// two frames at 160 px, and the share of the frame those pixels make up.
    ///
    /// The background is what the masks drop: outside `maskA` / `maskB` and outside `keepRect`
    /// (the whole frame without any mask). A fixed camera gives a change near 0.
    /// - Throws: ``CVisionError`` naming the file that cannot be read or decoded, or when the two
    ///   frames differ in shape.
    public static func measure(_ a: URL, maskA: URL?, _ b: URL, maskB: URL?, keepRect: CGRect?) throws
        -> (change: Double, texturedFraction: Double) {
        var change = 0.0, fraction = 0.0
        if let keepRect {
            var rect = cvis_rect(x: Double(keepRect.minX), y: Double(keepRect.minY),
                                 width: Double(keepRect.width), height: Double(keepRect.height))
            try check(cvis_background_change(a.path, maskA?.path, b.path, maskB?.path, &rect, &change, &fraction))
        } else {
            try check(cvis_background_change(a.path, maskA?.path, b.path, maskB?.path, nil, &change, &fraction))
        }
        return (change, fraction)
    }
}
