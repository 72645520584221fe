import PhotogrammetryCore

extension DetailLevel {
    /// The working size of an image of `width` x `height` at this level: scaled down so that the
    /// longer side is ``denseMaxImageSide`` (aspect kept, rounded), never scaled up.
    ///
    /// The undistortion's own rule (``Undistortion/workingSize(width:height:maxSide:)``), not a
    /// copy of it: the size it reports is exactly the size its views have.
    public func denseWorkingSize(width: Int, height: Int) -> (width: Int, height: Int) {
        Undistortion.workingSize(width: width, height: height, maxSide: denseMaxImageSide ?? 0)
    }
}
