// Screened Poisson surface reconstruction, and trimming the surface where the cloud does not
// support it (low density, far from every point, outside the region of interest).
#include <algorithm>
#include <cmath>
#include <thread>

#include "internal.h"
#include "mesh.h"
#include "status.h"

namespace cvis_mesh_core {
namespace {

// Turns every triangle around when the surface's winding disagrees with the cloud's normals
// (Poisson's indicator function is oriented by them, but its triangle order is not promised).
void OrientLikeCloud(cvis_mesh* handle, const cvis_mesh_cloud& cloud) {
  auto& mesh = handle->mesh;
  RecomputeNormals(&mesh);
  const size_t n = mesh.vertices_.size();
  const size_t step = std::max<size_t>(1, n / 5000);
  double agreement = 0;
  std::vector<int> index(1);
  std::vector<double> squared(1);
  for (size_t i = 0; i < n; i += step) {
    if (cloud.Tree().SearchKNN(mesh.vertices_[i], 1, index, squared) == 1) {
      agreement += mesh.vertex_normals_[i].dot(cloud.cloud.normals_[size_t(index[0])]);
    }
  }
  if (agreement >= 0) return;
  for (auto& t : mesh.triangles_) std::swap(t[1], t[2]);
  for (auto& normal : mesh.vertex_normals_) normal = -normal;
}

}  // namespace
}  // namespace cvis_mesh_core

extern "C" void cvis_poisson_options_default(cvis_poisson_options* options) {
  *options = cvis_poisson_options{};
  options->depth = 8;
  options->scale = 1.1;
  options->linear_fit = 0;
  options->num_threads = 2;
}

extern "C" cvis_status cvis_mesh_poisson(const cvis_mesh_cloud* cloud,
                                         const cvis_poisson_options* options, cvis_mesh** out,
                                         double* cell_size) {
  using namespace cvis_mesh_core;
  return Guard([&] {
    if (cloud == nullptr || options == nullptr || out == nullptr) {
      return Fail(CVIS_INVALID_ARGUMENT, "cvis_mesh_poisson: null argument");
    }
    *out = nullptr;
    if (options->depth < 1 || options->depth > 14) {
      return Fail(CVIS_INVALID_ARGUMENT, Str("Poisson depth ", options->depth, ": want 1 ... 14"));
    }
    if (!(options->scale >= 1 && options->scale <= 4)) {
      return Fail(CVIS_INVALID_ARGUMENT, Str("Poisson scale ", options->scale, ": want 1 ... 4"));
    }
    // Poisson keeps about 1.4 of 2 cores busy; the tree that orienting, trimming and colouring
    // query is built meanwhile (joined before returning, whichever way).
    // A failed build (out of memory) is left to the first caller after, which retries it.
    std::thread tree_builder([cloud] {
      try {
        cloud->Tree();
      } catch (...) {
      }
    });
    struct Join {
      std::thread& thread;
      ~Join() { thread.join(); }
    } join{tree_builder};
    auto [mesh, densities] = open3d::geometry::TriangleMesh::CreateFromPointCloudPoisson(
        cloud->cloud, size_t(options->depth), 0.f, float(options->scale), options->linear_fit != 0,
        options->num_threads > 0 ? options->num_threads : -1);
    if (!mesh || mesh->triangles_.empty()) {
      return Fail(CVIS_NO_CONVERGENCE, "Poisson reconstruction gave no surface");
    }
    auto handle = std::make_unique<cvis_mesh>();
    handle->mesh = std::move(*mesh);
    handle->densities = std::move(densities);
    if (handle->densities.size() != handle->mesh.vertices_.size()) handle->densities.clear();
    handle->mesh.vertex_colors_.clear();  // colours come from the nearest points later
    OrientLikeCloud(handle.get(), *cloud);
    if (cell_size != nullptr) {
      const Eigen::Vector3d extent = cloud->cloud.GetMaxBound() - cloud->cloud.GetMinBound();
      *cell_size = extent.maxCoeff() * options->scale / double(1 << options->depth);
    }
    *out = handle.release();
    return CVIS_OK;
  });
}

extern "C" void cvis_trim_options_default(cvis_trim_options* options) {
  *options = cvis_trim_options{};
  options->density_quantile = 0.05;
  options->density_median_ratio = 0.5;
  options->max_distance_spacings = 2;
  options->use_box = 0;
}

extern "C" cvis_status cvis_mesh_trim(cvis_mesh* handle, const cvis_mesh_cloud* cloud,
                                      double cell_size, const cvis_trim_options* options,
                                      cvis_trim_stats* stats) {
  using namespace cvis_mesh_core;
  return Guard([&] {
    if (handle == nullptr || cloud == nullptr || options == nullptr) {
      return Fail(CVIS_INVALID_ARGUMENT, "cvis_mesh_trim: null argument");
    }
    if (!(options->density_quantile >= 0 && options->density_quantile < 1)) {
      return Fail(CVIS_INVALID_ARGUMENT, Str("density quantile ", options->density_quantile, ": want [0, 1)"));
    }
    if (!(options->density_median_ratio >= 0 && options->density_median_ratio <= 1)) {
      return Fail(CVIS_INVALID_ARGUMENT, Str("density median ratio ", options->density_median_ratio, ": want [0, 1]"));
    }
    if (!(options->max_distance_spacings >= 0) || !std::isfinite(options->max_distance_spacings)) {
      return Fail(CVIS_INVALID_ARGUMENT, Str("max distance ", options->max_distance_spacings, " spacings: want >= 0"));
    }
    cvis_trim_stats result{};
    auto& mesh = handle->mesh;
    const auto& vertices = mesh.vertices_;
    const auto& triangles = mesh.triangles_;
    std::vector<bool> keep(triangles.size(), true);

    // Low support: below a quantile of this surface's own densities, so the rule adapts to how
    // densely the capture sampled it (an absolute depth empties sparse captures' meshes), and
    // well below their median, so a surface sampled evenly everywhere is not holed.
    if (options->density_quantile > 0 && handle->densities.size() == vertices.size() && !vertices.empty()) {
      std::vector<double> sorted = handle->densities;
      const size_t at = size_t(options->density_quantile * double(sorted.size() - 1));
      std::nth_element(sorted.begin(), sorted.begin() + at, sorted.end());
      const double quantile = sorted[at];
      std::nth_element(sorted.begin(), sorted.begin() + sorted.size() / 2, sorted.end());
      const double median = sorted[sorted.size() / 2];
      result.density_threshold = std::min(quantile, options->density_median_ratio * median);
      std::vector<bool> low(vertices.size());
      for (size_t i = 0; i < vertices.size(); ++i) {
        low[i] = handle->densities[i] < result.density_threshold;
        result.low_density_vertices += low[i];
      }
      for (size_t i = 0; i < triangles.size(); ++i) {
        const auto& t = triangles[i];
        if (low[size_t(t[0])] || low[size_t(t[1])] || low[size_t(t[2])]) keep[i] = false;
      }
    }
    if (options->use_box) {
      const Eigen::Vector3d lo(options->box_min[0], options->box_min[1], options->box_min[2]);
      const Eigen::Vector3d hi(options->box_max[0], options->box_max[1], options->box_max[2]);
      for (size_t i = 0; i < triangles.size(); ++i) {
        for (int k = 0; k < 3 && keep[i]; ++k) {
          const Eigen::Vector3d& p = vertices[size_t(triangles[i][k])];
          if ((p.array() < lo.array()).any() || (p.array() > hi.array()).any()) {
            keep[i] = false;
            ++result.outside_triangles;
          }
        }
      }
    }
    // Unseen space: Poisson closes every surface, so a room's unseen walls and an object's
    // underside come back as smooth bubbles far from any point. The reference length is the
    // cloud's spacing, or the Poisson cell when that is coarser (a coarse surface lies up to a
    // cell from its points even where they are dense).
    if (options->max_distance_spacings > 0) {
      const double length = std::max(cloud->MedianSpacing(), cell_size);
      result.distance_threshold = options->max_distance_spacings * length;
      std::vector<char> far(triangles.size(), 0);
      ParallelFor(int64_t(triangles.size()), 2, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) {
          if (!keep[size_t(i)]) continue;
          const auto& t = triangles[size_t(i)];
          const Eigen::Vector3d centroid =
              (vertices[size_t(t[0])] + vertices[size_t(t[1])] + vertices[size_t(t[2])]) / 3.0;
          far[size_t(i)] = NearestDistance(*cloud, centroid) > result.distance_threshold;
        }
      });
      for (size_t i = 0; i < triangles.size(); ++i) {
        if (far[i]) {
          keep[i] = false;
          ++result.far_triangles;
        }
      }
    }
    KeepTriangles(handle, keep);
    if (stats != nullptr) *stats = result;
    return CVIS_OK;
  });
}
