// Cosine similarities between two images' descriptors, computed on the quantised bytes they are
// stored as. A dot product of byte descriptors is an integer below 2^24 (255^2 x 128), so it is
// exact whether summed as int32 (AVX-512 VNNI: four times the multiply-adds of a float FMA; AVX2
// vpmaddwd on int16 words: 1.8 times Eigen's float product on Zen 3) or as floats in any order
// (the portable Eigen path); all three then scale it by the same two inverse norms in the same
// order, so every path gives bit-identical similarities.
#pragma once

#include <cstdint>
#include <vector>

#include "features.h"

namespace cvis {

/// The similarity blocks of a against b, a's keypoints a block of columns at a time.
class DescriptorSimilarity {
 public:
  DescriptorSimilarity(const cvis_features& a, const cvis_features& b);

  /// Fills `similarity` (column-major, count(b) x rows): column j holds a's keypoint start + j
  /// against every keypoint of b.
  void Compute(int32_t start, int32_t rows, float* similarity) const;

 private:
  const cvis_features& a_;
  const cvis_features& b_;
  std::vector<float> inverse_norm_a_, inverse_norm_b_;
#if defined(__AVX512VNNI__) && defined(__AVX512BW__)
  std::vector<int32_t> offset_a_;   // 128 x (sum of a's bytes): undoes b's shift to signed bytes
  std::vector<uint8_t> packed_b_;   // b's bytes - 128 as int8, 16 keypoints x 4 bytes per vector
#elif defined(__AVX2__)
  std::vector<int16_t> words_a_;    // a's bytes widened to int16, count(a) x 128
  std::vector<int16_t> packed_b_;   // b's bytes as int16, 8 keypoints x 2 words per vector
#else
  std::vector<float> float_b_;      // b's bytes as floats, count(b) x 128
#endif
};

}  // namespace cvis
