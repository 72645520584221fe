// C entry points of cvis_mesh_cloud: an oriented cloud, its KD-tree (built on first use), its
// spacing and extent.
#include <algorithm>
#include <cmath>
#include <random>

#include "mesh.h"
#include "status.h"

namespace cvis_mesh_core {

double NearestDistance(const cvis_mesh_cloud& cloud, const Eigen::Vector3d& query) {
  std::vector<int> index(1);
  std::vector<double> squared(1);
  if (cloud.Tree().SearchKNN(query, 1, index, squared) < 1) return INFINITY;
  return std::sqrt(squared[0]);
}

namespace {

// Median nearest-neighbour distance over a seeded sample of at most 20000 points.
double MedianSpacing(const open3d::geometry::PointCloud& cloud, const open3d::geometry::KDTreeFlann& tree) {
  const size_t n = cloud.points_.size();
  const size_t samples = std::min<size_t>(n, 20000);
  std::mt19937_64 random(7);
  std::uniform_int_distribution<size_t> pick(0, n - 1);
  std::vector<double> spacing;
  spacing.reserve(samples);
  std::vector<int> index(2);
  std::vector<double> squared(2);
  for (size_t k = 0; k < samples; ++k) {
    const size_t i = samples == n ? k : pick(random);
    if (tree.SearchKNN(cloud.points_[i], 2, index, squared) == 2) {
      spacing.push_back(std::sqrt(squared[1]));
    }
  }
  if (spacing.empty()) return 0;
  std::nth_element(spacing.begin(), spacing.begin() + spacing.size() / 2, spacing.end());
  return spacing[spacing.size() / 2];
}

}  // namespace
}  // namespace cvis_mesh_core

void cvis_mesh_cloud::Build() const {
  std::call_once(built_, [this] {
    tree_.SetGeometry(cloud);
    median_spacing_ = cvis_mesh_core::MedianSpacing(cloud, tree_);
  });
}

const open3d::geometry::KDTreeFlann& cvis_mesh_cloud::Tree() const {
  Build();
  return tree_;
}

double cvis_mesh_cloud::MedianSpacing() const {
  Build();
  return median_spacing_;
}

extern "C" cvis_status cvis_mesh_cloud_create(int64_t num_points, const float* points,
                                              const float* normals, const uint8_t* colors,
                                              const double* box, cvis_mesh_cloud** out) {
  using namespace cvis_mesh_core;
  return Guard([&] {
    if (out == nullptr) return Fail(CVIS_INVALID_ARGUMENT, "cvis_mesh_cloud_create: null argument");
    *out = nullptr;
    if (num_points > 0 && (points == nullptr || normals == nullptr)) {
      return Fail(CVIS_INVALID_ARGUMENT, "cvis_mesh_cloud_create: points and normals are required");
    }
    auto inside = [box](const float* p) {
      return box == nullptr || (p[0] >= box[0] && p[1] >= box[1] && p[2] >= box[2] &&
                                p[0] <= box[3] && p[1] <= box[4] && p[2] <= box[5]);
    };
    auto cloud = std::make_unique<cvis_mesh_cloud>();
    auto& pcd = cloud->cloud;
    pcd.points_.reserve(size_t(std::max<int64_t>(0, num_points)));
    pcd.normals_.reserve(pcd.points_.capacity());
    if (colors != nullptr) pcd.colors_.reserve(pcd.points_.capacity());
    for (int64_t i = 0; i < num_points; ++i) {
      const float* p = points + 3 * i;
      const float* n = normals + 3 * i;
      if (!std::isfinite(p[0]) || !std::isfinite(p[1]) || !std::isfinite(p[2])) {
        return Fail(CVIS_INVALID_ARGUMENT, Str("point ", i, " has a non-finite coordinate"));
      }
      if (!inside(p)) continue;
      const Eigen::Vector3d normal(n[0], n[1], n[2]);
      const double length = normal.norm();
      if (!(length > 1e-12) || !std::isfinite(length)) {
        return Fail(CVIS_INVALID_ARGUMENT, Str("point ", i, " has no normal (zero or non-finite)"));
      }
      pcd.points_.emplace_back(p[0], p[1], p[2]);
      pcd.normals_.push_back(normal / length);
      if (colors != nullptr) {
        const uint8_t* c = colors + 3 * i;
        pcd.colors_.push_back(Eigen::Vector3d(c[0], c[1], c[2]) / 255.0);
      }
    }
    if (pcd.points_.size() < 16) {
      return Fail(CVIS_NOT_ENOUGH_DATA, Str(pcd.points_.size(), " points", box ? " inside the region" : "",
                                            ": a surface needs at least 16"));
    }
    *out = cloud.release();
    return CVIS_OK;
  });
}

extern "C" void cvis_mesh_cloud_destroy(cvis_mesh_cloud* cloud) { delete cloud; }

extern "C" int64_t cvis_mesh_cloud_num_points(const cvis_mesh_cloud* cloud) {
  return cloud == nullptr ? 0 : int64_t(cloud->cloud.points_.size());
}

extern "C" double cvis_mesh_cloud_median_spacing(const cvis_mesh_cloud* cloud) {
  return cloud == nullptr ? 0 : cloud->MedianSpacing();
}

extern "C" cvis_status cvis_mesh_cloud_quantile_box(const cvis_mesh_cloud* cloud, double lo,
                                                    double hi, double box_min[3],
                                                    double box_max[3]) {
  using namespace cvis_mesh_core;
  return Guard([&] {
    if (cloud == nullptr || box_min == nullptr || box_max == nullptr) {
      return Fail(CVIS_INVALID_ARGUMENT, "cvis_mesh_cloud_quantile_box: null argument");
    }
    if (!(lo >= 0 && lo < hi && hi <= 1)) {
      return Fail(CVIS_INVALID_ARGUMENT, Str("quantiles ", lo, " and ", hi, ": want 0 <= lo < hi <= 1"));
    }
    const auto& points = cloud->cloud.points_;
    std::vector<double> axis(points.size());
    for (int a = 0; a < 3; ++a) {
      for (size_t i = 0; i < points.size(); ++i) axis[i] = points[i][a];
      const size_t last = axis.size() - 1;
      const size_t i_lo = size_t(std::floor(lo * double(last)));
      const size_t i_hi = size_t(std::ceil(hi * double(last)));
      std::nth_element(axis.begin(), axis.begin() + i_lo, axis.end());
      box_min[a] = axis[i_lo];
      std::nth_element(axis.begin(), axis.begin() + i_hi, axis.end());
      box_max[a] = axis[i_hi];
    }
    return CVIS_OK;
  });
}

extern "C" cvis_status cvis_mesh_cloud_nearest_distances(const cvis_mesh_cloud* cloud,
                                                         int64_t num_queries, const float* queries,
                                                         double* distances) {
  using namespace cvis_mesh_core;
  return Guard([&] {
    if (cloud == nullptr || (num_queries > 0 && (queries == nullptr || distances == nullptr))) {
      return Fail(CVIS_INVALID_ARGUMENT, "cvis_mesh_cloud_nearest_distances: null argument");
    }
    for (int64_t i = 0; i < num_queries; ++i) {
      const float* q = queries + 3 * i;
      distances[i] = NearestDistance(*cloud, Eigen::Vector3d(q[0], q[1], q[2]));
    }
    return CVIS_OK;
  });
}
