import PhotogrammetryCore

extension MeshModel {
    /// Throws ``ModelExportError`` when arrays disagree in length or a triangle refers to a
    /// missing vertex (an exporter must never write a file a viewer cannot load).
    public func validate() throws {
        let n = positions.count
        guard normals.count == n, colors.count == n, uvs.map({ $0.count == n }) ?? true else {
            throw ModelExportError(message: "mesh: normals, colours and texture coordinates need one entry per vertex")
        }
        guard !triangles.isEmpty else { throw ModelExportError(message: "mesh has no triangles") }
        for triangle in triangles where triangle.min() < 0 || Int(triangle.max()) >= n {
            throw ModelExportError(message: "mesh: a triangle refers to a missing vertex")
        }
        guard !materials.isEmpty else { throw ModelExportError(message: "mesh has no material") }
        guard materials.allSatisfy({ $0.texture == nil }) || uvs != nil else {
            throw ModelExportError(message: "mesh: a textured material needs texture coordinates")
        }
        if let materialOfTriangle {
            guard materialOfTriangle.count == triangles.count,
                  materialOfTriangle.allSatisfy({ $0 >= 0 && Int($0) < materials.count }) else {
                throw ModelExportError(message: "mesh: every triangle needs the index of one of its \(materials.count) materials")
            }
        }
        let names = materials.map { USDAText.identifier($0.name) }, files = textures.map(\.fileName)
        guard Set(names).count == names.count, Set(files).count == files.count else {
            throw ModelExportError(message: "mesh: materials and texture files need distinct names")
        }
    }
}
