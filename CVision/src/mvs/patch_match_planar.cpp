// Planar priors for PatchMatch, after Xu & Tao's ACMP (2020): a bare wall, floor or ceiling has
// no texture for NCC to match, so photometry leaves it empty (no texture: the pixel is never
// active) or undecided (faint texture: every plane costs about the same). Such surfaces are
// planar, and their borders and what hangs on them (creases, skirting, pictures, a rug) usually
// are textured and matched. So the view's large planes are found among its confident pixels,
// each plane's confident pixels are triangulated in the image, and the undecided pixels inside a
// triangle take its plane.
//
// ACMP triangulates all confident pixels together and takes each triangle's own plane. In a
// room that makes slopes and chamfers: a triangle from a picture down to a table's edge in front
// of the wall, or across the corner of two walls, lies on no surface, nothing in this view
// contradicts it (the wall between is bare), and the neighbouring views of a walk triangulate the
// same corners into the same wrong plane, so fusion's count of agreeing views keeps it. Measured
// on a rendered room with bare walls, a third of the filled pixels were wrong that way
// (docs/benchmarks.md, Rooms). Triangles made per surface cannot join two surfaces.
//
// The pass runs after every photometric map exists, so each triangle is also checked against
// what the source views matched. Nothing here is accepted on photometry's behalf: a filled pixel
// is marked (cost 2, the cost of no match) and must still be confirmed by other views, by the
// geometric pass's forward-backward check when it runs, and by fusion, which keeps a point only
// where enough views' depths agree.
#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include <opencv2/imgproc.hpp>

#include "patch_match_solver.h"

namespace cvis {
namespace mvs {
namespace internal {
namespace {

// A room's surfaces: the planes that hold many of the view's confident pixels (a wall with its
// pictures and its creases, the floor with its rug), found one after another by RANSAC over a
// sample of them. A point within kPlaneTolerance of its depth lies on a plane (PatchMatch's
// depths on a textured plane scatter by about half of that); a plane needs kMinPlaneShare of the
// sample, so a book on a table is not a surface, and at most kMaxPlanes are looked for: a box
// room seen from inside shows at most five of its six sides, and a few more for its furniture.
constexpr int kPlaneSample = 20000;
constexpr int kPlaneIterations = 300;
constexpr double kPlaneTolerance = 0.01;
constexpr double kMinPlaneShare = 0.03;
constexpr int kMaxPlanes = 8;
// One vertex per surface per cell of this many pixels at most: the lowest-cost confident pixel
// on it. Dense enough to follow a surface's outline, sparse enough that triangles span its bare
// parts.
constexpr int kCellPixels = 12;
// Sure: mean 1 - NCC of the best views at most this (NCC 0.75). Photometry accepts pixels up to
// the filter's cost (0.5), but a bare ceiling's faint shading matches somewhere along any
// horizontal crease or gradient: in one view of the rendered bare room, 95 % of the ceiling's
// 10,129 accepted pixels above this cost were more than 2 % off their depth, and over the whole
// view 94 % of the pixels below it were within 2 %, 61 % of those between. So planes are found
// among sure pixels, and a vertex bounds the area its triangles fill, so it must be sure too. The
// triangles are still judged by every accepted pixel: judged by sure ones alone, more triangles
// were kept, over the ceiling among them, and more of the mesh lay off the room.
constexpr float kSureCost = 0.25f;
// A vertex's neighbourhood: its cell's size around it. Its confident pixels within kLocalDepth of
// the vertex's depth are its surface; kMinNeighbours of them or fewer and the vertex stands
// alone, as a match on noise does, and is not used.
constexpr int kNeighbourhoodRadius = 8;
constexpr double kLocalDepth = 0.05;
constexpr int kMinNeighbours = 5;
// A pixel within kAgreement of a plane's depth lies on it. A triangle longer than
// kMaxEdgeOverDepth (3D edge over its centre's depth) guesses too far from what was matched: what
// stands in front of the surface there, or a door in it, has nothing to contradict it with.
constexpr float kAgreement = 0.02f;
constexpr double kMaxEdgeOverDepth = 1.0;
// A surface seen nearer than this to edge-on puts the smallest error of its plane into large
// depth errors.
constexpr double kMaxViewAngleDeg = 80;
// The triangle's accepted photometric pixels off its plane contradict it, those on it support
// it; this many contradictions and more of them than support, and something stands in front of
// the surface there (a chair, a lamp): the triangle fills nothing.
constexpr int kMinContradictions = 10;
// A source sees through a plane's point when its confident depth there is farther by more than
// this: wider than kAgreement, so the source's own matching noise on the surface is not read as
// seeing through it.
constexpr float kSeenThrough = 0.05f;

struct Vertex {
  float x, y;       // pixel position (centre)
  double X[3];      // camera frame
};

struct Plane {
  double n[3];  // unit, towards the camera
  double d;     // n . X + d = 0, d > 0
  bool valid;
};

// The distance of the camera-frame point X from the plane, along its normal.
double PlaneDistance(const Plane& p, const double* X) {
  return std::fabs(p.n[0] * X[0] + p.n[1] * X[1] + p.n[2] * X[2] + p.d);
}

// Up to kMaxPlanes planes through `points` (camera frame), most supported first, each refitted
// to its inliers by least squares; the normals face the camera. Each point counts for the first
// plane it lies on only: a crease is on two surfaces, and letting a later plane count the points
// of earlier ones found planes pivoting on a crease through a few other points, on no surface
// (on the rendered bare room, more of the filled pixels were wrong and fewer right).
std::vector<Plane> DominantPlanes(std::vector<cv::Vec3d> points, uint64_t seed) {
  std::vector<Plane> found;
  const size_t min_inliers = std::max<size_t>(50, size_t(kMinPlaneShare * double(points.size())));
  SplitMix64 random{seed};
  auto on_plane = [](const Plane& p, const cv::Vec3d& X) { return PlaneDistance(p, X.val) <= kPlaneTolerance * X[2]; };
  while (int(found.size()) < kMaxPlanes && points.size() >= min_inliers) {
    Plane best{{0, 0, -1}, 1, false};
    size_t best_count = 0;
    for (int it = 0; it < kPlaneIterations; ++it) {
      const cv::Vec3d& a = points[random.Next() % points.size()];
      const cv::Vec3d& b = points[random.Next() % points.size()];
      const cv::Vec3d& c = points[random.Next() % points.size()];
      cv::Vec3d n = (b - a).cross(c - a);
      const double norm = cv::norm(n);
      if (!(norm > 0)) continue;
      n *= 1.0 / norm;
      const Plane plane{{n[0], n[1], n[2]}, -n.dot(a), true};
      size_t count = 0;
      for (const cv::Vec3d& X : points) count += on_plane(plane, X);
      if (count > best_count) {
        best_count = count;
        best = plane;
      }
    }
    if (best_count < min_inliers) break;
    // Least squares: through the inliers' mean, normal along their least spread.
    cv::Vec3d mean(0, 0, 0);
    std::vector<cv::Vec3d> inliers, rest;
    for (const cv::Vec3d& X : points) (on_plane(best, X) ? inliers : rest).push_back(X);
    for (const cv::Vec3d& X : inliers) mean += X;
    mean *= 1.0 / double(inliers.size());
    cv::Matx33d covariance = cv::Matx33d::zeros();
    for (const cv::Vec3d& X : inliers) covariance += (X - mean) * (X - mean).t();
    cv::Matx31d values;
    cv::Matx33d vectors;  // rows, largest value first
    cv::eigen(covariance, values, vectors);
    cv::Vec3d n(vectors(2, 0), vectors(2, 1), vectors(2, 2));
    double d = -n.dot(mean);
    if (d < 0) {
      n = -n;
      d = -d;
    }
    found.push_back(Plane{{n[0], n[1], n[2]}, d, true});
    points = std::move(rest);
  }
  return found;
}

// Two found planes this close to perpendicular are two walls, or a wall and the floor, of a room
// built square.
constexpr double kSquareDeg = 5;
// An envelope plane: at most kBeyondShare of the view's sure pixels lie beyond it (matches on
// noise), at least kMinEnvelopeShare on it (a crease or two: the share of a line, not of a
// surface). Its offset is tried from the kExtremeShare of the pixels farthest along the
// direction.
constexpr double kBeyondShare = 0.02;
constexpr double kMinEnvelopeShare = 0.01;
constexpr double kExtremeShare = 0.02;
constexpr int kEnvelopeCandidates = 100;

// The planes DominantPlanes cannot find: a bare ceiling or floor whose only sure pixels are its
// creases with the walls, which the walls have already counted. Letting a plane count the walls'
// points found planes pivoting on a crease (see above), and a crease alone fixes no plane. But a
// room seen from inside lies within its envelope: when two found planes are square to each
// other, the room's three directions are known, and along each of them, away from the camera,
// the offset at which the view's sure pixels stop is an envelope plane: the ceiling through its
// creases with the walls, the floor through its skirting. Where the view does not see that far
// (the ceiling above the image), the plane holds only the image's edge, a line that makes no
// triangle of any size; where something stands beyond the room's square (a bay, a door), the
// triangles meet what the view and its sources matched behind, which judges them.
std::vector<Plane> EnvelopePlanes(const std::vector<Plane>& found, const std::vector<cv::Vec3d>& points) {
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
  const size_t min_inliers = std::max<size_t>(50, size_t(kMinEnvelopeShare * double(n)));
  const size_t extreme = std::max<size_t>(1, size_t(kExtremeShare * double(n)));
  for (const cv::Vec3d& axis : axes) {
    auto on_offset = [&](double offset, const cv::Vec3d& X) {
      return std::fabs(axis.dot(X) - offset) <= kPlaneTolerance * X[2];
    };
    std::vector<double> order(n);
    for (size_t k = 0; k < n; ++k) order[k] = axis.dot(points[k]);
    std::sort(order.begin(), order.end());
    for (const double side : {-1.0, 1.0}) {
      // Along `side * axis`: offsets from the farthest pixels that way.
      double best = 0;
      size_t best_count = 0;
      const size_t step = std::max<size_t>(1, extreme / kEnvelopeCandidates);
      for (size_t c = 0; c < extreme; c += step) {
        const double offset = order[side > 0 ? n - 1 - c : c];
        // The camera stands inside the room, on the side of the envelope that the view sees.
        if (!(side * offset > 0)) break;
        size_t on = 0, beyond = 0;
        for (const cv::Vec3d& X : points) {
          on += on_offset(offset, X);
          beyond += side * (axis.dot(X) - offset) > kPlaneTolerance * X[2];
        }
        if (beyond <= max_beyond && on > best_count) {
          best_count = on;
          best = offset;
        }
      }
      if (best_count < min_inliers) continue;
      // The candidate lies at the edge of the band of points on the plane (those beyond it are
      // few by choice): the offset moves to the band's median until it stays, the crease's
      // middle rather than its edge.
      for (int shift = 0; shift < 10; ++shift) {
        std::vector<double> along;
        for (const cv::Vec3d& X : points) {
          if (on_offset(best, X)) along.push_back(axis.dot(X));
        }
        if (along.empty()) break;
        std::nth_element(along.begin(), along.begin() + along.size() / 2, along.end());
        const double median = along[along.size() / 2];
        if (std::fabs(median - best) <= 1e-4 * std::fabs(best)) break;
        best = median;
      }
      // n . X + d = 0 with d > 0: the normal faces the camera.
      const Plane plane = best < 0 ? Plane{{axis[0], axis[1], axis[2]}, -best, true}
                                   : Plane{{-axis[0], -axis[1], -axis[2]}, best, true};
      bool known = false;
      for (const Plane& p : found) {
        const double cosine = p.n[0] * plane.n[0] + p.n[1] * plane.n[1] + p.n[2] * plane.n[2];
        known = known || (cosine > parallel && std::fabs(p.d - plane.d) <= 2 * kPlaneTolerance * std::max(p.d, plane.d));
      }
      if (!known) planes.push_back(plane);
    }
  }
  return planes;
}

}  // namespace

void Solver::PlanarPrior() {
  const int w = width_, h = height_;
  const View& ref = level_.ref;
  const float max_cost = float(options_.filter_max_cost);
  const float depth_min = float(problem_.depth_min), depth_max = float(problem_.depth_max);
  auto in_mask = [&](int x, int y) { return level_.mask.empty() || level_.mask.at<uint8_t>(y, x) != 0; };
  auto confident = [&](size_t i) { return active_[i] && cost_[i] <= max_cost && state_[i].depth > 0; };
  auto sure = [&](size_t i) { return confident(i) && cost_[i] <= kSureCost; };
  auto on_surface = [](const Plane& p, const double* X) { return PlaneDistance(p, X) <= kAgreement * X[2]; };
  // The plane's depth along pixel (x, y)'s ray, or 0 where the ray misses it or leaves the range.
  auto plane_depth = [&](const Plane& p, double x, double y) {
    const double rx = (x + 0.5 - ref.cx) / ref.fx, ry = (y + 0.5 - ref.cy) / ref.fy;
    const double n_dot_ray = p.n[0] * rx + p.n[1] * ry + p.n[2];
    if (!(n_dot_ray < 0)) return 0.0f;
    const float depth = float(p.d / -n_dot_ray);
    return depth >= depth_min && depth <= depth_max ? depth : 0.0f;
  };
  // How many confident pixels around (x, y) lie on a surface at `depth`.
  auto neighbours = [&](int px, int py, float depth) {
    int count = 0;
    for (int y = std::max(0, py - kNeighbourhoodRadius); y <= std::min(h - 1, py + kNeighbourhoodRadius); ++y) {
      for (int x = std::max(0, px - kNeighbourhoodRadius); x <= std::min(w - 1, px + kNeighbourhoodRadius); ++x) {
        const size_t i = size_t(y) * w + x;
        count += confident(i) && std::fabs(state_[i].depth - depth) <= kLocalDepth * depth;
      }
    }
    return count;
  };
  prior_.assign(size_t(w) * h, 0);

  // The view's surfaces, from a sample of its confident pixels spread over the image.
  std::vector<cv::Vec3d> sample;
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      const size_t i = size_t(y) * w + x;
      if (!sure(i)) continue;
      double X[3];
      ref.CamFromPixel(x + 0.5, y + 0.5, state_[i].depth, X);
      sample.emplace_back(X[0], X[1], X[2]);
    }
  }
  if (sample.size() > size_t(kPlaneSample)) {
    const size_t step = (sample.size() + kPlaneSample - 1) / kPlaneSample;
    size_t kept = 0;
    for (size_t k = 0; k < sample.size(); k += step) sample[kept++] = sample[k];
    sample.resize(kept);
  }
  std::vector<Plane> surfaces = DominantPlanes(sample, options_.seed ^ uint64_t(problem_.reference));
  const std::vector<Plane> envelope = EnvelopePlanes(surfaces, sample);
  surfaces.insert(surfaces.end(), envelope.begin(), envelope.end());

  std::vector<Plane> planes;  // per triangle: its surface's plane, valid while no check rejects it

  // The checks a triangle must pass before it fills anything, over the pixels `triangle_labels`
  // gives each triangle (before triangles of other surfaces cover them: a triangle rejected here
  // must not hide another surface's that passes).
  auto judge = [&](const cv::Mat& triangle_labels) {
    // Support: the triangle's accepted photometric pixels must mostly lie on its plane; more
    // contradiction than support, and something stands in front of the surface there.
    std::vector<int> support(planes.size(), 0), contradiction(planes.size(), 0);
    for (int y = 0; y < h; ++y) {
      const int* row = triangle_labels.ptr<int>(y);
      for (int x = 0; x < w; ++x) {
        const int t = row[x];
        const size_t i = size_t(y) * w + x;
        if (t < 0 || !confident(i)) continue;
        const float depth = plane_depth(planes[size_t(t)], x, y);
        if (depth > 0 && std::fabs(state_[i].depth - depth) <= kAgreement * depth) {
          ++support[size_t(t)];
        } else {
          ++contradiction[size_t(t)];
        }
      }
    }
    for (size_t t = 0; t < planes.size(); ++t) {
      if (contradiction[t] >= kMinContradictions && contradiction[t] > support[t]) planes[t].valid = false;
    }

    // The sources' word. A triangle may hold a surface's plane where the surface is not: across a
    // doorway or a window in a wall, past the end of a wall where the room turns, where a bare
    // object stands in front of it. Another view that sees there from elsewhere may have matched
    // what is behind: a source pixel that photometry matched confidently, farther than the plane's
    // point it shows, says the space there is empty. More such pixels than pixels on the plane,
    // and the triangle fills nothing. A source pixel nearer than the plane's point says nothing:
    // something may stand in front of the surface in that view only.
    std::vector<int> seen_on(planes.size(), 0), seen_through(planes.size(), 0);
    for (size_t j = 0; j < src_depth_.size(); ++j) {
      const DepthMap* map = src_depth_[j].get();
      if (!map) continue;
      const SourceGeometry& g = level_.geometry[j];
      for (int y = 0; y < h; ++y) {
        const int* row = triangle_labels.ptr<int>(y);
        for (int x = 0; x < w; ++x) {
          const int t = row[x];
          if (t < 0 || !planes[size_t(t)].valid) continue;
          const float depth = plane_depth(planes[size_t(t)], x, y);
          if (!(depth > 0)) continue;
          double X[3], Xs[3], u, v;
          ref.CamFromPixel(x + 0.5f, y + 0.5f, depth, X);
          if (!ProjectToSource(g, X, Xs, &u, &v)) continue;
          if (!(u >= 0 && v >= 0 && u < map->width && v < map->height)) continue;
          const size_t k = map->Index(int(u), int(v));
          const float ds = map->depth[k];
          if (!(ds > 0) || map->cost[k] > max_cost) continue;
          const double zs = Xs[2];
          if (std::fabs(ds - zs) <= kAgreement * zs) {
            ++seen_on[size_t(t)];
          } else if (ds > (1 + kSeenThrough) * zs) {
            ++seen_through[size_t(t)];
          }
        }
      }
    }
    for (size_t t = 0; t < planes.size(); ++t) {
      if (seen_through[t] >= kMinContradictions && seen_through[t] > seen_on[t]) planes[t].valid = false;
    }
  };

  // Per surface, its vertices: per cell the most confident pixel on it with neighbours on it too
  // (a lone match on noise is none), then sparse points on it in cells without one (they were
  // triangulated from features, so they stand where photometry found nothing confident). Their
  // Delaunay triangles in the image then lie on the surface between its matched parts: a bare
  // wall between its pictures and creases. Triangles are made per surface because a triangle
  // with corners on two surfaces is neither: a slope from a picture down to a table's edge in
  // front of the wall, or a chamfer across the corner of two walls, and nothing in this view
  // contradicts either. The surface's plane, fitted to thousands of pixels, stands for each of
  // its triangles, which three corners would tilt with their errors.
  const int cells_x = (w + kCellPixels - 1) / kCellPixels, cells_y = (h + kCellPixels - 1) / kCellPixels;
  const double cos_view = std::cos(kMaxViewAngleDeg * M_PI / 180);
  cv::Mat labels(h, w, CV_32S, cv::Scalar(-1)), label_depth(h, w, CV_32F, cv::Scalar(0));
  std::vector<int> vertex_at(size_t(w) * h, -1);
  for (const Plane& surface : surfaces) {
    std::vector<Vertex> vertices;
    std::vector<uint8_t> cell_used(size_t(cells_x) * cells_y, 0);
    auto add = [&](int x, int y) {
      Vertex v;
      v.x = x + 0.5f;
      v.y = y + 0.5f;
      const float depth = plane_depth(surface, x, y);
      if (!(depth > 0)) return;
      ref.CamFromPixel(v.x, v.y, depth, v.X);
      vertex_at[size_t(y) * w + x] = int(vertices.size());
      vertices.push_back(v);
      cell_used[size_t(y / kCellPixels) * cells_x + x / kCellPixels] = 1;
    };
    for (int cy = 0; cy < cells_y; ++cy) {
      for (int cx = 0; cx < cells_x; ++cx) {
        int best_x = -1, best_y = -1;
        float best_cost = kSureCost;
        for (int y = cy * kCellPixels; y < std::min(h, (cy + 1) * kCellPixels); ++y) {
          for (int x = cx * kCellPixels; x < std::min(w, (cx + 1) * kCellPixels); ++x) {
            const size_t i = size_t(y) * w + x;
            if (!confident(i) || cost_[i] > best_cost) continue;
            double X[3];
            ref.CamFromPixel(x + 0.5, y + 0.5, state_[i].depth, X);
            if (!on_surface(surface, X)) continue;
            best_cost = cost_[i];
            best_x = x;
            best_y = y;
          }
        }
        // The pixel itself is among its neighbours.
        if (best_x < 0 || neighbours(best_x, best_y, state_[size_t(best_y) * w + best_x].depth) <= kMinNeighbours) continue;
        add(best_x, best_y);
      }
    }
    for (size_t p = 0; p + 2 < problem_.points_in_world.size(); p += 3) {
      double cam[3], u, v;
      ref.CamFromWorld(&problem_.points_in_world[p], cam);
      if (!ref.ProjectCam(cam, &u, &v)) continue;
      if (!(u >= 0 && v >= 0 && u < w && v < h)) continue;
      if (!(cam[2] >= depth_min && cam[2] <= depth_max) || !on_surface(surface, cam)) continue;
      const int x = int(u), y = int(v);
      if (cell_used[size_t(y / kCellPixels) * cells_x + x / kCellPixels] || !in_mask(x, y)) continue;
      add(x, y);
    }
    if (vertices.size() >= 3) {
      cv::Subdiv2D subdiv(cv::Rect(0, 0, w, h));
      for (const Vertex& v : vertices) subdiv.insert(cv::Point2f(v.x, v.y));
      std::vector<cv::Vec6f> list;
      subdiv.getTriangleList(list);
      cv::Mat surface_labels(h, w, CV_32S, cv::Scalar(-1));
      for (const cv::Vec6f& triangle : list) {
        const Vertex* corner[3] = {nullptr, nullptr, nullptr};
        for (int k = 0; k < 3; ++k) {
          const float x = triangle[2 * k], y = triangle[2 * k + 1];
          // Subdiv2D's outer vertices lie far outside the image.
          if (!(x >= 0 && y >= 0 && x < w && y < h)) break;
          const int id = vertex_at[size_t(int(y)) * w + int(x)];
          if (id < 0) break;
          corner[k] = &vertices[size_t(id)];
        }
        if (!corner[2]) continue;
        double longest = 0, centroid[3] = {0, 0, 0};
        for (int k = 0; k < 3; ++k) {
          const double* A = corner[k]->X;
          const double* B = corner[(k + 1) % 3]->X;
          longest = std::max(longest, std::sqrt((A[0] - B[0]) * (A[0] - B[0]) + (A[1] - B[1]) * (A[1] - B[1]) +
                                                (A[2] - B[2]) * (A[2] - B[2])));
          for (int c = 0; c < 3; ++c) centroid[c] += A[c] / 3;
        }
        if (longest > kMaxEdgeOverDepth * centroid[2]) continue;
        const double distance = std::sqrt(centroid[0] * centroid[0] + centroid[1] * centroid[1] + centroid[2] * centroid[2]);
        if (-(surface.n[0] * centroid[0] + surface.n[1] * centroid[1] + surface.n[2] * centroid[2]) < cos_view * distance) continue;
        // Corners at pixel centres, rasterised with 4 bits of subpixel precision.
        cv::Point polygon[3];
        for (int k = 0; k < 3; ++k) {
          polygon[k] = cv::Point(cvRound((corner[k]->x - 0.5f) * 16), cvRound((corner[k]->y - 0.5f) * 16));
        }
        cv::fillConvexPoly(surface_labels, polygon, 3, cv::Scalar(int(planes.size())), cv::LINE_8, 4);
        planes.push_back(surface);
      }
      judge(surface_labels);
      // Where two surfaces' triangles overlap, the nearer one is in front.
      for (int y = 0; y < h; ++y) {
        const int* from = surface_labels.ptr<int>(y);
        int* to = labels.ptr<int>(y);
        float* nearest = label_depth.ptr<float>(y);
        for (int x = 0; x < w; ++x) {
          if (from[x] < 0 || !planes[size_t(from[x])].valid) continue;
          const float depth = plane_depth(surface, x, y);
          if (!(depth > 0) || (to[x] >= 0 && nearest[x] <= depth)) continue;
          to[x] = from[x];
          nearest[x] = depth;
        }
      }
    }
    for (const Vertex& v : vertices) vertex_at[size_t(int(v.y)) * w + int(v.x)] = -1;
  }

  // Fill. Confident pixels keep photometry's plane unless the prior's matches better on their
  // own cost; undecided ones take the prior's plane, marked as such.
  ParallelFor(h, options_.num_threads, 1, [&](int64_t row, int64_t, int) {
    const int y = int(row);
    const int* label = labels.ptr<int>(y);
    RefPatch patch;
    for (int x = 0; x < w; ++x) {
      const int t = label[x];
      if (t < 0 || !planes[size_t(t)].valid || !in_mask(x, y)) continue;
      const Plane& p = planes[size_t(t)];
      const float depth = plane_depth(p, x, y);
      if (!(depth > 0)) continue;
      const size_t i = size_t(y) * w + x;
      const Hypothesis prior{depth, {float(p.n[0]), float(p.n[1]), float(p.n[2])}};
      if (active_[i]) {
        MakeRefPatch(level_.grey.ptr<float>(), int(level_.grey.step1()), w, h, x, y, window_, &patch);
        const float c = Evaluate(patch, x, y, prior, nullptr);
        if (c < cost_[i]) {
          state_[i] = prior;
          cost_[i] = c;
        }
        if (cost_[i] <= max_cost) continue;  // photometry decides
      }
      state_[i] = prior;
      prior_[i] = 1;
    }
  });
}

}  // namespace internal
}  // namespace mvs
}  // namespace cvis
