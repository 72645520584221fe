#include "planes.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "../util/random.h"

namespace cvis {
namespace mvs {
namespace internal {
namespace {

// A room's surfaces, the planes that hold many of the sample's points (a wall with its pictures
// and its creases, the floor with its rug), are found one after another by RANSAC: a plane needs
// kMinPlaneShare of the sample, so a book on a table is not a surface, and at most kMaxPlanes are
// looked for: a box room seen from inside shows at most five of its six sides to a view, and a
// few more for its furniture.
constexpr int kPlaneIterations = 300;
constexpr double kMinPlaneShare = 0.03;
// Fewer points than this make no plane or side, whatever their share.
constexpr size_t kMinSidePoints = 50;
constexpr int kMaxPlanes = 8;

// An envelope plane: at most kBeyondShare of the sample lies beyond it (matches on noise), and
// the search's share on it. Its offset is tried from the kExtremeShare of the points farthest
// along the direction.
constexpr double kBeyondShare = 0.02;
constexpr double kExtremeShare = 0.02;
constexpr int kEnvelopeCandidates = 100;
// Refitting an envelope plane's normal stops after this many rounds of taking the points on it.
constexpr int kRefitRounds = 5;
// Where the walls' points across a bare side end is looked for within this many tolerances of
// the first guess, by the largest drop in their number from a band half a tolerance wide inside
// an offset to the same band beyond it. Matching fattens a textured wall past its crease with a
// bare side (a window across the crease matches the wall's texture and extends the wall's plane),
// so a tail of the walls' points lies beyond the side; the drop is at the crease, before the tail.
constexpr double kWallsEndReach = 4;
constexpr int kWallsEndCandidates = 200;

// The least-squares plane of `points`: through their mean, normal along their least spread,
// facing `viewpoint`.
Plane FitPlane(const std::vector<cv::Vec3d>& points, const cv::Vec3d& viewpoint) {
  cv::Vec3d mean(0, 0, 0);
  for (const cv::Vec3d& X : points) mean += X;
  mean *= 1.0 / double(points.size());
  cv::Matx33d covariance = cv::Matx33d::zeros();
  for (const cv::Vec3d& X : points) covariance += (X - mean) * (X - mean).t();
  cv::Matx31d values;
  cv::Matx33d vectors;  // rows, largest value first
  cv::eigen(covariance, values, vectors);
  cv::Vec3d n(vectors(2, 0), vectors(2, 1), vectors(2, 2));
  double d = -n.dot(mean);
  if (n.dot(viewpoint) + d < 0) {
    n = -n;
    d = -d;
  }
  return Plane{{n[0], n[1], n[2]}, d, true};
}

// Where the points across a bare side end, along `side * axis`, near `guess` (see
// kWallsEndReach).
double WallsEnd(const std::vector<SamplePoint>& points, const cv::Vec3d& axis, double side, double guess) {
  std::vector<std::pair<double, double>> near;  // offset along side * axis, half a tolerance
  for (const SamplePoint& point : points) {
    const double along = side * axis.dot(point.X), tolerance = kPlaneTolerance * point.depth;
    if (std::fabs(along - side * guess) <= kWallsEndReach * tolerance) near.emplace_back(along, tolerance / 2);
  }
  if (near.empty()) return guess;
  std::vector<double> offsets;
  for (const auto& [along, half] : near) offsets.push_back(along);
  std::sort(offsets.begin(), offsets.end());
  double best = side * guess;
  long best_drop = std::numeric_limits<long>::min();
  const size_t step = std::max<size_t>(1, offsets.size() / kWallsEndCandidates);
  for (size_t c = 0; c < offsets.size(); c += step) {
    const double offset = offsets[c];
    long drop = 0;
    for (const auto& [along, half] : near) {
      drop += (along <= offset && along >= offset - half) - (along > offset && along <= offset + half);
    }
    if (drop > best_drop) {
      best_drop = drop;
      best = offset;
    }
  }
  return side * best;
}

}  // namespace

double ViewpointDistance(const Plane& p, const cv::Vec3d& viewpoint) {
  return p.n[0] * viewpoint[0] + p.n[1] * viewpoint[1] + p.n[2] * viewpoint[2] + p.d;
}

Plane CameraPlane(const Plane& world, const View& view) {
  Plane p{{0, 0, 0}, world.d, world.valid};
  view.CamFromWorldDirection(world.n, p.n);
  for (int c = 0; c < 3; ++c) p.d -= p.n[c] * view.t[c];
  return p;
}

size_t ExitSide(const std::vector<Plane>& sides, size_t count, const double* ray, double* depth) {
  *depth = std::numeric_limits<double>::infinity();
  size_t side = count;
  for (size_t k = 0; k < count; ++k) {
    const Plane& p = sides[k];
    const double n_dot_ray = p.n[0] * ray[0] + p.n[1] * ray[1] + p.n[2] * ray[2];
    if (!(n_dot_ray < 0) || !(p.d / -n_dot_ray < *depth)) continue;
    *depth = p.d / -n_dot_ray;
    side = k;
  }
  return side;
}

size_t RoomExit(const std::vector<Plane>& envelope, const double* ray, double* depth) {
  const size_t box = std::min(envelope.size(), kBoxSides);
  size_t exit = ExitSide(envelope, box, ray, depth);
  if (exit == box) exit = envelope.size();
  for (size_t k = kBoxSides; k + 1 < envelope.size(); k += 2) {
    // The stretch of the ray behind both faces: behind a face from where it crosses it going
    // away from the room, or up to where it crosses it coming back.
    double from = 0, to = *depth;
    size_t face = envelope.size();
    for (size_t f = k; f < k + 2; ++f) {
      const Plane& p = envelope[f];
      const double n_dot_ray = p.n[0] * ray[0] + p.n[1] * ray[1] + p.n[2] * ray[2];
      if (n_dot_ray < 0) {
        const double cross = p.d / -n_dot_ray;
        if (cross > from) {
          from = cross;
          face = f;
        }
      } else if (n_dot_ray > 0) {
        to = std::min(to, -p.d / n_dot_ray);
      } else if (p.d >= 0) {
        to = 0;
      }
    }
    if (face < envelope.size() && from < to) {
      *depth = from;
      exit = face;
    }
  }
  return exit;
}

bool HoldsPlane(const std::vector<Plane>& found, const Plane& plane, const cv::Vec3d& viewpoint) {
  const double parallel = std::cos(kSquareDeg * M_PI / 180);
  for (const Plane& p : found) {
    const double cosine = p.n[0] * plane.n[0] + p.n[1] * plane.n[1] + p.n[2] * plane.n[2];
    const double hp = ViewpointDistance(p, viewpoint), hq = ViewpointDistance(plane, viewpoint);
    if (cosine > parallel && std::fabs(hp - hq) <= 2 * kPlaneTolerance * std::max(hp, hq)) return true;
  }
  return false;
}

double PlaneDistance(const Plane& p, const double* X) {
  return std::fabs(p.n[0] * X[0] + p.n[1] * X[1] + p.n[2] * X[2] + p.d);
}

bool OnPlane(const Plane& p, const SamplePoint& point) {
  return PlaneDistance(p, point.X.val) <= kPlaneTolerance * point.depth;
}

// Each point counts for the first plane it lies on only: a crease is on two surfaces, and
// letting a later plane count the points of earlier ones found planes pivoting on a crease
// through a few other points, on no surface (on the rendered bare room, more of the filled
// pixels were wrong and fewer right).
std::vector<Plane> DominantPlanes(std::vector<SamplePoint> points, const cv::Vec3d& viewpoint, uint64_t seed) {
  std::vector<Plane> found;
  const size_t min_inliers = std::max<size_t>(kMinSidePoints, size_t(kMinPlaneShare * double(points.size())));
  SplitMix64 random{seed};
  while (int(found.size()) < kMaxPlanes && points.size() >= min_inliers) {
    Plane best{{0, 0, -1}, 1, false};
    size_t best_count = 0;
    for (int it = 0; it < kPlaneIterations; ++it) {
      const cv::Vec3d& a = points[random.Next() % points.size()].X;
      const cv::Vec3d& b = points[random.Next() % points.size()].X;
      const cv::Vec3d& c = points[random.Next() % points.size()].X;
      cv::Vec3d n = (b - a).cross(c - a);
      const double norm = cv::norm(n);
      if (!(norm > 0)) continue;
      n *= 1.0 / norm;
      const Plane plane{{n[0], n[1], n[2]}, -n.dot(a), true};
      size_t count = 0;
      for (const SamplePoint& point : points) count += OnPlane(plane, point);
      if (count > best_count) {
        best_count = count;
        best = plane;
      }
    }
    if (best_count < min_inliers) break;
    std::vector<cv::Vec3d> inliers;
    std::vector<SamplePoint> rest;
    for (const SamplePoint& point : points) {
      if (OnPlane(best, point)) {
        inliers.push_back(point.X);
      } else {
        rest.push_back(point);
      }
    }
    found.push_back(FitPlane(inliers, viewpoint));
    points = std::move(rest);
  }
  return found;
}

// The planes DominantPlanes cannot find: a bare ceiling or floor whose only sure points are its
// creases with the walls, which the walls have already counted. Letting a plane count the walls'
// points found planes pivoting on a crease (see above), and a crease alone fixes no plane. But a
// room seen from inside lies within its envelope: when two found planes are square to each
// other, the room's three directions are known, and along each of them, away from the
// viewpoint, the offset at which the sure points stop is an envelope plane: the ceiling through
// its creases with the walls, the floor through its skirting. Where a view does not see that far
// (the ceiling above the image), the plane holds only the image's edge, a line that makes no
// triangle of any size; where something stands beyond the room's square (a bay, a door), the
// triangles meet what the view and its sources matched behind, which judges them.
std::vector<Plane> EnvelopePlanes(const std::vector<Plane>& found, const std::vector<SamplePoint>& points,
                                  const cv::Vec3d& viewpoint, const EnvelopeSearch& search) {
  std::vector<Plane> planes;
  const double square = std::sin(kSquareDeg * M_PI / 180), parallel = std::cos(kSquareDeg * M_PI / 180);
  cv::Vec3d axes[3];
  bool have_axes = false;
  for (size_t i = 0; i < found.size() && !have_axes; ++i) {
    for (size_t j = i + 1; j < found.size() && !have_axes; ++j) {
      const cv::Vec3d a(found[i].n), b(found[j].n);
      if (std::fabs(a.dot(b)) >= square) continue;
      axes[0] = a;
      axes[1] = cv::normalize(b - a.dot(b) * a);
      axes[2] = axes[0].cross(axes[1]);
      have_axes = true;
    }
  }
  if (!have_axes || points.empty()) return planes;
  const size_t n = points.size();
  const size_t max_beyond = size_t(kBeyondShare * double(n));
  const size_t min_inliers = std::max<size_t>(kMinSidePoints, size_t(search.min_share * double(n)));
  const size_t extreme = std::max<size_t>(1, size_t(kExtremeShare * double(n)));
  for (const cv::Vec3d& axis : axes) {
    auto on_offset = [&](double offset, const SamplePoint& point) {
      return std::fabs(axis.dot(point.X) - offset) <= kPlaneTolerance * point.depth;
    };
    const double at = axis.dot(viewpoint);
    std::vector<double> order(n);
    for (size_t k = 0; k < n; ++k) order[k] = axis.dot(points[k].X);
    std::sort(order.begin(), order.end());
    // A side's own points: in a view, every point on it (creases); in the scene, those whose
    // normals face along the axis, told apart from the walls' points across the side, whose
    // median lies inside the room however far they reach.
    auto own = [&](const SamplePoint& point) {
      return !search.oriented || std::fabs(axis.dot(point.normal)) >= kFacingCosine;
    };
    for (const double side : {-1.0, 1.0}) {
      // Along `side * axis`: offsets from the farthest points that way, the one with the most
      // points on it; in the scene, the most of its own points when a side has enough of them.
      // Where a room turns (an L), the floor and ceiling between the far wall and the inner one
      // parallel to it hold more points on an offset between them than the far wall's part that
      // the views see, but few that face along the axis.
      double best = 0, best_own = 0;
      size_t best_count = 0, best_own_count = 0;
      const size_t step = std::max<size_t>(1, extreme / kEnvelopeCandidates);
      for (size_t c = 0; c < extreme; c += step) {
        const double offset = order[side > 0 ? n - 1 - c : c];
        // The viewpoint stands inside the room, on the side of the envelope that it sees.
        if (!(side * (offset - at) > 0)) break;
        size_t on = 0, on_own = 0, beyond = 0;
        for (const SamplePoint& point : points) {
          const bool on_it = on_offset(offset, point);
          on += on_it;
          on_own += on_it && own(point);
          beyond += side * (axis.dot(point.X) - offset) > kPlaneTolerance * point.depth;
        }
        if (beyond > max_beyond) continue;
        if (on > best_count) {
          best_count = on;
          best = offset;
        }
        if (on_own > best_own_count) {
          best_own_count = on_own;
          best_own = offset;
        }
      }
      if (best_count < min_inliers) continue;
      if (search.oriented && best_own_count >= min_inliers) best = best_own;
      // The candidate lies at the edge of the band of points on the plane (those beyond it are
      // few by choice): the offset moves to the band's median of the side's own points until it
      // stays, their middle rather than their edge.
      const double candidate = best;
      size_t own_count = 0;
      for (int shift = 0; shift < 10; ++shift) {
        std::vector<double> along;
        for (const SamplePoint& point : points) {
          if (own(point) && on_offset(best, point)) along.push_back(axis.dot(point.X));
        }
        own_count = along.size();
        if (along.empty()) break;
        std::nth_element(along.begin(), along.begin() + along.size() / 2, along.end());
        const double median = along[along.size() / 2];
        if (std::fabs(median - best) <= 1e-4 * std::fabs(best)) break;
        best = median;
      }
      // A bare side has no points of its own: it is where the walls' points across it end.
      // Facing points that are a small share of the band are the walls' own, with noisy normals.
      // A side's own points that are a fair share of its band but few in the sample (a bare
      // floor matched thinly) still place it: where its matches spread a few centimetres about
      // it, the walls' end is the far edge of that spread (the rendered bare room's floor with
      // the phone's depth: 5.5 cm below the true one; its facing points were 28 % of the band
      // and under 0.5 % of the sample).
      bool bare = false;
      if (search.oriented) {
        size_t band = 0;
        for (const SamplePoint& point : points) band += on_offset(best, point);
        bare = own_count < kMinSidePoints || double(own_count) < kOwnShare * double(band);
      }
      if (bare) {
        best = WallsEnd(points, axis, side, candidate);
      }
      // n . X + d = 0 with the normal facing the viewpoint.
      Plane plane = best < at ? Plane{{axis[0], axis[1], axis[2]}, -best, true}
                              : Plane{{-axis[0], -axis[1], -axis[2]}, best, true};
      // The room is square only as far as it was built so: the plane may turn to its own points,
      // as long as it stays square.
      for (int round = 0; search.oriented && !bare && round < kRefitRounds; ++round) {
        std::vector<cv::Vec3d> on;
        for (const SamplePoint& point : points) {
          if (own(point) && OnPlane(plane, point)) on.push_back(point.X);
        }
        if (on.size() < min_inliers) break;
        const Plane turned = FitPlane(on, viewpoint);
        if (std::fabs(turned.n[0] * axis[0] + turned.n[1] * axis[1] + turned.n[2] * axis[2]) < parallel) break;
        plane = turned;
      }
      planes.push_back(plane);
    }
  }
  return planes;
}

}  // namespace internal
}  // namespace mvs
}  // namespace cvis
