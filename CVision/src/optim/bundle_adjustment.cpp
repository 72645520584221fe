// Bundle adjustment with Ceres (cvis_bundle.h): cameras, poses and points refined together, and
// the project/unproject entry points that share the same camera models.
#include <ceres/ceres.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <vector>

#include "../../include/cvis_bundle.h"
#include "../util/status.h"
#include "camera_models.h"
#include "ceres_logging.h"
#include "cost_functions.h"
#include "padded_subset_manifold.h"
#include "pose_prior_costs.h"

namespace cvis {
namespace {

// Parameters of a pose block (angle-axis rotation, translation).
constexpr int kPoseTangentSize = 6;

// Ceres aborts on inconsistent input, so everything is checked here before a Problem exists.
cvis_status ValidateProblem(const cvis_ba_problem& p, const cvis_ba_options& o) {
  if (p.num_cameras < 0 || p.num_images < 0 || p.num_points < 0 || p.num_observations < 0) {
    return Fail(CVIS_INVALID_ARGUMENT,
                Str("negative size: cameras ", p.num_cameras, ", images ", p.num_images,
                    ", points ", p.num_points, ", observations ", p.num_observations));
  }
  if ((p.num_cameras > 0 && (!p.camera_models || !p.camera_params)) ||
      (p.num_images > 0 && (!p.image_camera || !p.image_poses || !p.pose_mode)) ||
      (p.num_points > 0 && !p.points3D) ||
      (p.num_observations > 0 && (!p.obs_image || !p.obs_point || !p.obs_xy))) {
    return Fail(CVIS_INVALID_ARGUMENT, "a required array is NULL");
  }
  for (int32_t i = 0; i < p.num_cameras; ++i) {
    if (!IsValidCameraModel(p.camera_models[i])) {
      return Fail(CVIS_INVALID_ARGUMENT, Str("camera ", i, ": unknown model ", p.camera_models[i]));
    }
    const double* params = p.camera_params + size_t(i) * CVIS_CAMERA_PARAMS_STRIDE;
    for (int k = 0; k < CameraModelNumParams(p.camera_models[i]); ++k) {
      if (!std::isfinite(params[k])) {
        return Fail(CVIS_INVALID_ARGUMENT, Str("camera ", i, ": parameter ", k, " is not finite"));
      }
    }
    if (!(params[0] > 0) || (p.camera_models[i] == CVIS_PINHOLE && !(params[1] > 0))) {
      return Fail(CVIS_INVALID_ARGUMENT, Str("camera ", i, ": focal length must be positive"));
    }
  }
  for (int32_t i = 0; i < p.num_images; ++i) {
    if (p.image_camera[i] < 0 || p.image_camera[i] >= p.num_cameras) {
      return Fail(CVIS_INVALID_ARGUMENT, Str("image ", i, ": camera index ", p.image_camera[i],
                                             " out of range 0..", p.num_cameras - 1));
    }
    const int32_t mode = p.pose_mode[i];
    if (mode != CVIS_POSE_FREE && mode != CVIS_POSE_CONSTANT && (mode < 0 || mode > 2)) {
      return Fail(CVIS_INVALID_ARGUMENT, Str("image ", i, ": unknown pose mode ", mode));
    }
    for (int k = 0; k < 6; ++k) {
      if (!std::isfinite(p.image_poses[size_t(i) * 6 + k])) {
        return Fail(CVIS_INVALID_ARGUMENT, Str("image ", i, ": pose is not finite"));
      }
    }
  }
  for (int64_t k = 0; k < int64_t(p.num_points) * 3; ++k) {
    if (!std::isfinite(p.points3D[k])) {
      return Fail(CVIS_INVALID_ARGUMENT, Str("point ", k / 3, " is not finite"));
    }
  }
  for (int32_t k = 0; k < p.num_observations; ++k) {
    if (p.obs_image[k] < 0 || p.obs_image[k] >= p.num_images) {
      return Fail(CVIS_INVALID_ARGUMENT, Str("observation ", k, ": image index ", p.obs_image[k],
                                             " out of range 0..", p.num_images - 1));
    }
    if (p.obs_point[k] < 0 || p.obs_point[k] >= p.num_points) {
      return Fail(CVIS_INVALID_ARGUMENT, Str("observation ", k, ": point index ", p.obs_point[k],
                                             " out of range 0..", p.num_points - 1));
    }
    if (!std::isfinite(p.obs_xy[2 * size_t(k)]) || !std::isfinite(p.obs_xy[2 * size_t(k) + 1])) {
      return Fail(CVIS_INVALID_ARGUMENT, Str("observation ", k, " is not finite"));
    }
  }
  if (o.loss < CVIS_LOSS_TRIVIAL || o.loss > CVIS_LOSS_SOFT_L1) {
    return Fail(CVIS_INVALID_ARGUMENT, Str("unknown loss ", o.loss));
  }
  if (!(o.loss_scale_px > 0) || o.max_iterations < 0 || !(o.function_tolerance >= 0) ||
      !(o.gradient_tolerance >= 0) || !(o.parameter_tolerance >= 0) || o.num_threads < 1) {
    return Fail(CVIS_INVALID_ARGUMENT,
                "options: loss_scale_px > 0, max_iterations >= 0, tolerances >= 0 and "
                "num_threads >= 1 required");
  }
  return CVIS_OK;
}

ceres::LossFunction* MakeLoss(const cvis_ba_options& o) {
  switch (o.loss) {
    case CVIS_LOSS_HUBER: return new ceres::HuberLoss(o.loss_scale_px);
    case CVIS_LOSS_CAUCHY: return new ceres::CauchyLoss(o.loss_scale_px);
    case CVIS_LOSS_SOFT_L1: return new ceres::SoftLOneLoss(o.loss_scale_px);
    default: return nullptr;  // trivial: plain squared error
  }
}

// Pixel reprojection error of one observation; false when the point is not in front.
bool ObservationError(const cvis_ba_problem& p, int32_t k, double* squared_error) {
  const int32_t image = p.obs_image[k];
  const int32_t camera = p.image_camera[image];
  const double* params = p.camera_params + size_t(camera) * CVIS_CAMERA_PARAMS_STRIDE;
  const double* pose = p.image_poses + size_t(image) * 6;
  const double* point = p.points3D + size_t(p.obs_point[k]) * 3;
  double r[2];
  VisitCameraModel(p.camera_models[camera], [&](auto model) {
    ReprojectionError<decltype(model)>(p.obs_xy[2 * size_t(k)], p.obs_xy[2 * size_t(k) + 1])(
        pose, point, params, r);
  });
  double depth[3];
  ceres::AngleAxisRotatePoint(pose, point, depth);
  if (!(depth[2] + pose[5] > kMinDepth)) return false;
  *squared_error = r[0] * r[0] + r[1] * r[1];
  return true;
}

// RMS over the observations whose point lies in front of its camera (others have no error).
double RmsError(const cvis_ba_problem& p) {
  double sum = 0;
  int64_t count = 0;
  for (int32_t k = 0; k < p.num_observations; ++k) {
    double e;
    if (ObservationError(p, k, &e)) {
      sum += e;
      ++count;
    }
  }
  return count > 0 ? std::sqrt(sum / double(count)) : 0;
}

// The parameter indices a camera keeps fixed under the options.
std::vector<int> ConstantCameraParams(int model, const cvis_ba_options& o) {
  return VisitCameraModel(model, [&](auto m) {
    using Model = decltype(m);
    std::vector<int> fixed;
    auto add = [&](const std::vector<int>& indices) {
      fixed.insert(fixed.end(), indices.begin(), indices.end());
    };
    if (!o.refine_focal_length) add(Model::FocalIndices());
    if (!o.refine_principal_point) add(Model::PrincipalPointIndices());
    if (!o.refine_extra_params) add(Model::ExtraIndices());
    return fixed;
  });
}

// The cost function of one observation and the parameter blocks it takes, in order.
struct ObservationCost {
  ceres::CostFunction* cost;
  std::vector<double*> blocks;
};

// The analytic reprojection cost (ReprojectionCost) that the solver uses, holding a constant pose
// and/or camera as data; with autodiff, the functor of the same form instead (the reference the
// analytic costs are tested against).
ObservationCost MakeObservationCost(int model, double x, double y, double* pose,
                                    bool pose_constant, double* point, double* camera_params,
                                    bool camera_constant, bool autodiff = false) {
  return VisitCameraModel(model, [&](auto m) -> ObservationCost {
    using Model = decltype(m);
    if (pose_constant && camera_constant) {
      return {autodiff ? ReprojectionErrorConstantPoseAndCamera<Model>::Create(x, y, pose, camera_params)
                       : new ReprojectionCost<Model, true, true>(x, y, pose, camera_params),
              {point}};
    }
    if (pose_constant) {
      return {autodiff ? ReprojectionErrorConstantPose<Model>::Create(x, y, pose)
                       : new ReprojectionCost<Model, true, false>(x, y, pose, camera_params),
              {point, camera_params}};
    }
    if (camera_constant) {
      return {autodiff ? ReprojectionErrorConstantCamera<Model>::Create(x, y, camera_params)
                       : new ReprojectionCost<Model, false, true>(x, y, pose, camera_params),
              {pose, point}};
    }
    return {autodiff ? ReprojectionError<Model>::Create(x, y)
                     : new ReprojectionCost<Model, false, false>(x, y, pose, camera_params),
            {pose, point, camera_params}};
  });
}

cvis_status ValidatePriors(const cvis_ba_problem& p, const cvis_ba_pose_priors* priors) {
  if (!priors) return CVIS_OK;
  if (p.num_images > 0 && (!priors->has_prior || !priors->centers || !priors->rotations)) {
    return Fail(CVIS_INVALID_ARGUMENT, "pose priors: a required array is NULL");
  }
  if (!(priors->position_sigma > 0) || !(priors->rotation_sigma_rad >= 0) || !(priors->loss_scale > 0)) {
    return Fail(CVIS_INVALID_ARGUMENT,
                "pose priors: position_sigma > 0, rotation_sigma_rad >= 0 and loss_scale > 0 required");
  }
  for (int32_t i = 0; i < p.num_images; ++i) {
    if (!priors->has_prior[i]) continue;
    for (int k = 0; k < 3; ++k) {
      if (!std::isfinite(priors->centers[3 * size_t(i) + k]) ||
          !std::isfinite(priors->rotations[3 * size_t(i) + k])) {
        return Fail(CVIS_INVALID_ARGUMENT, Str("pose priors: image ", i, ": prior is not finite"));
      }
    }
  }
  return CVIS_OK;
}

cvis_status ValidateMotion(const cvis_ba_problem& p, const cvis_ba_motion_prior* motion) {
  if (!motion) return CVIS_OK;
  if (motion->num_triples < 0 || (motion->num_triples > 0 && !motion->triples) ||
      !(motion->sigma_fraction > 0) || !(motion->loss_scale > 0)) {
    return Fail(CVIS_INVALID_ARGUMENT, "motion prior: triples, sigma_fraction > 0 and loss_scale > 0 required");
  }
  for (int64_t k = 0; k < 3 * int64_t(motion->num_triples); ++k) {
    if (motion->triples[k] < 0 || motion->triples[k] >= p.num_images) {
      return Fail(CVIS_INVALID_ARGUMENT, Str("motion prior: triple ", k / 3, ": image index out of range"));
    }
  }
  return CVIS_OK;
}

cvis_status BundleAdjust(cvis_ba_problem& p, const cvis_ba_pose_priors* priors, const cvis_ba_motion_prior* motion,
                         const cvis_ba_options& o, cvis_ba_summary* summary) {
  const auto start = std::chrono::steady_clock::now();
  if (cvis_status status = ValidateProblem(p, o); status != CVIS_OK) return status;
  if (cvis_status status = ValidatePriors(p, priors); status != CVIS_OK) return status;
  if (cvis_status status = ValidateMotion(p, motion); status != CVIS_OK) return status;

  cvis_ba_summary result{};
  result.initial_rms_px = RmsError(p);

  // One loss object shared by every residual; the problem does not take ownership.
  std::unique_ptr<ceres::LossFunction> loss(MakeLoss(o));
  ceres::Problem::Options problem_options;
  problem_options.loss_function_ownership = ceres::DO_NOT_TAKE_OWNERSHIP;
  ceres::Problem problem(problem_options);

  // A camera is constant when the caller says so or the options fix all of its parameters; the
  // rest keep their fixed parameters through a subset manifold below.
  std::vector<uint8_t> camera_constant(p.num_cameras, 0);
  std::vector<std::vector<int>> camera_fixed(p.num_cameras);
  for (int32_t i = 0; i < p.num_cameras; ++i) {
    camera_fixed[i] = ConstantCameraParams(p.camera_models[i], o);
    camera_constant[i] = (p.camera_constant && p.camera_constant[i]) ||
                         int(camera_fixed[i].size()) == CameraModelNumParams(p.camera_models[i]);
  }

  // Constant poses and cameras enter the cost functions as data, so only free blocks are in the
  // problem: "used" marks the blocks that are.
  std::vector<uint8_t> camera_used(p.num_cameras, 0), image_used(p.num_images, 0),
      point_used(p.num_points, 0);
  for (int32_t k = 0; k < p.num_observations; ++k) {
    const int32_t image = p.obs_image[k], point = p.obs_point[k];
    const int32_t camera = p.image_camera[image];
    const bool pose_constant = p.pose_mode[image] == CVIS_POSE_CONSTANT;
    ObservationCost observation = MakeObservationCost(
        p.camera_models[camera], p.obs_xy[2 * size_t(k)], p.obs_xy[2 * size_t(k) + 1],
        p.image_poses + size_t(image) * 6, pose_constant, p.points3D + size_t(point) * 3,
        p.camera_params + size_t(camera) * CVIS_CAMERA_PARAMS_STRIDE, camera_constant[camera]);
    problem.AddResidualBlock(observation.cost, loss.get(), observation.blocks);
    point_used[point] = 1;
    if (!pose_constant) image_used[image] = 1;
    if (!camera_constant[camera]) camera_used[camera] = 1;
  }

  // Pose priors on the free poses in the problem, each with its own robust loss (in sigmas).
  std::unique_ptr<ceres::LossFunction> prior_loss(
      priors ? new ceres::CauchyLoss(priors->loss_scale) : nullptr);
  if (priors) {
    for (int32_t i = 0; i < p.num_images; ++i) {
      if (!priors->has_prior[i] || !image_used[i] || p.pose_mode[i] == CVIS_POSE_CONSTANT) continue;
      double* pose = p.image_poses + size_t(i) * 6;
      problem.AddResidualBlock(
          PositionPriorError::Create(priors->centers + 3 * size_t(i), priors->position_sigma),
          prior_loss.get(), pose);
      if (priors->rotation_sigma_rad > 0) {
        problem.AddResidualBlock(
            RotationPriorError::Create(priors->rotations + 3 * size_t(i), priors->rotation_sigma_rad),
            prior_loss.get(), pose);
      }
    }
  }

  // Motion prior: triples with at least one free pose; constant poses join as constant blocks.
  std::unique_ptr<ceres::LossFunction> motion_loss(motion ? new ceres::CauchyLoss(motion->loss_scale) : nullptr);
  for (int32_t t = 0; motion && t < motion->num_triples; ++t) {
    const int32_t* triple = motion->triples + 3 * size_t(t);
    bool any_free = false;
    double centers[3][3];
    for (int k = 0; k < 3; ++k) {
      any_free = any_free || image_used[triple[k]];
      MotionSmoothnessError::Center(p.image_poses + size_t(triple[k]) * 6, centers[k]);
    }
    double step = 0;
    for (int k = 0; k < 2; ++k) {
      double squared = 0;
      for (int d = 0; d < 3; ++d) squared += (centers[k + 1][d] - centers[k][d]) * (centers[k + 1][d] - centers[k][d]);
      step += 0.5 * std::sqrt(squared);
    }
    if (!any_free || !(step > 0)) continue;
    double* blocks[3];
    for (int k = 0; k < 3; ++k) blocks[k] = p.image_poses + size_t(triple[k]) * 6;
    problem.AddResidualBlock(MotionSmoothnessError::Create(motion->sigma_fraction * step), motion_loss.get(),
                             blocks[0], blocks[1], blocks[2]);
    for (int k = 0; k < 3; ++k) {
      if (!image_used[triple[k]]) problem.SetParameterBlockConstant(blocks[k]);
    }
  }

  // Gauge and calibration: only blocks that are in the problem may be marked. Every block of
  // the reduced system keeps a tangent of kPoseTangentSize where it can, so that Ceres takes
  // its fixed-size Schur eliminator (see PaddedSubsetManifold).
  for (int32_t i = 0; i < p.num_cameras; ++i) {
    if (!camera_used[i]) continue;
    const int num_params = CameraModelNumParams(p.camera_models[i]);
    const int num_free = num_params - int(camera_fixed[i].size());
    double* block = p.camera_params + size_t(i) * CVIS_CAMERA_PARAMS_STRIDE;
    if (num_free < kPoseTangentSize) {
      problem.SetManifold(block, new PaddedSubsetManifold(num_params, camera_fixed[i], kPoseTangentSize));
    } else if (!camera_fixed[i].empty()) {
      problem.SetManifold(block, new ceres::SubsetManifold(num_params, camera_fixed[i]));
    }
  }
  for (int32_t i = 0; i < p.num_images; ++i) {
    if (image_used[i] && p.pose_mode[i] >= 0) {
      // Rotation and translation share one block: translation coordinate c is entry 3 + c.
      problem.SetManifold(p.image_poses + size_t(i) * 6,
                          new PaddedSubsetManifold(6, {3 + p.pose_mode[i]}, kPoseTangentSize));
    }
  }
  if (p.point_constant) {
    for (int32_t j = 0; j < p.num_points; ++j) {
      if (point_used[j] && p.point_constant[j]) problem.SetParameterBlockConstant(p.points3D + size_t(j) * 3);
    }
  }

  int32_t num_images_used = 0;
  for (uint8_t used : image_used) num_images_used += used;

  ceres::Solver::Options solver_options;
  solver_options.minimizer_type = ceres::TRUST_REGION;
  solver_options.trust_region_strategy_type = ceres::LEVENBERG_MARQUARDT;
  // The reduced camera system is dense and small for a few dozen images; beyond that its
  // sparsity (images that share no points) pays for a sparse factorisation.
  if (num_images_used > 50 &&
      ceres::IsSparseLinearAlgebraLibraryTypeAvailable(ceres::SUITE_SPARSE)) {
    solver_options.linear_solver_type = ceres::SPARSE_SCHUR;
    solver_options.sparse_linear_algebra_library_type = ceres::SUITE_SPARSE;
  } else {
    solver_options.linear_solver_type = ceres::DENSE_SCHUR;
  }
  // Points first in the Schur elimination; poses and cameras form the reduced system.
  auto* ordering = new ceres::ParameterBlockOrdering;
  for (int32_t j = 0; j < p.num_points; ++j) {
    if (point_used[j]) ordering->AddElementToGroup(p.points3D + size_t(j) * 3, 0);
  }
  for (int32_t i = 0; i < p.num_images; ++i) {
    if (image_used[i]) ordering->AddElementToGroup(p.image_poses + size_t(i) * 6, 1);
  }
  for (int32_t i = 0; i < p.num_cameras; ++i) {
    if (camera_used[i]) {
      ordering->AddElementToGroup(p.camera_params + size_t(i) * CVIS_CAMERA_PARAMS_STRIDE, 1);
    }
  }
  solver_options.linear_solver_ordering.reset(ordering);
  solver_options.max_num_iterations = o.max_iterations;
  solver_options.function_tolerance = o.function_tolerance;
  solver_options.gradient_tolerance = o.gradient_tolerance;
  solver_options.parameter_tolerance = o.parameter_tolerance;
  solver_options.num_threads = o.num_threads;
  solver_options.logging_type = ceres::SILENT;
  solver_options.minimizer_progress_to_stdout = false;

  if (p.num_observations > 0) {
    ceres::Solver::Summary ceres_summary;
    cvis::QuietCeresWarnings();
    ceres::Solve(solver_options, &problem, &ceres_summary);
    result.iterations = int32_t(ceres_summary.iterations.size()) - 1;
    result.usable = ceres_summary.IsSolutionUsable() ? 1 : 0;
  } else {
    result.usable = 1;
  }
  result.final_rms_px = RmsError(p);
  result.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (summary) *summary = result;
  return CVIS_OK;
}

}  // namespace
}  // namespace cvis

extern "C" {

void cvis_ba_options_default(cvis_ba_options* options) {
  if (!options) return;
  options->loss = CVIS_LOSS_CAUCHY;
  options->loss_scale_px = 1.0;
  options->max_iterations = 100;
  options->function_tolerance = 1e-6;
  options->gradient_tolerance = 1e-10;
  options->parameter_tolerance = 1e-8;
  options->refine_focal_length = 1;
  options->refine_principal_point = 0;
  options->refine_extra_params = 1;
  options->num_threads = 1;
}

cvis_status cvis_bundle_adjust(cvis_ba_problem* problem, const cvis_ba_options* options,
                               cvis_ba_summary* summary) {
  return cvis::Guard([&] {
    if (!problem) return cvis::Fail(CVIS_INVALID_ARGUMENT, "problem is NULL");
    cvis_ba_options defaults;
    cvis_ba_options_default(&defaults);
    return cvis::BundleAdjust(*problem, nullptr, nullptr, options ? *options : defaults, summary);
  });
}

void cvis_ba_pose_priors_default(cvis_ba_pose_priors* priors) {
  if (!priors) return;
  *priors = cvis_ba_pose_priors{};
  priors->position_sigma = 1.0;
  priors->rotation_sigma_rad = 0.0;
  priors->loss_scale = 2.0;
}

cvis_status cvis_bundle_adjust_with_priors(cvis_ba_problem* problem, const cvis_ba_pose_priors* priors,
                                           const cvis_ba_options* options, cvis_ba_summary* summary) {
  return cvis_bundle_adjust_with_motion(problem, priors, nullptr, options, summary);
}

cvis_status cvis_bundle_adjust_with_motion(cvis_ba_problem* problem, const cvis_ba_pose_priors* priors,
                                           const cvis_ba_motion_prior* motion,
                                           const cvis_ba_options* options, cvis_ba_summary* summary) {
  return cvis::Guard([&] {
    if (!problem) return cvis::Fail(CVIS_INVALID_ARGUMENT, "problem is NULL");
    cvis_ba_options defaults;
    cvis_ba_options_default(&defaults);
    return cvis::BundleAdjust(*problem, priors, motion, options ? *options : defaults, summary);
  });
}

cvis_status cvis_ba_evaluate_observation(int32_t camera_model, const double* camera_params,
                                         const double* cam_from_world, const double* point3D,
                                         const double* observed_xy, int32_t pose_constant,
                                         int32_t camera_constant, int32_t autodiff,
                                         double* residuals, double* jacobian_pose,
                                         double* jacobian_point, double* jacobian_camera) {
  return cvis::Guard([&] {
    if (!cvis::IsValidCameraModel(camera_model)) {
      return cvis::Fail(CVIS_INVALID_ARGUMENT, cvis::Str("unknown camera model ", camera_model));
    }
    if (!camera_params || !cam_from_world || !point3D || !observed_xy || !residuals) {
      return cvis::Fail(CVIS_INVALID_ARGUMENT, "a required array is NULL");
    }
    // Mutable copies: the cost function's blocks are the bundle adjuster's parameter pointers.
    double pose[6], point[3], params[CVIS_CAMERA_PARAMS_STRIDE] = {};
    std::copy(cam_from_world, cam_from_world + 6, pose);
    std::copy(point3D, point3D + 3, point);
    std::copy(camera_params, camera_params + cvis::CameraModelNumParams(camera_model), params);
    cvis::ObservationCost observation = cvis::MakeObservationCost(
        camera_model, observed_xy[0], observed_xy[1], pose, pose_constant != 0, point, params,
        camera_constant != 0, autodiff != 0);
    std::unique_ptr<ceres::CostFunction> cost(observation.cost);
    std::vector<double*> jacobians;
    for (double* block : observation.blocks) {
      jacobians.push_back(block == pose ? jacobian_pose : block == point ? jacobian_point
                                                                         : jacobian_camera);
    }
    if (!cost->Evaluate(observation.blocks.data(), residuals, jacobians.data())) {
      return cvis::Fail(CVIS_INTERNAL_ERROR, "cost function evaluation failed");
    }
    return CVIS_OK;
  });
}

cvis_status cvis_project_points(int32_t camera_model, const double* camera_params, int32_t n,
                                const double* points_in_camera, double* pixels) {
  return cvis::Guard([&] {
    if (!cvis::IsValidCameraModel(camera_model)) {
      return cvis::Fail(CVIS_INVALID_ARGUMENT, cvis::Str("unknown camera model ", camera_model));
    }
    if (n < 0 || !camera_params || (n > 0 && (!points_in_camera || !pixels))) {
      return cvis::Fail(CVIS_INVALID_ARGUMENT, cvis::Str("bad arguments (n = ", n, ")"));
    }
    cvis::VisitCameraModel(camera_model, [&](auto model) {
      using Model = decltype(model);
      for (int32_t i = 0; i < n; ++i) {
        const double* p = points_in_camera + 3 * size_t(i);
        double* out = pixels + 2 * size_t(i);
        if (!(p[2] > cvis::kMinDepth)) {
          out[0] = out[1] = std::nan("");
          continue;
        }
        Model::ImgFromCam(camera_params, p[0] / p[2], p[1] / p[2], &out[0], &out[1]);
      }
    });
    return CVIS_OK;
  });
}

cvis_status cvis_unproject_points(int32_t camera_model, const double* camera_params, int32_t n,
                                  const double* pixels, double* normalized) {
  return cvis::Guard([&] {
    if (!cvis::IsValidCameraModel(camera_model)) {
      return cvis::Fail(CVIS_INVALID_ARGUMENT, cvis::Str("unknown camera model ", camera_model));
    }
    if (n < 0 || !camera_params || (n > 0 && (!pixels || !normalized))) {
      return cvis::Fail(CVIS_INVALID_ARGUMENT, cvis::Str("bad arguments (n = ", n, ")"));
    }
    cvis::VisitCameraModel(camera_model, [&](auto model) {
      using Model = decltype(model);
      for (int32_t i = 0; i < n; ++i) {
        Model::CamFromImg(camera_params, pixels[2 * size_t(i)], pixels[2 * size_t(i) + 1],
                          &normalized[2 * size_t(i)], &normalized[2 * size_t(i) + 1]);
      }
    });
    return CVIS_OK;
  });
}

}  // extern "C"
