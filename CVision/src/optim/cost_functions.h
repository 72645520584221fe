// Ceres cost functors, written as the Ceres examples write them (snavely_reprojection_error.h).
//
// One reprojection error in four forms, as COLMAP's ReprojErrorCostFunctor and its
// ReprojErrorConstantPoseCostFunctor: a block that stays constant during a solve is copied into
// the functor as plain data instead of being a parameter block. Autodiff evaluates a Jet as wide
// as all parameter blocks of a residual together, constant or not, so the general form costs
// Jet<6 + 3 + kNumParams> per observation even when only the point moves; the constant-camera
// form costs Jet<9> (local bundle adjustment, intrinsics fixed) and the constant-pose-and-camera
// form Jet<3> (the observations of images held still).
#pragma once

#include <ceres/autodiff_cost_function.h>
#include <ceres/rotation.h>

#include <algorithm>

#include "camera_models.h"

namespace cvis {

// Below this depth (in the camera's units) a point has no defined projection.
constexpr double kMinDepth = 1e-9;
// Residual given, with zero derivatives, to an observation whose point is not in front of the
// camera: constant so that it neither produces NaN nor pulls the parameters anywhere, large so
// that a step moving a point behind a camera that sees it raises the cost and is rejected.
constexpr double kBehindCameraResidual = 1e3;

// Pixel residual of a point in camera coordinates p; camera_params may be plain doubles (a
// constant camera) or the same Jets as p.
template <typename CameraModel, typename T, typename P>
inline void PixelResidual(const T* p, const P* camera_params, double observed_x,
                          double observed_y, T* residuals) {
  if (!(p[2] > T(kMinDepth))) {
    residuals[0] = T(kBehindCameraResidual);
    residuals[1] = T(kBehindCameraResidual);
    return;
  }
  T x, y;
  CameraModel::ImgFromCam(camera_params, p[0] / p[2], p[1] / p[2], &x, &y);
  residuals[0] = x - T(observed_x);
  residuals[1] = y - T(observed_y);
}

// A constant pose as rotation matrix and translation, so that mapping a Jet point costs nine
// scalar-times-Jet products instead of angle-axis trigonometry on Jets.
struct ConstantPose {
  explicit ConstantPose(const double* cam_from_world) {
    ceres::AngleAxisToRotationMatrix(cam_from_world, ceres::RowMajorAdapter3x3(rotation));
    std::copy(cam_from_world + 3, cam_from_world + 6, translation);
  }

  template <typename T>
  void Apply(const T* point3D, T* p) const {
    for (int r = 0; r < 3; ++r) {
      p[r] = rotation[3 * r] * point3D[0] + rotation[3 * r + 1] * point3D[1] +
             rotation[3 * r + 2] * point3D[2] + translation[r];
    }
  }

  double rotation[9];  // row-major
  double translation[3];
};

// Reprojection error of one observation (pixels) for a camera model (camera_models.h), with
// pose, point and camera all free.
template <typename CameraModel>
struct ReprojectionError {
  ReprojectionError(double observed_x, double observed_y)
      : observed_x(observed_x), observed_y(observed_y) {}

  // cam_from_world: angle-axis rotation (3) then translation (3).
  // point3D: the point in world coordinates (3).
  // camera_params: the model's parameters in COLMAP order (CameraModel::kNumParams).
  template <typename T>
  bool operator()(const T* const cam_from_world, const T* const point3D,
                  const T* const camera_params, T* residuals) const {
    T p[3];
    ceres::AngleAxisRotatePoint(cam_from_world, point3D, p);
    p[0] += cam_from_world[3];
    p[1] += cam_from_world[4];
    p[2] += cam_from_world[5];
    PixelResidual<CameraModel>(p, camera_params, observed_x, observed_y, residuals);
    return true;
  }

  static ceres::CostFunction* Create(double observed_x, double observed_y) {
    return new ceres::AutoDiffCostFunction<ReprojectionError, 2, 6, 3, CameraModel::kNumParams>(
        new ReprojectionError(observed_x, observed_y));
  }

  double observed_x;
  double observed_y;
};

// The same with the camera's parameters constant: blocks pose (6) and point (3).
template <typename CameraModel>
struct ReprojectionErrorConstantCamera {
  ReprojectionErrorConstantCamera(double observed_x, double observed_y,
                                  const double* camera_params)
      : observed_x(observed_x), observed_y(observed_y) {
    std::copy(camera_params, camera_params + CameraModel::kNumParams, this->camera_params);
  }

  template <typename T>
  bool operator()(const T* const cam_from_world, const T* const point3D, T* residuals) const {
    T p[3];
    ceres::AngleAxisRotatePoint(cam_from_world, point3D, p);
    p[0] += cam_from_world[3];
    p[1] += cam_from_world[4];
    p[2] += cam_from_world[5];
    PixelResidual<CameraModel>(p, camera_params, observed_x, observed_y, residuals);
    return true;
  }

  static ceres::CostFunction* Create(double observed_x, double observed_y,
                                     const double* camera_params) {
    return new ceres::AutoDiffCostFunction<ReprojectionErrorConstantCamera, 2, 6, 3>(
        new ReprojectionErrorConstantCamera(observed_x, observed_y, camera_params));
  }

  double observed_x;
  double observed_y;
  double camera_params[CameraModel::kNumParams];
};

// The same with the pose constant: blocks point (3) and camera (kNumParams).
template <typename CameraModel>
struct ReprojectionErrorConstantPose {
  ReprojectionErrorConstantPose(double observed_x, double observed_y,
                                const double* cam_from_world)
      : observed_x(observed_x), observed_y(observed_y), pose(cam_from_world) {}

  template <typename T>
  bool operator()(const T* const point3D, const T* const camera_params, T* residuals) const {
    T p[3];
    pose.Apply(point3D, p);
    PixelResidual<CameraModel>(p, camera_params, observed_x, observed_y, residuals);
    return true;
  }

  static ceres::CostFunction* Create(double observed_x, double observed_y,
                                     const double* cam_from_world) {
    return new ceres::AutoDiffCostFunction<ReprojectionErrorConstantPose, 2, 3,
                                           CameraModel::kNumParams>(
        new ReprojectionErrorConstantPose(observed_x, observed_y, cam_from_world));
  }

  double observed_x;
  double observed_y;
  ConstantPose pose;
};

// The same with pose and camera constant: the point (3) is the only block.
template <typename CameraModel>
struct ReprojectionErrorConstantPoseAndCamera {
  ReprojectionErrorConstantPoseAndCamera(double observed_x, double observed_y,
                                         const double* cam_from_world,
                                         const double* camera_params)
      : observed_x(observed_x), observed_y(observed_y), pose(cam_from_world) {
    std::copy(camera_params, camera_params + CameraModel::kNumParams, this->camera_params);
  }

  template <typename T>
  bool operator()(const T* const point3D, T* residuals) const {
    T p[3];
    pose.Apply(point3D, p);
    PixelResidual<CameraModel>(p, camera_params, observed_x, observed_y, residuals);
    return true;
  }

  static ceres::CostFunction* Create(double observed_x, double observed_y,
                                     const double* cam_from_world, const double* camera_params) {
    return new ceres::AutoDiffCostFunction<ReprojectionErrorConstantPoseAndCamera, 2, 3>(
        new ReprojectionErrorConstantPoseAndCamera(observed_x, observed_y, cam_from_world,
                                                   camera_params));
  }

  double observed_x;
  double observed_y;
  ConstantPose pose;
  double camera_params[CameraModel::kNumParams];
};

}  // namespace cvis
