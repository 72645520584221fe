// PatchMatch sweeps: ACMH's adaptive checkerboard propagation and random refinement, plus the
// random normals both use.
#include <cmath>

#include "patch_match_solver.h"

namespace cvis {
namespace mvs {
namespace internal {

void Solver::FaceCamera(int x, int y, float* n) const {
  const float rx = float((x + 0.5 - level_.ref.cx) / level_.ref.fx);
  const float ry = float((y + 0.5 - level_.ref.cy) / level_.ref.fy);
  if (n[0] * rx + n[1] * ry + n[2] > 0) {
    n[0] = -n[0];
    n[1] = -n[1];
    n[2] = -n[2];
  }
}

void Solver::RandomNormal(Random& random, int x, int y, float* n) const {
  // Uniform on the sphere (Marsaglia), then turned towards the camera.
  float a, b, s;
  do {
    a = random.Uniform(-1, 1);
    b = random.Uniform(-1, 1);
    s = a * a + b * b;
  } while (s >= 1 || s < 1e-6f);
  const float r = 2 * std::sqrt(1 - s);
  n[0] = a * r;
  n[1] = b * r;
  n[2] = 1 - 2 * s;
  FaceCamera(x, y, n);
}

void Solver::Sweep(int iteration, int colour, bool random_refinement) {
  const float depth_min = float(problem_.depth_min), depth_max = float(problem_.depth_max);
  // Perturbations shrink with every sweep (Schönberger): coarse steps first, fine ones later.
  const float shrink = std::pow(0.5f, float(iteration));
  const float depth_perturbation = 0.05f * shrink;
  const float normal_perturbation = 0.3f * shrink;
  const View& ref = level_.ref;
  ParallelFor(height_, options_.num_threads, 1, [&](int64_t row, int64_t, int) {
    const int y = int(row);
    RefPatch patch;
    for (int x = (y + colour) % 2; x < width_; x += 2) {
      const size_t i = size_t(y) * width_ + x;
      if (!active_[i]) continue;
      MakeRefPatch(level_.grey.ptr<float>(), int(level_.grey.step1()), width_, height_, x, y, window_, &patch);
      const float rx = float((x + 0.5 - ref.cx) / ref.fx), ry = float((y + 0.5 - ref.cy) / ref.fy);
      Hypothesis best = state_[i];
      float best_cost = cost_[i];
      auto consider = [&](const Hypothesis& h) {
        const float c = Evaluate(patch, x, y, h, nullptr, views_.empty() ? ~uint64_t(0) : views_[i]);
        if (c < best_cost) {
          best_cost = c;
          best = h;
        }
      };
      // Propagation: from each region the neighbour with the lowest cost lends its plane.
      // Propagated planes are copied exactly, so in a converged area most candidates are the
      // plane this pixel already has or one just tried: those are skipped.
      float tried[9][4];
      int num_tried = 0;
      auto seen = [&](const float* n, float plane) {
        for (int t = 0; t < num_tried; ++t) {
          if (std::fabs(tried[t][3] - plane) <= 1e-6f * std::fabs(plane) && tried[t][0] == n[0] &&
              tried[t][1] == n[1] && tried[t][2] == n[2]) {
            return true;
          }
        }
        tried[num_tried][0] = n[0];
        tried[num_tried][1] = n[1];
        tried[num_tried][2] = n[2];
        tried[num_tried][3] = plane;
        ++num_tried;
        return false;
      };
      seen(best.normal, best.depth * (best.normal[0] * rx + best.normal[1] * ry + best.normal[2]));
      // The full-resolution sweep after half resolution starts from converged planes: only the
      // four near regions propagate (the long strips carry planes across untextured stretches,
      // which the coarse level already did); about 40 % fewer candidates.
      const bool near_only = !random_refinement && level_index_ == 0 && !problem_.geometric();
      for (int r = 0; r < 8; ++r) {
        if (near_only && (r & 1)) continue;  // odd regions are the long strips
        const auto& region = regions_.region[r];
        float region_cost = kMaxCost * 10;
        size_t pick = 0;
        for (const auto& [dx, dy] : region) {
          const int nx = x + dx, ny = y + dy;
          if (nx < 0 || ny < 0 || nx >= width_ || ny >= height_) continue;
          const size_t k = size_t(ny) * width_ + nx;
          if (active_[k] && cost_[k] < region_cost) {
            region_cost = cost_[k];
            pick = k;
          }
        }
        if (region_cost >= kMaxCost * 10) continue;
        // The neighbour's plane intersected with this pixel's ray.
        const Hypothesis& nb = state_[pick];
        const int px = int(pick % size_t(width_)), py = int(pick / size_t(width_));
        const float prx = float((px + 0.5 - ref.cx) / ref.fx), pry = float((py + 0.5 - ref.cy) / ref.fy);
        const float* n = nb.normal;
        const float plane = nb.depth * (n[0] * prx + n[1] * pry + n[2]);  // n . X (< 0)
        const float n_dot_ray = n[0] * rx + n[1] * ry + n[2];
        if (!(n_dot_ray < 0) || seen(n, plane)) continue;
        const float depth = plane / n_dot_ray;
        if (!(depth >= depth_min && depth <= depth_max)) continue;
        consider(Hypothesis{depth, {n[0], n[1], n[2]}});
      }
      // Refinement around the best: perturbed (and early on random) depth and normal.
      Random random(options_.seed, (uint64_t(level_index_) << 32) ^ (uint64_t(iteration) << 8) ^
                                       uint64_t(colour) ^ (problem_.geometric() ? 0x10000 : 0), i);
      const Hypothesis current = best;
      Hypothesis perturbed_depth = current, perturbed_normal = current;
      perturbed_depth.depth = std::min(depth_max, std::max(depth_min,
          current.depth * (1 + random.Uniform(-depth_perturbation, depth_perturbation))));
      for (int k = 0; k < 3; ++k) {
        perturbed_normal.normal[k] += random.Uniform(-normal_perturbation, normal_perturbation);
      }
      float* pn = perturbed_normal.normal;
      const float norm = std::sqrt(pn[0] * pn[0] + pn[1] * pn[1] + pn[2] * pn[2]);
      for (int k = 0; k < 3; ++k) pn[k] /= norm;
      FaceCamera(x, y, pn);
      if (random_refinement) {
        Hypothesis random_depth = current, random_normal = current, random_both;
        random_depth.depth = random.Uniform(depth_min, depth_max);
        RandomNormal(random, x, y, random_normal.normal);
        random_both = random_normal;
        random_both.depth = random_depth.depth;
        consider(random_depth);
        consider(random_normal);
        consider(random_both);
      }
      consider(perturbed_depth);
      consider(perturbed_normal);
      Hypothesis both = perturbed_normal;
      both.depth = perturbed_depth.depth;
      consider(both);
      state_[i] = best;
      cost_[i] = best_cost;
    }
  });
}

}  // namespace internal
}  // namespace mvs
}  // namespace cvis
