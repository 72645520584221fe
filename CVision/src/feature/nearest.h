// The two nearest descriptors of one keypoint, and the matches they give: shared by plain
// matching (matching.cpp) and matching inside an epipolar band (guided_matching.cpp).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "../../include/cvis_feature.h"

namespace cvis {

// Best and second-best similarity (dot product of unit descriptors) seen for one keypoint, and
// the best's index.
struct Nearest {
  float best = -2.0f;
  float second = -2.0f;
  int32_t index = -1;

  void Offer(float value, int32_t other) {
    if (value <= second) return;
    if (value > best) {
      second = best;
      best = value;
      index = other;
    } else {
      second = value;
    }
  }
};

// COLMAP semantics on angles acos(dot): the best under max_distance and best < max_ratio *
// second; a keypoint with a single candidate passes the ratio test (its second is at pi).
inline bool PassesTests(const Nearest& nearest, float max_ratio, float max_distance) {
  if (nearest.index < 0) return false;
  const float best = std::acos(std::clamp(nearest.best, -1.0f, 1.0f));
  const float second = std::acos(std::clamp(nearest.second, -1.0f, 1.0f));
  return best <= max_distance && best < max_ratio * second;
}

// Writes the matches (index in a, index in b) that pass the tests, ordered by index in a, and
// returns their count. Without the mutual check several a may pick the same b: each b keeps
// its most similar a, which also bounds the count by min(count(a), count(b)).
inline int32_t SelectMatches(const std::vector<Nearest>& of_a, const std::vector<Nearest>& of_b,
                             const cvis_match_options& options, int32_t* matches) {
  std::vector<int32_t> owner(of_b.size(), -1);
  for (int32_t i = 0; i < int32_t(of_a.size()); ++i) {
    const Nearest& forward = of_a[i];
    if (!PassesTests(forward, options.max_ratio, options.max_distance)) continue;
    const int32_t j = forward.index;
    if (options.cross_check) {
      if (of_b[j].index != i || !PassesTests(of_b[j], options.max_ratio, options.max_distance)) continue;
      owner[j] = i;
    } else if (owner[j] < 0 || of_a[owner[j]].best < forward.best) {
      owner[j] = i;
    }
  }
  int32_t written = 0;
  for (int32_t i = 0; i < int32_t(of_a.size()); ++i) {
    const int32_t j = of_a[i].index;
    if (j >= 0 && owner[j] == i) {
      matches[2 * written] = i;
      matches[2 * written + 1] = j;
      ++written;
    }
  }
  return written;
}

}  // namespace cvis
