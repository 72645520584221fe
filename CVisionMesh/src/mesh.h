// The storage behind the opaque handles: an Open3D point cloud with its KD-tree, and an Open3D
// triangle mesh with the per-vertex Poisson densities (empty for a mesh that came from memory).
#pragma once

#include <memory>
#include <mutex>
#include <vector>

#include <open3d/geometry/KDTreeFlann.h>
#include <open3d/geometry/PointCloud.h>
#include <open3d/geometry/TriangleMesh.h>

struct cvis_mesh_cloud {
  open3d::geometry::PointCloud cloud;

  // The KD-tree (and the median spacing it gives) is built on first use, once, whichever thread
  // asks: a cloud made only for its extent never pays for it, and Poisson builds it on the core
  // its own solver leaves idle (poisson.cpp). Building 4M points' tree takes seconds.
  const open3d::geometry::KDTreeFlann& Tree() const;
  double MedianSpacing() const;

 private:
  void Build() const;
  mutable std::once_flag built_;
  mutable open3d::geometry::KDTreeFlann tree_;
  mutable double median_spacing_ = 0;
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
