#include "surface.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "../util/parallel.h"
#include "../util/random.h"

namespace cvis {
namespace {

void Corners(const float* points, const int32_t* triangles, int64_t t, double a[3], double b[3],
             double c[3]) {
  const float* pa = points + 3 * int64_t(triangles[3 * t]);
  const float* pb = points + 3 * int64_t(triangles[3 * t + 1]);
  const float* pc = points + 3 * int64_t(triangles[3 * t + 2]);
  for (int k = 0; k < 3; ++k) {
    a[k] = pa[k];
    b[k] = pb[k];
    c[k] = pc[k];
  }
}

double TriangleArea(const double a[3], const double b[3], const double c[3]) {
  const double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
  const double v[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
  const double n[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
  return 0.5 * std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
}

double Dot(const double u[3], const double v[3]) { return u[0] * v[0] + u[1] * v[1] + u[2] * v[2]; }

double PointSegmentDistanceSquared(const double p[3], const double a[3], const double b[3]) {
  const double ab[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
  const double ap[3] = {p[0] - a[0], p[1] - a[1], p[2] - a[2]};
  const double length2 = Dot(ab, ab);
  const double t = length2 > 0 ? std::clamp(Dot(ap, ab) / length2, 0.0, 1.0) : 0.0;
  const double d[3] = {ap[0] - t * ab[0], ap[1] - t * ab[1], ap[2] - t * ab[2]};
  return Dot(d, d);
}

}  // namespace

double SurfaceArea(const float* points, const int32_t* triangles, int64_t num_triangles) {
  double area = 0;
  for (int64_t t = 0; t < num_triangles; ++t) {
    double a[3], b[3], c[3];
    Corners(points, triangles, t, a, b, c);
    area += TriangleArea(a, b, c);
  }
  return area;
}

std::vector<float> SampleSurface(const float* points, const int32_t* triangles,
                                 int64_t num_triangles, double spacing, uint64_t seed,
                                 int num_threads) {
  const double density = 1.0 / (spacing * spacing);
  // Pass 1: each triangle's sample count; pass 2: the samples at their prefix-sum offsets.
  std::vector<uint32_t> counts(static_cast<size_t>(num_triangles));
  auto generator = [&](int64_t t) {
    return SplitMix64{seed ^ (uint64_t(t) * 0xD1B54A32D192ED03ULL)};
  };
  ParallelFor(num_triangles, num_threads, 4096, [&](int64_t begin, int64_t end, int) {
    for (int64_t t = begin; t < end; ++t) {
      double a[3], b[3], c[3];
      Corners(points, triangles, t, a, b, c);
      const double expected = TriangleArea(a, b, c) * density;
      SplitMix64 random = generator(t);
      const double whole = std::floor(expected);
      counts[size_t(t)] = uint32_t(whole) + (random.UniformDouble() < expected - whole ? 1 : 0);
    }
  });
  std::vector<int64_t> offsets(size_t(num_triangles) + 1, 0);
  for (int64_t t = 0; t < num_triangles; ++t) offsets[size_t(t) + 1] = offsets[size_t(t)] + counts[size_t(t)];
  std::vector<float> samples(size_t(3 * offsets.back()));
  ParallelFor(num_triangles, num_threads, 4096, [&](int64_t begin, int64_t end, int) {
    for (int64_t t = begin; t < end; ++t) {
      double a[3], b[3], c[3];
      Corners(points, triangles, t, a, b, c);
      SplitMix64 random = generator(t);
      random.UniformDouble();  // the draw that rounded the count
      float* out = &samples[size_t(3 * offsets[size_t(t)])];
      for (uint32_t k = 0; k < counts[size_t(t)]; ++k) {
        // Uniform in the triangle: a point of the parallelogram, folded back when outside.
        double r = random.UniformDouble(), s = random.UniformDouble();
        if (r + s > 1) {
          r = 1 - r;
          s = 1 - s;
        }
        for (int i = 0; i < 3; ++i) *out++ = float(a[i] + r * (b[i] - a[i]) + s * (c[i] - a[i]));
      }
    }
  });
  return samples;
}

double PointTriangleDistanceSquared(const double p[3], const double a[3], const double b[3],
                                    const double c[3]) {
  // Ericson, Real-Time Collision Detection, 5.1.5: the Voronoi region of p decides whether the
  // closest point is a corner, on an edge or inside.
  const double ab[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
  const double ac[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
  const double ap[3] = {p[0] - a[0], p[1] - a[1], p[2] - a[2]};
  auto distance2 = [&](const double q[3]) {
    const double d[3] = {p[0] - q[0], p[1] - q[1], p[2] - q[2]};
    return Dot(d, d);
  };
  const double d1 = Dot(ab, ap), d2 = Dot(ac, ap);
  if (d1 <= 0 && d2 <= 0) return distance2(a);
  const double bp[3] = {p[0] - b[0], p[1] - b[1], p[2] - b[2]};
  const double d3 = Dot(ab, bp), d4 = Dot(ac, bp);
  if (d3 >= 0 && d4 <= d3) return distance2(b);
  const double vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) return PointSegmentDistanceSquared(p, a, b);
  const double cp[3] = {p[0] - c[0], p[1] - c[1], p[2] - c[2]};
  const double d5 = Dot(ab, cp), d6 = Dot(ac, cp);
  if (d6 >= 0 && d5 <= d6) return distance2(c);
  const double vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) return PointSegmentDistanceSquared(p, a, c);
  const double va = d3 * d6 - d5 * d4;
  if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) return PointSegmentDistanceSquared(p, b, c);
  const double sum = va + vb + vc;
  if (!(sum > 0)) {
    // A degenerate triangle is its longest edge.
    return std::min({PointSegmentDistanceSquared(p, a, b), PointSegmentDistanceSquared(p, b, c),
                     PointSegmentDistanceSquared(p, a, c)});
  }
  const double v = vb / sum, w = vc / sum;
  const double q[3] = {a[0] + ab[0] * v + ac[0] * w, a[1] + ab[1] * v + ac[1] * w,
                       a[2] + ab[2] * v + ac[2] * w};
  return distance2(q);
}

void TriangleCells(const CellGrid& grid, const double a[3], const double b[3], const double c[3],
                   std::vector<uint64_t>* keys) {
  const double h = 0.5 * grid.cell_size();
  const auto low = grid.CellOf(std::min({a[0], b[0], c[0]}), std::min({a[1], b[1], c[1]}),
                               std::min({a[2], b[2], c[2]}));
  const auto high = grid.CellOf(std::max({a[0], b[0], c[0]}), std::max({a[1], b[1], c[1]}),
                                std::max({a[2], b[2], c[2]}));
  const double box_cells = double(high[0] - low[0] + 1) * double(high[1] - low[1] + 1) *
                           double(high[2] - low[2] + 1);
  if (box_cells <= 64) {
    // A small triangle: every cell of its bounding box.
    for (int64_t z = low[2]; z <= high[2]; ++z)
      for (int64_t y = low[1]; y <= high[1]; ++y)
        for (int64_t x = low[0]; x <= high[0]; ++x) keys->push_back(CellGrid::Key(x, y, z));
    return;
  }
  // A large triangle: its n x n barycentric grid of points, where every point of the triangle is
  // within (longest edge) / n <= h of a grid point, and the cells of each grid point's box of
  // half-side h; those contain the whole triangle without the bounding box's empty cells.
  const double edge = std::sqrt(std::max({PointSegmentDistanceSquared(a, b, b),
                                          PointSegmentDistanceSquared(b, c, c),
                                          PointSegmentDistanceSquared(a, c, c)}));
  const int64_t n = std::max<int64_t>(1, int64_t(std::ceil(edge / h)));
  const size_t first = keys->size();
  for (int64_t i = 0; i <= n; ++i) {
    for (int64_t j = 0; i + j <= n; ++j) {
      const double r = double(i) / n, s = double(j) / n;
      double q[3];
      for (int k = 0; k < 3; ++k) q[k] = a[k] + r * (b[k] - a[k]) + s * (c[k] - a[k]);
      const auto lo = grid.CellOf(q[0] - h, q[1] - h, q[2] - h);
      const auto hi = grid.CellOf(q[0] + h, q[1] + h, q[2] + h);
      for (int64_t z = lo[2]; z <= hi[2]; ++z)
        for (int64_t y = lo[1]; y <= hi[1]; ++y)
          for (int64_t x = lo[0]; x <= hi[0]; ++x) keys->push_back(CellGrid::Key(x, y, z));
    }
  }
  std::sort(keys->begin() + first, keys->end());
  keys->erase(std::unique(keys->begin() + first, keys->end()), keys->end());
}

}  // namespace cvis
