// Guided matching (cvis_guided_matching.h). A pair whose epipolar geometry is known — verified
// from a few dozen matches, or predicted by pose priors — restricts each keypoint's candidates
// to the band around its epipolar line, so the ratio test compares a descriptor only with its
// geometric rivals: matches that lost to a look-alike elsewhere in the image come back (weak
// texture, foliage, video frames far apart), and the pair costs a fraction of the full product.
//
// The keypoints of a are binned into a grid; each cell gathers the keypoints of b whose
// epipolar line in a passes within the band of the cell's bounding box (a superset of every
// candidate of the cell's keypoints), and one GEMM of the two gathered descriptor blocks gives
// their similarities, of which only the pairs passing the exact two-sided band test count.
#include <algorithm>
#include <cmath>
#include <vector>

#include <Eigen/Core>

#include "../../include/cvis_guided_matching.h"
#include "../util/status.h"
#include "features.h"
#include "nearest.h"

namespace cvis {
namespace {

constexpr int kDim = cvis_features::kDescriptorDim;

// Keypoints of a per grid cell on average: enough columns for an efficient GEMM, few enough
// that the cell's box stays small against the band.
constexpr double kKeypointsPerCell = 64.0;

// A line l0 x + l1 y + l2 = 0 scaled to unit normal, so evaluating it gives signed pixels.
struct Line {
  double l0 = 0, l1 = 0, l2 = 0;
  double At(double x, double y) const { return l0 * x + l1 * y + l2; }
};

Line Normalised(double l0, double l1, double l2) {
  const double n = std::hypot(l0, l1);
  // A point at an epipole has no line: it is within the band of nothing.
  if (!(n > 0)) return {0, 0, HUGE_VAL};
  return {l0 / n, l1 / n, l2 / n};
}

}  // namespace
}  // namespace cvis

extern "C" cvis_status cvis_match_features_guided(const cvis_features* a, const cvis_features* b,
                                                  const double fundamental[9], double max_error_px,
                                                  const cvis_match_options* options_in,
                                                  int32_t* matches, int32_t* num_matches) {
  using namespace cvis;
  return Guard([&] {
    if (a == nullptr || b == nullptr || fundamental == nullptr || num_matches == nullptr) {
      return Fail(CVIS_INVALID_ARGUMENT, "cvis_match_features_guided: null argument");
    }
    *num_matches = 0;
    cvis_match_options options;
    cvis_match_options_default(&options);
    if (options_in != nullptr) options = *options_in;
    if (!(options.max_ratio > 0.0f) || !(options.max_distance > 0.0f) || !(max_error_px > 0.0)) {
      return Fail(CVIS_INVALID_ARGUMENT,
                  "cvis_match_features_guided: max_ratio, max_distance and max_error_px must be > 0");
    }
    const int32_t count_a = a->Count(), count_b = b->Count();
    if (count_a == 0 || count_b == 0) return CVIS_OK;
    if (matches == nullptr) return Fail(CVIS_INVALID_ARGUMENT, "cvis_match_features_guided: null output");
    const double* F = fundamental;
    const float* key_a = a->keypoints.data();
    const float* key_b = b->keypoints.data();

    // Epipolar lines: F x_a in image b and F^T x_b in image a, in signed pixels.
    std::vector<Line> line_in_b(count_a), line_in_a(count_b);
    for (int32_t i = 0; i < count_a; ++i) {
      const double x = key_a[4 * i], y = key_a[4 * i + 1];
      line_in_b[i] = Normalised(F[0] * x + F[1] * y + F[2], F[3] * x + F[4] * y + F[5],
                                F[6] * x + F[7] * y + F[8]);
    }
    for (int32_t j = 0; j < count_b; ++j) {
      const double x = key_b[4 * j], y = key_b[4 * j + 1];
      line_in_a[j] = Normalised(F[0] * x + F[3] * y + F[6], F[1] * x + F[4] * y + F[7],
                                F[2] * x + F[5] * y + F[8]);
    }

    // Grid over a's keypoints (their own extent, not the image's).
    double min_x = HUGE_VAL, min_y = HUGE_VAL, max_x = -HUGE_VAL, max_y = -HUGE_VAL;
    for (int32_t i = 0; i < count_a; ++i) {
      min_x = std::min<double>(min_x, key_a[4 * i]);
      max_x = std::max<double>(max_x, key_a[4 * i]);
      min_y = std::min<double>(min_y, key_a[4 * i + 1]);
      max_y = std::max<double>(max_y, key_a[4 * i + 1]);
    }
    const double width = std::max(max_x - min_x, 1.0), height = std::max(max_y - min_y, 1.0);
    const double cell = std::sqrt(width * height * kKeypointsPerCell / count_a);
    const int columns = std::max(1, int(std::ceil(width / cell))), rows = std::max(1, int(std::ceil(height / cell)));
    std::vector<std::vector<int32_t>> cells(size_t(columns) * rows);
    for (int32_t i = 0; i < count_a; ++i) {
      const int cx = std::min(columns - 1, int((key_a[4 * i] - min_x) / cell));
      const int cy = std::min(rows - 1, int((key_a[4 * i + 1] - min_y) / cell));
      cells[size_t(cy) * columns + cx].push_back(i);
    }

    std::vector<Nearest> nearest_of_a(count_a), nearest_of_b(count_b);
    std::vector<int32_t> candidates;
    Eigen::Matrix<float, kDim, Eigen::Dynamic> block_a, block_b;
    Eigen::MatrixXf similarity;
    for (const std::vector<int32_t>& members : cells) {
      if (members.empty()) continue;
      float box_x0 = HUGE_VALF, box_y0 = HUGE_VALF, box_x1 = -HUGE_VALF, box_y1 = -HUGE_VALF;
      for (int32_t i : members) {
        box_x0 = std::min(box_x0, key_a[4 * i]);
        box_x1 = std::max(box_x1, key_a[4 * i]);
        box_y0 = std::min(box_y0, key_a[4 * i + 1]);
        box_y1 = std::max(box_y1, key_a[4 * i + 1]);
      }
      // b's line in a passes within the band of the box when its signed distances at the
      // corners are not all beyond the band on one side.
      candidates.clear();
      for (int32_t j = 0; j < count_b; ++j) {
        const Line& l = line_in_a[j];
        const double d0 = l.At(box_x0, box_y0), d1 = l.At(box_x1, box_y0);
        const double d2 = l.At(box_x0, box_y1), d3 = l.At(box_x1, box_y1);
        const double low = std::min(std::min(d0, d1), std::min(d2, d3));
        const double high = std::max(std::max(d0, d1), std::max(d2, d3));
        if (low <= max_error_px && high >= -max_error_px) candidates.push_back(j);
      }
      if (candidates.empty()) continue;
      block_a.resize(kDim, Eigen::Index(members.size()));
      for (size_t c = 0; c < members.size(); ++c) {
        std::copy_n(&a->descriptors[size_t(members[c]) * kDim], kDim, block_a.col(Eigen::Index(c)).data());
      }
      block_b.resize(kDim, Eigen::Index(candidates.size()));
      for (size_t c = 0; c < candidates.size(); ++c) {
        std::copy_n(&b->descriptors[size_t(candidates[c]) * kDim], kDim, block_b.col(Eigen::Index(c)).data());
      }
      similarity.noalias() = block_b.transpose() * block_a;  // candidates x members, column-major
      for (size_t c = 0; c < members.size(); ++c) {
        const int32_t i = members[c];
        const double xa = key_a[4 * i], ya = key_a[4 * i + 1];
        const Line& in_b = line_in_b[i];
        const float* column = similarity.col(Eigen::Index(c)).data();
        Nearest& forward = nearest_of_a[i];
        for (size_t r = 0; r < candidates.size(); ++r) {
          const float value = column[r];
          const int32_t j = candidates[r];
          Nearest& backward = nearest_of_b[j];
          // Most similarities lose to both sides' second best already: only the rest pay for
          // the exact band test.
          if (value <= forward.second && value <= backward.second) continue;
          if (std::fabs(in_b.At(key_b[4 * j], key_b[4 * j + 1])) > max_error_px ||
              std::fabs(line_in_a[j].At(xa, ya)) > max_error_px) {
            continue;
          }
          forward.Offer(value, j);
          backward.Offer(value, i);
        }
      }
    }

    const int32_t written = SelectMatches(nearest_of_a, nearest_of_b, options, matches);
    *num_matches = written;
    return CVIS_OK;
  });
}
