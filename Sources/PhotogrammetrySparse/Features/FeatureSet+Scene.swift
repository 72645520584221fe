import PhotogrammetryBridge

extension FeatureSet {
    /// Keypoint positions in pixels, as the scene model stores them.
    public func keypointPositions() -> [SIMD2<Double>] {
        keypoints.map { SIMD2(Double($0.x), Double($0.y)) }
    }
}

extension ImageMetadata {
    /// The metadata of an image without EXIF.
    package static let empty = ImageMetadata(orientation: 0, focalLengthMM: 0, focalLength35mm: 0, focalPlaneXResolution: 0,
                                     focalPlaneUnitMM: 0, pixelWidth: 0, pixelHeight: 0, make: "", model: "")
}

extension SIFTOptions {
    /// A short name for these options, so checkpoints made with other options are not reused.
    package var cacheKey: String {
        "\(maxFeatures)-\(maxImageSize)-\(contrastThreshold)-\(edgeThreshold)-\(rootSIFT ? 1 : 0)-\(applyEXIFOrientation ? 1 : 0)"
            + "-\(minFeatures)-\(minContrastThreshold)-\(alphaMargin)-\(affineMaxTilt)"
    }
}
