import Foundation
import PhotogrammetryCore

/// The bytes of a `.usdz` for a ``MeshModel``: ``USDAText``'s layer turned into a binary (crate)
/// layer by usd-core and packed with the textures by `UsdUtils.CreateNewARKitUsdzPackage`, as
/// Apple's tools pack theirs (`model.usdc` first, the images under `0/`, every file's data
/// 64-byte aligned): under half the size of the text layer. Where usd-core cannot run or
/// fails, the text layer in a ``StoredZip``, said in one line (``ModelNotices``).
enum USDZPackage {
    static func data(_ model: MeshModel, url: URL) -> Data {
        let layer = Data(USDAText.layer(model).utf8)
        let textures = model.textures
        let reason: String
        if let name = textures.map(\.fileName).first(where: { !isPlainFileName($0) }) {
            reason = "texture name \(name) is not a plain file name"
        } else {
            do {
                let packed = try USDCore.run({ folder in
                    ["package", folder.appendingPathComponent(USDAText.layerName).path, folder.appendingPathComponent("model.usdz").path]
                }, prepare: { folder in
                    try layer.write(to: folder.appendingPathComponent(USDAText.layerName))
                    for texture in textures { try texture.data.write(to: folder.appendingPathComponent(texture.fileName)) }
                }) { outcome -> Result<Data, USDCore.Failure> in
                    switch outcome {
                    case .unavailable(let reason): return .failure(USDCore.Failure(message: reason))
                    case .done(let folder): return .success(try Data(contentsOf: folder.appendingPathComponent("model.usdz")))
                    }
                }
                switch packed {
                case .success(let data): return data
                case .failure(let failure): reason = failure.message
                }
            } catch {
                reason = "usd-core failed: \(error)"
            }
        }
        ModelNotices.post("\(url.path): written with a text layer: \(reason)")
        let entries = [StoredZip.Entry(name: USDAText.layerName, data: layer)]
            + textures.map { StoredZip.Entry(name: $0.fileName, data: $0.data) }
        return StoredZip.archive(entries)
    }

    /// Whether `name` names a file in its folder, nothing above or below it.
    private static func isPlainFileName(_ name: String) -> Bool {
        !name.isEmpty && !name.contains("/") && name != "." && name != ".." && !name.contains("\0")
    }
}
