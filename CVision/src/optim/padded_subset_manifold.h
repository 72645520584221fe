// A subset manifold whose tangent space is padded to a common size.
#ifndef CVIS_OPTIM_PADDED_SUBSET_MANIFOLD_H_
#define CVIS_OPTIM_PADDED_SUBSET_MANIFOLD_H_

#include <ceres/manifold.h>
#include <algorithm>
#include <vector>

namespace cvis {

/// Holds some coordinates of a parameter block fixed, as ceres::SubsetManifold does, but keeps
/// a tangent space of `tangent_size` (at least the number of free coordinates): the free
/// coordinates come first and the padding moves nothing.
///
/// Why: Ceres's Schur eliminator is compiled for fixed block sizes (2 residuals, 3 point
/// coordinates, 6 camera parameters) and falls back to dynamic sizes as soon as one reduced
/// block differs. A gauge-fixed pose (tangent 5) or an intrinsics block (tangent 2 to 4) in a
/// problem of 6-parameter poses makes every global bundle adjustment take the dynamic path,
/// 1.4-1.9x slower per iteration in the linear solver (docs/benchmarks.md).
/// The padding columns of the Jacobian are zero: their gradient is zero, Levenberg-Marquardt's
/// damping keeps the system definite, and the step along them is zero.
class PaddedSubsetManifold final : public ceres::Manifold {
 public:
  PaddedSubsetManifold(int ambient_size, const std::vector<int>& fixed, int tangent_size)
      : ambient_size_(ambient_size), tangent_size_(tangent_size) {
    for (int k = 0; k < ambient_size; ++k) {
      if (std::find(fixed.begin(), fixed.end(), k) == fixed.end()) free_.push_back(k);
    }
  }

  int AmbientSize() const override { return ambient_size_; }
  int TangentSize() const override { return tangent_size_; }

  bool Plus(const double* x, const double* delta, double* x_plus_delta) const override {
    std::copy(x, x + ambient_size_, x_plus_delta);
    for (size_t j = 0; j < free_.size(); ++j) x_plus_delta[free_[j]] += delta[j];
    return true;
  }

  bool PlusJacobian(const double* /*x*/, double* jacobian) const override {
    std::fill(jacobian, jacobian + size_t(ambient_size_) * tangent_size_, 0.0);
    for (size_t j = 0; j < free_.size(); ++j) jacobian[size_t(free_[j]) * tangent_size_ + j] = 1.0;
    return true;
  }

  bool RightMultiplyByPlusJacobian(const double* /*x*/, int num_rows, const double* ambient_matrix,
                                   double* tangent_matrix) const override {
    std::fill(tangent_matrix, tangent_matrix + size_t(num_rows) * tangent_size_, 0.0);
    for (int r = 0; r < num_rows; ++r) {
      for (size_t j = 0; j < free_.size(); ++j) {
        tangent_matrix[size_t(r) * tangent_size_ + j] = ambient_matrix[size_t(r) * ambient_size_ + free_[j]];
      }
    }
    return true;
  }

  bool Minus(const double* y, const double* x, double* y_minus_x) const override {
    std::fill(y_minus_x, y_minus_x + tangent_size_, 0.0);
    for (size_t j = 0; j < free_.size(); ++j) y_minus_x[j] = y[free_[j]] - x[free_[j]];
    return true;
  }

  bool MinusJacobian(const double* /*x*/, double* jacobian) const override {
    std::fill(jacobian, jacobian + size_t(tangent_size_) * ambient_size_, 0.0);
    for (size_t j = 0; j < free_.size(); ++j) jacobian[j * ambient_size_ + free_[j]] = 1.0;
    return true;
  }

 private:
  int ambient_size_;
  int tangent_size_;
  std::vector<int> free_;
};

}  // namespace cvis

#endif  // CVIS_OPTIM_PADDED_SUBSET_MANIFOLD_H_
