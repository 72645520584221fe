// The storage behind the opaque handles: an Open3D point cloud with its KD-tree, and an Open3D
// triangle mesh with the per-vertex Poisson densities (empty for a mesh that came from memory).
#pragma once

#include <memory>
#include <vector>

#include <open3d/geometry/KDTreeFlann.h>
#include <open3d/geometry/PointCloud.h>
#include <open3d/geometry/TriangleMesh.h>

struct cvis_mesh_cloud {
  open3d::geometry::PointCloud cloud;
  open3d::geometry::KDTreeFlann tree;
  double median_spacing = 0;
};

struct cvis_mesh {
  open3d::geometry::TriangleMesh mesh;
  std::vector<double> densities;  // one per vertex, or empty
};

namespace cvis_mesh_core {

// Distance from query to the nearest point of cloud (the tree must be built).
double NearestDistance(const cvis_mesh_cloud& cloud, const Eigen::Vector3d& query);

// Area-weighted vertex normals, each turned to agree with the vertex's previous normal when it
// had one (Poisson's normals point outwards; recomputing must not flip them).
void RecomputeNormals(open3d::geometry::TriangleMesh* mesh);

}  // namespace cvis_mesh_core
