// Points onto a mesh: iterative closest points against a dense uniform sample of the surface,
// with the correspondence distance tightened round by round (coarse first, so a start some way
// off still finds the surface; fine last, so points off the mesh do not pull).
#include <algorithm>
#include <cmath>

#include <open3d/pipelines/registration/Registration.h>
#include <open3d/pipelines/registration/TransformationEstimation.h>
#include <open3d/utility/Random.h>

#include "mesh.h"
#include "status.h"

extern "C" void cvis_align_options_default(cvis_align_options* options) {
  if (options == nullptr) return;
  options->num_samples = 200000;
  options->start_distance = 0.05;
  options->end_distance = 0.005;
  options->with_scale = 1;
  options->max_iterations = 50;
}

extern "C" cvis_status cvis_mesh_align_points(const cvis_mesh* mesh, int64_t num_points,
                                              const double* points,
                                              const cvis_align_options* options,
                                              double similarity[16], cvis_align_stats* stats) {
  using namespace cvis_mesh_core;
  namespace reg = open3d::pipelines::registration;
  return Guard([&] {
    if (mesh == nullptr || points == nullptr || options == nullptr || similarity == nullptr) {
      return Fail(CVIS_INVALID_ARGUMENT, "cvis_mesh_align_points: null argument");
    }
    if (num_points < 3 || mesh->mesh.triangles_.empty()) {
      return Fail(CVIS_NOT_ENOUGH_DATA, Str("alignment needs 3 points and a mesh with triangles (",
                                            num_points, " points, ", mesh->mesh.triangles_.size(),
                                            " triangles)"));
    }
    if (options->num_samples < 100 || !(options->start_distance > 0) ||
        !(options->end_distance > 0) || options->end_distance > options->start_distance ||
        options->max_iterations < 1) {
      return Fail(CVIS_INVALID_ARGUMENT, "cvis_mesh_align_points: options out of range");
    }
    open3d::geometry::PointCloud source;
    source.points_.resize(size_t(num_points));
    for (int64_t i = 0; i < num_points; ++i) {
      source.points_[size_t(i)] = Eigen::Vector3d(points[3 * i], points[3 * i + 1], points[3 * i + 2]);
    }
    // Open3D samples through a non-const member (it may compute triangle normals on the way),
    // from its global generator: seeded, so the same points align the same way every run.
    open3d::geometry::TriangleMesh surface = mesh->mesh;
    open3d::utility::random::Seed(0);
    const auto target = surface.SamplePointsUniformly(size_t(options->num_samples));
    const double diagonal = (mesh->mesh.GetMaxBound() - mesh->mesh.GetMinBound()).norm();
    Eigen::Matrix4d transform = Eigen::Matrix4d::Identity();
    const reg::TransformationEstimationPointToPoint estimation(options->with_scale != 0);
    const reg::ICPConvergenceCriteria criteria(1e-8, 1e-8, options->max_iterations);
    int rounds = 0;
    for (double share = options->start_distance;; share = std::max(share / 2, options->end_distance)) {
      const auto result = reg::RegistrationICP(source, *target, share * diagonal, transform, estimation, criteria);
      // A round that finds no correspondences leaves the motion as it was.
      if (result.fitness_ > 0) transform = result.transformation_;
      ++rounds;
      if (share <= options->end_distance) break;
    }
    const auto final = reg::EvaluateRegistration(source, *target, options->end_distance * diagonal, transform);
    for (int r = 0; r < 4; ++r) {
      for (int c = 0; c < 4; ++c) similarity[4 * r + c] = transform(r, c);
    }
    if (stats != nullptr) {
      stats->fitness = final.fitness_;
      stats->rmse = final.inlier_rmse_;
      stats->rounds = rounds;
    }
    return CVIS_OK;
  });
}
