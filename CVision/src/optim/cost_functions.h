// Ceres cost functors, written as the Ceres examples write them (snavely_reprojection_error.h).
#pragma once

#include <ceres/autodiff_cost_function.h>
#include <ceres/rotation.h>

#include "camera_models.h"

namespace cvis {

// Below this depth (in the camera's units) a point has no defined projection.
constexpr double kMinDepth = 1e-9;
// Residual given, with zero derivatives, to an observation whose point is not in front of the
// camera: constant so that it neither produces NaN nor pulls the parameters anywhere, large so
// that a step moving a point behind a camera that sees it raises the cost and is rejected.
constexpr double kBehindCameraResidual = 1e3;

// Reprojection error of one observation (pixels) for a camera model (camera_models.h).
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
    if (!(p[2] > T(kMinDepth))) {
      residuals[0] = T(kBehindCameraResidual);
      residuals[1] = T(kBehindCameraResidual);
      return true;
    }
    T x, y;
    CameraModel::ImgFromCam(camera_params, p[0] / p[2], p[1] / p[2], &x, &y);
    residuals[0] = x - T(observed_x);
    residuals[1] = y - T(observed_y);
    return true;
  }

  static ceres::CostFunction* Create(double observed_x, double observed_y) {
    return new ceres::AutoDiffCostFunction<ReprojectionError, 2, 6, 3, CameraModel::kNumParams>(
        new ReprojectionError(observed_x, observed_y));
  }

  double observed_x;
  double observed_y;
};

}  // namespace cvis
