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
//
// A view alone sees a bare ceiling through a crease or two, so its own planes leave most of it
// empty. When the pass is given the room's envelope, found once among every view's sure pixels
// (room_envelope.cpp), the envelope stands for the planes the view would find of it, and it
// fills, tile by tile, what the view's own triangles leave.
#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include <opencv2/imgproc.hpp>

#include "patch_match_solver.h"
#include "planes.h"

namespace cvis {
namespace mvs {
namespace internal {
namespace {

// The view's surfaces are looked for in a sample of this many of its sure pixels.
constexpr int kPlaneSample = 20000;
// One vertex per surface per cell of this many pixels at most: the lowest-cost confident pixel
// on it. Dense enough to follow a surface's outline, sparse enough that triangles span its bare
// parts. A vertex bounds the area its triangles fill, so it must be sure (kSureCost). The
// triangles are still judged by every accepted pixel: judged by sure ones alone, more triangles
// were kept, over a bare ceiling among them, and more of the mesh lay off the room.
constexpr int kCellPixels = 12;
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
// internal::kSeenBeyond: wider than kAgreement, so the source's own matching noise on the surface
// is not read as seeing through it.
constexpr float kSeenThrough = float(internal::kSeenBeyond);

// The room's envelope is judged in tiles of this many pixels: small enough that a table's edge
// in one costs little of the bare wall around it, large enough to hold a few hundred of the
// sources' pixels.
constexpr int kTilePixels = 16;

struct Vertex {
  float x, y;       // pixel position (centre)
  double X[3];      // camera frame
};

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
  std::vector<SamplePoint> sample;
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      const size_t i = size_t(y) * w + x;
      if (!sure(i)) continue;
      double X[3];
      ref.CamFromPixel(x + 0.5, y + 0.5, state_[i].depth, X);
      sample.push_back(SamplePoint{cv::Vec3d(X[0], X[1], X[2]), X[2]});
    }
  }
  if (sample.size() > size_t(kPlaneSample)) {
    const size_t step = (sample.size() + kPlaneSample - 1) / kPlaneSample;
    size_t kept = 0;
    for (size_t k = 0; k < sample.size(); k += step) sample[kept++] = sample[k];
    sample.resize(kept);
  }
  const cv::Vec3d camera(0, 0, 0);
  const std::vector<Plane> found = DominantPlanes(sample, camera, options_.seed ^ uint64_t(problem_.reference));
  // The room's envelope: the scene's, found in every view's sure pixels, when the pass has it;
  // else what this view's own show of it.
  std::vector<Plane> envelope;
  for (const cvis_mvs_plane& world : problem_.envelope) {
    envelope.push_back(CameraPlane(Plane{{world.normal[0], world.normal[1], world.normal[2]}, world.offset, true}, ref));
  }
  if (problem_.envelope.empty()) envelope = EnvelopePlanes(found, sample, camera, kViewEnvelope);
  // The box's sides are surfaces the view's triangles may lie on; a notch's faces are planes
  // only where they bound the notch.
  std::vector<Plane> surfaces = found;
  for (size_t k = 0; k < std::min(envelope.size(), kBoxSides); ++k) {
    if (!HoldsPlane(found, envelope[k], camera)) surfaces.push_back(envelope[k]);
  }

  std::vector<Plane> planes;  // per triangle: its surface's plane, valid while no check rejects it

  // The checks a triangle must pass before it fills anything, over the pixels `triangle_labels`
  // gives each triangle (before triangles of other surfaces cover them: a triangle rejected here
  // must not hide another surface's that passes). Evidence is the pixels matched at `evidence`
  // cost or better.
  auto judge = [&](const cv::Mat& triangle_labels, float evidence) {
    // Support: the triangle's accepted photometric pixels must mostly lie on its plane; more
    // contradiction than support, and something stands in front of the surface there.
    std::vector<int> support(planes.size(), 0), contradiction(planes.size(), 0);
    for (int y = 0; y < h; ++y) {
      const int* row = triangle_labels.ptr<int>(y);
      for (int x = 0; x < w; ++x) {
        const int t = row[x];
        const size_t i = size_t(y) * w + x;
        if (t < 0 || !confident(i) || cost_[i] > evidence) continue;
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
          if (!(ds > 0) || map->cost[k] > evidence) continue;
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
      judge(surface_labels, max_cost);
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

  // The room's envelope where the view's own surfaces filled nothing: a bare wall, floor or
  // ceiling between creases this view did not match, which the scene's envelope holds. Each pixel
  // takes the side (or notch face) its ray leaves the room through (the camera stands inside),
  // and is judged as a triangle is, with the pixels of its tile on the same side: a tile where
  // the view surely matched something standing in front (a table) or its sources surely matched
  // beyond (a door) fills nothing. Only sure pixels are evidence here, and only they keep their
  // own depth: the envelope was found among every view's sure pixels, and the unsure ones on a
  // bare surface are what it corrects (on the rendered bare ceiling, 95 % of them lay more than
  // 2 % off).
  const int first_envelope_label = int(planes.size());
  if (!problem_.envelope.empty()) {
    const int tiles_x = (w + kTilePixels - 1) / kTilePixels, tiles_y = (h + kTilePixels - 1) / kTilePixels;
    std::vector<int> tile_label(size_t(tiles_x) * tiles_y * envelope.size(), -1);
    cv::Mat envelope_labels(h, w, CV_32S, cv::Scalar(-1));
    for (int y = 0; y < h; ++y) {
      const int* taken = labels.ptr<int>(y);
      int* label = envelope_labels.ptr<int>(y);
      for (int x = 0; x < w; ++x) {
        if (taken[x] >= 0 || !in_mask(x, y)) continue;
        const double ray[3] = {(x + 0.5 - ref.cx) / ref.fx, (y + 0.5 - ref.cy) / ref.fy, 1};
        double nearest;
        const size_t side = RoomExit(envelope, ray, &nearest);
        if (side == envelope.size() || !(nearest >= depth_min && nearest <= depth_max)) continue;
        const Plane& p = envelope[side];
        const double ray_length = std::sqrt(ray[0] * ray[0] + ray[1] * ray[1] + 1);
        if (-(p.n[0] * ray[0] + p.n[1] * ray[1] + p.n[2]) < cos_view * ray_length) continue;
        int& tile = tile_label[(size_t(y / kTilePixels) * tiles_x + size_t(x / kTilePixels)) * envelope.size() + side];
        if (tile < 0) {
          tile = int(planes.size());
          planes.push_back(p);
        }
        label[x] = tile;
      }
    }
    judge(envelope_labels, kSureCost);
    for (int y = 0; y < h; ++y) {
      const int* from = envelope_labels.ptr<int>(y);
      int* to = labels.ptr<int>(y);
      for (int x = 0; x < w; ++x) {
        if (from[x] >= 0 && planes[size_t(from[x])].valid) to[x] = from[x];
      }
    }
  }

  // Fill. Confident pixels (sure ones, on the envelope) keep photometry's plane unless the
  // prior's matches better on their own cost; undecided ones take the prior's plane, marked as
  // such.
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
        if (cost_[i] <= (t < first_envelope_label ? max_cost : kSureCost)) continue;  // photometry decides
      }
      state_[i] = prior;
      prior_[i] = 1;
    }
  });
}

}  // namespace internal
}  // namespace mvs
}  // namespace cvis
