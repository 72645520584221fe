import CVisionMesh
import PhotogrammetryCore

/// A triangle mesh owned by the mesh core: vertices with normals and colours, triangles.
///
/// The steps of surface reconstruction (``TriangleMesh+Surface.swift``) make or change one;
/// ``meshModel(material:)`` copies it out into Swift for the exporters.
public final class TriangleMesh: @unchecked Sendable {
    package let handle: OpaquePointer

    package init(handle: OpaquePointer) { self.handle = handle }

    deinit { cvis_mesh_destroy(handle) }

    /// A mesh made from memory; normals are computed (area-weighted) when nil, colours grey.
    /// - Throws: ``CVisionError/Code/invalidArgument`` when a triangle refers to a missing
    ///   vertex or a per-vertex array has the wrong length.
    public convenience init(positions: [SIMD3<Float>], normals: [SIMD3<Float>]? = nil,
                            colors: [SIMD3<UInt8>]? = nil, triangles: [SIMD3<Int32>]) throws {
        guard normals.map({ $0.count == positions.count }) ?? true,
              colors.map({ $0.count == positions.count }) ?? true else {
            throw CVisionError(code: .invalidArgument, message: "TriangleMesh: normals and colours need one entry per vertex")
        }
        var handle: OpaquePointer?
        let flatPositions = positions.flatMap { [$0.x, $0.y, $0.z] }
        let flatNormals = normals?.flatMap { [$0.x, $0.y, $0.z] }
        let flatColors = colors?.flatMap { [$0.x, $0.y, $0.z] }
        let flatTriangles = triangles.flatMap { [$0.x, $0.y, $0.z] }
        try check(cvis_mesh_create(Int64(positions.count), flatPositions, flatNormals, flatColors,
                                       Int64(triangles.count), flatTriangles, &handle))
        self.init(handle: handle!)
    }

    /// The number of vertices.
    public var vertexCount: Int { Int(cvis_mesh_num_vertices(handle)) }

    /// The number of triangles.
    public var triangleCount: Int { Int(cvis_mesh_num_triangles(handle)) }

    /// Edges on a boundary and shared by more than two triangles, components, watertightness.
    public func topology() throws -> MeshTopology {
        var topology = cvis_mesh_topology()
        try check(cvis_mesh_topology_of(handle, &topology))
        return MeshTopology(boundaryEdges: Int(topology.boundary_edges),
                            nonManifoldEdges: Int(topology.non_manifold_edges),
                            components: Int(topology.components), isWatertight: topology.watertight != 0)
    }

    /// The mesh copied into Swift, with `material`, for the exporters.
    public func meshModel(material: MeshMaterial = MeshMaterial()) -> MeshModel {
        let n = vertexCount, m = triangleCount
        var positions = [Float](repeating: 0, count: 3 * n), normals = positions
        var colors = [UInt8](repeating: 0, count: 3 * n)
        var triangles = [Int32](repeating: 0, count: 3 * m)
        cvis_mesh_copy_vertices(handle, &positions, &normals, &colors)
        cvis_mesh_copy_triangles(handle, &triangles)
        return MeshModel(
            positions: (0..<n).map { SIMD3(positions[3 * $0], positions[3 * $0 + 1], positions[3 * $0 + 2]) },
            normals: (0..<n).map { SIMD3(normals[3 * $0], normals[3 * $0 + 1], normals[3 * $0 + 2]) },
            colors: (0..<n).map { SIMD3(colors[3 * $0], colors[3 * $0 + 1], colors[3 * $0 + 2]) },
            triangles: (0..<m).map { SIMD3(triangles[3 * $0], triangles[3 * $0 + 1], triangles[3 * $0 + 2]) },
            material: material)
    }
}

/// How a mesh hangs together (``TriangleMesh/topology()``).
public struct MeshTopology: Sendable, Equatable {
    /// Edges with one triangle: 0 for a closed surface.
    public var boundaryEdges: Int
    /// Edges with three or more triangles.
    public var nonManifoldEdges: Int
    /// Clusters of edge-connected triangles.
    public var components: Int
    /// Every edge has exactly two triangles (self-intersection is not checked).
    public var isWatertight: Bool
}
