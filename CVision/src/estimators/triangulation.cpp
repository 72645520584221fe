// Batch multi-view triangulation (cvis_geometry.h): a DLT estimate, Gauss-Newton on the
// reprojection error in normalised coordinates, rejection of the worst views, then the depth
// and ray-angle checks.
#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <exception>
#include <thread>
#include <vector>

#include "../../include/cvis_geometry.h"
#include "../util/status.h"

namespace cvis {
namespace {

using Pose = Eigen::Matrix<double, 3, 4, Eigen::RowMajor>;

// Above this many tracks the batch is split over two threads (below it, thread start-up costs
// more than it saves).
constexpr int32_t kParallelThreshold = 2000;
constexpr int kGaussNewtonIterations = 10;

struct View {
  const Pose* pose;
  Eigen::Vector2d xy;
  Eigen::Vector3d center;  // camera centre in world coordinates
};

// Linear triangulation: the null vector of the stacked x P3 - P1, y P3 - P2 rows.
bool Dlt(const std::vector<const View*>& views, Eigen::Vector3d* point) {
  Eigen::Matrix<double, Eigen::Dynamic, 4> a(2 * views.size(), 4);
  for (size_t i = 0; i < views.size(); ++i) {
    const Pose& p = *views[i]->pose;
    a.row(2 * i) = views[i]->xy.x() * p.row(2) - p.row(0);
    a.row(2 * i + 1) = views[i]->xy.y() * p.row(2) - p.row(1);
  }
  Eigen::JacobiSVD<Eigen::Matrix<double, Eigen::Dynamic, 4>> svd(a, Eigen::ComputeFullV);
  const Eigen::Vector4d x = svd.matrixV().col(3);
  if (!(std::abs(x(3)) > 1e-14 * x.head<3>().norm())) return false;  // point at infinity
  *point = x.head<3>() / x(3);
  return point->allFinite();
}

// Minimises the sum of squared normalised reprojection errors over the point only.
void GaussNewton(const std::vector<const View*>& views, Eigen::Vector3d* point) {
  for (int iteration = 0; iteration < kGaussNewtonIterations; ++iteration) {
    Eigen::Matrix3d jtj = Eigen::Matrix3d::Zero();
    Eigen::Vector3d jtr = Eigen::Vector3d::Zero();
    for (const View* view : views) {
      const Pose& p = *view->pose;
      const Eigen::Vector3d x = p.leftCols<3>() * *point + p.col(3);
      if (!(x.z() > 1e-12)) return;  // leave a point behind a camera to the cheirality check
      const double iz = 1 / x.z();
      const Eigen::Vector2d r(x.x() * iz - view->xy.x(), x.y() * iz - view->xy.y());
      Eigen::Matrix<double, 2, 3> d_proj;
      d_proj << iz, 0, -x.x() * iz * iz, 0, iz, -x.y() * iz * iz;
      const Eigen::Matrix<double, 2, 3> j = d_proj * p.leftCols<3>();
      jtj += j.transpose() * j;
      jtr += j.transpose() * r;
    }
    const Eigen::Vector3d step = jtj.ldlt().solve(-jtr);
    if (!step.allFinite()) return;
    *point += step;
    if (step.norm() < 1e-12 * (1 + point->norm())) return;
  }
}

// Normalised reprojection error; infinite behind the camera.
double ViewError(const View& view, const Eigen::Vector3d& point) {
  const Eigen::Vector3d x = view.pose->leftCols<3>() * point + view.pose->col(3);
  if (!(x.z() > 1e-12)) return INFINITY;
  return (x.head<2>() / x.z() - view.xy).norm();
}

struct Track {
  std::vector<View> views;
  std::vector<uint8_t> kept;
};

bool TriangulateTrack(Track& track, const cvis_triangulation_options& o, Eigen::Vector3d* point) {
  const size_t n = track.views.size();
  track.kept.assign(n, 1);
  size_t num_kept = n;
  std::vector<const View*> active;
  const double cos_min_angle = std::cos(o.min_angle_deg * M_PI / 180);
  while (num_kept >= size_t(o.min_num_views)) {
    active.clear();
    for (size_t i = 0; i < n; ++i) {
      if (track.kept[i]) active.push_back(&track.views[i]);
    }
    if (!Dlt(active, point)) return false;
    GaussNewton(active, point);
    // Drop the single worst view and re-solve: one gross outlier skews the estimate enough
    // that good views could look bad, so never reject more than one at a time.
    size_t worst = n;
    double worst_error = o.max_error;
    for (size_t i = 0; i < n; ++i) {
      if (!track.kept[i]) continue;
      const double e = ViewError(track.views[i], *point);
      if (!(e <= worst_error)) {
        worst_error = e;
        worst = i;
      }
    }
    if (worst == n) {
      // All kept views agree: the ray angle decides (ViewError already ensured depth > 0).
      for (size_t i = 0; i < n; ++i) {
        if (!track.kept[i]) continue;
        const Eigen::Vector3d ri = (*point - track.views[i].center).normalized();
        for (size_t j = i + 1; j < n; ++j) {
          if (!track.kept[j]) continue;
          const Eigen::Vector3d rj = (*point - track.views[j].center).normalized();
          if (ri.dot(rj) <= cos_min_angle) return true;
        }
      }
      return false;
    }
    track.kept[worst] = 0;
    --num_kept;
  }
  return false;
}

cvis_status Triangulate(int32_t num_tracks, const int32_t* obs_offsets, const int32_t* obs_pose,
                        const double* obs_xy, int32_t num_poses, const double* poses,
                        const cvis_triangulation_options& o, double* points3D, uint8_t* valid,
                        uint8_t* obs_inlier) {
  if (num_tracks < 0 || num_poses < 0) {
    return Fail(CVIS_INVALID_ARGUMENT, Str("num_tracks ", num_tracks, ", num_poses ", num_poses));
  }
  if (!(o.min_angle_deg >= 0) || !(o.max_error > 0) || o.min_num_views < 2) {
    return Fail(CVIS_INVALID_ARGUMENT,
                "options: min_angle_deg >= 0, max_error > 0 and min_num_views >= 2 required");
  }
  if (num_tracks == 0) return CVIS_OK;
  if (!obs_offsets || !points3D || !valid || (num_poses > 0 && !poses)) {
    return Fail(CVIS_INVALID_ARGUMENT, "a required array is NULL");
  }
  if (obs_offsets[0] != 0) return Fail(CVIS_INVALID_ARGUMENT, "obs_offsets[0] must be 0");
  for (int32_t t = 0; t < num_tracks; ++t) {
    if (obs_offsets[t + 1] < obs_offsets[t]) {
      return Fail(CVIS_INVALID_ARGUMENT, Str("obs_offsets decrease at track ", t));
    }
  }
  const int32_t num_obs = obs_offsets[num_tracks];
  if (num_obs > 0 && (!obs_pose || !obs_xy)) {
    return Fail(CVIS_INVALID_ARGUMENT, "a required array is NULL");
  }
  for (int32_t k = 0; k < num_obs; ++k) {
    if (obs_pose[k] < 0 || obs_pose[k] >= num_poses) {
      return Fail(CVIS_INVALID_ARGUMENT, Str("observation ", k, ": pose index ", obs_pose[k],
                                             " out of range 0..", num_poses - 1));
    }
  }

  std::vector<Pose> pose_matrices(num_poses);
  std::vector<Eigen::Vector3d> centers(num_poses);
  for (int32_t i = 0; i < num_poses; ++i) {
    pose_matrices[i] = Eigen::Map<const Pose>(poses + 12 * size_t(i));
    if (!pose_matrices[i].allFinite()) {
      return Fail(CVIS_INVALID_ARGUMENT, Str("pose ", i, " is not finite"));
    }
    centers[i] = -pose_matrices[i].leftCols<3>().transpose() * pose_matrices[i].col(3);
  }

  auto run = [&](int32_t begin, int32_t end) {
    Track track;
    for (int32_t t = begin; t < end; ++t) {
      track.views.clear();
      for (int32_t k = obs_offsets[t]; k < obs_offsets[t + 1]; ++k) {
        track.views.push_back({&pose_matrices[obs_pose[k]],
                               Eigen::Vector2d(obs_xy[2 * size_t(k)], obs_xy[2 * size_t(k) + 1]),
                               centers[obs_pose[k]]});
      }
      Eigen::Vector3d point = Eigen::Vector3d::Constant(NAN);
      const bool ok = track.views.size() >= size_t(o.min_num_views) &&
                      TriangulateTrack(track, o, &point);
      valid[t] = ok ? 1 : 0;
      for (int c = 0; c < 3; ++c) points3D[3 * size_t(t) + c] = ok ? point(c) : NAN;
      if (obs_inlier) {
        for (int32_t k = obs_offsets[t]; k < obs_offsets[t + 1]; ++k) {
          obs_inlier[k] = ok ? track.kept[k - obs_offsets[t]] : 0;
        }
      }
    }
  };
  if (num_tracks > kParallelThreshold) {
    // Split by observation count so both halves take about as long.
    const int32_t half = int32_t(std::upper_bound(obs_offsets, obs_offsets + num_tracks + 1,
                                                  num_obs / 2) - obs_offsets) - 1;
    const int32_t split = std::clamp(half, int32_t(0), num_tracks);
    // An exception must not escape the worker (std::terminate): carry it to this thread.
    std::exception_ptr worker_error;
    std::thread worker([&] {
      try {
        run(split, num_tracks);
      } catch (...) {
        worker_error = std::current_exception();
      }
    });
    try {
      run(0, split);
    } catch (...) {
      worker.join();
      throw;
    }
    worker.join();
    if (worker_error) std::rethrow_exception(worker_error);
  } else {
    run(0, num_tracks);
  }
  return CVIS_OK;
}

}  // namespace
}  // namespace cvis

extern "C" {

void cvis_triangulation_options_default(cvis_triangulation_options* options) {
  if (!options) return;
  options->min_angle_deg = 1.5;
  options->max_error = 0.004;
  options->min_num_views = 2;
}

cvis_status cvis_triangulate_tracks(int32_t num_tracks, const int32_t* obs_offsets,
                                    const int32_t* obs_pose, const double* obs_xy,
                                    int32_t num_poses, const double* poses,
                                    const cvis_triangulation_options* options, double* points3D,
                                    uint8_t* valid, uint8_t* obs_inlier) {
  return cvis::Guard([&] {
    cvis_triangulation_options defaults;
    cvis_triangulation_options_default(&defaults);
    return cvis::Triangulate(num_tracks, obs_offsets, obs_pose, obs_xy, num_poses, poses,
                             options ? *options : defaults, points3D, valid, obs_inlier);
  });
}

}  // extern "C"
