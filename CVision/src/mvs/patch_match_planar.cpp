// Planar priors for PatchMatch, after Xu & Tao's ACMP (2020): a bare wall, floor or ceiling has
// no texture for NCC to match, so photometry leaves it empty (no texture: the pixel is never
// active) or undecided (faint texture: every plane costs about the same). Such surfaces are
// piecewise planar, and their borders (corners, skirting, furniture, pictures) usually are
// textured and matched. The confident pixels are triangulated in the image; a triangle whose
// corners lie on one surface spans a plane, and the undecided pixels inside it take that plane.
//
// Nothing here is accepted on photometry's behalf: a filled pixel is marked (cost 2, the cost of
// no match) and must be confirmed by other views, by the geometric pass's forward-backward check
// against sources that carry fills of their own, and by fusion, which keeps a point only where
// enough views' depths agree. A wrong plane in one view (a triangle joining a wall to a chair in
// front of it) lands elsewhere in each view, because each view triangulates its own pixels, so
// agreement keeps it out; a right plane agrees wherever the surface is seen. Measured, that
// holds only in part: neighbouring views of a walk pick nearly the same vertices, so their wrong
// planes agree too (docs/benchmarks.md, Rooms); a check of each plane against other views'
// confident pixels is what the fill still lacks.
#include <algorithm>
#include <array>
#include <cmath>

#include <opencv2/imgproc.hpp>

#include "patch_match_solver.h"

namespace cvis {
namespace mvs {
namespace internal {
namespace {

// One vertex per cell of this many pixels at most: the lowest-cost confident pixel in it. Dense
// enough to follow a room's corners, sparse enough that triangles span bare walls.
constexpr int kCellPixels = 12;
// Confident: mean 1 - NCC of the best views at most this (NCC 0.75); a vertex's error spreads
// over its whole triangle, so vertices are held to a stricter rule than accepted pixels.
constexpr float kVertexMaxCost = 0.25f;
// The corners' own PatchMatch normals are not asked to agree with the plane: on a bare wall the
// confident pixels are often the lines where it meets the ceiling or another wall, whose depth is
// sure but whose normal is not (a line's texture fixes no plane). Those lines lie on the wall's
// plane, and a triangle between them and a picture on the wall is the wall.
// A triangle longer than this (3D edge over mean corner depth) is too coarse a guess: a plane
// fitted through far-apart pixels bends with the smallest corner error.
constexpr double kMaxEdgeOverDepth = 1.0;
// A plane seen nearer than this to edge-on puts the smallest corner error into large depth errors.
constexpr double kMaxViewAngleDeg = 80;
// Accepted photometric pixels inside a triangle within this relative depth of its plane support
// it; farther ones contradict it. More contradiction than support: the triangle crosses a depth
// discontinuity (or its corners are wrong), and it fills nothing.
constexpr float kAgreement = 0.02f;
constexpr int kMinContradictions = 10;

struct Vertex {
  float x, y;       // pixel position (centre)
  double X[3];      // camera frame
};

struct Plane {
  double n[3];  // unit, towards the camera
  double d;     // n . X + d = 0, d > 0
  bool valid;
};

}  // namespace

void Solver::PlanarPrior() {
  const int w = width_, h = height_;
  const View& ref = level_.ref;
  const float max_cost = float(options_.filter_max_cost);
  const float depth_min = float(problem_.depth_min), depth_max = float(problem_.depth_max);
  auto in_mask = [&](int x, int y) { return level_.mask.empty() || level_.mask.at<uint8_t>(y, x) != 0; };

  // Vertices: per cell the most confident pixel, then sparse points in cells without one (they
  // were triangulated from features, so they stand where photometry found nothing confident).
  std::vector<Vertex> vertices;
  std::vector<int> vertex_at(size_t(w) * h, -1);
  const int cells_x = (w + kCellPixels - 1) / kCellPixels, cells_y = (h + kCellPixels - 1) / kCellPixels;
  std::vector<uint8_t> cell_used(size_t(cells_x) * cells_y, 0);
  for (int cy = 0; cy < cells_y; ++cy) {
    for (int cx = 0; cx < cells_x; ++cx) {
      size_t best = 0;
      float best_cost = kVertexMaxCost;
      bool found = false;
      for (int y = cy * kCellPixels; y < std::min(h, (cy + 1) * kCellPixels); ++y) {
        for (int x = cx * kCellPixels; x < std::min(w, (cx + 1) * kCellPixels); ++x) {
          const size_t i = size_t(y) * w + x;
          if (active_[i] && cost_[i] <= best_cost) {
            best_cost = cost_[i];
            best = i;
            found = true;
          }
        }
      }
      if (!found) continue;
      const int x = int(best % size_t(w)), y = int(best / size_t(w));
      Vertex v;
      v.x = x + 0.5f;
      v.y = y + 0.5f;
      ref.CamFromPixel(v.x, v.y, state_[best].depth, v.X);
      vertex_at[best] = int(vertices.size());
      vertices.push_back(v);
      cell_used[size_t(cy) * cells_x + cx] = 1;
    }
  }
  for (size_t p = 0; p + 2 < problem_.points_in_world.size(); p += 3) {
    double cam[3], u, v;
    ref.CamFromWorld(&problem_.points_in_world[p], cam);
    if (!ref.ProjectCam(cam, &u, &v)) continue;
    if (!(u >= 0 && v >= 0 && u < w && v < h)) continue;
    if (!(cam[2] >= depth_min && cam[2] <= depth_max)) continue;
    const int x = int(u), y = int(v);
    const size_t cell = size_t(y / kCellPixels) * cells_x + x / kCellPixels;
    if (cell_used[cell] || !in_mask(x, y)) continue;
    Vertex vertex;
    vertex.x = x + 0.5f;
    vertex.y = y + 0.5f;
    ref.CamFromPixel(vertex.x, vertex.y, cam[2], vertex.X);
    vertex_at[size_t(y) * w + x] = int(vertices.size());
    vertices.push_back(vertex);
    cell_used[cell] = 1;
  }
  if (vertices.size() < 3) return;

  // Delaunay triangulation in the image: triangles join neighbouring vertices, none spans
  // across a nearer one.
  cv::Subdiv2D subdiv(cv::Rect(0, 0, w, h));
  for (const Vertex& v : vertices) subdiv.insert(cv::Point2f(v.x, v.y));
  std::vector<cv::Vec6f> list;
  subdiv.getTriangleList(list);

  const double cos_view = std::cos(kMaxViewAngleDeg * M_PI / 180);
  std::vector<Plane> planes(list.size(), Plane{{0, 0, -1}, 1, false});
  std::vector<std::array<int, 3>> corners(list.size(), {-1, -1, -1});
  cv::Mat labels(h, w, CV_32S, cv::Scalar(-1));
  for (size_t t = 0; t < list.size(); ++t) {
    int id[3];
    bool inside = true;
    for (int k = 0; k < 3; ++k) {
      const float x = list[t][2 * k], y = list[t][2 * k + 1];
      // Subdiv2D's outer vertices lie far outside the image.
      if (!(x >= 0 && y >= 0 && x < w && y < h)) {
        inside = false;
        break;
      }
      id[k] = vertex_at[size_t(int(y)) * w + int(x)];
      if (id[k] < 0) inside = false;
    }
    if (!inside) continue;
    const Vertex *a = &vertices[size_t(id[0])], *b = &vertices[size_t(id[1])], *c = &vertices[size_t(id[2])];
    double e1[3], e2[3], e3[3], n[3];
    for (int k = 0; k < 3; ++k) {
      e1[k] = b->X[k] - a->X[k];
      e2[k] = c->X[k] - a->X[k];
      e3[k] = c->X[k] - b->X[k];
    }
    n[0] = e1[1] * e2[2] - e1[2] * e2[1];
    n[1] = e1[2] * e2[0] - e1[0] * e2[2];
    n[2] = e1[0] * e2[1] - e1[1] * e2[0];
    const double norm = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    if (!(norm > 0)) continue;
    for (int k = 0; k < 3; ++k) n[k] /= norm;
    double n_dot_a = n[0] * a->X[0] + n[1] * a->X[1] + n[2] * a->X[2];
    if (n_dot_a > 0) {
      for (int k = 0; k < 3; ++k) n[k] = -n[k];
      n_dot_a = -n_dot_a;
    }
    const double mean_depth = (a->X[2] + b->X[2] + c->X[2]) / 3;
    auto length = [](const double* e) { return std::sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]); };
    if (std::max({length(e1), length(e2), length(e3)}) > kMaxEdgeOverDepth * mean_depth) continue;
    double centroid[3];
    for (int k = 0; k < 3; ++k) centroid[k] = (a->X[k] + b->X[k] + c->X[k]) / 3;
    if (-(n[0] * centroid[0] + n[1] * centroid[1] + n[2] * centroid[2]) < cos_view * length(centroid)) continue;
    planes[t] = Plane{{n[0], n[1], n[2]}, -n_dot_a, true};
    // Corners at pixel centres, rasterised with 4 bits of subpixel precision.
    const cv::Point polygon[3] = {cv::Point(cvRound((a->x - 0.5f) * 16), cvRound((a->y - 0.5f) * 16)),
                                  cv::Point(cvRound((b->x - 0.5f) * 16), cvRound((b->y - 0.5f) * 16)),
                                  cv::Point(cvRound((c->x - 0.5f) * 16), cvRound((c->y - 0.5f) * 16))};
    cv::fillConvexPoly(labels, polygon, 3, cv::Scalar(int(t)), cv::LINE_8, 4);
  }

  // The plane's depth along pixel (x, y)'s ray, or 0 where the ray misses it or leaves the range.
  auto plane_depth = [&](const Plane& p, int x, int y) {
    const double rx = (x + 0.5 - ref.cx) / ref.fx, ry = (y + 0.5 - ref.cy) / ref.fy;
    const double n_dot_ray = p.n[0] * rx + p.n[1] * ry + p.n[2];
    if (!(n_dot_ray < 0)) return 0.0f;
    const float depth = float(p.d / -n_dot_ray);
    return depth >= depth_min && depth <= depth_max ? depth : 0.0f;
  };

  // Support: the triangle's accepted photometric pixels must mostly lie on its plane.
  std::vector<int> support(list.size(), 0), contradiction(list.size(), 0);
  for (int y = 0; y < h; ++y) {
    const int* row = labels.ptr<int>(y);
    for (int x = 0; x < w; ++x) {
      const int t = row[x];
      const size_t i = size_t(y) * w + x;
      if (t < 0 || !active_[i] || cost_[i] > max_cost) continue;
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

  // Fill. Confident pixels keep photometry's plane unless the prior's matches better on their
  // own cost; undecided ones take the prior's plane, marked as such.
  prior_.assign(size_t(w) * h, 0);
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
