// Circular motion adjusted to point tracks: the rig, the focal length, the frames' angles and the
// points, as one Ceres problem. Holding the motion to a circle leaves four numbers and the angles
// where free poses have six a frame: what lets a few hundred faint tracks a frame fix the turn.

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <vector>

#include <ceres/autodiff_cost_function.h>
#include <ceres/loss_function.h>
#include <ceres/problem.h>
#include <ceres/rotation.h>
#include <ceres/solver.h>
#include <opencv2/core.hpp>

#include "../../include/cvis_turn.h"
#include "../optim/ceres_logging.h"
#include "../util/status.h"

namespace cvis {
namespace {

constexpr double kTwoPi = 6.283185307179586;

// The point in the camera of a frame turned by `angle`: R_rig (Rz(angle) X + (0, 1, 0)).
template <typename T>
void TurnToCamera(const T* rig, const T& angle, const T* point, T* camera) {
  const T c = cos(angle), s = sin(angle);
  const T turned[3] = {c * point[0] - s * point[1], s * point[0] + c * point[1] + T(1), point[2]};
  ceres::AngleAxisRotatePoint(rig, turned, camera);
}

// One observation; the frame's angle is multiplier x the angle parameter: i x step for even
// steps (a closed turn's step held constant), 1 x angle_i for free ones.
struct TurnReprojection {
  double x, y, cx, cy, multiplier;

  template <typename T>
  bool operator()(const T* rig, const T* focal, const T* angle, const T* point, T* residuals) const {
    T camera[3];
    TurnToCamera(rig, T(multiplier) * angle[0], point, camera);
    if (!(camera[2] > T(1e-9))) {
      residuals[0] = residuals[1] = T(1e3);
      return true;
    }
    residuals[0] = focal[0] * camera[0] / camera[2] + T(cx) - T(x);
    residuals[1] = focal[0] * camera[1] / camera[2] + T(cy) - T(y);
    return true;
  }
};

cvis_status Validate(const cvis_turn_problem* p) {
  if (p == nullptr) return Fail(CVIS_INVALID_ARGUMENT, "turn problem: null");
  if (p->num_frames < 2 || p->angles == nullptr) return Fail(CVIS_INVALID_ARGUMENT, "turn problem: fewer than 2 frames");
  if (p->num_points < 0 || (p->num_points > 0 && p->points3D == nullptr)) {
    return Fail(CVIS_INVALID_ARGUMENT, "turn problem: points");
  }
  if (p->num_observations < 0 ||
      (p->num_observations > 0 && (p->obs_frame == nullptr || p->obs_point == nullptr || p->obs_xy == nullptr))) {
    return Fail(CVIS_INVALID_ARGUMENT, "turn problem: observations");
  }
  if (!(p->focal_length > 0)) return Fail(CVIS_INVALID_ARGUMENT, "turn problem: focal length must be > 0");
  for (int32_t k = 0; k < p->num_observations; ++k) {
    if (p->obs_frame[k] < 0 || p->obs_frame[k] >= p->num_frames) {
      return Fail(CVIS_INVALID_ARGUMENT, Str("turn problem: observation ", k, " names frame ", p->obs_frame[k]));
    }
    if (p->obs_point[k] < 0 || p->obs_point[k] >= p->num_points) {
      return Fail(CVIS_INVALID_ARGUMENT, Str("turn problem: observation ", k, " names point ", p->obs_point[k]));
    }
  }
  return CVIS_OK;
}

bool Finite(const double* v) { return std::isfinite(v[0]) && std::isfinite(v[1]) && std::isfinite(v[2]); }

// The 3 x 4 projection of frame i (focal length, principal point and motion). OpenCV's small
// matrices, not Eigen's: this file is built with -march=native, and Eigen types instantiated here
// would clash with the baseline-built ones Open3D's code in the same program uses.
cv::Matx34d Projection(const cvis_turn_problem& p, int i) {
  double r[9];
  ceres::AngleAxisToRotationMatrix(p.rig, ceres::RowMajorAdapter3x3(r));
  const cv::Matx33d rig(r);
  const double c = std::cos(p.angles[i]), s = std::sin(p.angles[i]);
  const cv::Matx33d turn(c, -s, 0, s, c, 0, 0, 0, 1);
  const cv::Matx33d k(p.focal_length, 0, p.principal_point[0], 0, p.focal_length, p.principal_point[1], 0, 0, 1);
  const cv::Matx33d rotation = rig * turn;
  const cv::Vec3d translation = rig * cv::Vec3d(0, 1, 0);
  cv::Matx34d pose;
  for (int row = 0; row < 3; ++row) {
    for (int col = 0; col < 3; ++col) pose(row, col) = rotation(row, col);
    pose(row, 3) = translation[row];
  }
  return k * pose;
}

cv::Vec3d Project(const cv::Matx34d& projection, const double* point) {
  return projection * cv::Vec4d(point[0], point[1], point[2], 1);
}

}  // namespace
}  // namespace cvis

extern "C" void cvis_turn_options_default(cvis_turn_options* options) {
  options->steps = CVIS_TURN_EVEN;
  options->loss_scale = 1;
  options->refine_focal_length = 1;
  options->max_iterations = 200;
  options->num_threads = 1;
}

extern "C" cvis_status cvis_turn_adjust(cvis_turn_problem* problem, const cvis_turn_options* options,
                                        cvis_turn_summary* summary) {
  using namespace cvis;
  return Guard([&]() -> cvis_status {
    if (cvis_status status = Validate(problem); status != CVIS_OK) return status;
    if (options == nullptr || summary == nullptr) return Fail(CVIS_INVALID_ARGUMENT, "cvis_turn_adjust: null argument");
    if (options->steps < CVIS_TURN_EVEN || options->steps > CVIS_TURN_FREE || !(options->loss_scale > 0) ||
        options->max_iterations < 0) {
      return Fail(CVIS_INVALID_ARGUMENT, "cvis_turn_adjust: option out of range");
    }
    QuietCeresWarnings();
    cvis_turn_problem& p = *problem;
    const int n = p.num_frames;
    double focal = p.focal_length;
    // Even steps: one parameter, the step; a closed turn holds it at a whole turn's share.
    const double direction = p.angles[1] >= p.angles[0] ? 1.0 : -1.0;
    double step = options->steps == CVIS_TURN_EVEN_CLOSED ? direction * kTwoPi / n : p.angles[1] - p.angles[0];
    ceres::Problem solver_problem;
    auto* loss = new ceres::CauchyLoss(options->loss_scale);
    for (int32_t k = 0; k < p.num_observations; ++k) {
      double* point = p.points3D + 3 * p.obs_point[k];
      if (!Finite(point)) continue;
      const int i = p.obs_frame[k];
      const double x = p.obs_xy[2 * k], y = p.obs_xy[2 * k + 1];
      const double cx = p.principal_point[0], cy = p.principal_point[1];
      const bool free_angles = options->steps == CVIS_TURN_FREE;
      solver_problem.AddResidualBlock(
          new ceres::AutoDiffCostFunction<TurnReprojection, 2, 3, 1, 1, 3>(
              new TurnReprojection{x, y, cx, cy, free_angles ? 1.0 : double(i)}),
          loss, p.rig, &focal, free_angles ? &p.angles[i] : &step, point);
    }
    *summary = cvis_turn_summary{};
    if (solver_problem.NumResidualBlocks() == 0) return Fail(CVIS_NOT_ENOUGH_DATA, "turn problem: no observation of a finite point");
    if (!options->refine_focal_length) solver_problem.SetParameterBlockConstant(&focal);
    if (options->steps == CVIS_TURN_FREE && solver_problem.HasParameterBlock(&p.angles[0])) {
      solver_problem.SetParameterBlockConstant(&p.angles[0]);
    }
    if (options->steps == CVIS_TURN_EVEN_CLOSED) solver_problem.SetParameterBlockConstant(&step);
    ceres::Solver::Options solver_options;
    solver_options.linear_solver_type = ceres::SPARSE_SCHUR;
    solver_options.max_num_iterations = options->max_iterations;
    solver_options.function_tolerance = 1e-9;
    solver_options.num_threads = std::max(1, options->num_threads);
    solver_options.logging_type = ceres::SILENT;
    ceres::Solver::Summary solver_summary;
    ceres::Solve(solver_options, &solver_problem, &solver_summary);
    p.focal_length = focal;
    if (options->steps != CVIS_TURN_FREE) {
      for (int i = 0; i < n; ++i) p.angles[i] = i * step;
    }
    summary->initial_cost = solver_summary.initial_cost;
    summary->final_cost = solver_summary.final_cost;
    summary->iterations = int32_t(solver_summary.iterations.size());
    summary->usable = solver_summary.IsSolutionUsable() ? 1 : 0;
    return CVIS_OK;
  });
}

extern "C" cvis_status cvis_turn_triangulate(cvis_turn_problem* problem) {
  using namespace cvis;
  return Guard([&]() -> cvis_status {
    if (cvis_status status = Validate(problem); status != CVIS_OK) return status;
    const cvis_turn_problem& p = *problem;
    std::vector<cv::Matx34d> projections;
    for (int i = 0; i < p.num_frames; ++i) projections.push_back(Projection(p, i));
    std::vector<std::vector<int32_t>> by_point(size_t(p.num_points));
    for (int32_t k = 0; k < p.num_observations; ++k) by_point[size_t(p.obs_point[k])].push_back(k);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    for (int32_t j = 0; j < p.num_points; ++j) {
      double* out = p.points3D + 3 * j;
      const auto& seen = by_point[size_t(j)];
      out[0] = out[1] = out[2] = nan;
      if (seen.size() < 2) continue;
      cv::Mat a(int(2 * seen.size()), 4, CV_64F);
      for (size_t m = 0; m < seen.size(); ++m) {
        const cv::Matx34d& P = projections[size_t(p.obs_frame[seen[m]])];
        const double x = p.obs_xy[2 * seen[m]], y = p.obs_xy[2 * seen[m] + 1];
        for (int col = 0; col < 4; ++col) {
          a.at<double>(int(2 * m), col) = x * P(2, col) - P(0, col);
          a.at<double>(int(2 * m + 1), col) = y * P(2, col) - P(1, col);
        }
      }
      cv::Mat h;
      cv::SVD::solveZ(a, h);
      if (std::abs(h.at<double>(3)) < 1e-12) continue;
      const double x[3] = {h.at<double>(0) / h.at<double>(3), h.at<double>(1) / h.at<double>(3), h.at<double>(2) / h.at<double>(3)};
      bool in_front = true;
      for (int32_t k : seen) in_front = in_front && Project(projections[size_t(p.obs_frame[k])], x)[2] > 0;
      if (!in_front) continue;
      out[0] = x[0], out[1] = x[1], out[2] = x[2];
    }
    return CVIS_OK;
  });
}

extern "C" cvis_status cvis_turn_reprojection_errors(const cvis_turn_problem* problem, double* errors) {
  using namespace cvis;
  return Guard([&]() -> cvis_status {
    if (cvis_status status = Validate(problem); status != CVIS_OK) return status;
    if (errors == nullptr) return Fail(CVIS_INVALID_ARGUMENT, "cvis_turn_reprojection_errors: null argument");
    const cvis_turn_problem& p = *problem;
    std::vector<cv::Matx34d> projections;
    for (int i = 0; i < p.num_frames; ++i) projections.push_back(Projection(p, i));
    for (int32_t k = 0; k < p.num_observations; ++k) {
      const double* point = p.points3D + 3 * p.obs_point[k];
      errors[k] = std::numeric_limits<double>::infinity();
      if (!Finite(point)) continue;
      const cv::Vec3d h = Project(projections[size_t(p.obs_frame[k])], point);
      if (!(h[2] > 1e-12)) continue;
      errors[k] = std::hypot(h[0] / h[2] - p.obs_xy[2 * k], h[1] / h[2] - p.obs_xy[2 * k + 1]);
    }
    return CVIS_OK;
  });
}
