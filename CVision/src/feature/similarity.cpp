#include "similarity.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#if (defined(__AVX512VNNI__) && defined(__AVX512BW__)) || defined(__AVX2__)
#include <immintrin.h>
#else
#include <Eigen/Core>
#endif

namespace cvis {
namespace {

constexpr int kDim = cvis_features::kDescriptorDim;

// 1 / |d| of each byte descriptor; the sum of squares is an integer that a float holds exactly.
std::vector<float> InverseNorms(const cvis_features& features, size_t padded) {
  std::vector<float> inverse(std::max(padded, size_t(features.Count())), 0.0f);
  for (int32_t i = 0; i < features.Count(); ++i) {
    const uint8_t* d = &features.descriptor_bytes[size_t(i) * kDim];
    int32_t squared = 0;
    for (int k = 0; k < kDim; ++k) squared += int32_t(d[k]) * d[k];
    inverse[i] = squared > 0 ? 1.0f / std::sqrt(float(squared)) : 0.0f;
  }
  return inverse;
}

#if (defined(__AVX512VNNI__) && defined(__AVX512BW__)) || defined(__AVX2__)

// b's descriptors laid out for a SIMD tile: vector v, step s holds keypoints lanes·v ..
// lanes·v + lanes - 1, and of each the `per_lane` bytes per_lane·s .. per_lane·s + per_lane - 1,
// each converted by `word`. Keypoints past count(b), up to `padded`, are 0: their lanes are
// computed and never stored.
template <typename Word, typename Convert>
std::vector<Word> Interleave(const cvis_features& b, int lanes, int per_lane, int32_t padded, Convert word) {
  std::vector<Word> packed(size_t(padded) * kDim, Word(0));
  const int steps = kDim / per_lane;
  const size_t vector_words = size_t(steps) * lanes * per_lane;
  for (int32_t i = 0; i < b.Count(); ++i) {
    const uint8_t* d = &b.descriptor_bytes[size_t(i) * kDim];
    Word* vector = &packed[size_t(i / lanes) * vector_words];
    for (int step = 0; step < steps; ++step) {
      for (int k = 0; k < per_lane; ++k) {
        vector[size_t(step) * lanes * per_lane + (i % lanes) * per_lane + k] = word(d[per_lane * step + k]);
      }
    }
  }
  return packed;
}

// count rounded up to whole tiles.
int32_t Padded(int32_t count, int32_t tile) { return (count + tile - 1) / tile * tile; }

#endif

#if defined(__AVX512VNNI__) && defined(__AVX512BW__)

constexpr int kLanes = 16;        // b's keypoints per vector
constexpr int kSteps = kDim / 4;  // VNNI sums four byte products per lane and step
constexpr int kVectors = 4;       // b vectors per tile: 64 keypoints of b
constexpr int kRows = 6;          // a's keypoints per tile: 6 x 4 accumulators, 4 b vectors

// One tile: a's keypoints rows[0..kRows) against b's vectors [vector, vector + kVectors).
// Rows beyond `valid` repeat a real row so that every read stays inside a's bytes; they are
// computed and not stored.
inline void Tile(const uint8_t* const* rows, int valid, const int32_t* offsets, const float* inverse_a,
                 const uint8_t* packed_b, const float* inverse_b, int32_t vector, int32_t count_b,
                 float* similarity) {
  __m512i sum[kRows][kVectors];
#pragma GCC unroll 6
  for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 4
    for (int c = 0; c < kVectors; ++c) sum[r][c] = _mm512_setzero_si512();
  }
  const uint8_t* b = packed_b + size_t(vector) * kSteps * 64;
  for (int step = 0; step < kSteps; ++step) {
    __m512i bytes_b[kVectors];
#pragma GCC unroll 4
    for (int c = 0; c < kVectors; ++c) {
      bytes_b[c] = _mm512_loadu_si512(b + (size_t(c) * kSteps + step) * 64);
    }
#pragma GCC unroll 6
    for (int r = 0; r < kRows; ++r) {
      int32_t four;
      std::memcpy(&four, rows[r] + 4 * step, 4);
      const __m512i bytes_a = _mm512_set1_epi32(four);
#pragma GCC unroll 4
      for (int c = 0; c < kVectors; ++c) sum[r][c] = _mm512_dpbusd_epi32(sum[r][c], bytes_a, bytes_b[c]);
    }
  }
  for (int r = 0; r < valid; ++r) {
    const __m512i offset = _mm512_set1_epi32(offsets[r]);
    const __m512 inverse = _mm512_set1_ps(inverse_a[r]);
    float* column = similarity + size_t(r) * count_b;  // columns are count(b) long
#pragma GCC unroll 4
    for (int c = 0; c < kVectors; ++c) {
      const int32_t first = (vector + c) * kLanes;
      if (first >= count_b) break;
      const int32_t left = count_b - first;
      const __mmask16 mask = left >= kLanes ? __mmask16(0xFFFF) : __mmask16((1u << left) - 1u);
      const __m512 dot = _mm512_cvtepi32_ps(_mm512_add_epi32(sum[r][c], offset));
      const __m512 value = _mm512_mul_ps(_mm512_mul_ps(dot, inverse), _mm512_loadu_ps(inverse_b + first));
      _mm512_mask_storeu_ps(column + first, mask, value);
    }
  }
}

#elif defined(__AVX2__)

constexpr int kLanes = 8;         // b's keypoints per vector
constexpr int kSteps = kDim / 2;  // vpmaddwd sums two int16 products per lane and step
constexpr int kVectors = 6;       // b vectors per tile: 48 keypoints of b against one of a

// One tile: a's keypoint `row` (int16 bytes) against b's vectors [vector, vector + kVectors).
// One row of a per tile: vpmaddwd issues once a cycle on AVX2 machines such as Zen 3, and a
// tile of several a rows is slower there (docs/benchmarks.md).
inline void Tile(const int16_t* row, float inverse_a, const int16_t* packed_b, const float* inverse_b,
                 int32_t vector, int32_t count_b, float* column) {
  __m256i sum[kVectors];
#pragma GCC unroll 6
  for (int c = 0; c < kVectors; ++c) sum[c] = _mm256_setzero_si256();
  const int16_t* b = packed_b + size_t(vector) * kSteps * 16;
  for (int step = 0; step < kSteps; ++step) {
    int32_t two;
    std::memcpy(&two, row + 2 * step, 4);
    const __m256i pair_a = _mm256_set1_epi32(two);
#pragma GCC unroll 6
    for (int c = 0; c < kVectors; ++c) {
      const __m256i pairs_b = _mm256_loadu_si256(
          reinterpret_cast<const __m256i*>(b + (size_t(c) * kSteps + step) * 16));
      sum[c] = _mm256_add_epi32(sum[c], _mm256_madd_epi16(pair_a, pairs_b));
    }
  }
  const __m256 inverse = _mm256_set1_ps(inverse_a);
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
#pragma GCC unroll 6
  for (int c = 0; c < kVectors; ++c) {
    const int32_t first = (vector + c) * kLanes;
    if (first >= count_b) break;
    const __m256 dot = _mm256_cvtepi32_ps(sum[c]);
    const __m256 value = _mm256_mul_ps(_mm256_mul_ps(dot, inverse), _mm256_loadu_ps(inverse_b + first));
    if (count_b - first >= kLanes) {
      _mm256_storeu_ps(column + first, value);
    } else {
      const __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(count_b - first), lane);
      _mm256_maskstore_ps(column + first, mask, value);
    }
  }
}

#endif

}  // namespace

#if defined(__AVX512VNNI__) && defined(__AVX512BW__)

DescriptorSimilarity::DescriptorSimilarity(const cvis_features& a, const cvis_features& b) : a_(a), b_(b) {
  const int32_t padded = Padded(b.Count(), kLanes * kVectors);
  inverse_norm_a_ = InverseNorms(a, 0);
  inverse_norm_b_ = InverseNorms(b, size_t(padded));
  offset_a_.resize(a.Count());
  for (int32_t i = 0; i < a.Count(); ++i) {
    const uint8_t* d = &a.descriptor_bytes[size_t(i) * kDim];
    int32_t sum = 0;
    for (int k = 0; k < kDim; ++k) sum += d[k];
    offset_a_[i] = 128 * sum;
  }
  // 16 keypoints x 4 bytes per vector, shifted to int8 (b - 128).
  packed_b_ = Interleave<uint8_t>(b, kLanes, 4, padded, [](uint8_t byte) { return uint8_t(byte ^ 0x80u); });
}

void DescriptorSimilarity::Compute(int32_t start, int32_t rows, float* similarity) const {
  const int32_t count_b = b_.Count();
  const int32_t vectors = int32_t(packed_b_.size() / (size_t(kSteps) * 64));
  const uint8_t* bytes_a = a_.descriptor_bytes.data();
  // b's tile outermost: its 8 KB of packed bytes stay in L1 while a's block streams past.
  for (int32_t vector = 0; vector < vectors; vector += kVectors) {
    for (int32_t row = 0; row < rows; row += kRows) {
      const int valid = std::min(kRows, rows - row);
      const uint8_t* row_bytes[kRows];
      for (int r = 0; r < kRows; ++r) {
        row_bytes[r] = bytes_a + size_t(start + row + std::min(r, valid - 1)) * kDim;
      }
      Tile(row_bytes, valid, &offset_a_[start + row], &inverse_norm_a_[start + row], packed_b_.data(),
           inverse_norm_b_.data(), vector, count_b, similarity + size_t(row) * count_b);
    }
  }
}

#elif defined(__AVX2__)

DescriptorSimilarity::DescriptorSimilarity(const cvis_features& a, const cvis_features& b) : a_(a), b_(b) {
  const int32_t padded = Padded(b.Count(), kLanes * kVectors);
  inverse_norm_a_ = InverseNorms(a, 0);
  inverse_norm_b_ = InverseNorms(b, size_t(padded));
  words_a_.assign(a.descriptor_bytes.begin(), a.descriptor_bytes.end());
  // 8 keypoints x 2 words per vector.
  packed_b_ = Interleave<int16_t>(b, kLanes, 2, padded, [](uint8_t byte) { return int16_t(byte); });
}

void DescriptorSimilarity::Compute(int32_t start, int32_t rows, float* similarity) const {
  const int32_t count_b = b_.Count();
  const int32_t vectors = int32_t(packed_b_.size() / (size_t(kSteps) * 16));
  // b's tile outermost: its 12 KB of packed words stay in L1 while a's block streams past.
  for (int32_t vector = 0; vector < vectors; vector += kVectors) {
    for (int32_t row = 0; row < rows; ++row) {
      Tile(&words_a_[size_t(start + row) * kDim], inverse_norm_a_[start + row], packed_b_.data(),
           inverse_norm_b_.data(), vector, count_b, similarity + size_t(row) * count_b);
    }
  }
}

#else

DescriptorSimilarity::DescriptorSimilarity(const cvis_features& a, const cvis_features& b) : a_(a), b_(b) {
  inverse_norm_a_ = InverseNorms(a, 0);
  inverse_norm_b_ = InverseNorms(b, 0);
  float_b_.assign(b.descriptor_bytes.begin(), b.descriptor_bytes.end());
}

void DescriptorSimilarity::Compute(int32_t start, int32_t rows, float* similarity) const {
  using Matrix = Eigen::Matrix<float, kDim, Eigen::Dynamic>;
  const int32_t count_b = b_.Count();
  Matrix block_a(kDim, rows);
  const uint8_t* bytes_a = &a_.descriptor_bytes[size_t(start) * kDim];
  std::copy(bytes_a, bytes_a + size_t(rows) * kDim, block_a.data());
  const Eigen::Map<const Matrix> descriptors_b(float_b_.data(), kDim, count_b);
  Eigen::Map<Eigen::MatrixXf> out(similarity, count_b, rows);
  out.noalias() = descriptors_b.transpose() * block_a;  // integers below 2^24: exact
  for (int32_t j = 0; j < rows; ++j) {
    const float inverse = inverse_norm_a_[start + j];
    float* column = similarity + size_t(j) * count_b;
    for (int32_t i = 0; i < count_b; ++i) column[i] = (column[i] * inverse) * inverse_norm_b_[i];
  }
}

#endif

}  // namespace cvis
