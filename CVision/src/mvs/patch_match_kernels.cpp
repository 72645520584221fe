// Kernels of the PatchMatch cost (see patch_match_kernels.h). Compiled with -O3 -march=native;
// the loops are kept free of branches so the compiler can vectorise the arithmetic.
#include "patch_match_kernels.h"

#include <algorithm>

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#endif

namespace cvis {
namespace mvs {

Window::Window(int radius_, int step_, double sigma_spatial, double sigma_color)
    : radius(radius_), step(step_) {
  side = 2 * radius / step + 1;
  count = side * side;
  padded = (count + 7) / 8 * 8;
  for (int k = 0; k < kMaxWindowSamples; ++k) spatial[k] = du[k] = dv[k] = 0;
  const double spatial_scale = 1.0 / (2 * sigma_spatial * sigma_spatial);
  for (int j = 0; j < side; ++j) {
    for (int i = 0; i < side; ++i) {
      const double dx = Offset(i), dy = Offset(j);
      spatial[j * side + i] = float((dx * dx + dy * dy) * spatial_scale);
      du[j * side + i] = float(dx);
      dv[j * side + i] = float(dy);
    }
  }
  colour_scale = float(1.0 / (2 * sigma_color * sigma_color));
}

void MakeRefPatch(const float* image, int stride, int width, int height, int x, int y,
                  const Window& window, RefPatch* patch) {
  const float centre = image[size_t(y) * stride + x];
  const int n = window.count, side = window.side;
  float values[kMaxWindowSamples];
  float sum_w = 0;
  const bool inside = x >= window.radius && y >= window.radius && x < width - window.radius &&
                      y < height - window.radius;
  for (int j = 0; j < side; ++j) {
    const int yj = std::min(std::max(y + window.Offset(j), 0), height - 1);
    const float* row = image + size_t(yj) * stride;
    for (int i = 0; i < side; ++i) {
      const int k = j * side + i;
      const int xi = x + window.Offset(i);
      const float v = row[inside ? xi : std::min(std::max(xi, 0), width - 1)];
      const float dc = v - centre;
      const float w = std::exp(-window.spatial[k] - dc * dc * window.colour_scale);
      values[k] = v;
      patch->wn[k] = w;
      sum_w += w;
    }
  }
  const float inv_sum = 1.0f / sum_w;
  float mean = 0;
  for (int k = 0; k < n; ++k) {
    patch->wn[k] *= inv_sum;
    mean += patch->wn[k] * values[k];
  }
  float variance = 0;
  // Centred, not mean_sq - mean^2: a narrow colour weight leaves little variance beside a
  // bright mean, and the difference of the two loses it to rounding.
  for (int k = 0; k < n; ++k) variance += patch->wn[k] * (values[k] - mean) * (values[k] - mean);
  patch->textured = variance >= kMinPatchVariance;
  const float inv_std = patch->textured ? 1.0f / std::sqrt(variance) : 0.0f;
  for (int k = 0; k < n; ++k) patch->wr[k] = patch->wn[k] * (values[k] - mean) * inv_std;
  for (int k = n; k < window.padded; ++k) patch->wn[k] = patch->wr[k] = 0;
}

#if defined(__AVX2__) && defined(__FMA__)

namespace {
inline float HorizontalSum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}
inline float HorizontalMin(__m256 v) {
  __m128 s = _mm_min_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_min_ps(s, _mm_movehl_ps(s, s));
  s = _mm_min_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}
inline float HorizontalMax(__m256 v) {
  __m128 s = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_max_ps(s, _mm_movehl_ps(s, s));
  s = _mm_max_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}
}  // namespace

// AVX2 version of the kernel below: eight samples at a time, the bilinear corners gathered.
// The padding samples sit at the window centre with zero weight.
float PatchNcc(const RefPatch& patch, const Window& window, const float* source, int src_stride,
               int src_width, int src_height, const float H[9], int x, int y) {
  const int n = window.padded;
  const float u = x + 0.5f, v = y + 0.5f;
  const __m256 h0 = _mm256_set1_ps(H[0]), h1 = _mm256_set1_ps(H[1]);
  const __m256 h3 = _mm256_set1_ps(H[3]), h4 = _mm256_set1_ps(H[4]);
  const __m256 h6 = _mm256_set1_ps(H[6]), h7 = _mm256_set1_ps(H[7]);
  const __m256 cx = _mm256_set1_ps(H[0] * u + H[1] * v + H[2]);
  const __m256 cy = _mm256_set1_ps(H[3] * u + H[4] * v + H[5]);
  const __m256 cz = _mm256_set1_ps(H[6] * u + H[7] * v + H[8]);
  const __m256 half = _mm256_set1_ps(0.5f);
  alignas(32) float fu[kMaxWindowSamples], fv[kMaxWindowSamples];
  const __m256 zero = _mm256_setzero_ps();
  const __m256 max_u = _mm256_set1_ps(float(src_width - 1)), max_v = _mm256_set1_ps(float(src_height - 1));
  __m256 min_z = cz;
  for (int k = 0; k < n; k += 8) {
    const __m256 du = _mm256_load_ps(window.du + k), dv = _mm256_load_ps(window.dv + k);
    const __m256 hx = _mm256_fmadd_ps(h0, du, _mm256_fmadd_ps(h1, dv, cx));
    const __m256 hy = _mm256_fmadd_ps(h3, du, _mm256_fmadd_ps(h4, dv, cy));
    const __m256 hz = _mm256_fmadd_ps(h6, du, _mm256_fmadd_ps(h7, dv, cz));
    const __m256 inv = _mm256_div_ps(_mm256_set1_ps(1.0f), hz);
    const __m256 pu = _mm256_fmsub_ps(hx, inv, half), pv = _mm256_fmsub_ps(hy, inv, half);
    // Clamped to the image (samples beyond the border repeat it, as COLMAP's texture reads).
    _mm256_store_ps(fu + k, _mm256_min_ps(_mm256_max_ps(pu, zero), max_u));
    _mm256_store_ps(fv + k, _mm256_min_ps(_mm256_max_ps(pv, zero), max_v));
    min_z = _mm256_min_ps(min_z, hz);
  }
  // Behind the source camera (NaN fails the comparison too): no match.
  if (!(HorizontalMin(min_z) > 0)) return -1.0f;
  // Samples are summed relative to the source pixel under the window's middle sample, so that
  // the one-pass variance below does not subtract two nearly equal squares (the shift leaves the
  // NCC unchanged).
  const int middle = window.count / 2;
  const __m256 shift = _mm256_set1_ps(source[size_t(fv[middle]) * src_stride + size_t(fu[middle])]);
  const __m256i last_x = _mm256_set1_epi32(src_width - 2), last_y = _mm256_set1_epi32(src_height - 2);
  const __m256i stride = _mm256_set1_epi32(src_stride);
  __m256 sum = _mm256_setzero_ps(), sum_sq = sum, sum_cross = sum;
  for (int k = 0; k < n; k += 8) {
    const __m256 pu = _mm256_load_ps(fu + k), pv = _mm256_load_ps(fv + k);
    const __m256i ix = _mm256_min_epi32(_mm256_cvttps_epi32(pu), last_x);
    const __m256i iy = _mm256_min_epi32(_mm256_cvttps_epi32(pv), last_y);
    const __m256 ax = _mm256_sub_ps(pu, _mm256_cvtepi32_ps(ix));
    const __m256 ay = _mm256_sub_ps(pv, _mm256_cvtepi32_ps(iy));
    const __m256i index = _mm256_add_epi32(_mm256_mullo_epi32(iy, stride), ix);
#if defined(__AVX512F__) && defined(__AVX512DQ__)
    // Gathers cost per element: two of horizontally adjacent pairs (8 bytes each) instead of
    // four of single floats, then the pairs split into left and right pixels.
    const __m512i split = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15);
    const __m512 top_pairs = _mm512_permutexvar_ps(split, _mm512_castpd_ps(_mm512_i32gather_pd(index, source, 4)));
    const __m512 bottom_pairs = _mm512_permutexvar_ps(
        split, _mm512_castpd_ps(_mm512_i32gather_pd(index, source + src_stride, 4)));
    const __m256 p00 = _mm512_castps512_ps256(top_pairs), p01 = _mm512_extractf32x8_ps(top_pairs, 1);
    const __m256 p10 = _mm512_castps512_ps256(bottom_pairs), p11 = _mm512_extractf32x8_ps(bottom_pairs, 1);
#else
    const __m256 p00 = _mm256_i32gather_ps(source, index, 4);
    const __m256 p01 = _mm256_i32gather_ps(source + 1, index, 4);
    const __m256 p10 = _mm256_i32gather_ps(source + src_stride, index, 4);
    const __m256 p11 = _mm256_i32gather_ps(source + src_stride + 1, index, 4);
#endif
    const __m256 top = _mm256_fmadd_ps(ax, _mm256_sub_ps(p01, p00), p00);
    const __m256 bottom = _mm256_fmadd_ps(ax, _mm256_sub_ps(p11, p10), p10);
    const __m256 s = _mm256_sub_ps(_mm256_fmadd_ps(ay, _mm256_sub_ps(bottom, top), top), shift);
    const __m256 wn = _mm256_load_ps(patch.wn + k);
    const __m256 ws = _mm256_mul_ps(wn, s);
    sum = _mm256_add_ps(sum, ws);
    sum_sq = _mm256_fmadd_ps(ws, s, sum_sq);
    sum_cross = _mm256_fmadd_ps(_mm256_load_ps(patch.wr + k), s, sum_cross);
  }
  const float mean = HorizontalSum(sum);
  const float variance = HorizontalSum(sum_sq) - mean * mean;
  if (!(variance >= kMinPatchVariance)) return -1.0f;
  return std::max(-1.0f, std::min(1.0f, HorizontalSum(sum_cross) / std::sqrt(variance)));
}

#else

float PatchNcc(const RefPatch& patch, const Window& window, const float* source, int src_stride,
               int src_width, int src_height, const float H[9], int x, int y) {
  // Two loops: the first maps every sample, the second gathers the bilinear samples.
  const int n = window.count;
  const float u = x + 0.5f, v = y + 0.5f;
  const float cx = H[0] * u + H[1] * v + H[2];
  const float cy = H[3] * u + H[4] * v + H[5];
  const float cz = H[6] * u + H[7] * v + H[8];
  alignas(64) float fu[kMaxWindowSamples], fv[kMaxWindowSamples];
  float min_z = cz;
  for (int k = 0; k < n; ++k) {
    const float hx = cx + H[0] * window.du[k] + H[1] * window.dv[k];
    const float hy = cy + H[3] * window.du[k] + H[4] * window.dv[k];
    const float hz = cz + H[6] * window.du[k] + H[7] * window.dv[k];
    const float inv = 1.0f / hz;
    // Bilinear interpolation between pixel centres: array coordinates are position - 0.5.
    // Clamped to the image (samples beyond the border repeat it, as COLMAP's texture reads).
    fu[k] = std::min(std::max(hx * inv - 0.5f, 0.0f), float(src_width - 1));
    fv[k] = std::min(std::max(hy * inv - 0.5f, 0.0f), float(src_height - 1));
    min_z = std::min(min_z, hz);
  }
  // Behind the source camera (NaN fails the comparison too): no match.
  if (!(min_z > 0)) return -1.0f;
  // Relative to the source pixel under the window's middle sample (see the AVX2 kernel above).
  const int middle = window.count / 2;
  const float shift = source[size_t(fv[middle]) * src_stride + size_t(fu[middle])];
  float sum = 0, sum_sq = 0, sum_cross = 0;
  for (int k = 0; k < n; ++k) {
    // Inside [0, size - 1]; the last column/row interpolates from the one before.
    const int ix = std::min(int(fu[k]), src_width - 2), iy = std::min(int(fv[k]), src_height - 2);
    const float ax = fu[k] - ix, ay = fv[k] - iy;
    const float* p = source + size_t(iy) * src_stride + ix;
    const float top = p[0] + ax * (p[1] - p[0]);
    const float bottom = p[src_stride] + ax * (p[src_stride + 1] - p[src_stride]);
    const float s = top + ay * (bottom - top) - shift;
    sum += patch.wn[k] * s;
    sum_sq += patch.wn[k] * s * s;
    sum_cross += patch.wr[k] * s;
  }
  const float variance = sum_sq - sum * sum;
  if (!(variance >= kMinPatchVariance)) return -1.0f;
  return std::max(-1.0f, std::min(1.0f, sum_cross / std::sqrt(variance)));
}

#endif

SourceGeometry MakeSourceGeometry(const View& ref, const View& src) {
  SourceGeometry g;
  // source_from_reference: R = R_s R_r^T, t = t_s - R t_r.
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c) {
      double sum = 0;
      for (int k = 0; k < 3; ++k) sum += src.R[3 * r + k] * ref.R[3 * c + k];
      g.R[3 * r + c] = sum;
    }
  }
  for (int r = 0; r < 3; ++r) {
    g.t[r] = src.t[r] - (g.R[3 * r] * ref.t[0] + g.R[3 * r + 1] * ref.t[1] + g.R[3 * r + 2] * ref.t[2]);
  }
  for (int c = 0; c < 3; ++c) {
    g.center_in_ref[c] = -(g.R[c] * g.t[0] + g.R[3 + c] * g.t[1] + g.R[6 + c] * g.t[2]);
  }
  // K_s R K_r^-1, with K_r^-1 = [1/fx 0 -cx/fx; 0 1/fy -cy/fy; 0 0 1].
  double KR[9];
  const double Ks[9] = {src.fx, 0, src.cx, 0, src.fy, src.cy, 0, 0, 1};
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c) {
      KR[3 * r + c] = Ks[3 * r] * g.R[c] + Ks[3 * r + 1] * g.R[3 + c] + Ks[3 * r + 2] * g.R[6 + c];
    }
  }
  const double Kinv[9] = {1 / ref.fx, 0, -ref.cx / ref.fx, 0, 1 / ref.fy, -ref.cy / ref.fy, 0, 0, 1};
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c) {
      g.A[3 * r + c] = float(KR[3 * r] * Kinv[c] + KR[3 * r + 1] * Kinv[3 + c] + KR[3 * r + 2] * Kinv[6 + c]);
    }
    g.b[r] = float(Ks[3 * r] * g.t[0] + Ks[3 * r + 1] * g.t[1] + Ks[3 * r + 2] * g.t[2]);
  }
  g.fx = float(src.fx);
  g.fy = float(src.fy);
  g.cx = float(src.cx);
  g.cy = float(src.cy);
  g.width = src.width;
  g.height = src.height;
  return g;
}

}  // namespace mvs
}  // namespace cvis
