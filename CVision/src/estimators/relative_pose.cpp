// Relative pose from the essential matrix on normalised coordinates (cvis_geometry.h).
#include <ceres/ceres.h>
#include <ceres/rotation.h>
#include <opencv2/calib3d.hpp>

#include <cmath>
#include <vector>

#include "../../include/cvis_geometry.h"
#include "../util/status.h"
#include "../optim/ceres_logging.h"

namespace cvis {
namespace {

// recoverPose discards triangulated points farther than this (in baselines) as being at
// infinity; OpenCV's 50 rejects real points of narrow-baseline pairs, so allow far more.
constexpr double kMaxDepthInBaselines = 1e4;

// Sampson error of a correspondence under E = [t]x R, the first-order geometric distance to the
// epipolar constraint (what RANSAC scored inliers with).
struct SampsonError {
  SampsonError(const cv::Point2d& x1, const cv::Point2d& x2) : x1(x1), x2(x2) {}

  // rotation: cam2_from_cam1 angle-axis (3). translation: unit direction (3, on the sphere).
  template <typename T>
  bool operator()(const T* const rotation, const T* const translation, T* residual) const {
    T r[9];
    ceres::AngleAxisToRotationMatrix(rotation, ceres::RowMajorAdapter3x3(r));
    const T* t = translation;
    // E = [t]x R, row by row.
    T e[9];
    for (int c = 0; c < 3; ++c) {
      e[0 * 3 + c] = -t[2] * r[3 + c] + t[1] * r[6 + c];
      e[1 * 3 + c] = t[2] * r[0 + c] - t[0] * r[6 + c];
      e[2 * 3 + c] = -t[1] * r[0 + c] + t[0] * r[3 + c];
    }
    const T ex1[3] = {e[0] * x1.x + e[1] * x1.y + e[2], e[3] * x1.x + e[4] * x1.y + e[5],
                      e[6] * x1.x + e[7] * x1.y + e[8]};
    const T etx2_0 = e[0] * x2.x + e[3] * x2.y + e[6];
    const T etx2_1 = e[1] * x2.x + e[4] * x2.y + e[7];
    const T numerator = x2.x * ex1[0] + x2.y * ex1[1] + ex1[2];
    const T denominator = ex1[0] * ex1[0] + ex1[1] * ex1[1] + etx2_0 * etx2_0 + etx2_1 * etx2_1;
    using std::sqrt;
    residual[0] = numerator / sqrt(denominator + T(1e-300));
    return true;
  }

  static ceres::CostFunction* Create(const cv::Point2d& x1, const cv::Point2d& x2) {
    return new ceres::AutoDiffCostFunction<SampsonError, 1, 3, 3>(new SampsonError(x1, x2));
  }

  cv::Point2d x1, x2;
};

// Least-squares refinement of (R, t) over the inliers: RANSAC's answer comes from five points,
// and with a narrow field of view that leaves degrees of error the full inlier set removes.
void RefinePose(const std::vector<cv::Point2d>& p1, const std::vector<cv::Point2d>& p2,
                const std::vector<uint8_t>& inliers, double rotation[3], double translation[3]) {
  ceres::Problem problem;
  for (size_t i = 0; i < p1.size(); ++i) {
    if (inliers[i]) {
      problem.AddResidualBlock(SampsonError::Create(p1[i], p2[i]), nullptr, rotation, translation);
    }
  }
  if (problem.NumResidualBlocks() < 5) return;
  problem.SetManifold(translation, new ceres::SphereManifold<3>);
  ceres::Solver::Options options;
  options.linear_solver_type = ceres::DENSE_QR;
  options.max_num_iterations = 50;
  options.logging_type = ceres::SILENT;
  ceres::Solver::Summary summary;
  cvis::QuietCeresWarnings();
  ceres::Solve(options, &problem, &summary);
}

// Squared-Sampson inlier test of every correspondence under the pose; returns the count.
int32_t SampsonInliers(const std::vector<cv::Point2d>& p1, const std::vector<cv::Point2d>& p2,
                       const double rotation[3], const double translation[3], double max_error,
                       std::vector<uint8_t>* inliers) {
  int32_t count = 0;
  inliers->assign(p1.size(), 0);
  for (size_t i = 0; i < p1.size(); ++i) {
    double r;
    SampsonError(p1[i], p2[i])(rotation, translation, &r);
    if (r * r <= max_error * max_error) {
      (*inliers)[i] = 1;
      ++count;
    }
  }
  return count;
}

cvis_status EstimateRelativePose(const double* points1, const double* points2, int32_t n,
                                 double max_error, double confidence, uint64_t seed,
                                 double rotation[3], double translation[3], uint8_t* inlier_mask,
                                 int32_t* num_inliers) {
  if (n < 0 || (n > 0 && (!points1 || !points2)) || !rotation || !translation) {
    return Fail(CVIS_INVALID_ARGUMENT, Str("bad arguments (n = ", n, ")"));
  }
  if (!(max_error > 0) || !(confidence > 0 && confidence < 1)) {
    return Fail(CVIS_INVALID_ARGUMENT, "max_error > 0 and 0 < confidence < 1 required");
  }
  if (inlier_mask) std::fill(inlier_mask, inlier_mask + n, uint8_t(0));
  if (num_inliers) *num_inliers = 0;
  if (n < 5) return Fail(CVIS_NOT_ENOUGH_DATA, Str(n, " correspondences, 5 needed"));
  std::vector<cv::Point2d> p1(n), p2(n);
  for (int32_t i = 0; i < n; ++i) {
    p1[i] = {points1[2 * i], points1[2 * i + 1]};
    p2[i] = {points2[2 * i], points2[2 * i + 1]};
    if (!std::isfinite(p1[i].x + p1[i].y + p2[i].x + p2[i].y)) {
      return Fail(CVIS_INVALID_ARGUMENT, Str("correspondence ", i, " is not finite"));
    }
  }

  // USAC (five-point samples, MSAC score, local optimisation) seeded by the caller; identity
  // intrinsics, so the threshold stays in normalised units.
  cv::UsacParams params;
  params.threshold = max_error;
  params.confidence = confidence;
  params.maxIterations = 10000;
  params.randomGeneratorState = int(uint32_t(seed ^ (seed >> 32)) & 0x7fffffff);
  params.isParallel = false;
  params.sampler = cv::SAMPLING_UNIFORM;
  params.score = cv::SCORE_METHOD_MSAC;
  params.loMethod = cv::LOCAL_OPTIM_INNER_LO;
  const cv::Mat identity = cv::Mat::eye(3, 3, CV_64F);
  cv::Mat mask;
  cv::Mat e = cv::findEssentialMat(p1, p2, identity, identity, cv::noArray(), cv::noArray(),
                                   mask, params);
  if (e.rows < 3 || e.cols != 3) return Fail(CVIS_NO_CONVERGENCE, "no essential matrix found");
  e = e.rowRange(0, 3).clone();  // several solutions may come stacked; the first is the best

  cv::Mat r, t;
  mask.convertTo(mask, CV_8U);
  int count = cv::recoverPose(e, p1, p2, identity, r, t, kMaxDepthInBaselines, mask);
  if (count < 5) return Fail(CVIS_NOT_ENOUGH_DATA, Str(count, " inliers in front of both cameras"));

  cv::Mat rvec;
  cv::Rodrigues(r, rvec);
  double refined_r[3], refined_t[3];
  const double norm = cv::norm(t);
  for (int c = 0; c < 3; ++c) {
    refined_r[c] = rvec.at<double>(c);
    refined_t[c] = t.at<double>(c) / norm;
  }
  // Refine on the inliers, re-select them under the refined pose, refine once more; then let
  // recoverPose (on E of the refined pose) pick the in-front inliers and the pose's sign.
  std::vector<uint8_t> inliers(mask.begin<uint8_t>(), mask.end<uint8_t>());
  for (int round = 0; round < 2; ++round) {
    RefinePose(p1, p2, inliers, refined_r, refined_t);
    SampsonInliers(p1, p2, refined_r, refined_t, max_error, &inliers);
  }
  cv::Mat refined_rotation;
  cv::Rodrigues(cv::Mat(3, 1, CV_64F, refined_r), refined_rotation);
  const cv::Matx33d tx(0, -refined_t[2], refined_t[1], refined_t[2], 0, -refined_t[0],
                       -refined_t[1], refined_t[0], 0);
  const cv::Mat refined_e = cv::Mat(tx) * refined_rotation;
  cv::Mat refined_mask(inliers, true);
  cv::Mat r2, t2;
  const int refined_count =
      cv::recoverPose(refined_e, p1, p2, identity, r2, t2, kMaxDepthInBaselines, refined_mask);
  if (refined_count >= 5) {
    r = r2;
    t = t2;
    mask = refined_mask;
    count = refined_count;
  }

  cv::Rodrigues(r, rvec);
  const double t_norm = cv::norm(t);
  for (int c = 0; c < 3; ++c) {
    rotation[c] = rvec.at<double>(c);
    translation[c] = t.at<double>(c) / t_norm;
  }
  if (inlier_mask) {
    for (int32_t i = 0; i < n; ++i) inlier_mask[i] = mask.at<uint8_t>(i) ? 1 : 0;
  }
  if (num_inliers) *num_inliers = count;
  return CVIS_OK;
}

}  // namespace
}  // namespace cvis

extern "C" {

cvis_status cvis_estimate_relative_pose(const double* points1, const double* points2, int32_t n,
                                        double max_error, double confidence, uint64_t seed,
                                        double cam2_from_cam1_rotation[3],
                                        double cam2_from_cam1_translation[3],
                                        uint8_t* inlier_mask, int32_t* num_inliers) {
  return cvis::Guard([&] {
    return cvis::EstimateRelativePose(points1, points2, n, max_error, confidence, seed,
                                      cam2_from_cam1_rotation, cam2_from_cam1_translation,
                                      inlier_mask, num_inliers);
  });
}

}  // extern "C"
