import CVision
import Foundation
import PhotogrammetryCore

/// Undistortion of capture images to the pinhole views the dense stage works on.
public enum Undistortion {
    /// The size of the view ``undistort(image:maskFile:keepRect:camera:maxSide:outputImage:outputMask:)``
    /// makes of a `width` x `height` image: the longer side brought down to `maxSide` (exactly;
    /// the other keeps the aspect, rounded), never up; `maxSide` 0 keeps the size.
    public static func workingSize(width: Int, height: Int, maxSide: Int) -> (width: Int, height: Int) {
        var w: Int32 = 0, h: Int32 = 0
        cvis_mvs_working_size(Int32(clamping: width), Int32(clamping: height), Int32(clamping: maxSide), &w, &h)
        return (Int(w), Int(h))
    }

    /// Undistorts one image to a pinhole view and writes it (and its mask) as PNG.
    ///
    /// The view keeps the camera's focal lengths and principal point; each output pixel centre is
    /// mapped through the camera's distortion back into the original (upright) image and sampled
    /// bilinearly. The result is area-downscaled so that its longer side is at most `maxSide`
    /// (never upscaled), the intrinsics scaled with it (COLMAP's convention: `cx -> cx * s`).
    ///
    /// - Parameters:
    ///   - image: The original image (EXIF orientation applied, as for feature extraction).
    ///   - maskFile: An optional 8-bit mask in upright pixels, 255 = keep (resized if needed).
    ///   - keepRect: An optional keep-rectangle in upright pixels.
    ///   - camera: The image's camera (model of the upright image at `camera.width x height`).
    ///   - maxSide: The longest side of the output in pixels; 0 keeps the full size.
    ///   - outputImage: Where the colour PNG goes (written to a temporary name, then renamed).
    ///   - outputMask: Where the mask PNG goes, if wanted: 255 where every given mask (and the
    ///     image's alpha channel, when it has one: alpha >= 128) keeps the pixel and it falls
    ///     inside the original image, else 0.
    /// - Returns: The view's size and intrinsics; its pose is the identity (the caller sets it).
    /// - Throws: ``CVisionError`` naming the file that cannot be read, decoded or written.
    public static func undistort(
        image: URL, maskFile: URL?, keepRect: CGRect?, camera: Camera, maxSide: Int,
        outputImage: URL, outputMask: URL?
    ) throws -> MVSView {
        guard maxSide >= 0, maxSide <= 32768 else {
            throw CVisionError(code: .invalidArgument, message: "Undistortion: maxSide \(maxSide) not in 0...32768")
        }
        var view = cvis_mvs_view()
        var params = camera.params
        params += Array(repeating: 0, count: max(0, Int(CVIS_CAMERA_PARAMS_STRIDE) - params.count))
        let status: cvis_status = params.withUnsafeBufferPointer { p in
            if let keepRect {
                var rect = cvis_rect(
                    x: Double(keepRect.minX), y: Double(keepRect.minY),
                    width: Double(keepRect.width), height: Double(keepRect.height))
                return cvis_mvs_undistort_image(
                    image.path, maskFile?.path, &rect, Int32(camera.model.rawValue), p.baseAddress,
                    Int32(camera.width), Int32(camera.height), Int32(maxSide), outputImage.path,
                    outputMask?.path, &view)
            }
            return cvis_mvs_undistort_image(
                image.path, maskFile?.path, nil, Int32(camera.model.rawValue), p.baseAddress,
                Int32(camera.width), Int32(camera.height), Int32(maxSide), outputImage.path,
                outputMask?.path, &view)
        }
        try check(status)
        return MVSView(
            width: Int(view.width), height: Int(view.height), fx: view.fx, fy: view.fy,
            cx: view.cx, cy: view.cy, camFromWorld: .identity)
    }
}
