// The cloud comparison: both directions are "is there anything within tau", answered exactly by
// a hash grid of cell size tau (anything within tau of a point lies in one of the 27 cells
// around it) with an early exit at the first hit, so millions of points take seconds.
#include "compare.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "../util/status.h"
#include "cell_grid.h"
#include "../util/parallel.h"
#include "surface.h"

namespace cvis {
namespace {

// Seeds of the two samplings; different, so a mesh compared with itself is not matched sample
// for sample.
constexpr uint64_t kOursSeed = 0x0C0FFEE5EED5ULL;
constexpr uint64_t kReferenceSeed = 0x5A3B1E5C0DE5ULL;
// Samples beyond this are refused (about 3 GB of floats): a region or a larger spacing is needed.
constexpr double kMaxSamples = 2.5e8;
constexpr int64_t kBlock = 16384;

struct Box {
  double low[3] = {std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity(),
                   std::numeric_limits<double>::infinity()};
  double high[3] = {-std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                    -std::numeric_limits<double>::infinity()};

  void Add(const float* p) {
    for (int k = 0; k < 3; ++k) {
      low[k] = std::min(low[k], double(p[k]));
      high[k] = std::max(high[k], double(p[k]));
    }
  }
  Box Expanded(double margin) const {
    Box box = *this;
    for (int k = 0; k < 3; ++k) {
      box.low[k] -= margin;
      box.high[k] += margin;
    }
    return box;
  }
  bool Contains(const float* p) const {
    return p[0] >= low[0] && p[0] <= high[0] && p[1] >= low[1] && p[1] <= high[1] &&
           p[2] >= low[2] && p[2] <= high[2];
  }
  bool Overlaps(const double lo[3], const double hi[3]) const {
    return lo[0] <= high[0] && hi[0] >= low[0] && lo[1] <= high[1] && hi[1] >= low[1] &&
           lo[2] <= high[2] && hi[2] >= low[2];
  }
};

bool Finite(const float* p) { return std::isfinite(p[0]) && std::isfinite(p[1]) && std::isfinite(p[2]); }

Box BoxOf(const std::vector<float>& points) {
  Box box;
  for (size_t i = 0; i < points.size(); i += 3) {
    if (Finite(&points[i])) box.Add(&points[i]);
  }
  return box;
}

// The 27 neighbouring cell offsets, the point's own cell first, then faces, edges, corners, so
// that most queries stop at the first cell.
const std::vector<std::array<int, 3>>& NeighbourOffsets() {
  static const std::vector<std::array<int, 3>> offsets = [] {
    std::vector<std::array<int, 3>> all;
    for (int dz = -1; dz <= 1; ++dz)
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) all.push_back({dx, dy, dz});
    std::stable_sort(all.begin(), all.end(), [](const auto& u, const auto& v) {
      return std::abs(u[0]) + std::abs(u[1]) + std::abs(u[2]) <
             std::abs(v[0]) + std::abs(v[1]) + std::abs(v[2]);
    });
    return all;
  }();
  return offsets;
}

// True when within(item) holds for some item listed in a cell within reach (cell size) of p.
// Cells whose nearest face is farther than the cell size are skipped.
template <typename Within>
bool AnyWithin(const CellGrid& grid, const float* p, Within&& within) {
  const auto cell = grid.CellOf(p[0], p[1], p[2]);
  const double inverse = 1.0 / grid.cell_size();
  double fraction[3];
  for (int k = 0; k < 3; ++k) fraction[k] = double(p[k]) * inverse - double(cell[k]);
  for (const auto& offset : NeighbourOffsets()) {
    double gap2 = 0;  // squared distance to the cell, in cells
    for (int k = 0; k < 3; ++k) {
      const double gap = offset[k] < 0 ? fraction[k] : (offset[k] > 0 ? 1 - fraction[k] : 0);
      gap2 += gap * gap;
    }
    if (gap2 > 1.0 + 1e-9) continue;
    const uint32_t* end = nullptr;
    const uint32_t* item = grid.Find(
        CellGrid::Key(cell[0] + offset[0], cell[1] + offset[1], cell[2] + offset[2]), &end);
    for (; item != end; ++item) {
      if (within(*item)) return true;
    }
  }
  return false;
}

// Points of a list that pass keep(point), on one grid, one cell each.
template <typename Keep>
CellGrid PointGrid(const std::vector<float>& points, double cell_size, Keep&& keep) {
  CellGrid grid(cell_size);
  std::vector<uint64_t> keys;
  std::vector<uint32_t> items;
  for (size_t i = 0; i < points.size() / 3; ++i) {
    const float* p = &points[3 * i];
    if (!Finite(p) || !keep(p)) continue;
    const auto cell = grid.CellOf(p[0], p[1], p[2]);
    keys.push_back(CellGrid::Key(cell[0], cell[1], cell[2]));
    items.push_back(uint32_t(i));
  }
  grid.Build(keys, items);
  return grid;
}

void Corner(const cvis_cloud& mesh, int64_t t, int corner, double out[3]) {
  const float* p = &mesh.points[3 * size_t(mesh.triangles[3 * t + corner])];
  for (int k = 0; k < 3; ++k) out[k] = p[k];
}

// The cells a query from one of points can look at: each point's cell and its 26 neighbours.
CellSet CellsNear(const std::vector<const float*>& points, const CellGrid& grid) {
  // Occupied cells first (one lookup per point), then their neighbourhoods (27 per cell).
  CellSet occupied;
  std::vector<std::array<int64_t, 3>> cells;
  for (const float* p : points) {
    const auto cell = grid.CellOf(p[0], p[1], p[2]);
    const size_t before = occupied.size();
    occupied.Insert(CellGrid::Key(cell[0], cell[1], cell[2]));
    if (occupied.size() > before) cells.push_back(cell);
  }
  CellSet near;
  for (const auto& cell : cells) {
    for (int dz = -1; dz <= 1; ++dz)
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) near.Insert(CellGrid::Key(cell[0] + dx, cell[1] + dy, cell[2] + dz));
  }
  return near;
}

// The triangles of a mesh that reach into box, on one grid: each listed under every cell it
// passes through that is also in near (the only cells queries look at), so a large reference
// costs only where there are points to evaluate. Triangles are split into contiguous parts,
// one per thread, whose lists are joined in order, so the grid does not depend on timing.
CellGrid TriangleGrid(const cvis_cloud& mesh, double cell_size, const Box& box,
                      const CellSet& near, int num_threads) {
  CellGrid grid(cell_size);
  const int parts = std::max(1, num_threads);
  std::vector<std::vector<uint64_t>> part_keys(parts);
  std::vector<std::vector<uint32_t>> part_items(parts);
  ParallelParts(mesh.NumTriangles(), parts, [&](int64_t begin, int64_t end, int part) {
    for (int64_t t = begin; t < end; ++t) {
      double a[3], b[3], c[3];
      Corner(mesh, t, 0, a);
      Corner(mesh, t, 1, b);
      Corner(mesh, t, 2, c);
      if (!std::isfinite(a[0] + a[1] + a[2] + b[0] + b[1] + b[2] + c[0] + c[1] + c[2])) continue;
      const double lo[3] = {std::min({a[0], b[0], c[0]}), std::min({a[1], b[1], c[1]}),
                            std::min({a[2], b[2], c[2]})};
      const double hi[3] = {std::max({a[0], b[0], c[0]}), std::max({a[1], b[1], c[1]}),
                            std::max({a[2], b[2], c[2]})};
      if (!box.Overlaps(lo, hi)) continue;
      std::vector<uint64_t>& keys = part_keys[part];
      const size_t before = keys.size();
      TriangleCells(grid, a, b, c, &keys);
      if (keys.size() - before > size_t(1) << 26) {
        throw std::length_error(Str("reference triangle ", t, " spans over 2^26 cells of size ",
                                    cell_size, " (give a region or a larger tau)"));
      }
      keys.erase(std::remove_if(keys.begin() + before, keys.end(),
                                [&](uint64_t key) { return !near.Contains(key); }),
                 keys.end());
      part_items[part].resize(keys.size(), uint32_t(t));
    }
  });
  std::vector<uint64_t> keys;
  std::vector<uint32_t> items;
  for (int part = 0; part < parts; ++part) {
    keys.insert(keys.end(), part_keys[part].begin(), part_keys[part].end());
    items.insert(items.end(), part_items[part].begin(), part_items[part].end());
    std::vector<uint64_t>().swap(part_keys[part]);
    std::vector<uint32_t>().swap(part_items[part]);
  }
  if (keys.size() >= size_t(UINT32_MAX)) {
    throw std::length_error("the reference mesh needs over 2^32 grid entries (give a region)");
  }
  grid.Build(keys, items);
  return grid;
}

// Counts the points for which hit(point) holds, over parallel blocks.
template <typename Hit>
int64_t CountHits(const std::vector<const float*>& points, int num_threads, Hit&& hit) {
  std::vector<int64_t> counts(size_t(std::max(1, num_threads)), 0);
  ParallelFor(int64_t(points.size()), num_threads, kBlock, [&](int64_t begin, int64_t end, int thread) {
    int64_t count = 0;
    for (int64_t i = begin; i < end; ++i) count += hit(points[size_t(i)]) ? 1 : 0;
    counts[size_t(thread)] += count;
  });
  return std::accumulate(counts.begin(), counts.end(), int64_t(0));
}

// Surface samples of a mesh (only its triangles that reach into box when box is given), or the
// points of a cloud without triangles.
std::vector<float> SurfaceSamples(const cvis_cloud& surface, const std::vector<float>& points,
                                  double spacing, uint64_t seed, int num_threads, const char* what,
                                  const Box* box = nullptr) {
  if (surface.NumTriangles() == 0) return points;
  std::vector<int32_t> kept;
  if (box != nullptr) {
    for (size_t t = 0; t < surface.triangles.size(); t += 3) {
      double lo[3], hi[3];
      for (int k = 0; k < 3; ++k) {
        lo[k] = std::numeric_limits<double>::infinity();
        hi[k] = -std::numeric_limits<double>::infinity();
      }
      for (int corner = 0; corner < 3; ++corner) {
        const float* p = &points[3 * size_t(surface.triangles[t + corner])];
        for (int k = 0; k < 3; ++k) {
          lo[k] = std::min(lo[k], double(p[k]));
          hi[k] = std::max(hi[k], double(p[k]));
        }
      }
      if (box->Overlaps(lo, hi)) kept.insert(kept.end(), &surface.triangles[t], &surface.triangles[t] + 3);
    }
  }
  const int32_t* triangles = box != nullptr ? kept.data() : surface.triangles.data();
  const int64_t num_triangles = box != nullptr ? int64_t(kept.size() / 3) : surface.NumTriangles();
  const double area = SurfaceArea(points.data(), triangles, num_triangles);
  const double expected = area / (spacing * spacing);
  if (!(expected <= kMaxSamples)) {
    throw std::length_error(Str(what, " surface (", area, " square units) would need ", expected,
                                " samples at spacing ", spacing, "; give a region or a larger spacing"));
  }
  return SampleSurface(points.data(), triangles, num_triangles, spacing, seed, num_threads);
}

}  // namespace

cvis_cloud_comparison CompareClouds(const CloudComparisonInput& input) {
  const cvis_cloud& ours = *input.ours;
  const cvis_cloud& reference = *input.reference;
  const double tau = input.tau, tau2 = tau * tau;
  const int threads = std::max(1, input.num_threads);

  // Ours in the reference frame: x' = s R x + t.
  std::vector<float> mapped(ours.points.size());
  ParallelFor(ours.NumPoints(), threads, kBlock, [&](int64_t begin, int64_t end, int) {
    const double* R = input.rotation;
    for (int64_t i = begin; i < end; ++i) {
      const float* x = &ours.points[3 * size_t(i)];
      for (int r = 0; r < 3; ++r) {
        mapped[3 * size_t(i) + r] = float(
            input.scale * (R[3 * r] * x[0] + R[3 * r + 1] * x[1] + R[3 * r + 2] * x[2]) +
            input.translation[r]);
      }
    }
  });
  // With a region, only our surface near it can count in either direction: accuracy takes our
  // points inside its box, completeness our points within tau of its surface.
  Box region_box;
  if (input.region != nullptr) region_box = BoxOf(input.region->points);
  const Box region_reach = region_box.Expanded(input.tau);
  std::vector<float> our_points =
      ours.NumTriangles() > 0
          ? SurfaceSamples(ours, mapped, input.sample_spacing, kOursSeed, threads, "our",
                           input.region != nullptr ? &region_reach : nullptr)
          : std::move(mapped);
  std::vector<float>().swap(mapped);
  if (our_points.size() / 3 >= size_t(UINT32_MAX)) throw std::length_error("over 2^32 points");

  // Accuracy: our points (inside the region's box) within tau of the reference surface.
  std::vector<const float*> evaluated;
  for (size_t i = 0; i < our_points.size(); i += 3) {
    const float* p = &our_points[i];
    if (Finite(p) && (input.region == nullptr || region_box.Contains(p))) evaluated.push_back(p);
  }
  const Box reach = input.region != nullptr ? region_reach : BoxOf(our_points).Expanded(tau);
  int64_t accurate = 0;
  if (reference.NumTriangles() > 0) {
    const CellGrid grid = TriangleGrid(reference, tau, reach, CellsNear(evaluated, CellGrid(tau)), threads);
    accurate = CountHits(evaluated, threads, [&](const float* p) {
      const double q[3] = {p[0], p[1], p[2]};
      return AnyWithin(grid, p, [&](uint32_t t) {
        double a[3], b[3], c[3];
        Corner(reference, t, 0, a);
        Corner(reference, t, 1, b);
        Corner(reference, t, 2, c);
        return PointTriangleDistanceSquared(q, a, b, c) <= tau2;
      });
    });
  } else {
    const CellGrid grid = PointGrid(reference.points, tau, [&](const float* p) { return reach.Contains(p); });
    accurate = CountHits(evaluated, threads, [&](const float* p) {
      return AnyWithin(grid, p, [&](uint32_t j) {
        const float* r = &reference.points[3 * size_t(j)];
        const double d[3] = {double(p[0]) - r[0], double(p[1]) - r[1], double(p[2]) - r[2]};
        return d[0] * d[0] + d[1] * d[1] + d[2] * d[2] <= tau2;
      });
    });
  }

  // Completeness: samples of the reference (or region) surface within tau of one of ours.
  const cvis_cloud& surface = input.region != nullptr ? *input.region : reference;
  const std::vector<float> samples =
      SurfaceSamples(surface, surface.points, input.sample_spacing, kReferenceSeed, threads, "reference");
  std::vector<const float*> sample_pointers;
  for (size_t i = 0; i < samples.size(); i += 3) {
    if (Finite(&samples[i])) sample_pointers.push_back(&samples[i]);
  }
  const Box sample_reach = BoxOf(samples).Expanded(tau);
  const CellGrid our_grid = PointGrid(our_points, tau, [&](const float* p) { return sample_reach.Contains(p); });
  const int64_t complete = CountHits(sample_pointers, threads, [&](const float* s) {
    return AnyWithin(our_grid, s, [&](uint32_t j) {
      const float* p = &our_points[3 * size_t(j)];
      const double d[3] = {double(s[0]) - p[0], double(s[1]) - p[1], double(s[2]) - p[2]};
      return d[0] * d[0] + d[1] * d[1] + d[2] * d[2] <= tau2;
    });
  });

  cvis_cloud_comparison result{};
  result.evaluated_points = int64_t(evaluated.size());
  result.reference_samples = int64_t(sample_pointers.size());
  result.accuracy = evaluated.empty() ? 0.0 : double(accurate) / double(evaluated.size());
  result.completeness = sample_pointers.empty() ? 0.0 : double(complete) / double(sample_pointers.size());
  const double sum = result.accuracy + result.completeness;
  result.f1 = sum > 0 ? 2 * result.accuracy * result.completeness / sum : 0.0;
  return result;
}

}  // namespace cvis

extern "C" cvis_status cvis_compare_clouds(const cvis_cloud* ours, const cvis_cloud* reference,
                                           const cvis_cloud* region, double scale,
                                           const double rotation[9], const double translation[3],
                                           double tau, double sample_spacing,
                                           cvis_cloud_comparison* out) {
  using namespace cvis;
  return Guard([&] {
    if (ours == nullptr || reference == nullptr || rotation == nullptr || translation == nullptr ||
        out == nullptr) {
      return Fail(CVIS_INVALID_ARGUMENT, "cvis_compare_clouds: null argument");
    }
    if (!(tau > 0) || !std::isfinite(tau) || !(sample_spacing > 0) || !std::isfinite(sample_spacing)) {
      return Fail(CVIS_INVALID_ARGUMENT, Str("cvis_compare_clouds: tau ", tau, " and sample_spacing ",
                                             sample_spacing, " must be positive"));
    }
    if (!(scale > 0) || !std::isfinite(scale)) {
      return Fail(CVIS_INVALID_ARGUMENT, Str("cvis_compare_clouds: scale ", scale, " must be positive"));
    }
    for (int k = 0; k < 9; ++k) {
      if (!std::isfinite(rotation[k]) || (k < 3 && !std::isfinite(translation[k]))) {
        return Fail(CVIS_INVALID_ARGUMENT, "cvis_compare_clouds: similarity not finite");
      }
    }
    CloudComparisonInput input;
    input.ours = ours;
    input.reference = reference;
    input.region = region;
    input.scale = scale;
    std::copy(rotation, rotation + 9, input.rotation);
    std::copy(translation, translation + 3, input.translation);
    input.tau = tau;
    input.sample_spacing = sample_spacing;
    try {
      *out = CompareClouds(input);
    } catch (const std::length_error& error) {
      return Fail(CVIS_LIMIT_EXCEEDED, Str("cvis_compare_clouds: ", error.what()));
    }
    return CVIS_OK;
  });
}
