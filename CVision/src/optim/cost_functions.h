// Ceres cost functors, written as the Ceres examples write them (snavely_reprojection_error.h).
//
// One reprojection error in four forms, as COLMAP's ReprojErrorCostFunctor and its
// ReprojErrorConstantPoseCostFunctor: a block that stays constant during a solve is copied into
// the functor as plain data instead of being a parameter block. Autodiff evaluates a Jet as wide
// as all parameter blocks of a residual together, constant or not, so the general form costs
// Jet<6 + 3 + kNumParams> per observation even when only the point moves; the constant-camera
// form costs Jet<9> (local bundle adjustment, intrinsics fixed) and the constant-pose-and-camera
// form Jet<3> (the observations of images held still).
//
// The solver uses ReprojectionCost (at the end), the same four forms with the rigid motion's
// derivatives in closed form; the autodiff functors are the reference it is tested against.
#pragma once

#include <ceres/autodiff_cost_function.h>
#include <ceres/jet.h>
#include <ceres/rotation.h>
#include <ceres/sized_cost_function.h>

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

// The rotation R(w) of an angle-axis vector w and its left Jacobian J, with which
// d(R(w) x)/dw = -[R(w) x]_x J(w): with t = |w|,
//   R = I + sin(t)/t [w]_x + (1 - cos t)/t^2 [w]_x^2,  J = I + (1 - cos t)/t^2 [w]_x + (t - sin t)/t^3 [w]_x^2.
// Row-major. Below t = 0.01 the coefficients come from their series, whose first omitted terms
// are below 1e-16 there, so that no difference of nearly equal numbers loses digits.
inline void RotationAndLeftJacobian(const double* w, double* R, double* J) {
  const double t2 = w[0] * w[0] + w[1] * w[1] + w[2] * w[2];
  double a, b, c;
  if (t2 > 1e-4) {
    const double t = std::sqrt(t2), s = std::sin(t), h = std::sin(0.5 * t);
    a = s / t;
    b = 2 * h * h / t2;
    c = (t - s) / (t2 * t);
  } else {
    a = 1 - t2 / 6 * (1 - t2 / 20);
    b = 0.5 - t2 / 24 * (1 - t2 / 30);
    c = 1.0 / 6 - t2 / 120 * (1 - t2 / 42);
  }
  // [w]_x, and [w]_x^2 = w w^T - t2 I.
  const double K[9] = {0, -w[2], w[1], w[2], 0, -w[0], -w[1], w[0], 0};
  for (int r = 0; r < 3; ++r) {
    for (int k = 0; k < 3; ++k) {
      const double K2 = w[r] * w[k] - (r == k ? t2 : 0);
      const double I = r == k ? 1 : 0;
      R[3 * r + k] = I + a * K[3 * r + k] + b * K2;
      J[3 * r + k] = I + b * K[3 * r + k] + c * K2;
    }
  }
}

// Block sizes of ReprojectionCost: the pose (6), the point (3) and the camera, less the blocks
// that are held as data.
template <int kNumParams, bool kPoseConstant, bool kCameraConstant>
struct ReprojectionCostBase;
template <int kNumParams>
struct ReprojectionCostBase<kNumParams, false, false> {
  using Type = ceres::SizedCostFunction<2, 6, 3, kNumParams>;
};
template <int kNumParams>
struct ReprojectionCostBase<kNumParams, false, true> {
  using Type = ceres::SizedCostFunction<2, 6, 3>;
};
template <int kNumParams>
struct ReprojectionCostBase<kNumParams, true, false> {
  using Type = ceres::SizedCostFunction<2, 3, kNumParams>;
};
template <int kNumParams>
struct ReprojectionCostBase<kNumParams, true, true> {
  using Type = ceres::SizedCostFunction<2, 3>;
};

// The reprojection error with analytic derivatives of the rigid motion (RotationAndLeftJacobian
// and the perspective division) and autodiff only through the camera model, on a Jet over
// (u, v) and the free intrinsics: the same residuals and Jacobians as the autodiff functors
// above, at a fraction of the cost of carrying a Jet<6 + 3 + kNumParams> through the rotation.
// A constant pose or camera is held as data and is not a parameter block.
template <typename CameraModel, bool kPoseConstant, bool kCameraConstant>
class ReprojectionCost final
    : public ReprojectionCostBase<CameraModel::kNumParams, kPoseConstant, kCameraConstant>::Type {
 public:
  static constexpr int kNumParams = CameraModel::kNumParams;

  // cam_from_world and camera_params are read only when they are constant.
  ReprojectionCost(double observed_x, double observed_y, const double* cam_from_world,
                   const double* camera_params)
      : observed_x_(observed_x), observed_y_(observed_y) {
    if constexpr (kPoseConstant) {
      ceres::AngleAxisToRotationMatrix(cam_from_world, ceres::RowMajorAdapter3x3(rotation_));
      std::copy(cam_from_world + 3, cam_from_world + 6, translation_);
    }
    if constexpr (kCameraConstant) {
      std::copy(camera_params, camera_params + kNumParams, camera_params_);
    }
  }

  bool Evaluate(double const* const* parameters, double* residuals,
                double** jacobians) const override {
    constexpr int kPoint = kPoseConstant ? 0 : 1;
    const double* point = parameters[kPoint];
    const double* params = kCameraConstant ? camera_params_ : parameters[kPoint + 1];
    double R[9], J[9];
    const double* t;
    if constexpr (kPoseConstant) {
      std::copy(rotation_, rotation_ + 9, R);
      t = translation_;
    } else {
      RotationAndLeftJacobian(parameters[0], R, J);
      t = parameters[0] + 3;
    }
    double p[3];
    for (int r = 0; r < 3; ++r) {
      p[r] = R[3 * r] * point[0] + R[3 * r + 1] * point[1] + R[3 * r + 2] * point[2] + t[r];
    }
    double* jacobian_pose = kPoseConstant ? nullptr : (jacobians ? jacobians[0] : nullptr);
    double* jacobian_point = jacobians ? jacobians[kPoint] : nullptr;
    double* jacobian_camera = kCameraConstant ? nullptr : (jacobians ? jacobians[kPoint + 1] : nullptr);
    if (!(p[2] > kMinDepth)) {
      // As the functors: a constant residual with zero derivatives.
      residuals[0] = residuals[1] = kBehindCameraResidual;
      if (jacobian_pose) std::fill(jacobian_pose, jacobian_pose + 12, 0.0);
      if (jacobian_point) std::fill(jacobian_point, jacobian_point + 6, 0.0);
      if (jacobian_camera) std::fill(jacobian_camera, jacobian_camera + 2 * kNumParams, 0.0);
      return true;
    }
    const double inv_z = 1 / p[2], u = p[0] * inv_z, v = p[1] * inv_z;
    if (!jacobian_pose && !jacobian_point && !jacobian_camera) {
      double x, y;
      CameraModel::ImgFromCam(params, u, v, &x, &y);
      residuals[0] = x - observed_x_;
      residuals[1] = y - observed_y_;
      return true;
    }

    // The camera model on a Jet over (u, v) and, when free, its parameters.
    constexpr int kJet = 2 + (kCameraConstant ? 0 : kNumParams);
    using Jet = ceres::Jet<double, kJet>;
    Jet x, y;
    const Jet ju(u, 0), jv(v, 1);
    if constexpr (kCameraConstant) {
      CameraModel::ImgFromCam(params, ju, jv, &x, &y);
    } else {
      Jet jp[kNumParams];
      for (int k = 0; k < kNumParams; ++k) jp[k] = Jet(params[k], 2 + k);
      CameraModel::ImgFromCam(jp, ju, jv, &x, &y);
      if (jacobian_camera) {
        for (int k = 0; k < kNumParams; ++k) {
          jacobian_camera[k] = x.v[2 + k];
          jacobian_camera[kNumParams + k] = y.v[2 + k];
        }
      }
    }
    residuals[0] = x.a - observed_x_;
    residuals[1] = y.a - observed_y_;
    // d(residual)/dp: d(x, y)/d(u, v) times d(u, v)/dp = [1/z 0 -u/z; 0 1/z -v/z].
    double D[6];
    for (int r = 0; r < 2; ++r) {
      const double du = (r == 0 ? x : y).v[0] * inv_z, dv = (r == 0 ? x : y).v[1] * inv_z;
      D[3 * r] = du;
      D[3 * r + 1] = dv;
      D[3 * r + 2] = -(du * u + dv * v);
    }
    if (jacobian_point) {  // dp/dX = R
      for (int r = 0; r < 2; ++r) {
        for (int k = 0; k < 3; ++k) {
          jacobian_point[3 * r + k] =
              D[3 * r] * R[k] + D[3 * r + 1] * R[3 + k] + D[3 * r + 2] * R[6 + k];
        }
      }
    }
    if (jacobian_pose) {  // dp/dw = -[R X]_x J, dp/dt = I
      const double q[3] = {p[0] - t[0], p[1] - t[1], p[2] - t[2]};
      for (int r = 0; r < 2; ++r) {
        const double* d = D + 3 * r;
        // The row d times -[q]_x is (q x d)^T.
        const double e[3] = {q[1] * d[2] - q[2] * d[1], q[2] * d[0] - q[0] * d[2],
                             q[0] * d[1] - q[1] * d[0]};
        for (int k = 0; k < 3; ++k) {
          jacobian_pose[6 * r + k] = e[0] * J[k] + e[1] * J[3 + k] + e[2] * J[6 + k];
          jacobian_pose[6 * r + 3 + k] = d[k];
        }
      }
    }
    return true;
  }

 private:
  double observed_x_, observed_y_;
  double rotation_[9] = {};  // constant pose, row-major
  double translation_[3] = {};
  double camera_params_[kNumParams] = {};
};

}  // namespace cvis
