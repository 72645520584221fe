// Five COLMAP camera models as compile-time traits, so the same templated projection serves
// the Ceres cost functions (with Jets) and the plain-double project/unproject entry points.
// ImgFromCam takes the parameters and the coordinates as separate types: a cost function whose
// camera is constant passes plain doubles with Jet coordinates, so the intrinsics carry no
// derivative lanes.
//
// Every model maps normalised coordinates (u, v) = (X/Z, Y/Z) to pixels exactly as COLMAP does:
//   SIMPLE_PINHOLE f, cx, cy          x = f u + cx
//   PINHOLE        fx, fy, cx, cy     x = fx u + cx,                 y = fy v + cy
//   SIMPLE_RADIAL  f, cx, cy, k       x = f u (1 + k r2) + cx        r2 = u^2 + v^2
//   RADIAL         f, cx, cy, k1, k2  x = f u (1 + k1 r2 + k2 r2^2) + cx
//   SIMPLE_RADIAL_FISHEYE f, cx, cy, k x = f u (theta / r) (1 + k theta^2) + cx,
//                                      r = sqrt(r2), theta = atan(r) (equidistant fisheye)
#pragma once

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <vector>

#include "../../include/cvis_bundle.h"

namespace cvis {

// Radial distortion shared by the radial models: (u, v) -> (u, v) * (1 + k1 r2 + k2 r2^2).
template <typename P, typename T>
inline void Distort(P k1, P k2, T u, T v, T* du, T* dv) {
  const T r2 = u * u + v * v;
  const T radial = k1 * r2 + k2 * r2 * r2;
  *du = u * radial;
  *dv = v * radial;
}

// Inverts Distort by Newton's method on the 2x2 system; converges in a handful of steps for any
// distortion a real lens has (the map stays monotonic well inside the image).
inline void Undistort(double k1, double k2, double xd, double yd, double* u, double* v) {
  double x = xd, y = yd;
  for (int iteration = 0; iteration < 100; ++iteration) {
    const double r2 = x * x + y * y;
    const double s = 1 + k1 * r2 + k2 * r2 * r2;
    const double ds_dr2 = k1 + 2 * k2 * r2;
    const double fx = x * s - xd, fy = y * s - yd;
    // Jacobian of (x s, y s) with d(r2)/dx = 2x.
    const double j00 = s + 2 * x * x * ds_dr2, j01 = 2 * x * y * ds_dr2;
    const double j11 = s + 2 * y * y * ds_dr2;
    const double det = j00 * j11 - j01 * j01;
    if (!(std::fabs(det) > 1e-300)) break;
    const double step_x = (j11 * fx - j01 * fy) / det;
    const double step_y = (j00 * fy - j01 * fx) / det;
    x -= step_x;
    y -= step_y;
    if (step_x * step_x + step_y * step_y < 1e-24 * (1 + x * x + y * y)) break;
  }
  *u = x;
  *v = y;
}

struct SimplePinholeModel {
  static constexpr int kModel = CVIS_SIMPLE_PINHOLE;
  static constexpr int kNumParams = 3;
  static std::vector<int> FocalIndices() { return {0}; }
  static std::vector<int> PrincipalPointIndices() { return {1, 2}; }
  static std::vector<int> ExtraIndices() { return {}; }

  template <typename P, typename T>
  static void ImgFromCam(const P* params, T u, T v, T* x, T* y) {
    *x = params[0] * u + params[1];
    *y = params[0] * v + params[2];
  }
  static void CamFromImg(const double* params, double x, double y, double* u, double* v) {
    *u = (x - params[1]) / params[0];
    *v = (y - params[2]) / params[0];
  }
};

struct PinholeModel {
  static constexpr int kModel = CVIS_PINHOLE;
  static constexpr int kNumParams = 4;
  static std::vector<int> FocalIndices() { return {0, 1}; }
  static std::vector<int> PrincipalPointIndices() { return {2, 3}; }
  static std::vector<int> ExtraIndices() { return {}; }

  template <typename P, typename T>
  static void ImgFromCam(const P* params, T u, T v, T* x, T* y) {
    *x = params[0] * u + params[2];
    *y = params[1] * v + params[3];
  }
  static void CamFromImg(const double* params, double x, double y, double* u, double* v) {
    *u = (x - params[2]) / params[0];
    *v = (y - params[3]) / params[1];
  }
};

struct SimpleRadialModel {
  static constexpr int kModel = CVIS_SIMPLE_RADIAL;
  static constexpr int kNumParams = 4;
  static std::vector<int> FocalIndices() { return {0}; }
  static std::vector<int> PrincipalPointIndices() { return {1, 2}; }
  static std::vector<int> ExtraIndices() { return {3}; }

  template <typename P, typename T>
  static void ImgFromCam(const P* params, T u, T v, T* x, T* y) {
    T du, dv;
    Distort(params[3], P(0), u, v, &du, &dv);
    *x = params[0] * (u + du) + params[1];
    *y = params[0] * (v + dv) + params[2];
  }
  static void CamFromImg(const double* params, double x, double y, double* u, double* v) {
    Undistort(params[3], 0, (x - params[1]) / params[0], (y - params[2]) / params[0], u, v);
  }
};

struct RadialModel {
  static constexpr int kModel = CVIS_RADIAL;
  static constexpr int kNumParams = 5;
  static std::vector<int> FocalIndices() { return {0}; }
  static std::vector<int> PrincipalPointIndices() { return {1, 2}; }
  static std::vector<int> ExtraIndices() { return {3, 4}; }

  template <typename P, typename T>
  static void ImgFromCam(const P* params, T u, T v, T* x, T* y) {
    T du, dv;
    Distort(params[3], params[4], u, v, &du, &dv);
    *x = params[0] * (u + du) + params[1];
    *y = params[0] * (v + dv) + params[2];
  }
  static void CamFromImg(const double* params, double x, double y, double* u, double* v) {
    Undistort(params[3], params[4], (x - params[1]) / params[0], (y - params[2]) / params[0], u, v);
  }
};

// COLMAP's SIMPLE_RADIAL_FISHEYE: the ray at angle theta from the axis lands at radius
// f theta (1 + k theta^2), so fields of view near and beyond 120 degrees stay finite.
struct SimpleRadialFisheyeModel {
  static constexpr int kModel = CVIS_SIMPLE_RADIAL_FISHEYE;
  static constexpr int kNumParams = 4;
  static std::vector<int> FocalIndices() { return {0}; }
  static std::vector<int> PrincipalPointIndices() { return {1, 2}; }
  static std::vector<int> ExtraIndices() { return {3}; }

  template <typename P, typename T>
  static void ImgFromCam(const P* params, T u, T v, T* x, T* y) {
    using std::atan;
    using std::sqrt;
    const T r2 = u * u + v * v;
    // theta / r -> 1 at the axis; the series keeps the Jacobian finite there.
    T scale;
    if (r2 > T(1e-16)) {
      const T r = sqrt(r2);
      const T theta = atan(r);
      scale = theta / r * (T(1) + params[3] * theta * theta);
    } else {
      scale = T(1) - r2 / T(3) + params[3] * r2;
    }
    *x = params[0] * u * scale + params[1];
    *y = params[0] * v * scale + params[2];
  }
  static void CamFromImg(const double* params, double x, double y, double* u, double* v) {
    const double xd = (x - params[1]) / params[0], yd = (y - params[2]) / params[0];
    const double rd = std::sqrt(xd * xd + yd * yd);
    if (rd < 1e-12) {
      *u = xd;
      *v = yd;
      return;
    }
    // Newton on theta (1 + k theta^2) = rd, from theta = rd; monotonic over any real lens.
    const double k = params[3];
    double theta = rd;
    for (int iteration = 0; iteration < 50; ++iteration) {
      const double f = theta * (1 + k * theta * theta) - rd;
      const double df = 1 + 3 * k * theta * theta;
      if (!(std::fabs(df) > 1e-12)) break;
      const double step = f / df;
      theta -= step;
      if (std::fabs(step) < 1e-14 * (1 + theta)) break;
    }
    // Rays at or beyond 90 degrees have no normalised coordinates: clamp just inside.
    theta = std::min(theta, 1.5607);
    const double r = std::tan(theta);
    *u = xd * r / rd;
    *v = yd * r / rd;
  }
};

inline bool IsValidCameraModel(int model) {
  return (model >= 0 && model <= CVIS_RADIAL) || model == CVIS_SIMPLE_RADIAL_FISHEYE;
}

// Calls visitor(Model{}) for a runtime model id (validated by the caller; unknown ids map to
// RADIAL only so the switch is total).
template <typename Visitor>
auto VisitCameraModel(int model, Visitor&& visitor) {
  switch (model) {
    case CVIS_SIMPLE_PINHOLE: return visitor(SimplePinholeModel{});
    case CVIS_PINHOLE: return visitor(PinholeModel{});
    case CVIS_SIMPLE_RADIAL: return visitor(SimpleRadialModel{});
    case CVIS_SIMPLE_RADIAL_FISHEYE: return visitor(SimpleRadialFisheyeModel{});
    default: return visitor(RadialModel{});
  }
}

inline int CameraModelNumParams(int model) {
  return VisitCameraModel(model, [](auto m) { return decltype(m)::kNumParams; });
}

}  // namespace cvis
