// The envelope of a room seen from inside, from every view's photometric depth map together
// (cvis_mvs_room_envelope in cvis_mvs.h). A view alone sees a bare ceiling through its creases
// with one or two walls, which lie on a line and fix no plane (planes.cpp); the views together
// hold the creases of all four walls, the tops of the vertical corners, and the skirting around
// the floor.
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "../../include/cvis_mvs.h"
#include "../util/status.h"
#include "depth_map.h"
#include "planes.h"
#include "workspace.h"

namespace cvis {
namespace mvs {
namespace {

// The planes are looked for in about this many sure pixels, spread evenly over the views (each
// view's spread evenly over its own): enough for a side that holds 0.5 % of them
// (kSceneEnvelope) to count hundreds, few enough for RANSAC's passes over them to take seconds.
constexpr size_t kSceneSample = 100000;
// Pixels within this share of the image's shorter side from its border are left out: where a
// view's frame ends, its sure pixels stop too, and that band of them is where the view stops, not
// the room (a view looking across the room would put a floor at its frame's bottom edge).
constexpr double kBorderShare = 0.05;

// No view surely sees beyond a side: of the pixels (every kGridStep-th of each view, inside its
// border) whose rays leave the box through a side, at most kSeenBeyondShare have a sure depth
// farther than it by kSeenBeyond. Where the views stop looking before the walls meet a ceiling,
// the walls' points thin out rather than end, and a side found there lies below walls matched
// above it: in a rendered room whose views see 2 % of its ceiling, 64 % of such a side's pixels
// saw beyond it; of the true sides of the rendered rooms, at most 1 %.
constexpr int kGridStep = 4;
constexpr double kSeenBeyond = 0.05;
constexpr double kSeenBeyondShare = 0.1;

// The border kBorderShare leaves out of a width x height map, in pixels.
int BorderPixels(int width, int height) { return int(std::ceil(kBorderShare * std::min(width, height))); }

// A box has no wall inside it. A found plane square with a side (within kSquareDeg), inside the
// box by more than kInnerShare of the box along that side's direction, whose points reach across
// kSpanShare of the box along one of the other two, is a partition or the inner walls of an L:
// the box's side behind it would fill its bare parts, outside the room. Furniture reaches across
// less (a table, a sofa's back), or stands against a side.
constexpr double kInnerShare = 0.05;
constexpr double kSpanShare = 0.9;

// Whether the plane is parallel to one of `sides`, within kSquareDeg: a room built square. A
// sloping ceiling or a wall at an angle is not, and the box would fill their bare parts at a side
// behind them.
bool SquareWith(const std::vector<internal::Plane>& sides, const internal::Plane& plane) {
  const double parallel = std::cos(internal::kSquareDeg * M_PI / 180);
  return std::any_of(sides.begin(), sides.end(), [&](const internal::Plane& side) {
    return std::fabs(side.n[0] * plane.n[0] + side.n[1] * plane.n[1] + side.n[2] * plane.n[2]) >= parallel;
  });
}

// Whether a found plane runs across the box of `sides` (pairs of opposite sides, each pair's
// axis the first side's normal) inside it: see kInnerShare.
bool WallInside(const std::vector<internal::Plane>& sides, const internal::Plane& plane,
                const std::vector<internal::SamplePoint>& points) {
  using internal::Plane;
  // The box along each of its three directions: the first side's normal, and the offsets along it
  // of the first side (n . X = -d) and of the opposite one.
  struct Direction {
    cv::Vec3d axis;
    double low, high;
  };
  std::vector<Direction> box;
  for (size_t i = 0; i < sides.size(); ++i) {
    const cv::Vec3d axis(sides[i].n);
    for (size_t j = i + 1; j < sides.size(); ++j) {
      if (axis.dot(cv::Vec3d(sides[j].n)) < -0.9) box.push_back({axis, -sides[i].d, sides[j].d});
    }
  }
  if (box.size() != 3) return false;
  const double parallel = std::cos(internal::kSquareDeg * M_PI / 180);
  for (size_t k = 0; k < 3; ++k) {
    const cv::Vec3d normal(plane.n);
    if (std::fabs(normal.dot(box[k].axis)) < parallel) continue;
    // Its own points: those on it and on no side (a plane at a table's height holds a band of
    // every wall it crosses).
    std::vector<const internal::SamplePoint*> on;
    for (const auto& point : points) {
      if (!internal::OnPlane(plane, point)) continue;
      if (std::none_of(sides.begin(), sides.end(), [&](const Plane& side) { return internal::OnPlane(side, point); })) {
        on.push_back(&point);
      }
    }
    if (on.size() < 2) return false;
    // Its offset along the axis, at the middle of its points.
    double middle = 0;
    for (const auto* point : on) middle += box[k].axis.dot(point->X);
    middle /= double(on.size());
    const double size = box[k].high - box[k].low, inside = kInnerShare * size;
    if (!(middle > box[k].low + inside && middle < box[k].high - inside)) return false;
    for (size_t other = 0; other < 3; ++other) {
      if (other == k) continue;
      std::vector<double> along;
      for (const auto* point : on) along.push_back(box[other].axis.dot(point->X));
      std::sort(along.begin(), along.end());
      // The span of the middle 96 % of its points, so that a few stray matches do not stretch it.
      const double span = along[along.size() * 98 / 100] - along[along.size() * 2 / 100];
      if (span >= kSpanShare * (box[other].high - box[other].low)) return true;
    }
  }
  return false;
}

// Whether some view surely sees beyond one of the box's `sides` (kSeenBeyondShare).
cvis_status SeenBeyond(Workspace& ws, const std::vector<int>& views, const char* const* depth_paths,
                       const std::vector<internal::Plane>& sides, bool* out) {
  std::vector<size_t> leaving(sides.size(), 0), beyond(sides.size(), 0);
  for (const int v : views) {
    std::shared_ptr<const DepthMap> map;
    if (cvis_status s = ws.Depth(depth_paths[v], &map); s != CVIS_OK) return s;
    const View& view = ws.view(v);
    std::vector<internal::Plane> cam;
    for (const internal::Plane& side : sides) cam.push_back(internal::CameraPlane(side, view));
    const int border = BorderPixels(map->width, map->height);
    for (int y = border; y < map->height - border; y += kGridStep) {
      for (int x = border; x < map->width - border; x += kGridStep) {
        const double ray[3] = {(x + 0.5 - view.cx) / view.fx, (y + 0.5 - view.cy) / view.fy, 1};
        double nearest;
        const size_t side = internal::ExitSide(cam, ray, &nearest);
        if (side == sides.size()) continue;
        ++leaving[side];
        const size_t i = map->Index(x, y);
        beyond[side] += map->depth[i] > (1 + kSeenBeyond) * nearest && map->cost[i] <= internal::kSureCost;
      }
    }
  }
  *out = false;
  for (size_t k = 0; k < sides.size(); ++k) {
    *out = *out || double(beyond[k]) > kSeenBeyondShare * double(leaving[k]);
  }
  return CVIS_OK;
}

}  // namespace
}  // namespace mvs
}  // namespace cvis

extern "C" cvis_status cvis_mvs_room_envelope(cvis_mvs_workspace* workspace, const char* const* depth_paths,
                                              uint64_t seed, cvis_mvs_plane out_planes[6], int32_t* out_count) {
  using namespace cvis;
  using namespace cvis::mvs::internal;
  return Guard([&] {
    if (workspace == nullptr || depth_paths == nullptr || out_planes == nullptr || out_count == nullptr) {
      return Fail(CVIS_INVALID_ARGUMENT, "cvis_mvs_room_envelope: null argument");
    }
    *out_count = 0;
    mvs::Workspace& ws = workspace->workspace;
    std::vector<int> views;
    for (int v = 0; v < ws.NumViews(); ++v) {
      if (depth_paths[v] != nullptr) views.push_back(v);
    }
    if (views.empty()) return CVIS_OK;
    const size_t quota = std::max<size_t>(1, mvs::kSceneSample / views.size());
    std::vector<SamplePoint> sample;
    cv::Vec3d middle(0, 0, 0);
    for (const int v : views) {
      std::shared_ptr<const mvs::DepthMap> map;
      if (cvis_status s = ws.Depth(depth_paths[v], &map); s != CVIS_OK) return s;
      const mvs::View& view = ws.view(v);
      if (map->width != view.width || map->height != view.height) {
        return Fail(CVIS_INVALID_ARGUMENT, Str(depth_paths[v], ": depth map is ", map->width, "x", map->height,
                                               ", its view ", view.width, "x", view.height));
      }
      const int border = mvs::BorderPixels(map->width, map->height);
      std::vector<size_t> sure;
      for (int y = border; y < map->height - border; ++y) {
        for (int x = border; x < map->width - border; ++x) {
          const size_t i = map->Index(x, y);
          if (map->depth[i] > 0 && map->cost[i] <= kSureCost) sure.push_back(i);
        }
      }
      const size_t step = (sure.size() + quota - 1) / quota;
      for (size_t k = 0; k < sure.size(); k += std::max<size_t>(1, step)) {
        const size_t i = sure[k];
        const double depth = map->depth[i];
        double cam[3], world[3], normal[3];
        view.CamFromPixel(double(i % size_t(map->width)) + 0.5, double(i / size_t(map->width)) + 0.5, depth, cam);
        view.WorldFromCam(cam, world);
        const float* n = &map->normal[3 * i];
        const double n_cam[3] = {n[0], n[1], n[2]};
        view.WorldFromCamDirection(n_cam, normal);
        sample.push_back(SamplePoint{cv::Vec3d(world[0], world[1], world[2]), depth,
                                     cv::Vec3d(normal[0], normal[1], normal[2])});
      }
      middle += cv::Vec3d(view.center[0], view.center[1], view.center[2]);
    }
    middle *= 1.0 / double(views.size());
    const std::vector<Plane> found = DominantPlanes(sample, middle, seed);
    const std::vector<Plane> envelope = EnvelopePlanes(found, sample, middle, kSceneEnvelope);
    if (envelope.size() != 6) return CVIS_OK;
    for (const Plane& plane : found) {
      if (!mvs::SquareWith(envelope, plane) || mvs::WallInside(envelope, plane, sample)) return CVIS_OK;
    }
    bool seen_beyond = false;
    if (cvis_status s = mvs::SeenBeyond(ws, views, depth_paths, envelope, &seen_beyond); s != CVIS_OK) return s;
    if (seen_beyond) return CVIS_OK;
    for (const int v : views) {
      const cv::Vec3d centre(ws.view(v).center);
      for (const Plane& p : envelope) {
        if (!(ViewpointDistance(p, centre) > 0)) return CVIS_OK;
      }
    }
    for (size_t k = 0; k < envelope.size(); ++k) {
      out_planes[k] = cvis_mvs_plane{{envelope[k].n[0], envelope[k].n[1], envelope[k].n[2]}, envelope[k].d};
    }
    *out_count = 6;
    return CVIS_OK;
  });
}
