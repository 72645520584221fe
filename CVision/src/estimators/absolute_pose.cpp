// Robust PnP on normalised coordinates (cvis_geometry.h): OpenCV's USAC with a seeded sampler,
// then Levenberg-Marquardt on the inliers and a final inlier count against the refined pose.
#include <opencv2/calib3d.hpp>

#include <cmath>
#include <vector>

#include "../../include/cvis_geometry.h"
#include "../util/status.h"

namespace cvis {
namespace {

// Marks the correspondences whose normalised reprojection error is within max_error and that
// lie in front of the camera; returns their count.
int32_t FindInliers(const std::vector<cv::Point3d>& world, const std::vector<cv::Point2d>& image,
                    const cv::Mat& rvec, const cv::Mat& tvec, double max_error,
                    std::vector<uint8_t>* mask) {
  cv::Matx33d r;
  cv::Rodrigues(rvec, r);
  const cv::Vec3d t(tvec.at<double>(0), tvec.at<double>(1), tvec.at<double>(2));
  const double max_squared = max_error * max_error;
  int32_t count = 0;
  mask->assign(world.size(), 0);
  for (size_t i = 0; i < world.size(); ++i) {
    const cv::Vec3d x = r * cv::Vec3d(world[i].x, world[i].y, world[i].z) + t;
    if (!(x[2] > 1e-12)) continue;
    const double dx = x[0] / x[2] - image[i].x, dy = x[1] / x[2] - image[i].y;
    if (dx * dx + dy * dy <= max_squared) {
      (*mask)[i] = 1;
      ++count;
    }
  }
  return count;
}

template <typename T>
std::vector<T> Select(const std::vector<T>& values, const std::vector<uint8_t>& mask) {
  std::vector<T> selected;
  for (size_t i = 0; i < values.size(); ++i) {
    if (mask[i]) selected.push_back(values[i]);
  }
  return selected;
}

cvis_status EstimateAbsolutePose(const double* points3D, const double* points2D, int32_t n,
                                 const cvis_absolute_pose_options& o, double rotation[3],
                                 double translation[3], uint8_t* inlier_mask,
                                 int32_t* num_inliers) {
  if (n < 0 || (n > 0 && (!points3D || !points2D)) || !rotation || !translation) {
    return Fail(CVIS_INVALID_ARGUMENT, Str("bad arguments (n = ", n, ")"));
  }
  if (!(o.max_error > 0) || !(o.confidence > 0 && o.confidence < 1) || o.max_iterations < 1 ||
      o.min_num_inliers < 4) {
    return Fail(CVIS_INVALID_ARGUMENT,
                "options: max_error > 0, 0 < confidence < 1, max_iterations >= 1 and "
                "min_num_inliers >= 4 required");
  }
  if (inlier_mask) std::fill(inlier_mask, inlier_mask + n, uint8_t(0));
  if (num_inliers) *num_inliers = 0;
  if (n < o.min_num_inliers) {
    return Fail(CVIS_NOT_ENOUGH_DATA, Str(n, " correspondences, ", o.min_num_inliers, " needed"));
  }
  std::vector<cv::Point3d> world(n);
  std::vector<cv::Point2d> image(n);
  for (int32_t i = 0; i < n; ++i) {
    world[i] = {points3D[3 * i], points3D[3 * i + 1], points3D[3 * i + 2]};
    image[i] = {points2D[2 * i], points2D[2 * i + 1]};
    if (!std::isfinite(world[i].x + world[i].y + world[i].z + image[i].x + image[i].y)) {
      return Fail(CVIS_INVALID_ARGUMENT, Str("correspondence ", i, " is not finite"));
    }
  }

  // USAC with the caller's seed: P3P samples, MSAC scoring, inner local optimisation. The
  // sampler state is the only randomness, so equal input and seed give an equal pose.
  cv::UsacParams params;
  params.threshold = o.max_error;
  params.confidence = o.confidence;
  params.maxIterations = o.max_iterations;
  params.randomGeneratorState = int(uint32_t(o.seed ^ (o.seed >> 32)) & 0x7fffffff);
  params.isParallel = false;
  params.sampler = cv::SAMPLING_UNIFORM;
  params.score = cv::SCORE_METHOD_MSAC;
  params.loMethod = cv::LOCAL_OPTIM_INNER_LO;
  cv::Mat camera_matrix = cv::Mat::eye(3, 3, CV_64F);
  cv::Mat rvec, tvec;
  std::vector<int> usac_inliers;
  const bool found = cv::solvePnPRansac(world, image, camera_matrix, cv::noArray(), rvec, tvec,
                                        usac_inliers, params);
  if (!found || rvec.empty() || tvec.empty()) {
    return Fail(CVIS_NO_CONVERGENCE, "no pose found");
  }
  rvec.convertTo(rvec, CV_64F);
  tvec.convertTo(tvec, CV_64F);
  rvec = rvec.reshape(1, 3);
  tvec = tvec.reshape(1, 3);

  std::vector<uint8_t> mask;
  int32_t count = FindInliers(world, image, rvec, tvec, o.max_error, &mask);
  // Refining can admit points that the sample's pose just missed, and the new inliers improve
  // the next refinement: repeat while the set grows (twice is usually all it takes).
  for (int round = 0; o.refine && round < 3 && count >= 4; ++round) {
    cv::Mat refined_r = rvec.clone(), refined_t = tvec.clone();
    cv::solvePnPRefineLM(Select(world, mask), Select(image, mask), camera_matrix, cv::noArray(),
                         refined_r, refined_t);
    std::vector<uint8_t> refined_mask;
    const int32_t refined_count =
        FindInliers(world, image, refined_r, refined_t, o.max_error, &refined_mask);
    if (refined_count < count) break;
    const bool grew = refined_count > count;
    rvec = refined_r;
    tvec = refined_t;
    mask.swap(refined_mask);
    count = refined_count;
    if (!grew) break;
  }

  if (count < o.min_num_inliers) {
    return Fail(CVIS_NOT_ENOUGH_DATA, Str(count, " inliers, ", o.min_num_inliers, " needed"));
  }
  for (int c = 0; c < 3; ++c) {
    rotation[c] = rvec.at<double>(c);
    translation[c] = tvec.at<double>(c);
  }
  if (inlier_mask) std::copy(mask.begin(), mask.end(), inlier_mask);
  if (num_inliers) *num_inliers = count;
  return CVIS_OK;
}

}  // namespace
}  // namespace cvis

extern "C" {

void cvis_absolute_pose_options_default(cvis_absolute_pose_options* options) {
  if (!options) return;
  options->max_error = 0.004;
  options->confidence = 0.9999;
  options->max_iterations = 10000;
  options->min_num_inliers = 12;
  options->refine = 1;
  options->seed = 0;
}

cvis_status cvis_estimate_absolute_pose(const double* points3D, const double* points2D, int32_t n,
                                        const cvis_absolute_pose_options* options,
                                        double cam_from_world_rotation[3],
                                        double cam_from_world_translation[3],
                                        uint8_t* inlier_mask, int32_t* num_inliers) {
  return cvis::Guard([&] {
    cvis_absolute_pose_options defaults;
    cvis_absolute_pose_options_default(&defaults);
    return cvis::EstimateAbsolutePose(points3D, points2D, n, options ? *options : defaults,
                                      cam_from_world_rotation, cam_from_world_translation,
                                      inlier_mask, num_inliers);
  });
}

}  // extern "C"
