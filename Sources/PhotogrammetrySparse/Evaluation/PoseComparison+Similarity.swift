import PhotogrammetryCore

extension PoseComparison {
    /// The similarity that aligns a model with a reference (see ``Similarity3``).
    public typealias Similarity = Similarity3
}
