// Mesh repair (degenerate and duplicated triangles, non-manifold edges), small pieces removed,
// and vertex colours carried over from the cloud.
#include <algorithm>

#include "internal.h"
#include "mesh.h"
#include "status.h"

extern "C" void cvis_clean_options_default(cvis_clean_options* options) {
  *options = cvis_clean_options{};
  options->min_component_fraction = 0.02;
}

extern "C" cvis_status cvis_mesh_clean(cvis_mesh* handle, const cvis_clean_options* options) {
  using namespace cvis_mesh_core;
  return Guard([&] {
    if (handle == nullptr || options == nullptr) return Fail(CVIS_INVALID_ARGUMENT, "cvis_mesh_clean: null argument");
    if (!(options->min_component_fraction >= 0 && options->min_component_fraction <= 1)) {
      return Fail(CVIS_INVALID_ARGUMENT,
                  Str("min component fraction ", options->min_component_fraction, ": want [0, 1]"));
    }
    auto& mesh = handle->mesh;
    // These only drop triangles, so vertex arrays (and the densities beside them) stay aligned.
    mesh.RemoveDegenerateTriangles();
    mesh.RemoveDuplicatedTriangles();
    mesh.RemoveNonManifoldEdges();
    if (!mesh.triangles_.empty() && options->min_component_fraction > 0) {
      const auto [cluster_of, cluster_sizes, areas] = mesh.ClusterConnectedTriangles();
      const size_t largest = *std::max_element(cluster_sizes.begin(), cluster_sizes.end());
      const double floor = options->min_component_fraction * double(largest);
      std::vector<bool> keep(mesh.triangles_.size());
      for (size_t i = 0; i < keep.size(); ++i) keep[i] = double(cluster_sizes[size_t(cluster_of[i])]) >= floor;
      KeepTriangles(handle, keep);
    } else {
      CompactVertices(handle);
    }
    handle->densities.clear();  // trimming is over; simplification does not keep them
    RecomputeNormals(&mesh);
    return CVIS_OK;
  });
}

extern "C" cvis_status cvis_mesh_transfer_colors(cvis_mesh* handle, const cvis_mesh_cloud* cloud) {
  using namespace cvis_mesh_core;
  return Guard([&] {
    if (handle == nullptr || cloud == nullptr) return Fail(CVIS_INVALID_ARGUMENT, "cvis_mesh_transfer_colors: null argument");
    auto& mesh = handle->mesh;
    mesh.vertex_colors_.assign(mesh.vertices_.size(), Eigen::Vector3d(0.5, 0.5, 0.5));
    if (!cloud->cloud.HasColors()) return CVIS_OK;
    ParallelFor(int64_t(mesh.vertices_.size()), 2, [&](int64_t begin, int64_t end) {
      std::vector<int> index(1);
      std::vector<double> squared(1);
      for (int64_t i = begin; i < end; ++i) {
        if (cloud->tree.SearchKNN(mesh.vertices_[size_t(i)], 1, index, squared) == 1) {
          mesh.vertex_colors_[size_t(i)] = cloud->cloud.colors_[size_t(index[0])];
        }
      }
    });
    return CVIS_OK;
  });
}
