import Foundation
import PhotogrammetryCore

/// Any USD file read by usd-core (``USDStage``): the meshes' points and fan triangles as the
/// file holds them, the box around the points through their transforms with the stage made Y
/// up, in stage units; `metersPerUnit` unless the layer says the unit is unknown; the sizes of
/// the images its materials bind.
extension ModelStats {
    static func stats(_ stage: USDStage, file: String) throws -> ModelStats {
        let metersPerUnit = try stage.metersPerUnit()
        var vertices = 0, triangles = 0
        var low = SIMD3<Double>(repeating: .infinity), high = -low
        for k in stage.header.meshes.indices {
            let mesh = try stage.mesh(k)
            vertices += mesh.points.count
            for count in mesh.counts where count >= 3 { triangles += Int(count) - 2 }
            for point in mesh.points {
                let p = mesh.transform.apply(point)
                low = pointwiseMin(low, p)
                high = pointwiseMax(high, p)
            }
        }
        var images: [String] = []
        for case let image? in stage.header.materials.map(\.texture) where !images.contains(image) { images.append(image) }
        let textures = images.map { imageSize(stage.textures[$0]!) ?? TextureSize(width: 0, height: 0) }
        return ModelStats(file: file, format: .usdz, vertices: vertices, triangles: triangles,
                          bounds: vertices > 0 ? BoundingBox(min: low, max: high) : nil,
                          metersPerUnit: stage.lengthUnit == .unknown ? nil : metersPerUnit, textures: textures, fileBytes: 0)
    }
}
