// SplitMix64 (Steele, Lea and Flood 2014): a small, well-mixed, seeded generator. Kernels key one
// per work item (a pixel visit, a triangle), so results depend on the seed only, never on the
// thread count or the order in which items run.
#pragma once

#include <cstdint>

namespace cvis {

struct SplitMix64 {
  static constexpr uint64_t kGolden = 0x9E3779B97F4A7C15ULL;

  uint64_t state;

  // The finaliser: a bijection that spreads every input bit over the output.
  static uint64_t Mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }

  uint64_t Next() { return Mix(state += kGolden); }
  // Uniform in [0, 1), with all the precision of the type.
  double UniformDouble() { return double(Next() >> 11) * 0x1p-53; }
  float UniformFloat() { return float(Next() >> 40) * (1.0f / 16777216.0f); }
};

}  // namespace cvis
