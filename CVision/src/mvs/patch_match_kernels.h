// The two kernels every PatchMatch cost evaluation runs, shared verbatim by the solver and the
// test entry points (cvis_mvs_plane_homography, cvis_mvs_bilateral_ncc):
//   - the plane-induced homography from reference to source pixels, and
//   - bilateral-weighted NCC between a sparse reference window and its warp into a source.
// The reference side of NCC (weights, normalised intensities) depends only on the pixel, so it is
// built once per pixel visit (RefPatch) and reused for every hypothesis and source view.
#pragma once

#include <cmath>

#include "workspace.h"

namespace cvis {
namespace mvs {

constexpr int kMaxWindowRadius = 10;
// Samples of the densest window, rounded up to a multiple of 8 (the SIMD width of the kernel:
// arrays are padded with zero-weight samples at the centre).
constexpr int kMaxWindowSamples = ((2 * kMaxWindowRadius + 1) * (2 * kMaxWindowRadius + 1) + 7) / 8 * 8;
// Weighted intensity variance (intensities in [0, 1]) below which a window has no texture to
// match: about one grey level of standard deviation.
constexpr float kMinPatchVariance = 1e-5f;

// The sparse window: offsets -radius, -radius + step, ... up to +radius in x and y.
struct Window {
  int radius = 5, step = 2;
  int side = 6;        // samples per row and column
  int count = 36;      // side * side
  int padded = 40;     // count rounded up to a multiple of 8
  float spatial[kMaxWindowSamples];  // dx^2 + dy^2 over 2 sigma_spatial^2, per sample
  // The sample's offset from the centre; (0, 0) beyond count.
  alignas(32) float du[kMaxWindowSamples];
  alignas(32) float dv[kMaxWindowSamples];
  float colour_scale = 0;            // 1 / (2 sigma_color^2)

  Window(int radius, int step, double sigma_spatial, double sigma_color);
  int Offset(int k) const { return -radius + k * step; }  // k-th offset along a row/column
};

// The reference half of one pixel's NCC: per sample the normalised bilateral weight and the
// weight times the standardised intensity, so that for source samples s_i
//   NCC = sum(wr_i s_i) / sqrt(sum(wn_i s_i^2) - sum(wn_i s_i)^2).
struct RefPatch {
  alignas(32) float wn[kMaxWindowSamples];  // zero beyond count
  alignas(32) float wr[kMaxWindowSamples];
  bool textured = false;  // false: variance below kMinPatchVariance, nothing to match
};

// Builds the patch of reference pixel (x, y) of a width x height image; samples beyond the
// border read the border.
void MakeRefPatch(const float* image, int stride, int width, int height, int x, int y,
                  const Window& window, RefPatch* patch);

// The homography H = K_s (R - t n^T / d) K_r^-1 split so that a hypothesis costs 9 multiply-adds
// per source: H = A - b m^T with A = K_s R K_r^-1, b = K_s t (precomputed per source) and
// m = K_r^-T n / d (per hypothesis). R, t map reference camera to source camera coordinates.
struct SourceGeometry {
  float A[9], b[3];
  double R[9], t[3];          // source_from_reference
  double center_in_ref[3];    // the source camera centre in reference coordinates
  float fx, fy, cx, cy;       // source intrinsics
  int width, height;
};
SourceGeometry MakeSourceGeometry(const View& reference, const View& source);

// The reference-frame point X in the source's camera frame (*Xs) and its pixel (*u, *v); false,
// with the pixel not set, when the point is not in front of the source.
inline bool ProjectToSource(const SourceGeometry& g, const double X[3], double Xs[3], double* u, double* v) {
  for (int r = 0; r < 3; ++r) Xs[r] = g.R[3 * r] * X[0] + g.R[3 * r + 1] * X[1] + g.R[3 * r + 2] * X[2] + g.t[r];
  if (!(Xs[2] > 0)) return false;
  *u = g.fx * Xs[0] / Xs[2] + g.cx;
  *v = g.fy * Xs[1] / Xs[2] + g.cy;
  return true;
}

// m = K_r^-T n / d for the plane n . X + d = 0 (reference frame).
inline void PlaneVector(const View& ref, const float n[3], float d, float m[3]) {
  const float inv_d = 1.0f / d;
  m[0] = float(n[0] / ref.fx) * inv_d;
  m[1] = float(n[1] / ref.fy) * inv_d;
  m[2] = float(n[2] - n[0] * ref.cx / ref.fx - n[1] * ref.cy / ref.fy) * inv_d;
}

inline void ComposeHomography(const SourceGeometry& g, const float m[3], float H[9]) {
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c) H[3 * r + c] = g.A[3 * r + c] - g.b[r] * m[c];
  }
}

// NCC of the reference patch of pixel (x, y) with the source warped by H (reference pixel
// centres (x + 0.5 + dx, y + 0.5 + dy) mapped by H, the source sampled bilinearly with its pixel
// centres at +0.5; samples beyond the source border read the border). Returns -1 (the worst)
// when a window sample maps behind the source camera or the source window has no texture.
float PatchNcc(const RefPatch& patch, const Window& window, const float* source, int src_stride,
               int src_width, int src_height, const float H[9], int x, int y);

}  // namespace mvs
}  // namespace cvis
