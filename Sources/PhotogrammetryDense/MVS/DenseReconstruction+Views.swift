import Foundation
import PhotogrammetryCore
import PhotogrammetryBridge

extension DenseReconstruction {
    /// A registered image undistorted to a pinhole view, with its files and manifest entry.
    struct PreparedView {
        package var id: ImageID
        package var name: String
        package var view: MVSView
        package var imageURL: URL
        package var maskURL: URL
        package var entry: DenseManifest.Entry

        var flatName: String { DenseReconstruction.flatName(name) }
    }

    /// Step 2: undistorts every image (in parallel) or reuses the view a previous run made from
    /// the same inputs; an image that fails is skipped with its reason.
    func undistort(_ ids: [ImageID], store: ManifestStore, skipped: inout [RejectedImage]) throws -> [PreparedView] {
        let manifest = store.current
        let maxSide = options.detail.denseMaxImageSide ?? 0
        let slots = ResultSlots<Swift.Result<PreparedView, Error>>(count: ids.count)
        let counter = ProgressCounter(stage: "dense: undistortion", total: ids.count, sink: progress)
        parallelFor(ids.count, threads: threads) { i in
            defer { counter.step() }
            let image = model.images[ids[i]]!
            let input = inputs[ids[i]]!
            guard let camera = model.cameras[image.cameraID], let pose = image.camFromWorld else {
                slots[i] = .failure(DenseReconstructionError("no camera or pose"))
                return
            }
            let flat = Self.flatName(input.name)
            let imageURL = imagesFolder.appendingPathComponent(flat + ".png")
            let maskURL = masksFolder.appendingPathComponent(flat + ".png")
            let entry = viewEntry(input, camera: camera, maxSide: maxSide)
            var view: MVSView
            if let stored = manifest.views[input.name], stored.entry.matches(entry),
               Self.exists(imageURL), Self.exists(maskURL) {
                view = MVSView(width: stored.width, height: stored.height, fx: stored.fx, fy: stored.fy,
                               cx: stored.cx, cy: stored.cy)
            } else {
                do {
                    view = try Undistortion.undistort(image: input.url, maskFile: input.maskURL, keepRect: input.keepRect,
                                                      camera: camera, maxSide: maxSide, outputImage: imageURL,
                                                      outputMask: maskURL)
                } catch {
                    slots[i] = .failure(error)
                    return
                }
            }
            view.camFromWorld = pose
            slots[i] = .success(PreparedView(id: ids[i], name: input.name, view: view, imageURL: imageURL,
                                             maskURL: maskURL, entry: entry))
        }
        try counter.checkCancelled()
        var prepared: [PreparedView] = []
        for (i, slot) in slots.values.enumerated() {
            switch slot {
            case .success(let view)?: prepared.append(view)
            case .failure(let error)? where error.isResourceExhaustion:
                throw error
            case .failure(let error)?:
                skipped.append(RejectedImage(name: inputs[ids[i]]!.name, reason: "undistortion failed: \(error)"))
            case nil: break
            }
        }
        try store.update { manifest in
            for view in prepared {
                let v = view.view
                manifest.views[view.name] = DenseManifest.View(entry: view.entry, width: v.width, height: v.height,
                                                               fx: v.fx, fy: v.fy, cx: v.cx, cy: v.cy)
            }
        }
        guard prepared.count >= 2 else {
            throw DenseReconstructionError("\(prepared.count) image\(prepared.count == 1 ? "" : "s") undistorted, "
                + "at least 2 needed" + (skipped.first.map { " (\($0.name): \($0.reason))" } ?? ""))
        }
        return prepared
    }

    /// The inputs of one undistorted view: the image and mask files as they are now, the working
    /// size and the camera (its parameters as numbers, compared with a tolerance).
    func viewEntry(_ input: Input, camera: Camera, maxSide: Int) -> DenseManifest.Entry {
        var hash = StableHash()
        // "view-size": views keyed by the size they are made at (an entry keyed otherwise never
        // matches, so its view is remade). The size, not the level's cap: a 800 px capture is worked
        // on at 800 px from `reduced` to `raw`, and changing between those levels reuses every
        // view, depth map and the cloud instead of remaking identical ones.
        hash.add("view-size")
        let size = Undistortion.workingSize(width: camera.width, height: camera.height, maxSide: maxSide)
        hash.add("\(size.width)x\(size.height)")
        hash.add(input.name)
        hash.add(fileStamp(input.url))
        hash.add(input.maskURL.map(fileStamp) ?? "-")
        hash.add(input.keepRect.map { "\($0.minX),\($0.minY),\($0.width),\($0.height)" } ?? "-")
        hash.add(camera.model.name)
        hash.add(camera.width)
        hash.add(camera.height)
        return DenseManifest.Entry(key: hash.hex, values: camera.params)
    }

    static func exists(_ url: URL) -> Bool { FileManager.default.fileExists(atPath: url.path) }
}
