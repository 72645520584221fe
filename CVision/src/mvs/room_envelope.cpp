// The envelope of a room seen from inside, from every view's photometric depth map together
// (cvis_mvs_room_envelope in cvis_mvs.h). A view alone sees a bare ceiling through its creases
// with one or two walls, which lie on a line and fix no plane (planes.cpp); the views together
// hold the creases of all four walls, the tops of the vertical corners, and the skirting around
// the floor.
#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <utility>
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
// farther than it by internal::kSeenBeyond. Where the views stop looking before the walls meet a ceiling,
// the walls' points thin out rather than end, and a side found there lies below walls matched
// above it: in a rendered room whose views see 2 % of its ceiling, 64 % of such a side's pixels
// saw beyond it (a ceiling so found moves out to its own points: MoveOut); of the true
// sides of the rendered rooms, at most 1 %.
constexpr int kGridStep = 4;
constexpr double kSeenBeyondShare = 0.1;

// The border kBorderShare leaves out of a width x height map, in pixels.
int BorderPixels(int width, int height) { return int(std::ceil(kBorderShare * std::min(width, height))); }

// A box has no wall inside it. A found plane square with a side (within kSquareDeg), inside the
// box by more than kInnerShare of the box along that side's direction, whose points reach across
// kSpanShare of the box along one of the other two, is a partition, or the inner wall of an L
// the floor plan did not show as a notch (Notches): the box's side behind it would fill its bare
// parts, outside the room. Furniture reaches across less (a table, a sofa's back), or stands
// against a side.
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

// The box along each of its three directions: the first side's normal of each pair of opposite
// sides, and the offsets along it of that side (n . X = -d) and of the opposite one.
struct Direction {
  cv::Vec3d axis;
  double low, high;
};
std::vector<Direction> BoxDirections(const std::vector<internal::Plane>& sides) {
  std::vector<Direction> box;
  for (size_t i = 0; i < sides.size(); ++i) {
    const cv::Vec3d axis(sides[i].n);
    for (size_t j = i + 1; j < sides.size(); ++j) {
      if (axis.dot(cv::Vec3d(sides[j].n)) < -0.9) box.push_back({axis, -sides[i].d, sides[j].d});
    }
  }
  return box;
}

// A found plane's own points: those on it and on no side (a plane at a table's height holds a
// band of every wall it crosses).
std::vector<const internal::SamplePoint*> OwnPoints(const std::vector<internal::Plane>& sides, const internal::Plane& plane,
                                                    const std::vector<internal::SamplePoint>& points) {
  std::vector<const internal::SamplePoint*> on;
  for (const auto& point : points) {
    if (!internal::OnPlane(plane, point)) continue;
    if (std::none_of(sides.begin(), sides.end(), [&](const internal::Plane& side) { return internal::OnPlane(side, point); })) {
      on.push_back(&point);
    }
  }
  return on;
}

// Whether the points reach across kSpanShare of the box along one of its directions other than
// `skip`: the span of their middle 96 %, so that a few stray matches do not stretch it.
bool ReachesAcross(const std::vector<Direction>& box, const std::vector<const internal::SamplePoint*>& on,
                   size_t skip) {
  if (on.size() < 2) return false;
  for (size_t other = 0; other < box.size(); ++other) {
    if (other == skip) continue;
    std::vector<double> along;
    for (const auto* point : on) along.push_back(box[other].axis.dot(point->X));
    std::sort(along.begin(), along.end());
    const double span = along[along.size() * 98 / 100] - along[along.size() * 2 / 100];
    if (span >= kSpanShare * (box[other].high - box[other].low)) return true;
  }
  return false;
}

// Whether a found plane not square with the box runs across it: a sloping ceiling or a wall at
// an angle. A plane through a few pieces of furniture at once is neither.
bool SlopeAcross(const std::vector<internal::Plane>& sides, const internal::Plane& plane,
                 const std::vector<internal::SamplePoint>& points) {
  return !SquareWith(sides, plane) && ReachesAcross(BoxDirections(sides), OwnPoints(sides, plane, points), 3);
}

// Whether a found plane runs across the box of `sides` inside it, and is none of the faces of its
// notches: see kInnerShare.
bool WallInside(const std::vector<internal::Plane>& sides, const std::vector<internal::Plane>& notch_faces,
                const internal::Plane& plane, const std::vector<internal::SamplePoint>& points) {
  const std::vector<Direction> box = BoxDirections(sides);
  if (box.size() != 3) return false;
  const double parallel = std::cos(internal::kSquareDeg * M_PI / 180);
  for (size_t k = 0; k < 3; ++k) {
    const cv::Vec3d normal(plane.n);
    if (std::fabs(normal.dot(box[k].axis)) < parallel) continue;
    const std::vector<const internal::SamplePoint*> on = OwnPoints(sides, plane, points);
    if (on.size() < 2) return false;
    // Its offset along the axis, at the middle of its points.
    double middle = 0;
    for (const auto* point : on) middle += box[k].axis.dot(point->X);
    middle /= double(on.size());
    const double size = box[k].high - box[k].low, inside = kInnerShare * size;
    if (!(middle > box[k].low + inside && middle < box[k].high - inside)) return false;
    // As near a notch's face, it is that face.
    for (const internal::Plane& face : notch_faces) {
      const double along = box[k].axis.dot(cv::Vec3d(face.n));
      if (std::fabs(along) >= parallel && std::fabs(middle + face.d / along) <= inside) return false;
    }
    return ReachesAcross(box, on, k);
  }
  return false;
}

// The views' up direction: the mean of their images' up. A room's floor and ceiling lie across
// it within kUpDeg (the views are held roughly level).
constexpr double kUpDeg = 30;
cv::Vec3d ViewsUp(Workspace& ws, const std::vector<int>& views) {
  cv::Vec3d up(0, 0, 0);
  for (const int v : views) {
    const double up_cam[3] = {0, -1, 0};  // the image's y runs down
    double world[3];
    ws.view(v).WorldFromCamDirection(up_cam, world);
    up += cv::Vec3d(world[0], world[1], world[2]);
  }
  return up;
}
// Whether `axis` (a unit vector) lies along `up`, either way, within kUpDeg.
bool Upright(const cv::Vec3d& axis, const cv::Vec3d& up) {
  return std::fabs(axis.dot(up)) >= std::cos(kUpDeg * M_PI / 180) * cv::norm(up);
}

// Whether `side` is a ceiling: its normal, into the room, points down.
bool Ceiling(const internal::Plane& side, const cv::Vec3d& up) {
  return Upright(cv::Vec3d(side.n), up) && cv::Vec3d(side.n).dot(up) < 0;
}

// The views look across a room and see its ceiling least. A ceiling they barely see is placed
// where the walls' points across it end (EnvelopePlanes), or not at all when too few of them
// reach it; where they thin out towards it rather than end, that lies below walls matched above
// it, and the views see beyond it (SeenBeyond). Such a ceiling moves out to where its own points
// are (a missing one from the cameras' middle): beyond it, the band (kPlaneTolerance of depth)
// with the largest share of points facing back into the room, at least internal::kOwnShare of
// the band and kMinOwnPoints of them, placed at their median. The points are every kGridStep-th
// pixel's up to the frame's edge: a view sees such a ceiling at its frame's top, and the band
// left out elsewhere (kBorderShare) is left out for where a view's points stop, which facing
// points do not mark. In a rendered room whose views see 3 % of its ceiling (93 % of its facing
// points in that band), the side from the walls' points lay 36 cm below it; of the bands beyond,
// those more than 10 cm below the ceiling held at most 10 % facing points, the ceiling's 39 %
// (437 of them), and the stray matches above it at most 30. A floor does not move so: below it
// lie the reflections of a glossy floor, which face into the room as the floor does.
constexpr size_t kMinOwnPoints = 100;
constexpr size_t kMoveCandidates = 200;

// `side` moved out as above, or nullopt when no band beyond it holds its own points.
std::optional<internal::Plane> MoveOut(Workspace& ws, const std::vector<int>& views, const char* const* depth_paths,
                                       const internal::Plane& side, cvis_status* status) {
  struct Beyond {
    double offset, tolerance;
    bool own;
  };
  std::vector<Beyond> beyond;
  const cv::Vec3d inward(side.n);
  for (const int v : views) {
    std::shared_ptr<const DepthMap> map;
    if ((*status = ws.Depth(depth_paths[v], &map)) != CVIS_OK) return std::nullopt;
    const View& view = ws.view(v);
    for (int y = 0; y < map->height; y += kGridStep) {
      for (int x = 0; x < map->width; x += kGridStep) {
        const size_t i = map->Index(x, y);
        if (!(map->depth[i] > 0 && map->cost[i] <= internal::kSureCost)) continue;
        double cam[3], world[3], normal[3];
        view.CamFromPixel(x + 0.5, y + 0.5, map->depth[i], cam);
        view.WorldFromCam(cam, world);
        const double distance = internal::ViewpointDistance(side, cv::Vec3d(world[0], world[1], world[2]));
        if (!(distance < 0)) continue;
        const double n_cam[3] = {map->normal[3 * i], map->normal[3 * i + 1], map->normal[3 * i + 2]};
        view.WorldFromCamDirection(n_cam, normal);
        const bool own = inward.dot(cv::Vec3d(normal[0], normal[1], normal[2])) >= internal::kFacingCosine;
        beyond.push_back({-distance, internal::kPlaneTolerance * map->depth[i], own});
      }
    }
  }
  std::vector<double> candidates;
  for (const Beyond& point : beyond) {
    if (point.own) candidates.push_back(point.offset);
  }
  if (candidates.size() < kMinOwnPoints) return std::nullopt;
  std::sort(candidates.begin(), candidates.end());
  // The points within their tolerance of `offset`, and how many of those are own.
  auto band = [&](double offset, std::vector<double>* own_offsets) {
    size_t count = 0;
    for (const Beyond& point : beyond) {
      if (std::fabs(point.offset - offset) > point.tolerance) continue;
      ++count;
      if (point.own && own_offsets != nullptr) own_offsets->push_back(point.offset);
    }
    return count;
  };
  double best = 0, best_share = 0;
  const size_t step = std::max<size_t>(1, candidates.size() / kMoveCandidates);
  for (size_t c = 0; c < candidates.size(); c += step) {
    std::vector<double> own;
    const size_t count = band(candidates[c], &own);
    const double share = double(own.size()) / double(count);
    if (own.size() >= kMinOwnPoints && share >= internal::kOwnShare && share > best_share) {
      best_share = share;
      best = candidates[c];
    }
  }
  if (best_share == 0) return std::nullopt;
  // From the band's edge to the middle of its own points, until it stays.
  for (int shift = 0; shift < 10; ++shift) {
    std::vector<double> own;
    band(best, &own);
    std::nth_element(own.begin(), own.begin() + own.size() / 2, own.end());
    const double median = own[own.size() / 2];
    if (std::fabs(median - best) <= 1e-4 * std::fabs(best)) break;
    best = median;
  }
  // n . X + d = 0 moved `best` away from the room, against n.
  return internal::Plane{{side.n[0], side.n[1], side.n[2]}, side.d + best, true};
}

// Which planes of the envelope (box sides, then notch faces) some view surely sees beyond
// (kSeenBeyondShare).
cvis_status SeenBeyond(Workspace& ws, const std::vector<int>& views, const char* const* depth_paths,
                       const std::vector<internal::Plane>& envelope, std::vector<bool>* out) {
  std::vector<size_t> leaving(envelope.size(), 0), beyond(envelope.size(), 0);
  for (const int v : views) {
    std::shared_ptr<const DepthMap> map;
    if (cvis_status s = ws.Depth(depth_paths[v], &map); s != CVIS_OK) return s;
    const View& view = ws.view(v);
    std::vector<internal::Plane> cam;
    for (const internal::Plane& plane : envelope) cam.push_back(internal::CameraPlane(plane, view));
    const int border = BorderPixels(map->width, map->height);
    for (int y = border; y < map->height - border; y += kGridStep) {
      for (int x = border; x < map->width - border; x += kGridStep) {
        const double ray[3] = {(x + 0.5 - view.cx) / view.fx, (y + 0.5 - view.cy) / view.fy, 1};
        double nearest;
        const size_t side = internal::RoomExit(cam, ray, &nearest);
        if (side == envelope.size()) continue;
        ++leaving[side];
        const size_t i = map->Index(x, y);
        beyond[side] += map->depth[i] > (1 + internal::kSeenBeyond) * nearest && map->cost[i] <= internal::kSureCost;
      }
    }
  }
  out->assign(envelope.size(), false);
  for (size_t k = 0; k < envelope.size(); ++k) (*out)[k] = double(beyond[k]) > kSeenBeyondShare * double(leaving[k]);
  return CVIS_OK;
}

// A room that is not a box: an L, or a box with a corner walled off (a closet, a stairwell).
// The box is the room's bounding box, and its sides behind the corner's walls would fill their
// bare parts outside the room. Such a corner is a notch: a rectangle of the floor plan at a
// corner of the box, full height, that no view matched anything in. It is found in the floor
// plan of every view's sure pixels (in cells of 1/kPlanCells of the box's longer horizontal
// side), where the walls bounding it stand as lines: their creases with floor and ceiling, and
// the edge where they meet, matched from the floor up (in the rendered L room, to 80 % of its
// height; in the rendered box rooms no corner of an empty rectangle reached above half). Its
// faces are placed at the middle of their lines' points. The plan takes every kPlanStep-th
// pixel, or sparser so that at most kPlanPixels are looked at (a point costs 8 bytes).
constexpr int kPlanCells = 100;
constexpr int kPlanStep = 2;
constexpr double kPlanPixels = 8e6;
constexpr int kHeightBins = 10;
// Empty: the rectangle's cells, kInsetCells in from its faces and the box's sides, hold at most
// kEmptyShare of the plan's mean count per cell (the rendered L room's notch: 2 %).
constexpr int kInsetCells = 2;
constexpr double kEmptyShare = 0.05;
// A face's line: the median over its cells of the most points within one cell across it is at
// least kLineShare of the mean (the L room's inner walls: 31 %).
constexpr double kLineShare = 0.1;
// The edge where the faces meet holds points in at least kEdgeBins of kHeightBins heights
// between floor and ceiling (the L room: 8; corners of empty rectangles in the box rooms: at
// most 5).
constexpr int kEdgeBins = 7;
// A notch reaches at least kMinNotchShare of the box along both directions, and leaves at least
// kMinRoomShare of it beside it: a smaller cut is a pillar or a cupboard, not a wall, and a
// larger one leaves a corridor the box does not describe.
constexpr double kMinNotchShare = 0.1;
constexpr double kMinRoomShare = 0.25;

cvis_status Notches(Workspace& ws, const std::vector<int>& views, const char* const* depth_paths,
                    const std::vector<internal::Plane>& sides, std::vector<internal::Plane>* faces) {
  faces->clear();
  const std::vector<Direction> box = BoxDirections(sides);
  if (box.size() != 3) return CVIS_OK;
  const cv::Vec3d up = ViewsUp(ws, views);
  size_t vertical = 0;
  for (size_t k = 1; k < 3; ++k) {
    if (std::fabs(box[k].axis.dot(up)) > std::fabs(box[vertical].axis.dot(up))) vertical = k;
  }
  if (!Upright(box[vertical].axis, up)) return CVIS_OK;
  const Direction& A = box[(vertical + 1) % 3];
  const Direction& B = box[(vertical + 2) % 3];
  const Direction& U = box[vertical];
  const double cell = std::max(A.high - A.low, B.high - B.low) / kPlanCells;
  const int na = int(std::ceil((A.high - A.low) / cell)), nb = int(std::ceil((B.high - B.low) / cell));
  if (na < 4 * kInsetCells || nb < 4 * kInsetCells) return CVIS_OK;

  // The floor plan: points per cell, the heights they reach, and the points themselves (along A
  // and B from the box's low sides) for placing faces.
  std::vector<int> count(size_t(na) * nb, 0);
  std::vector<uint16_t> heights(size_t(na) * nb, 0);
  std::vector<cv::Vec2f> points;
  double pixels = 0;
  for (const int v : views) pixels += double(ws.view(v).width) * ws.view(v).height;
  const int step = std::max(kPlanStep, int(std::ceil(std::sqrt(pixels / kPlanPixels))));
  for (const int v : views) {
    std::shared_ptr<const DepthMap> map;
    if (cvis_status s = ws.Depth(depth_paths[v], &map); s != CVIS_OK) return s;
    const View& view = ws.view(v);
    const int border = BorderPixels(map->width, map->height);
    for (int y = border; y < map->height - border; y += step) {
      for (int x = border; x < map->width - border; x += step) {
        const size_t i = map->Index(x, y);
        if (!(map->depth[i] > 0 && map->cost[i] <= internal::kSureCost)) continue;
        double cam[3], world[3];
        view.CamFromPixel(x + 0.5, y + 0.5, map->depth[i], cam);
        view.WorldFromCam(cam, world);
        const cv::Vec3d X(world[0], world[1], world[2]);
        const double a = A.axis.dot(X) - A.low, b = B.axis.dot(X) - B.low, u = U.axis.dot(X) - U.low;
        const int ia = int(std::floor(a / cell)), ib = int(std::floor(b / cell));
        if (ia < -1 || ia > na || ib < -1 || ib > nb) continue;  // beyond the box: noise
        const size_t c = size_t(std::clamp(ia, 0, na - 1)) * nb + size_t(std::clamp(ib, 0, nb - 1));
        ++count[c];
        const int bin = std::clamp(int(std::floor(u / (U.high - U.low) * kHeightBins)), 0, kHeightBins - 1);
        heights[c] |= uint16_t(1u << bin);
        points.push_back(cv::Vec2f(float(a), float(b)));
      }
    }
  }
  if (points.empty()) return CVIS_OK;
  const double mean = double(points.size()) / double(count.size());

  std::vector<std::array<int, 4>> taken;  // rectangles of notches kept: rows [0],[1), columns [2],[3)
  for (int corner = 0; corner < 4; ++corner) {
    const bool high_a = corner & 1, high_b = corner & 2;
    // Cell (i, j) counted from this corner.
    auto at = [&](int i, int j) { return size_t(high_a ? na - 1 - i : i) * nb + size_t(high_b ? nb - 1 - j : j); };
    std::vector<double> sum(size_t(na + 1) * (nb + 1), 0);  // prefix sums of the counts from the corner
    for (int i = 0; i < na; ++i) {
      for (int j = 0; j < nb; ++j) {
        sum[size_t(i + 1) * (nb + 1) + j + 1] = count[at(i, j)] + sum[size_t(i) * (nb + 1) + j + 1] +
                                                sum[size_t(i + 1) * (nb + 1) + j] - sum[size_t(i) * (nb + 1) + j];
      }
    }
    auto block = [&](int i0, int j0, int i1, int j1) {  // points in rows [i0, i1), columns [j0, j1)
      return sum[size_t(i1) * (nb + 1) + j1] - sum[size_t(i0) * (nb + 1) + j1] - sum[size_t(i1) * (nb + 1) + j0] +
             sum[size_t(i0) * (nb + 1) + j0];
    };
    // The strength of a face's line: the median over its cells of the most points within one
    // cell across it.
    auto line = [&](int across, int length, bool rows) {
      std::vector<int> most;
      for (int k = 0; k <= length; ++k) {
        int best = 0;
        for (int d = std::max(0, across - 1); d <= across + 1; ++d) {
          best = std::max(best, count[rows ? at(d, k) : at(k, d)]);
        }
        most.push_back(best);
      }
      std::nth_element(most.begin(), most.begin() + most.size() / 2, most.end());
      return double(most[most.size() / 2]);
    };
    int best_i = 0, best_j = 0;
    for (int i = std::max(2 * kInsetCells + 1, int(std::ceil(kMinNotchShare * na))); i <= int((1 - kMinRoomShare) * na); ++i) {
      for (int j = std::max(2 * kInsetCells + 1, int(std::ceil(kMinNotchShare * nb))); j <= int((1 - kMinRoomShare) * nb); ++j) {
        if (i * j <= best_i * best_j) continue;
        // The notch is rows [0, i) and columns [0, j); its faces lie along row i and column j.
        const double inside = block(kInsetCells, kInsetCells, i - kInsetCells, j - kInsetCells) /
                              double((i - 2 * kInsetCells) * (j - 2 * kInsetCells));
        if (!(inside <= kEmptyShare * mean)) continue;
        if (line(i, j, true) < kLineShare * mean || line(j, i, false) < kLineShare * mean) continue;
        uint16_t edge = 0;
        for (int di = i - 1; di <= i + 1; ++di) {
          for (int dj = j - 1; dj <= j + 1; ++dj) edge |= heights[at(di, dj)];
        }
        if (__builtin_popcount(edge) < kEdgeBins) continue;
        best_i = i;
        best_j = j;
      }
    }
    if (best_i == 0) continue;
    const std::array<int, 4> rect = {high_a ? na - best_i : 0, high_a ? na : best_i, high_b ? nb - best_j : 0,
                                     high_b ? nb : best_j};
    if (std::any_of(taken.begin(), taken.end(), [&](const std::array<int, 4>& r) {
          return rect[0] < r[1] && r[0] < rect[1] && rect[2] < r[3] && r[2] < rect[3];
        })) {
      continue;
    }
    // Each face at the middle of its line's points. The largest rectangle that passes puts the
    // line up to kInsetCells cells from its wall, so the wall is the densest cell within that, and
    // its points are those within a cell of it, along the notch.
    auto middle = [&](bool along_a) {
      const int i = along_a ? best_i : best_j;
      const int length = along_a ? best_j : best_i;
      const int n_across = along_a ? na : nb, n_along = along_a ? nb : na;
      const bool high_across = along_a ? high_a : high_b, high_along = along_a ? high_b : high_a;
      std::vector<std::pair<int, float>> near;  // cell across, from the corner; offset across
      for (const cv::Vec2f& p : points) {
        const double across = along_a ? p[0] : p[1], along = along_a ? p[1] : p[0];
        int k = int(std::floor(across / cell)), l = int(std::floor(along / cell));
        if (high_across) k = n_across - 1 - k;
        if (high_along) l = n_along - 1 - l;
        if (std::abs(k - i) <= kInsetCells + 1 && l >= 0 && l <= length) near.push_back({k, float(across)});
      }
      std::vector<int> per_cell(2 * kInsetCells + 3, 0);
      for (const auto& [k, across] : near) ++per_cell[size_t(k - i + kInsetCells + 1)];
      const int densest = int(std::max_element(per_cell.begin(), per_cell.end()) - per_cell.begin()) + i - kInsetCells - 1;
      std::vector<float> on;
      for (const auto& [k, across] : near) {
        if (std::abs(k - densest) <= 1) on.push_back(across);
      }
      std::nth_element(on.begin(), on.begin() + on.size() / 2, on.end());
      return double(on[on.size() / 2]);
    };
    const double at_a = A.low + middle(true), at_b = B.low + middle(false);
    // Normals into the room: away from the corner.
    const double sa = high_a ? -1 : 1, sb = high_b ? -1 : 1;
    const internal::Plane face_a{{sa * A.axis[0], sa * A.axis[1], sa * A.axis[2]}, -sa * at_a, true};
    const internal::Plane face_b{{sb * B.axis[0], sb * B.axis[1], sb * B.axis[2]}, -sb * at_b, true};
    // No camera stands in it.
    if (std::any_of(views.begin(), views.end(), [&](int v) {
          const cv::Vec3d centre(ws.view(v).center);
          return internal::ViewpointDistance(face_a, centre) < 0 && internal::ViewpointDistance(face_b, centre) < 0;
        })) {
      continue;
    }
    taken.push_back(rect);
    faces->push_back(face_a);
    faces->push_back(face_b);
  }
  return CVIS_OK;
}

}  // namespace
}  // namespace mvs
}  // namespace cvis

extern "C" cvis_status cvis_mvs_room_envelope(cvis_mvs_workspace* workspace, const char* const* depth_paths,
                                              uint64_t seed,
                                              cvis_mvs_plane out_planes[CVIS_MVS_ROOM_ENVELOPE_MAX_PLANES],
                                              int32_t* out_count) {
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
    std::vector<Plane> box = EnvelopePlanes(found, sample, middle, kSceneEnvelope);
    const cv::Vec3d up = mvs::ViewsUp(ws, views);
    std::vector<bool> moved(kBoxSides, false);
    if (box.size() == kBoxSides - 1) {
      // No ceiling: looked for beyond the cameras' middle (MoveOut), opposite the floor.
      const auto along = [&](const Plane& p) { return mvs::Upright(cv::Vec3d(p.n), up); };
      if (std::count_if(box.begin(), box.end(), along) != 1) return CVIS_OK;
      const Plane& floor = *std::find_if(box.begin(), box.end(), along);
      if (mvs::Ceiling(floor, up)) return CVIS_OK;
      const cv::Vec3d n = -cv::Vec3d(floor.n);
      cvis_status status = CVIS_OK;
      const std::optional<Plane> side =
          mvs::MoveOut(ws, views, depth_paths, Plane{{n[0], n[1], n[2]}, -n.dot(middle), true}, &status);
      if (status != CVIS_OK) return status;
      if (!side) return CVIS_OK;
      box.push_back(*side);
      moved.back() = true;
    }
    if (box.size() != kBoxSides) return CVIS_OK;
    for (const int v : views) {
      const cv::Vec3d centre(ws.view(v).center);
      for (const Plane& p : box) {
        if (!(ViewpointDistance(p, centre) > 0)) return CVIS_OK;
      }
    }
    std::vector<Plane> room;
    // The box's checks, again after a ceiling seen beyond has moved out (MoveOut).
    for (bool checked = false; !checked;) {
      std::vector<Plane> notch_faces;
      if (cvis_status s = mvs::Notches(ws, views, depth_paths, box, &notch_faces); s != CVIS_OK) return s;
      // A wall inside the box is a notch's face, or the box is not the room.
      for (const Plane& plane : found) {
        if (mvs::SlopeAcross(box, plane, sample)) return CVIS_OK;
        if (mvs::WallInside(box, notch_faces, plane, sample)) return CVIS_OK;
      }
      room = box;
      room.insert(room.end(), notch_faces.begin(), notch_faces.end());
      // A side seen beyond is not the room's, and nor is a notch that a view sees into.
      for (;;) {
        std::vector<bool> seen_beyond;
        if (cvis_status s = mvs::SeenBeyond(ws, views, depth_paths, room, &seen_beyond); s != CVIS_OK) return s;
        const auto side = std::find(seen_beyond.begin(), seen_beyond.begin() + kBoxSides, true) - seen_beyond.begin();
        if (side < std::ptrdiff_t(kBoxSides)) {
          if (moved[size_t(side)] || !mvs::Ceiling(box[size_t(side)], up)) return CVIS_OK;
          cvis_status status = CVIS_OK;
          const std::optional<Plane> out = mvs::MoveOut(ws, views, depth_paths, box[size_t(side)], &status);
          if (status != CVIS_OK) return status;
          if (!out) return CVIS_OK;
          box[size_t(side)] = *out;
          moved[size_t(side)] = true;
          break;
        }
        std::vector<Plane> kept(room.begin(), room.begin() + kBoxSides);
        for (size_t k = kBoxSides; k + 1 < room.size(); k += 2) {
          if (!seen_beyond[k] && !seen_beyond[k + 1]) kept.insert(kept.end(), {room[k], room[k + 1]});
        }
        if (kept.size() == room.size()) {
          checked = true;
          break;
        }
        room = kept;
      }
    }
    for (size_t k = 0; k < room.size(); ++k) {
      out_planes[k] = cvis_mvs_plane{{room[k].n[0], room[k].n[1], room[k].n[2]}, room[k].d};
    }
    *out_count = int32_t(room.size());
    return CVIS_OK;
  });
}
