// Ceres cost functors of pose priors (cvis_bundle_adjust_with_priors): a camera centre and a
// world-to-camera rotation that a free pose is pulled towards, in units of their sigmas.
#pragma once

#include <ceres/autodiff_cost_function.h>
#include <ceres/rotation.h>

namespace cvis {

// Residual (3): the pose's camera centre minus the prior centre, over sigma.
struct PositionPriorError {
  PositionPriorError(const double* center, double sigma)
      : center_{center[0], center[1], center[2]}, inverse_sigma_(1 / sigma) {}

  // pose: cam_from_world angle-axis (3), translation (3). The centre is -R^T t.
  template <typename T>
  bool operator()(const T* pose, T* residuals) const {
    const T inverse[3] = {-pose[0], -pose[1], -pose[2]};
    T rotated[3];
    ceres::AngleAxisRotatePoint(inverse, pose + 3, rotated);
    for (int k = 0; k < 3; ++k) residuals[k] = (-rotated[k] - T(center_[k])) * inverse_sigma_;
    return true;
  }

  static ceres::CostFunction* Create(const double* center, double sigma) {
    return new ceres::AutoDiffCostFunction<PositionPriorError, 3, 6>(
        new PositionPriorError(center, sigma));
  }

  double center_[3];
  double inverse_sigma_;
};

// Residual (3): the rotation from the prior's camera frame to the pose's, as a small angle-axis
// vector (twice the vector part of the quaternion, sign-fixed), over sigma.
struct RotationPriorError {
  RotationPriorError(const double* angle_axis, double sigma_rad) : inverse_sigma_(1 / sigma_rad) {
    double q[4];
    ceres::AngleAxisToQuaternion(angle_axis, q);
    conjugate_[0] = q[0];
    conjugate_[1] = -q[1];
    conjugate_[2] = -q[2];
    conjugate_[3] = -q[3];
  }

  // pose: cam_from_world angle-axis (3), translation (3).
  template <typename T>
  bool operator()(const T* pose, T* residuals) const {
    T q[4], prior[4], difference[4];
    ceres::AngleAxisToQuaternion(pose, q);
    for (int k = 0; k < 4; ++k) prior[k] = T(conjugate_[k]);
    ceres::QuaternionProduct(q, prior, difference);
    const T sign = difference[0] < T(0) ? T(-1) : T(1);
    for (int k = 0; k < 3; ++k) residuals[k] = T(2) * sign * difference[k + 1] * inverse_sigma_;
    return true;
  }

  static ceres::CostFunction* Create(const double* angle_axis, double sigma_rad) {
    return new ceres::AutoDiffCostFunction<RotationPriorError, 3, 6>(
        new RotationPriorError(angle_axis, sigma_rad));
  }

  double conjugate_[4];
  double inverse_sigma_;
};

// Residual (3): the second difference of three consecutive camera centres of a sequence,
// c_a - 2 c_b + c_c (zero at constant velocity), over sigma (world units).
struct MotionSmoothnessError {
  explicit MotionSmoothnessError(double sigma) : inverse_sigma_(1 / sigma) {}

  // Poses: cam_from_world angle-axis (3), translation (3). A centre is -R^T t.
  template <typename T>
  static void Center(const T* pose, T* center) {
    const T inverse[3] = {-pose[0], -pose[1], -pose[2]};
    ceres::AngleAxisRotatePoint(inverse, pose + 3, center);
    for (int k = 0; k < 3; ++k) center[k] = -center[k];
  }

  template <typename T>
  bool operator()(const T* a, const T* b, const T* c, T* residuals) const {
    T ca[3], cb[3], cc[3];
    Center(a, ca);
    Center(b, cb);
    Center(c, cc);
    for (int k = 0; k < 3; ++k) residuals[k] = (ca[k] - T(2) * cb[k] + cc[k]) * inverse_sigma_;
    return true;
  }

  static ceres::CostFunction* Create(double sigma) {
    return new ceres::AutoDiffCostFunction<MotionSmoothnessError, 3, 6, 6, 6>(new MotionSmoothnessError(sigma));
  }

  double inverse_sigma_;
};

}  // namespace cvis
