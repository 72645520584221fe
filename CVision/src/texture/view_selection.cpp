// One view per face. The best view of each face alone makes a patchwork of tiny charts, and every
// chart border is a seam; a Potts smoothness term (as in Waechter et al.'s MRF) trades a little
// resolution for large charts. Minimised by iterated conditional modes, which for this energy
// converges in a few rounds and needs no graph-cut library.
#include <algorithm>
#include <unordered_map>

#include "texturing.h"

namespace cvis::texture {

std::vector<std::array<int64_t, 3>> FaceNeighbours(const Mesh& mesh) {
  std::vector<std::array<int64_t, 3>> neighbours(mesh.num_faces, {-1, -1, -1});
  // Edge (lower vertex, higher vertex) -> first face and its edge index; a third face on an
  // edge makes it non-manifold and leaves it unshared.
  std::unordered_map<uint64_t, int64_t> first;
  std::unordered_map<uint64_t, int> count;
  first.reserve(size_t(3 * mesh.num_faces));
  auto key = [](uint32_t a, uint32_t b) {
    return a < b ? (uint64_t(a) << 32) | b : (uint64_t(b) << 32) | a;
  };
  for (int64_t f = 0; f < mesh.num_faces; ++f) {
    for (int k = 0; k < 3; ++k) {
      const uint64_t edge = key(uint32_t(mesh.Corner(f, k)), uint32_t(mesh.Corner(f, (k + 1) % 3)));
      ++count[edge];
      first.emplace(edge, 3 * f + k);
    }
  }
  for (int64_t f = 0; f < mesh.num_faces; ++f) {
    for (int k = 0; k < 3; ++k) {
      const uint64_t edge = key(uint32_t(mesh.Corner(f, k)), uint32_t(mesh.Corner(f, (k + 1) % 3)));
      if (count[edge] != 2) continue;
      const int64_t other = first[edge];
      if (other / 3 == f) continue;
      neighbours[f][k] = other / 3;
      neighbours[other / 3][other % 3] = f;
    }
  }
  return neighbours;
}

std::vector<int32_t> SelectViews(const std::vector<std::vector<Candidate>>& candidates,
                                 const std::vector<std::array<int64_t, 3>>& neighbours,
                                 const cvis_texture_options& options) {
  const int64_t n = int64_t(candidates.size());
  std::vector<int32_t> label(n, -1);
  for (int64_t f = 0; f < n; ++f) {
    if (!candidates[f].empty()) label[f] = candidates[f][0].view;
  }
  for (int round = 0; round < options.smoothing_iterations; ++round) {
    int64_t changed = 0;
    for (int64_t f = 0; f < n; ++f) {
      const auto& list = candidates[f];
      if (list.size() < 2) continue;
      const float best_quality = list[0].quality;
      double best_energy = 1e300;
      int32_t best = label[f];
      for (const Candidate& candidate : list) {
        double energy = 1.0 - candidate.quality / best_quality;
        for (int64_t g : neighbours[f]) {
          if (g >= 0 && label[g] >= 0 && label[g] != candidate.view) energy += options.smoothness;
        }
        if (energy < best_energy - 1e-12) {
          best_energy = energy;
          best = candidate.view;
        }
      }
      if (best != label[f]) {
        label[f] = best;
        ++changed;
      }
    }
    if (changed == 0) break;
  }
  return label;
}

}  // namespace cvis::texture
