// Brute-force descriptor matching as a dense matrix product. With unit descriptors the dot
// product is the cosine of the angle between them, so one matrix product per row block gives
// every distance (similarity.h: on the descriptors' bytes); a pass over each block keeps the
// best and second best in both directions, which is all that the ratio test and the mutual
// check need. Single-threaded by design: the caller
// parallelises over image pairs, and no state is shared, so concurrent calls are safe.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include <Eigen/Core>

#include "../util/status.h"
#include "features.h"
#include "nearest.h"
#include "similarity.h"

namespace cvis {
namespace {

// Rows of a processed per GEMM: bounds the similarity block to 256 x count(b) floats (8 MB for
// 8k features), small enough to stay friendly to the cache while the product stays efficient.
constexpr int kBlockSize = 256;

// Lanes of the column scan: one AVX-512 register of floats (two AVX2 ones).
constexpr int kLanes = 16;

// One column of similarities (a's keypoint `a_index` against every b): returns a's two nearest
// in b and updates every b's two nearest in a. Branch-free over fixed-width lanes so that the
// compiler vectorises both directions; each lane keeps its own best and second, merged at the
// end. Same results as offering the values one by one: ties keep the first index.
inline Nearest ScanColumn(const float* __restrict__ column, int32_t count_b, int32_t a_index,
                          float* __restrict__ best_b, float* __restrict__ second_b,
                          int32_t* __restrict__ index_b) {
  alignas(64) float lane_best[kLanes], lane_second[kLanes];
  alignas(64) int32_t lane_index[kLanes];
  for (int l = 0; l < kLanes; ++l) {
    lane_best[l] = lane_second[l] = -2.0f;
    lane_index[l] = -1;
  }
  auto offer = [&](int l, int32_t i) {
    const float value = column[i];
    const float old = lane_best[l];
    lane_second[l] = std::max(lane_second[l], std::min(value, old));
    lane_index[l] = value > old ? i : lane_index[l];
    lane_best[l] = std::max(old, value);
    const float old_b = best_b[i];
    second_b[i] = std::max(second_b[i], std::min(value, old_b));
    index_b[i] = value > old_b ? a_index : index_b[i];
    best_b[i] = std::max(old_b, value);
  };
  int32_t i = 0;
  for (; i + kLanes <= count_b; i += kLanes) {
    for (int l = 0; l < kLanes; ++l) offer(l, i + l);
  }
  for (int l = 0; i < count_b; ++i, ++l) offer(l, i);
  // Merge: the best lane (the lowest index among equal bests) against the others' bests.
  int winner = 0;
  for (int l = 1; l < kLanes; ++l) {
    if (lane_best[l] > lane_best[winner] ||
        (lane_best[l] == lane_best[winner] && lane_index[l] >= 0 &&
         (lane_index[winner] < 0 || lane_index[l] < lane_index[winner]))) {
      winner = l;
    }
  }
  Nearest nearest{lane_best[winner], lane_second[winner], lane_index[winner]};
  for (int l = 0; l < kLanes; ++l) {
    if (l != winner) nearest.second = std::max(nearest.second, lane_best[l]);
  }
  return nearest;
}

}  // namespace
}  // namespace cvis

extern "C" void cvis_match_options_default(cvis_match_options* options) {
  if (options == nullptr) return;
  options->max_ratio = 0.8f;
  options->max_distance = 0.7f;
  options->cross_check = 1;
}

extern "C" cvis_status cvis_match_features(const cvis_features* a, const cvis_features* b,
                                           const cvis_match_options* options_in,
                                           int32_t* matches, int32_t* num_matches) {
  using namespace cvis;
  return Guard([&] {
    if (a == nullptr || b == nullptr || num_matches == nullptr) {
      return Fail(CVIS_INVALID_ARGUMENT, "cvis_match_features: null argument");
    }
    *num_matches = 0;
    cvis_match_options options;
    cvis_match_options_default(&options);
    if (options_in != nullptr) options = *options_in;
    if (!(options.max_ratio > 0.0f) || !(options.max_distance > 0.0f)) {
      return Fail(CVIS_INVALID_ARGUMENT, "cvis_match_features: max_ratio and max_distance must be > 0");
    }
    const int32_t count_a = a->Count(), count_b = b->Count();
    if (count_a == 0 || count_b == 0) return CVIS_OK;
    if (matches == nullptr) return Fail(CVIS_INVALID_ARGUMENT, "cvis_match_features: null output");

    const DescriptorSimilarity product(*a, *b);
    std::vector<Nearest> nearest_in_b(count_a);   // for each a: its neighbours in b
    std::vector<float> best_b(count_b, -2.0f), second_b(count_b, -2.0f);  // for each b, in a
    std::vector<int32_t> index_b(count_b, -1);

    // similarity(i, j) = <b_i, a_j>: column j is contiguous over all of b.
    Eigen::MatrixXf similarity(count_b, kBlockSize);
    for (int32_t start = 0; start < count_a; start += kBlockSize) {
      const int32_t rows = std::min(kBlockSize, count_a - start);
      product.Compute(start, rows, similarity.data());
      for (int32_t j = 0; j < rows; ++j) {
        const float* column = similarity.col(j).data();
        nearest_in_b[start + j] = ScanColumn(column, count_b, start + j, best_b.data(),
                                             second_b.data(), index_b.data());
      }
    }

    std::vector<Nearest> nearest_in_a(count_b);
    for (int32_t j = 0; j < count_b; ++j) nearest_in_a[j] = Nearest{best_b[j], second_b[j], index_b[j]};
    const int32_t written = SelectMatches(nearest_in_b, nearest_in_a, options, matches);
    *num_matches = written;
    return CVIS_OK;
  });
}
