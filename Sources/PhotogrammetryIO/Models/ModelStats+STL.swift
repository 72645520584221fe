import Foundation
import PhotogrammetryCore

/// STL, binary (80-byte header, count, 50 bytes a triangle) or ascii (`facet` ... `vertex`):
/// vertices are the distinct corner positions, since STL repeats them per triangle; metres only
/// when the header text says so.
extension ModelStats {
    package static func stl(_ data: Data, name: String) throws -> ModelStats {
        let corners = try ModelReader.stlCorners(data, name: name)
        var distinct = Set<SIMD3<UInt32>>()
        for c in corners { distinct.insert(SIMD3(c.x.bitPattern, c.y.bitPattern, c.z.bitPattern)) }
        return ModelStats(file: name, format: .stl, vertices: distinct.count, triangles: corners.count / 3,
                          bounds: BoundingBox(around: corners),
                          metersPerUnit: ModelReader.stlLengthUnit(data) == .metres ? 1 : nil, textures: [], fileBytes: 0)
    }
}
