// The PatchMatch solver's internals, shared by patch_match.cpp (set-up, cost, initialisation,
// filtering) and patch_match_sweep.cpp (propagation and refinement). Not part of the C++ API.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include <opencv2/core.hpp>

#include "../util/parallel.h"
#include "../util/random.h"
#include "patch_match.h"
#include "patch_match_kernels.h"

namespace cvis {
namespace mvs {
namespace internal {

constexpr float kMaxCost = 2.0f;  // 1 - NCC of the worst match
constexpr int kMaxSources = 64;

// Counter-based randomness: every pixel visit draws from its own stream, keyed by what the visit
// is, so results depend on the seed only (not on the thread count or the order of rows).
struct Random : SplitMix64 {
  Random(uint64_t seed, uint64_t a, uint64_t b) : SplitMix64{Mix(seed ^ Mix(a * kGolden ^ Mix(b)))} {}
  float Uniform() { return UniformFloat(); }  // [0, 1)
  float Uniform(float lo, float hi) { return lo + (hi - lo) * Uniform(); }
};

// ACMH's adaptive checkerboard sampling: four V-shaped near regions and four long strips, each
// offset at an odd Manhattan distance so that it falls on the other colour.
struct Regions {
  std::vector<std::pair<int, int>> region[8];
  Regions() {
    const int dirs[4][2] = {{0, -1}, {0, 1}, {-1, 0}, {1, 0}};
    for (int d = 0; d < 4; ++d) {
      const int ax = dirs[d][0], ay = dirs[d][1];  // along the direction
      const int px = -ay, py = ax;                 // across it
      auto& near = region[2 * d];
      near.push_back({ax, ay});
      for (int k = 1; k <= 3; ++k) {
        near.push_back({ax * (k + 1) + px * k, ay * (k + 1) + py * k});
        near.push_back({ax * (k + 1) - px * k, ay * (k + 1) - py * k});
      }
      auto& far = region[2 * d + 1];
      for (int k = 0; k < 11; ++k) far.push_back({ax * (3 + 2 * k), ay * (3 + 2 * k)});
    }
  }
};

struct Hypothesis {
  float depth;
  float normal[3];
};

// One resolution of the problem: scaled views and images.
struct Level {
  View ref;
  cv::Mat grey;  // CV_32F
  cv::Mat mask;  // CV_8U, 255 = keep (empty: all kept)
  std::vector<View> src_views;
  std::vector<cv::Mat> src_grey;
  std::vector<SourceGeometry> geometry;
};

class Solver {
 public:
  Solver(const PatchMatchProblem& problem, const cvis_patch_match_options& options)
      : problem_(problem), options_(options),
        window_(options.window_radius, options.window_step, options.sigma_spatial,
                options.sigma_color),
        cos_min_angle_(float(std::cos(options.min_triangulation_angle_deg * M_PI / 180))) {}

  cvis_status Load(Workspace& ws);
  void Run(DepthMap* out);

 private:
  void SetLevel(int level_index);
  void Initialise(bool from_coarse, int coarse_width, int coarse_height,
                  const std::vector<Hypothesis>& coarse, const std::vector<uint8_t>& coarse_valid);
  void Sweep(int iteration, int colour, bool random_refinement);
  // The cost of h at (x, y): the mean of the top_k_views lowest source costs. Only the sources
  // whose bit is set in `views` are scored; `best_views` (when given) receives the bits of the
  // fine_views sources with the lowest costs.
  float Evaluate(const RefPatch& patch, int x, int y, const Hypothesis& h, int* consistent,
                 uint64_t views = ~uint64_t(0), uint64_t* best_views = nullptr) const;
  float GeometricError(int j, const double* X, const float* pixel, bool* consistent) const;
  void RandomNormal(Random& random, int x, int y, float* n) const;
  void FaceCamera(int x, int y, float* n) const;
  // The planar-prior pass's start: the photometric map (previous_) as the state it was left in.
  void Restore();
  void Finish(DepthMap* out);
  // Planar priors (patch_match_planar.cpp): fills the pixels photometry left undecided from the
  // planes of a triangulation of the confident ones, each plane checked against the sources'
  // photometric maps. Full resolution, the planar-prior pass.
  void PlanarPrior();

  const PatchMatchProblem& problem_;
  const cvis_patch_match_options& options_;
  Window window_;
  float cos_min_angle_;
  Regions regions_;

  View full_ref_;
  std::shared_ptr<const cv::Mat> full_grey_, full_mask_;
  std::vector<View> full_src_views_;
  std::vector<std::shared_ptr<const cv::Mat>> full_src_grey_;
  std::shared_ptr<const DepthMap> previous_;
  std::vector<std::shared_ptr<const DepthMap>> src_depth_;  // geometric and planar-prior passes, per source

  Level level_;
  int level_index_ = 0;
  int width_ = 0, height_ = 0;
  std::vector<Hypothesis> state_;
  std::vector<float> cost_;
  std::vector<uint8_t> active_;
  // Full resolution after half: per pixel, the sources (bits) its candidates are scored with.
  std::vector<uint64_t> views_;  // inside the mask, the window inside the image, textured
  // Planar priors: pixels whose hypothesis is their triangle's plane, not photometry's choice
  // (empty in the photometric pass). Finish keeps them past the cost filter; in the geometric pass
  // they stay fixed and must agree with filter_min_views sources.
  std::vector<uint8_t> prior_;
};

}  // namespace internal
}  // namespace mvs
}  // namespace cvis
