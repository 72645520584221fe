// Brute-force descriptor matching as a dense matrix product. With unit descriptors the dot
// product is the cosine of the angle between them, so one float GEMM per row block gives every
// distance; a pass over each block keeps the best and second best in both directions, which is
// all that the ratio test and the mutual check need. Single-threaded by design: the caller
// parallelises over image pairs, and no state is shared, so concurrent calls are safe.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include <Eigen/Core>

#include "../util/status.h"
#include "features.h"
#include "nearest.h"

namespace cvis {
namespace {

using DescriptorMap = Eigen::Map<const Eigen::Matrix<float, cvis_features::kDescriptorDim,
                                                     Eigen::Dynamic>>;

// Rows of a processed per GEMM: bounds the similarity block to 256 x count(b) floats (8 MB for
// 8k features), small enough to stay friendly to the cache while the product stays efficient.
constexpr int kBlockSize = 256;

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

    const DescriptorMap descriptors_a(a->descriptors.data(), cvis_features::kDescriptorDim, count_a);
    const DescriptorMap descriptors_b(b->descriptors.data(), cvis_features::kDescriptorDim, count_b);
    std::vector<Nearest> nearest_in_b(count_a);   // for each a: its neighbours in b
    std::vector<float> best_b(count_b, -2.0f), second_b(count_b, -2.0f);  // for each b, in a
    std::vector<int32_t> index_b(count_b, -1);

    // similarity(i, j) = <b_i, a_j>: column j is contiguous over all of b.
    Eigen::MatrixXf similarity(count_b, kBlockSize);
    for (int32_t start = 0; start < count_a; start += kBlockSize) {
      const int32_t rows = std::min(kBlockSize, count_a - start);
      similarity.leftCols(rows).noalias() =
          descriptors_b.transpose() * descriptors_a.middleCols(start, rows);
      for (int32_t j = 0; j < rows; ++j) {
        const float* column = similarity.col(j).data();
        Nearest& forward = nearest_in_b[start + j];
        for (int32_t i = 0; i < count_b; ++i) {
          const float value = column[i];
          if (value > forward.second) {
            if (value > forward.best) {
              forward.second = forward.best;
              forward.best = value;
              forward.index = i;
            } else {
              forward.second = value;
            }
          }
          // Reverse direction, written branch-light so the compiler can vectorise it.
          const float old_best = best_b[i];
          const bool better = value > old_best;
          second_b[i] = better ? old_best : std::max(second_b[i], value);
          best_b[i] = better ? value : old_best;
          index_b[i] = better ? start + j : index_b[i];
        }
      }
    }

    std::vector<Nearest> nearest_in_a(count_b);
    for (int32_t j = 0; j < count_b; ++j) nearest_in_a[j] = Nearest{best_b[j], second_b[j], index_b[j]};
    const int32_t written = SelectMatches(nearest_in_b, nearest_in_a, options, matches);
    *num_matches = written;
    return CVIS_OK;
  });
}
