// Guided matching (cvis_guided_matching.h). A pair verified from a few dozen matches already
// knows its epipolar geometry; restricting each keypoint's candidates to the band around its
// epipolar line lets the ratio test compare a descriptor only with its geometric rivals, so
// matches that lost to a look-alike elsewhere in the image come back (weak texture, foliage,
// video frames far apart). Candidates come from an exact band test over all keypoint pairs —
// three multiply-adds each — and only they pay for a descriptor comparison.
#include <algorithm>
#include <cmath>
#include <vector>

#include "../../include/cvis_guided_matching.h"
#include "../util/status.h"
#include "features.h"

namespace cvis {
namespace {

struct Candidate {
  int32_t other;
  float distance;  // angle between unit descriptors
};

float DescriptorAngle(const float* x, const float* y) {
  float dot = 0.0f;
  for (int k = 0; k < cvis_features::kDescriptorDim; ++k) dot += x[k] * y[k];
  return std::acos(std::clamp(dot, -1.0f, 1.0f));
}

// The best candidate when it passes the distance limit and the ratio test against the second.
int32_t BestPassing(const std::vector<Candidate>& candidates, float max_ratio, float max_distance) {
  float best = INFINITY, second = INFINITY;
  int32_t index = -1;
  for (const Candidate& c : candidates) {
    if (c.distance < best) {
      second = best;
      best = c.distance;
      index = c.other;
    } else if (c.distance < second) {
      second = c.distance;
    }
  }
  if (index < 0 || best > max_distance) return -1;
  return (std::isinf(second) || best < max_ratio * second) ? index : -1;
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

    // Epipolar lines: F x_a in image b and F^T x_b in image a, scaled so that the residual
    // x_b^T F x_a divided by a line's scale is the point's distance to it in pixels.
    std::vector<double> line_b(3 * size_t(count_a)), inverse_norm_b(count_a);
    for (int32_t i = 0; i < count_a; ++i) {
      const double x = a->keypoints[4 * i], y = a->keypoints[4 * i + 1];
      for (int r = 0; r < 3; ++r) line_b[3 * i + r] = F[3 * r] * x + F[3 * r + 1] * y + F[3 * r + 2];
      const double n = std::hypot(line_b[3 * i], line_b[3 * i + 1]);
      inverse_norm_b[i] = n > 0 ? 1.0 / n : 0.0;
    }
    std::vector<double> inverse_norm_a(count_b);
    for (int32_t j = 0; j < count_b; ++j) {
      const double x = b->keypoints[4 * j], y = b->keypoints[4 * j + 1];
      const double lx = F[0] * x + F[3] * y + F[6], ly = F[1] * x + F[4] * y + F[7];
      const double n = std::hypot(lx, ly);
      inverse_norm_a[j] = n > 0 ? 1.0 / n : 0.0;
    }

    std::vector<std::vector<Candidate>> of_a(count_a), of_b(count_b);
    for (int32_t i = 0; i < count_a; ++i) {
      const double l0 = line_b[3 * i], l1 = line_b[3 * i + 1], l2 = line_b[3 * i + 2];
      const double limit_b = max_error_px / std::max(inverse_norm_b[i], 1e-300);
      const float* da = &a->descriptors[size_t(i) * cvis_features::kDescriptorDim];
      for (int32_t j = 0; j < count_b; ++j) {
        const double residual = std::fabs(l0 * b->keypoints[4 * j] + l1 * b->keypoints[4 * j + 1] + l2);
        if (residual > limit_b || residual * inverse_norm_a[j] > max_error_px) continue;
        const float distance =
            DescriptorAngle(da, &b->descriptors[size_t(j) * cvis_features::kDescriptorDim]);
        of_a[i].push_back({j, distance});
        of_b[j].push_back({i, distance});
      }
    }
    int32_t n = 0;
    for (int32_t i = 0; i < count_a; ++i) {
      const int32_t j = BestPassing(of_a[i], options.max_ratio, options.max_distance);
      if (j < 0) continue;
      if (options.cross_check && BestPassing(of_b[j], options.max_ratio, options.max_distance) != i) continue;
      matches[2 * n] = i;
      matches[2 * n + 1] = j;
      ++n;
    }
    *num_matches = n;
    return CVIS_OK;
  });
}
