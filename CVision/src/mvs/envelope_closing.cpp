// Closing a room's envelope where no view saw it (cvis_mvs_close_envelope in cvis_mvs.h).
//
// A walk through a room looks at its walls and hardly ever at the floor at its feet or the
// ceiling overhead: of a rendered room walked at eye level, the cameras saw 19 % of the floor and
// 2 % of the ceiling. The planar-prior pass fills what the views see of the envelope; what they do
// not see stays a hole, and Poisson bridges it with a bubble or trimming removes it. Once the
// envelope is known (its sides are where the views' points stop, and no view saw past them), its
// unseen parts are the envelope too: the floor runs on under the furniture and across the middle
// of the room. So they are sampled on the planes and handed to meshing, and the points are kept
// apart from the measured cloud, so that `dense.ply` holds only what the views saw.
#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <vector>

#include <opencv2/core.hpp>

#include "../../include/cvis_cloud.h"
#include "../../include/cvis_mvs.h"
#include "../cloud/cell_grid.h"
#include "../cloud/cloud.h"
#include "../util/parallel.h"
#include "../util/status.h"
#include "depth_map.h"
#include "planes.h"
#include "workspace.h"

namespace cvis {
namespace mvs {
namespace {

// The samples lie a pixel's footprint apart at the views' median depth, about as far apart as
// the fused points, so that Poisson's density, which trimming reads, is the same over the
// closed parts as over the seen ones.
//
// A sample is covered when the cloud has a point in its cell or a neighbouring one, cells
// kCoverFootprints samples wide: the cloud's own gaps narrower than that stay Poisson's to bridge.
constexpr double kCoverFootprints = 2;

// A view sees through a sample when its sure depth there lies farther by internal::kSeenBeyond
// (the rule by which the envelope's sides were kept, room_envelope.cpp): a doorway, a window, an
// opening into the next room. Those stay open.

// A face's colour: the per-channel median of the cloud's points on it, those within
// kOnFaceFootprints of its plane whose normals lie within acos(kOnFaceCosine) of its own; mid grey
// when it has none. A closed part is not a photograph of anything and does not pretend to be one.
constexpr double kOnFaceFootprints = 4;
constexpr double kOnFaceCosine = 0.8;
constexpr uint8_t kNoColour = 128;

// At most this many samples over the whole envelope: the footprint grows to keep within it.
constexpr double kMaxSamples = 2e7;

using internal::Plane;
using internal::kBoxSides;

// The signed distance from the plane, positive on the room's side.
double Distance(const Plane& plane, const cv::Vec3d& X) { return internal::ViewpointDistance(plane, X); }

// Whether X lies in the room of `envelope` (box sides, then notches' pairs of faces), within
// `slack` of its faces. `skip` is the face the point was sampled on.
bool InRoom(const std::vector<Plane>& envelope, const cv::Vec3d& X, size_t skip, double slack) {
  for (size_t k = 0; k < kBoxSides; ++k) {
    if (k != skip && Distance(envelope[k], X) < -slack) return false;
  }
  for (size_t k = kBoxSides; k + 1 < envelope.size(); k += 2) {
    const double a = k == skip ? 0 : Distance(envelope[k], X), b = k + 1 == skip ? 0 : Distance(envelope[k + 1], X);
    // A notch's face bounds it where the other face has the point behind it.
    if (k == skip || k + 1 == skip) {
      if ((k == skip ? b : a) > slack) return false;
      continue;
    }
    if (a < -slack && b < -slack) return false;
  }
  return true;
}

// The point where three planes meet.
cv::Vec3d Corner(const Plane& a, const Plane& b, const Plane& c) {
  const cv::Matx33d A(a.n[0], a.n[1], a.n[2], b.n[0], b.n[1], b.n[2], c.n[0], c.n[1], c.n[2]);
  return A.solve(cv::Vec3d(-a.d, -b.d, -c.d), cv::DECOMP_SVD);
}

// The box's eight corners: one side of each of its three pairs.
std::vector<cv::Vec3d> BoxCorners(const std::vector<Plane>& envelope) {
  std::vector<std::array<size_t, 2>> pairs;
  std::vector<bool> paired(kBoxSides, false);
  for (size_t i = 0; i < kBoxSides; ++i) {
    if (paired[i]) continue;
    size_t opposite = i;
    double least = 1;
    for (size_t j = i + 1; j < kBoxSides; ++j) {
      const double along = cv::Vec3d(envelope[i].n).dot(cv::Vec3d(envelope[j].n));
      if (!paired[j] && along < least) least = along, opposite = j;
    }
    paired[i] = paired[opposite] = true;
    pairs.push_back({i, opposite});
  }
  std::vector<cv::Vec3d> corners;
  if (pairs.size() != 3) return corners;
  for (int mask = 0; mask < 8; ++mask) {
    corners.push_back(Corner(envelope[pairs[0][mask & 1]], envelope[pairs[1][(mask >> 1) & 1]],
                             envelope[pairs[2][(mask >> 2) & 1]]));
  }
  return corners;
}

// The median footprint of a pixel over the views' sure pixels: depth / focal length.
cvis_status MedianFootprint(Workspace& ws, const std::vector<int>& views, const char* const* depth_paths,
                            double* out) {
  std::vector<double> footprints;
  for (const int v : views) {
    std::shared_ptr<const DepthMap> map;
    if (cvis_status s = ws.Depth(depth_paths[v], &map); s != CVIS_OK) return s;
    const View& view = ws.view(v);
    const double focal = 0.5 * (view.fx + view.fy);
    for (size_t i = 0; i < map->depth.size(); i += 97) {
      if (map->depth[i] > 0 && map->cost[i] <= internal::kSureCost) footprints.push_back(map->depth[i] / focal);
    }
  }
  *out = 0;
  if (footprints.empty()) return CVIS_OK;
  std::nth_element(footprints.begin(), footprints.begin() + footprints.size() / 2, footprints.end());
  *out = footprints[footprints.size() / 2];
  return CVIS_OK;
}

struct Sample {
  cv::Vec3f X;
  uint16_t face;
};

}  // namespace
}  // namespace mvs
}  // namespace cvis

extern "C" cvis_status cvis_mvs_close_envelope(cvis_mvs_workspace* workspace, const char* const* depth_paths,
                                               const cvis_mvs_plane* planes, int32_t num_planes,
                                               const cvis_cloud* cloud, int32_t num_threads, cvis_cloud** out,
                                               double* out_area) {
  using namespace cvis;
  using namespace cvis::mvs;
  return Guard([&] {
    if (workspace == nullptr || depth_paths == nullptr || planes == nullptr || cloud == nullptr || out == nullptr ||
        out_area == nullptr) {
      return Fail(CVIS_INVALID_ARGUMENT, "cvis_mvs_close_envelope: null argument");
    }
    *out = nullptr;
    *out_area = 0;
    if (!internal::IsEnvelopeCount(num_planes)) {
      return Fail(CVIS_INVALID_ARGUMENT, Str("cvis_mvs_close_envelope: ", num_planes,
                                             " planes; a room's envelope has 6, and 2 more per notch, at most ",
                                             CVIS_MVS_ROOM_ENVELOPE_MAX_PLANES));
    }
    const int64_t n = cloud->NumPoints();
    const bool oriented = cloud->normals.size() == cloud->points.size();
    const bool coloured = cloud->colors.size() == cloud->points.size();
    Workspace& ws = workspace->workspace;
    std::vector<Plane> envelope;
    for (int32_t k = 0; k < num_planes; ++k) {
      const cvis_mvs_plane& p = planes[k];
      envelope.push_back(Plane{{p.normal[0], p.normal[1], p.normal[2]}, p.offset, true});
    }
    std::vector<int> views;
    for (int v = 0; v < ws.NumViews(); ++v) {
      if (depth_paths[v] != nullptr) views.push_back(v);
    }
    auto result = std::make_unique<cvis_cloud>();
    double footprint = 0;
    if (cvis_status s = MedianFootprint(ws, views, depth_paths, &footprint); s != CVIS_OK) return s;
    const std::vector<cv::Vec3d> corners = BoxCorners(envelope);
    if (!(footprint > 0) || corners.size() != 8) {
      *out = result.release();
      return CVIS_OK;
    }

    // Each face's frame on its plane, the extent the box's corners span in it, and its area at
    // one sample per footprint squared.
    struct Frame {
      cv::Vec3d origin, u, v, n;
      double low_u, high_u, low_v, high_v;
    };
    std::vector<Frame> frames;
    double grid_area = 0;
    for (const Plane& plane : envelope) {
      Frame f;
      f.n = cv::Vec3d(plane.n);
      f.origin = -plane.d * f.n;
      const cv::Vec3d helper = std::fabs(f.n[0]) < 0.9 ? cv::Vec3d(1, 0, 0) : cv::Vec3d(0, 1, 0);
      f.u = cv::normalize(helper - helper.dot(f.n) * f.n);
      f.v = f.n.cross(f.u);
      f.low_u = f.low_v = INFINITY;
      f.high_u = f.high_v = -INFINITY;
      for (const cv::Vec3d& c : corners) {
        const cv::Vec3d d = c - f.origin;
        f.low_u = std::min(f.low_u, d.dot(f.u)), f.high_u = std::max(f.high_u, d.dot(f.u));
        f.low_v = std::min(f.low_v, d.dot(f.v)), f.high_v = std::max(f.high_v, d.dot(f.v));
      }
      grid_area += (f.high_u - f.low_u) * (f.high_v - f.low_v);
      frames.push_back(f);
    }
    const double step = std::max(footprint, std::sqrt(grid_area / kMaxSamples));

    // The cloud's cells, for coverage.
    const double cover = kCoverFootprints * step;
    CellGrid grid(cover);
    CellSet covered;
    for (int64_t i = 0; i < n; ++i) {
      const float* p = &cloud->points[size_t(3 * i)];
      const auto c = grid.CellOf(p[0], p[1], p[2]);
      covered.Insert(CellGrid::Key(c[0], c[1], c[2]));
    }
    auto is_covered = [&](const cv::Vec3d& X) {
      const auto c = grid.CellOf(X[0], X[1], X[2]);
      for (int dz = -1; dz <= 1; ++dz) {
        for (int dy = -1; dy <= 1; ++dy) {
          for (int dx = -1; dx <= 1; ++dx) {
            if (covered.Contains(CellGrid::Key(c[0] + dx, c[1] + dy, c[2] + dz))) return true;
          }
        }
      }
      return false;
    };

    // Samples on each face, in the room and not covered.
    std::vector<Sample> samples;
    const double slack = 0.5 * step;
    for (size_t k = 0; k < frames.size(); ++k) {
      const Frame& f = frames[k];
      for (double a = f.low_u + 0.5 * step; a < f.high_u; a += step) {
        for (double b = f.low_v + 0.5 * step; b < f.high_v; b += step) {
          const cv::Vec3d X = f.origin + a * f.u + b * f.v;
          if (!InRoom(envelope, X, k, slack) || is_covered(X)) continue;
          samples.push_back(Sample{cv::Vec3f(float(X[0]), float(X[1]), float(X[2])), uint16_t(k)});
        }
      }
    }

    // Those no view sees through.
    std::vector<uint8_t> open(samples.size(), 0);
    for (const int v : views) {
      std::shared_ptr<const DepthMap> map;
      if (cvis_status s = ws.Depth(depth_paths[v], &map); s != CVIS_OK) return s;
      const View& view = ws.view(v);
      ParallelFor(int64_t(samples.size()), num_threads, 4096, [&](int64_t begin, int64_t end, int) {
        for (int64_t i = begin; i < end; ++i) {
          if (open[size_t(i)]) continue;
          const cv::Vec3f& P = samples[size_t(i)].X;
          const double world[3] = {P[0], P[1], P[2]};
          double cam[3], x, y;
          view.CamFromWorld(world, cam);
          if (!view.ProjectCam(cam, &x, &y) || !(x >= 0 && y >= 0 && x < map->width && y < map->height)) continue;
          const size_t pixel = map->Index(int(x), int(y));
          if (map->depth[pixel] > (1 + internal::kSeenBeyond) * cam[2] && map->cost[pixel] <= internal::kSureCost) {
            open[size_t(i)] = 1;
          }
        }
      });
    }

    // Each face's colour.
    std::vector<std::array<uint8_t, 3>> colours(envelope.size(), {kNoColour, kNoColour, kNoColour});
    if (coloured && oriented) {
      std::vector<std::array<std::vector<uint8_t>, 3>> channels(envelope.size());
      const int64_t stride = std::max<int64_t>(1, n / 2000000);
      for (int64_t i = 0; i < n; i += stride) {
        const float* p = &cloud->points[size_t(3 * i)];
        const float* nrm = &cloud->normals[size_t(3 * i)];
        const cv::Vec3d X(p[0], p[1], p[2]), N(nrm[0], nrm[1], nrm[2]);
        for (size_t k = 0; k < envelope.size(); ++k) {
          if (std::fabs(Distance(envelope[k], X)) > kOnFaceFootprints * step) continue;
          if (N.dot(frames[k].n) < kOnFaceCosine * cv::norm(N)) continue;
          if (!InRoom(envelope, X, k, kOnFaceFootprints * step)) continue;
          for (int c = 0; c < 3; ++c) channels[k][size_t(c)].push_back(cloud->colors[size_t(3 * i + c)]);
        }
      }
      for (size_t k = 0; k < envelope.size(); ++k) {
        for (int c = 0; c < 3; ++c) {
          std::vector<uint8_t>& values = channels[k][size_t(c)];
          if (values.empty()) continue;
          std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
          colours[k][size_t(c)] = values[values.size() / 2];
        }
      }
    }

    for (size_t i = 0; i < samples.size(); ++i) {
      if (open[i]) continue;
      const Sample& s = samples[i];
      const Frame& f = frames[s.face];
      for (int c = 0; c < 3; ++c) {
        result->points.push_back(s.X[c]);
        result->normals.push_back(float(f.n[c]));
        result->colors.push_back(colours[s.face][size_t(c)]);
      }
    }
    *out_area = double(result->NumPoints()) * step * step;
    *out = result.release();
    return CVIS_OK;
  });
}
