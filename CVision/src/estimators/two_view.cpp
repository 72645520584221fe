// Two-view geometry as COLMAP's TwoViewGeometry does it: estimate F, H and (given intrinsics) E
// robustly, decide which model explains the matches, and recover the relative pose and the
// triangulation angle that later stages use to choose an initial pair. The robust estimators
// are OpenCV's USAC with a fixed seed and no internal threads, so results are reproducible and
// the caller can parallelise over pairs.
#include <algorithm>
#include <cmath>
#include <vector>

#include <Eigen/Dense>
#include <Eigen/Geometry>
#include <opencv2/calib3d.hpp>
#include <opencv2/core/eigen.hpp>

#include "../../include/cvis_two_view.h"
#include "../util/status.h"

namespace cvis {
namespace {

// Below this median triangulation angle a homography pair is treated as a pure rotation.
constexpr double kPanoramicMaxAngleDeg = 0.5;

// COLMAP's a-priori minimum inlier ratio: caps the iterations at what a sample of sample_size
// needs to be outlier-free with the requested confidence when a quarter of matches are inliers.
int IterationCap(const cvis_two_view_options& options, int sample_size) {
  const double all_inliers = std::pow(options.min_inlier_ratio, sample_size);
  if (all_inliers <= 0.0 || all_inliers >= 1.0) return options.max_iterations;
  const double needed = std::ceil(std::log(1.0 - options.confidence) / std::log(1.0 - all_inliers));
  return int(std::clamp(needed, 1.0, double(options.max_iterations)));
}

// MSAC scoring with inner local optimisation: on synthetic pairs (2000 matches, 20-60% outliers)
// it finds the same inliers and E rotation as MAGSAC++ and the iterative/graph-cut variants in
// a half to a third of their time.
cv::UsacParams MakeUsacParams(const cvis_two_view_options& options, int sample_size) {
  cv::UsacParams params;
  params.confidence = options.confidence;
  params.isParallel = false;
  params.maxIterations = IterationCap(options, sample_size);
  params.threshold = options.max_error_px;
  params.randomGeneratorState = int(options.seed & 0x7fffffff);
  params.sampler = cv::SAMPLING_UNIFORM;
  params.score = cv::SCORE_METHOD_MSAC;
  params.loMethod = cv::LOCAL_OPTIM_INNER_LO;
  params.neighborsSearch = cv::NEIGH_GRID;
  return params;
}

struct Model {
  cv::Mat matrix;               // 3x3 double, empty when estimation failed
  std::vector<uint8_t> mask;
  int inliers = 0;
};

Model Finish(cv::Mat matrix, const cv::Mat& mask, int n) {
  Model model;
  if (matrix.rows != 3 || matrix.cols != 3 || mask.total() != size_t(n)) return model;
  matrix.convertTo(model.matrix, CV_64F);
  model.mask.assign(mask.ptr<uint8_t>(), mask.ptr<uint8_t>() + n);
  for (uint8_t& m : model.mask) m = m ? 1 : 0;
  model.inliers = int(std::count(model.mask.begin(), model.mask.end(), 1));
  return model;
}

void CopyMatrix(const cv::Mat& matrix, double* out) {
  for (int i = 0; i < 9; ++i) out[i] = matrix.empty() ? 0.0 : matrix.at<double>(i / 3, i % 3);
}

// Relative pose candidate and the points it puts in front of both cameras.
struct Pose {
  Eigen::Matrix3d R = Eigen::Matrix3d::Identity();
  Eigen::Vector3d t = Eigen::Vector3d::Zero();
  int in_front = -1;
  std::vector<double> angles_deg;   // triangulation angles of the points in front
};

// Linear (DLT) triangulation of normalised points for cam1 = [I|0], cam2 = [R|t]; counts the
// points in front of both cameras and records their triangulation angles.
Pose Triangulate(const Eigen::Matrix3d& R, const Eigen::Vector3d& t,
                 const std::vector<Eigen::Vector2d>& x1, const std::vector<Eigen::Vector2d>& x2) {
  Pose pose;
  pose.R = R;
  pose.t = t;
  pose.in_front = 0;
  Eigen::Matrix<double, 3, 4> P2;
  P2 << R, t;
  const Eigen::Vector3d center2 = -R.transpose() * t;
  for (size_t i = 0; i < x1.size(); ++i) {
    Eigen::Matrix4d A;
    A.row(0) << -1, 0, x1[i].x(), 0;
    A.row(1) << 0, -1, x1[i].y(), 0;
    A.row(2) = x2[i].x() * P2.row(2) - P2.row(0);
    A.row(3) = x2[i].y() * P2.row(2) - P2.row(1);
    const Eigen::Vector4d X = Eigen::JacobiSVD<Eigen::Matrix4d>(A, Eigen::ComputeFullV).matrixV().col(3);
    if (std::abs(X.w()) < 1e-12) continue;
    const Eigen::Vector3d point = X.head<3>() / X.w();
    if (point.z() <= 0 || (R * point + t).z() <= 0) continue;
    ++pose.in_front;
    const Eigen::Vector3d ray1 = point.normalized(), ray2 = (point - center2).normalized();
    pose.angles_deg.push_back(std::acos(std::clamp(ray1.dot(ray2), -1.0, 1.0)) * 180.0 / M_PI);
  }
  return pose;
}

// The candidate (from E's four or H's up to four decompositions) with most points in front.
Pose ChoosePose(const std::vector<cv::Mat>& rotations, const std::vector<cv::Mat>& translations,
                const std::vector<Eigen::Vector2d>& x1, const std::vector<Eigen::Vector2d>& x2) {
  Pose best;
  for (size_t k = 0; k < rotations.size(); ++k) {
    Eigen::Matrix3d R;
    Eigen::Vector3d t;
    cv::cv2eigen(rotations[k], R);
    cv::cv2eigen(translations[k].reshape(1, 3), t);
    Pose pose = Triangulate(R, t, x1, x2);
    if (pose.in_front > best.in_front) best = std::move(pose);
  }
  return best;
}

// Sampson errors of normalised correspondences under E = [t]x R.
Eigen::VectorXd SampsonResiduals(const Eigen::Matrix3d& R, const Eigen::Vector3d& t,
                                 const std::vector<Eigen::Vector2d>& x1,
                                 const std::vector<Eigen::Vector2d>& x2) {
  Eigen::Matrix3d tx;
  tx << 0, -t.z(), t.y(), t.z(), 0, -t.x(), -t.y(), t.x(), 0;
  const Eigen::Matrix3d E = tx * R;
  Eigen::VectorXd residuals(x1.size());
  for (size_t i = 0; i < x1.size(); ++i) {
    const Eigen::Vector3d a = x1[i].homogeneous(), b = x2[i].homogeneous();
    const Eigen::Vector3d Ea = E * a, Etb = E.transpose() * b;
    const double denominator = Ea.head<2>().squaredNorm() + Etb.head<2>().squaredNorm();
    residuals[i] = b.dot(Ea) / std::sqrt(std::max(denominator, 1e-30));
  }
  return residuals;
}

// Levenberg-Marquardt on the Sampson error of the inliers over the 5 degrees of freedom of a
// relative pose (rotation update, translation on the unit sphere). RANSAC's model is fitted to a
// minimal sample plus a linear refit; with narrow fields of view (small objects, long lenses) the
// rotation-translation ambiguity makes that noticeably worse than the least-squares optimum.
void RefinePose(const std::vector<Eigen::Vector2d>& x1, const std::vector<Eigen::Vector2d>& x2,
                Eigen::Matrix3d* R, Eigen::Vector3d* t) {
  if (x1.size() < 6) return;
  auto apply = [&](const Eigen::Matrix<double, 5, 1>& delta, Eigen::Matrix3d* R_out,
                   Eigen::Vector3d* t_out) {
    const Eigen::Vector3d w = delta.head<3>();
    const double angle = w.norm();
    const Eigen::Matrix3d dR = angle > 0 ? Eigen::AngleAxisd(angle, w / angle).toRotationMatrix()
                                         : Eigen::Matrix3d::Identity();
    *R_out = dR * *R;
    Eigen::Vector3d b1 = t->unitOrthogonal(), b2 = t->cross(b1).normalized();
    *t_out = (*t + delta[3] * b1 + delta[4] * b2).normalized();
  };
  double lambda = 1e-3;
  Eigen::VectorXd residuals = SampsonResiduals(*R, *t, x1, x2);
  double cost = residuals.squaredNorm();
  for (int iteration = 0; iteration < 20; ++iteration) {
    Eigen::MatrixXd J(x1.size(), 5);
    for (int k = 0; k < 5; ++k) {
      Eigen::Matrix<double, 5, 1> step = Eigen::Matrix<double, 5, 1>::Zero();
      step[k] = 1e-7;
      Eigen::Matrix3d R_plus;
      Eigen::Vector3d t_plus;
      apply(step, &R_plus, &t_plus);
      J.col(k) = (SampsonResiduals(R_plus, t_plus, x1, x2) - residuals) / 1e-7;
    }
    const Eigen::Matrix<double, 5, 5> JtJ = J.transpose() * J;
    const Eigen::Matrix<double, 5, 1> Jtr = J.transpose() * residuals;
    bool improved = false;
    for (int attempt = 0; attempt < 8 && !improved; ++attempt) {
      Eigen::Matrix<double, 5, 5> A = JtJ;
      A.diagonal() *= 1.0 + lambda;
      const Eigen::Matrix<double, 5, 1> delta = A.ldlt().solve(-Jtr);
      Eigen::Matrix3d R_new;
      Eigen::Vector3d t_new;
      apply(delta, &R_new, &t_new);
      const Eigen::VectorXd new_residuals = SampsonResiduals(R_new, t_new, x1, x2);
      if (new_residuals.squaredNorm() < cost) {
        improved = true;
        const double previous = cost;
        *R = R_new;
        *t = t_new;
        residuals = new_residuals;
        cost = residuals.squaredNorm();
        lambda = std::max(1e-9, lambda / 10);
        if (previous - cost < 1e-10 * previous) return;
      } else {
        lambda *= 10;
      }
    }
    if (!improved) return;
  }
}

double Median(std::vector<double> values) {
  if (values.empty()) return 0.0;
  const size_t middle = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + middle, values.end());
  return values[middle];
}

}  // namespace
}  // namespace cvis

extern "C" void cvis_two_view_options_default(cvis_two_view_options* options) {
  if (options == nullptr) return;
  options->max_error_px = 4.0;
  options->confidence = 0.9999;
  options->max_iterations = 10000;
  options->min_num_inliers = 15;
  options->min_inlier_ratio = 0.25;
  options->max_h_inlier_ratio = 0.8;
  options->min_e_f_inlier_ratio = 0.95;
  options->seed = 0;
}

extern "C" cvis_status cvis_estimate_two_view(const double* points1, const double* points2,
                                              int32_t n, const double* K1_in, const double* K2_in,
                                              const cvis_two_view_options* options_in,
                                              cvis_two_view_geometry* out, uint8_t* inlier_mask) {
  using namespace cvis;
  return Guard([&] {
    if (out == nullptr || n < 0 || (n > 0 && (points1 == nullptr || points2 == nullptr))) {
      return Fail(CVIS_INVALID_ARGUMENT, "cvis_estimate_two_view: null argument or n < 0");
    }
    if ((K1_in == nullptr) != (K2_in == nullptr)) {
      return Fail(CVIS_INVALID_ARGUMENT, "cvis_estimate_two_view: give both K1 and K2 or neither");
    }
    cvis_two_view_options options;
    cvis_two_view_options_default(&options);
    if (options_in != nullptr) options = *options_in;
    if (!(options.max_error_px > 0) || !(options.confidence > 0 && options.confidence < 1) ||
        options.max_iterations < 1) {
      return Fail(CVIS_INVALID_ARGUMENT, "cvis_estimate_two_view: invalid options");
    }
    *out = cvis_two_view_geometry{};
    for (int i = 0; i < 9; i += 4) out->cam2_from_cam1_rotation[i] = 1.0;
    if (inlier_mask != nullptr) std::fill(inlier_mask, inlier_mask + n, 0);
    // Fewer matches than F's 8-point minimum or the inlier floor cannot verify a pair.
    if (n < std::max(8, options.min_num_inliers)) return CVIS_OK;

    const cv::Mat p1(n, 2, CV_64F, const_cast<double*>(points1));
    const cv::Mat p2(n, 2, CV_64F, const_cast<double*>(points2));
    const bool calibrated = K1_in != nullptr;
    cv::Mat K1, K2;
    if (calibrated) {
      K1 = cv::Mat(3, 3, CV_64F, const_cast<double*>(K1_in)).clone();
      K2 = cv::Mat(3, 3, CV_64F, const_cast<double*>(K2_in)).clone();
    }

    cv::Mat mask;
    Model F, H, E;
    F = Finish(cv::findFundamentalMat(p1, p2, mask, MakeUsacParams(options, 7)), mask, n);
    H = Finish(cv::findHomography(p1, p2, mask, MakeUsacParams(options, 4)), mask, n);
    if (calibrated) {
      E = Finish(cv::findEssentialMat(p1, p2, K1, K2, cv::noArray(), cv::noArray(), mask,
                                      MakeUsacParams(options, 5)),
                 mask, n);
    }
    out->num_f_inliers = F.inliers;
    out->num_h_inliers = H.inliers;
    out->num_e_inliers = E.inliers;
    CopyMatrix(F.matrix, out->F);
    CopyMatrix(H.matrix, out->H);
    CopyMatrix(E.matrix, out->E);

    // The decision of COLMAP's EstimateCalibratedTwoViewGeometry.
    const int min_inliers = options.min_num_inliers;
    const double f_inliers = std::max(1, F.inliers);
    const Model* best = nullptr;
    int config = CVIS_TWO_VIEW_DEGENERATE;
    if (E.inliers >= min_inliers && E.inliers / f_inliers >= options.min_e_f_inlier_ratio) {
      best = E.inliers >= F.inliers ? &E : &F;
      const bool planar = double(H.inliers) / std::max(1, E.inliers) > options.max_h_inlier_ratio;
      config = planar ? CVIS_TWO_VIEW_PLANAR_OR_PANORAMIC : CVIS_TWO_VIEW_CALIBRATED;
      if (planar && H.inliers > best->inliers) best = &H;
    } else if (F.inliers >= min_inliers) {
      best = &F;
      const bool planar = H.inliers / f_inliers > options.max_h_inlier_ratio;
      config = planar ? CVIS_TWO_VIEW_PLANAR_OR_PANORAMIC : CVIS_TWO_VIEW_UNCALIBRATED;
      if (planar && H.inliers > best->inliers) best = &H;
    } else if (H.inliers >= min_inliers) {
      best = &H;
      config = CVIS_TWO_VIEW_PLANAR_OR_PANORAMIC;
    }
    if (best == nullptr) return CVIS_OK;
    out->config = config;
    out->num_inliers = best->inliers;
    if (inlier_mask != nullptr) std::copy(best->mask.begin(), best->mask.end(), inlier_mask);
    if (!calibrated) return CVIS_OK;  // without K, planar and panoramic cannot be told apart

    // Relative pose from the inliers in normalised coordinates.
    Eigen::Matrix3d K1_inverse, K2_inverse;
    cv::cv2eigen(K1, K1_inverse);
    cv::cv2eigen(K2, K2_inverse);
    K1_inverse = K1_inverse.inverse().eval();
    K2_inverse = K2_inverse.inverse().eval();
    std::vector<Eigen::Vector2d> x1, x2;
    for (int i = 0; i < n; ++i) {
      if (!best->mask[i]) continue;
      x1.push_back((K1_inverse * Eigen::Vector3d(points1[2 * i], points1[2 * i + 1], 1)).hnormalized());
      x2.push_back((K2_inverse * Eigen::Vector3d(points2[2 * i], points2[2 * i + 1], 1)).hnormalized());
    }
    std::vector<cv::Mat> rotations, translations;
    if (config == CVIS_TWO_VIEW_PLANAR_OR_PANORAMIC) {
      // H in normalised coordinates, decomposed with K = I; t comes out scaled by 1/plane depth.
      Eigen::Matrix3d H_pixels, K1_matrix, K2_inverse_copy = K2_inverse;
      cv::cv2eigen(H.matrix, H_pixels);
      cv::cv2eigen(K1, K1_matrix);
      cv::Mat H_normalized;
      cv::eigen2cv(Eigen::Matrix3d(K2_inverse_copy * H_pixels * K1_matrix), H_normalized);
      std::vector<cv::Mat> normals;
      cv::decomposeHomographyMat(H_normalized, cv::Mat::eye(3, 3, CV_64F), rotations,
                                 translations, normals);
    } else {
      const cv::Mat E_matrix = config == CVIS_TWO_VIEW_CALIBRATED && !E.matrix.empty()
                                   ? E.matrix : cv::Mat(K2.t() * F.matrix * K1);
      cv::Mat R1, R2, t;
      cv::decomposeEssentialMat(E_matrix, R1, R2, t);
      rotations = {R1, R1, R2, R2};
      translations = {t, -t, t, -t};
    }
    Pose pose = ChoosePose(rotations, translations, x1, x2);
    if (config != CVIS_TWO_VIEW_PLANAR_OR_PANORAMIC && pose.in_front > 0) {
      Eigen::Matrix3d R = pose.R;
      Eigen::Vector3d t = pose.t.normalized();
      RefinePose(x1, x2, &R, &t);
      Pose refined = Triangulate(R, t, x1, x2);
      if (refined.in_front >= pose.in_front * 0.99) pose = std::move(refined);
    }
    out->median_triangulation_angle_deg = Median(pose.angles_deg);
    if (config == CVIS_TWO_VIEW_PLANAR_OR_PANORAMIC) {
      config = out->median_triangulation_angle_deg < kPanoramicMaxAngleDeg ||
                       pose.t.norm() < 1e-6
                   ? CVIS_TWO_VIEW_PANORAMIC : CVIS_TWO_VIEW_PLANAR;
      if (config == CVIS_TWO_VIEW_PANORAMIC) out->median_triangulation_angle_deg = 0.0;
      out->config = config;
    }
    const Eigen::Vector3d t_unit = pose.t.norm() > 0 ? pose.t.normalized() : pose.t;
    for (int i = 0; i < 9; ++i) out->cam2_from_cam1_rotation[i] = pose.R(i / 3, i % 3);
    for (int i = 0; i < 3; ++i) out->cam2_from_cam1_translation[i] = t_unit[i];
    return CVIS_OK;
  });
}

extern "C" cvis_status cvis_focal_lengths_from_fundamental(const double F_in[9],
                                                           const double principal1[2],
                                                           const double principal2[2],
                                                           double* focal1, double* focal2) {
  using namespace cvis;
  return Guard([&] {
    if (F_in == nullptr || principal1 == nullptr || principal2 == nullptr || focal1 == nullptr ||
        focal2 == nullptr) {
      return Fail(CVIS_INVALID_ARGUMENT, "cvis_focal_lengths_from_fundamental: null argument");
    }
    // Bougnoux (1998) in the form of PoseLib's focals_from_fundamental: with e1, e2 the
    // epipoles (F e1 = 0, F^T e2 = 0), p1, p2 the principal points and I~ = diag(1, 1, 0),
    // f1^2 = -p2^T [e2]x I~ F p1 p1^T F^T p2 / (p2^T [e2]x I~ F I~ F^T p2), f2 likewise with F^T.
    const Eigen::Matrix3d F = Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(F_in);
    const Eigen::JacobiSVD<Eigen::Matrix3d> svd(F, Eigen::ComputeFullU | Eigen::ComputeFullV);
    const Eigen::Vector3d e1 = svd.matrixV().col(2), e2 = svd.matrixU().col(2);
    const Eigen::Vector3d p1(principal1[0], principal1[1], 1.0), p2(principal2[0], principal2[1], 1.0);
    const Eigen::Matrix3d I = Eigen::Vector3d(1, 1, 0).asDiagonal();
    auto skew = [](const Eigen::Vector3d& v) {
      Eigen::Matrix3d m;
      m << 0, -v.z(), v.y(), v.z(), 0, -v.x(), -v.y(), v.x(), 0;
      return m;
    };
    const double f1_squared = -(p2.transpose() * skew(e2) * I * F * p1 * p1.transpose() *
                                F.transpose() * p2)(0) /
                              (p2.transpose() * skew(e2) * I * F * I * F.transpose() * p2)(0);
    const double f2_squared = -(p1.transpose() * skew(e1) * I * F.transpose() * p2 *
                                p2.transpose() * F * p1)(0) /
                              (p1.transpose() * skew(e1) * I * F.transpose() * I * F * p1)(0);
    if (!(f1_squared > 0) || !(f2_squared > 0) || !std::isfinite(f1_squared) ||
        !std::isfinite(f2_squared)) {
      return Fail(CVIS_NO_CONVERGENCE,
                  Str("Bougnoux focal lengths: non-positive square (f1^2 = ", f1_squared,
                      ", f2^2 = ", f2_squared, "): F is near-degenerate for self-calibration"));
    }
    *focal1 = std::sqrt(f1_squared);
    *focal2 = std::sqrt(f2_squared);
    return CVIS_OK;
  });
}

extern "C" cvis_status cvis_relative_pose_from_fundamental(const double F_in[9], const double K1_in[9],
                                                           const double K2_in[9], const double* points1,
                                                           const double* points2, int32_t n,
                                                           double rotation[9], double translation[3],
                                                           int32_t* in_front) {
  using namespace cvis;
  return Guard([&] {
    if (F_in == nullptr || K1_in == nullptr || K2_in == nullptr || rotation == nullptr ||
        translation == nullptr || in_front == nullptr || (n > 0 && (points1 == nullptr || points2 == nullptr))) {
      return Fail(CVIS_INVALID_ARGUMENT, "cvis_relative_pose_from_fundamental: null argument");
    }
    using RowMajor = Eigen::Matrix<double, 3, 3, Eigen::RowMajor>;
    const Eigen::Matrix3d F = Eigen::Map<const RowMajor>(F_in);
    const Eigen::Matrix3d K1 = Eigen::Map<const RowMajor>(K1_in), K2 = Eigen::Map<const RowMajor>(K2_in);
    const Eigen::Matrix3d K1_inverse = K1.inverse(), K2_inverse = K2.inverse();
    std::vector<Eigen::Vector2d> x1(n), x2(n);
    for (int i = 0; i < n; ++i) {
      x1[i] = (K1_inverse * Eigen::Vector3d(points1[2 * i], points1[2 * i + 1], 1)).hnormalized();
      x2[i] = (K2_inverse * Eigen::Vector3d(points2[2 * i], points2[2 * i + 1], 1)).hnormalized();
    }
    cv::Mat E, R1, R2, t;
    cv::eigen2cv(Eigen::Matrix3d(K2.transpose() * F * K1), E);
    cv::decomposeEssentialMat(E, R1, R2, t);
    const Pose pose = ChoosePose({R1, R1, R2, R2}, {t, -t, t, -t}, x1, x2);
    for (int i = 0; i < 9; ++i) rotation[i] = pose.R(i / 3, i % 3);
    const Eigen::Vector3d t_unit = pose.t.norm() > 0 ? pose.t.normalized() : pose.t;
    for (int i = 0; i < 3; ++i) translation[i] = t_unit[i];
    *in_front = std::max(0, pose.in_front);
    return CVIS_OK;
  });
}
