// A phone's depth image brought into a dense view (cvis_mvs_sensor_depth_map), and how two depth
// maps of one view agree (cvis_depth_map_ratio), which aligns the sensor's metres to the model.
#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include <opencv2/core.hpp>

#include "../../include/cvis_mvs.h"
#include "../io/image_io.h"
#include "../optim/camera_models.h"
#include "../util/status.h"
#include "depth_map.h"
#include "workspace.h"

namespace cvis {
namespace mvs {
namespace {

// Depths of one surface differ by less than this across the smoothing window and the four
// pixels a view pixel reads: a phone's noise is 1-2 %, so 4 % is twice its worst and still well
// under the step between a wall and an object standing before it.
constexpr float kSameSurface = 0.04f;
constexpr int kSmoothRadius = 2;  // 5 x 5 depth pixels: about 5 cm at 2.5 m for a 256 px sensor

bool Valid(float depth) { return depth > 0 && std::isfinite(depth); }

// The sensor's depth with its per-pixel noise averaged out: at each pixel, the plane
// d = a + b dx + c dy fitted by least squares to the window's depths within kSameSurface of the
// window's median, read at the pixel. A plane, not a mean, so that a tilted surface and a window
// cut by the image border or by an edge give no bias.
std::vector<float> Smooth(const float* depth, const uint8_t* confidence, int width, int height,
                          int min_confidence) {
  auto usable = [&](int x, int y) {
    const size_t i = size_t(y) * size_t(width) + size_t(x);
    return Valid(depth[i]) && (confidence == nullptr || confidence[i] >= min_confidence);
  };
  std::vector<float> out(size_t(width) * size_t(height), 0.0f);
  std::vector<float> window;
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      if (!usable(x, y)) continue;
      window.clear();
      for (int dy = -kSmoothRadius; dy <= kSmoothRadius; ++dy) {
        for (int dx = -kSmoothRadius; dx <= kSmoothRadius; ++dx) {
          const int xx = x + dx, yy = y + dy;
          if (xx < 0 || yy < 0 || xx >= width || yy >= height || !usable(xx, yy)) continue;
          window.push_back(depth[size_t(yy) * size_t(width) + size_t(xx)]);
        }
      }
      std::nth_element(window.begin(), window.begin() + window.size() / 2, window.end());
      const float median = window[window.size() / 2];
      // The pixel itself must lie near the window's surface: else it is the near or far side of
      // an edge the median belongs to the other side of, and is left out. Twice the surface's
      // limit, so that the noise alone (4 % is two of its worst standard deviations) drops no
      // pixel: a dropped pixel empties the four view pixels' worth of depth around it.
      const float own = depth[size_t(y) * size_t(width) + size_t(x)];
      if (std::abs(own - median) > 2 * kSameSurface * median) continue;
      cv::Matx33d normal = cv::Matx33d::zeros();
      cv::Vec3d rhs(0, 0, 0);
      for (int dy = -kSmoothRadius; dy <= kSmoothRadius; ++dy) {
        for (int dx = -kSmoothRadius; dx <= kSmoothRadius; ++dx) {
          const int xx = x + dx, yy = y + dy;
          if (xx < 0 || yy < 0 || xx >= width || yy >= height || !usable(xx, yy)) continue;
          const float d = depth[size_t(yy) * size_t(width) + size_t(xx)];
          if (std::abs(d - median) > kSameSurface * median) continue;
          const cv::Vec3d row(1, dx, dy);
          normal += row * row.t();
          rhs += row * double(d);
        }
      }
      // Too few or collinear samples (a sliver of surface): the pixel keeps its own depth.
      const bool solvable = cv::determinant(normal) > 1e-6;
      out[size_t(y) * size_t(width) + size_t(x)] = solvable ? float(normal.solve(rhs, cv::DECOMP_CHOLESKY)[0]) : own;
    }
  }
  return out;
}

// Bilinear depth at (px, py) in depth-pixel units (pixel centres at + 0.5), or 0 when a corner
// lacks depth or the corners are not one surface.
float Sample(const std::vector<float>& depth, int width, int height, double px, double py) {
  const double fx = px - 0.5, fy = py - 0.5;
  int x0 = int(std::floor(fx)), y0 = int(std::floor(fy));
  if (x0 < -1 || y0 < -1 || x0 >= width || y0 >= height) return 0;
  // Within half a pixel of the border the border pixels are read.
  x0 = std::clamp(x0, 0, std::max(0, width - 2));
  y0 = std::clamp(y0, 0, std::max(0, height - 2));
  const int x1 = std::min(width - 1, x0 + 1), y1 = std::min(height - 1, y0 + 1);
  const float d00 = depth[size_t(y0) * width + x0], d10 = depth[size_t(y0) * width + x1];
  const float d01 = depth[size_t(y1) * width + x0], d11 = depth[size_t(y1) * width + x1];
  if (!Valid(d00) || !Valid(d10) || !Valid(d01) || !Valid(d11)) return 0;
  const float lo = std::min({d00, d10, d01, d11}), hi = std::max({d00, d10, d01, d11});
  if (hi - lo > kSameSurface * lo) return 0;
  const double ax = std::clamp(fx - x0, 0.0, 1.0), ay = std::clamp(fy - y0, 0.0, 1.0);
  return float((d00 * (1 - ax) + d10 * ax) * (1 - ay) + (d01 * (1 - ax) + d11 * ax) * ay);
}

// Normals from the depth `step` pixels to each side, in the camera frame, towards the camera. A
// pixel whose neighbours lack depth (the rim of a hole or of the frame) is dropped: its normal
// cannot be told, and a point without one cannot be meshed.
void Normals(const View& view, int step, DepthMap* map) {
  const std::vector<float> depth = map->depth;
  const int w = map->width, h = map->height;
  auto point = [&](int x, int y, cv::Vec3d* p) {
    if (x < 0 || y < 0 || x >= w || y >= h) return false;
    const float d = depth[map->Index(x, y)];
    if (!(d > 0)) return false;
    double cam[3];
    view.CamFromPixel(x + 0.5, y + 0.5, d, cam);
    *p = cv::Vec3d(cam[0], cam[1], cam[2]);
    return true;
  };
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      float* n = &map->normal[3 * map->Index(x, y)];
      n[0] = n[1] = n[2] = 0;
      cv::Vec3d centre, left, right, up, down;
      if (!point(x, y, &centre)) continue;
      cv::Vec3d normal(0, 0, 0);
      if (point(x - step, y, &left) && point(x + step, y, &right) && point(x, y - step, &up) &&
          point(x, y + step, &down)) {
        normal = (right - left).cross(down - up);
      }
      const double length = cv::norm(normal);
      if (!(length > 0)) {
        map->depth[map->Index(x, y)] = 0;
        continue;
      }
      normal /= length;
      if (normal.dot(centre) > 0) normal = -normal;
      for (int k = 0; k < 3; ++k) n[k] = float(normal[k]);
    }
  }
}

double Median(std::vector<double>* values) {
  if (values->empty()) return 0;
  auto middle = values->begin() + values->size() / 2;
  std::nth_element(values->begin(), middle, values->end());
  return *middle;
}

}  // namespace
}  // namespace mvs
}  // namespace cvis

extern "C" cvis_status cvis_mvs_sensor_depth_map(cvis_mvs_workspace* workspace, int32_t view_index,
                                                 const float* depth, const uint8_t* confidence,
                                                 int32_t depth_width, int32_t depth_height,
                                                 int32_t min_confidence, int32_t camera_model,
                                                 const double* camera_params, int32_t camera_width,
                                                 int32_t camera_height, const char* out_depth_path,
                                                 int64_t* out_valid_pixels) {
  using namespace cvis;
  using namespace cvis::mvs;
  return Guard([&] {
    if (workspace == nullptr || depth == nullptr || camera_params == nullptr || out_depth_path == nullptr) {
      return Fail(CVIS_INVALID_ARGUMENT, "cvis_mvs_sensor_depth_map: null argument");
    }
    Workspace& ws = workspace->workspace;
    if (view_index < 0 || view_index >= ws.NumViews()) {
      return Fail(CVIS_INVALID_ARGUMENT, Str("cvis_mvs_sensor_depth_map: no view ", view_index));
    }
    if (!IsValidCameraModel(camera_model) || camera_width < 1 || camera_height < 1) {
      return Fail(CVIS_INVALID_ARGUMENT, "cvis_mvs_sensor_depth_map: bad camera");
    }
    if (depth_width < 2 || depth_height < 2 || depth_width > (1 << 15) || depth_height > (1 << 15)) {
      return Fail(CVIS_INVALID_ARGUMENT,
                  Str("cvis_mvs_sensor_depth_map: depth image ", depth_width, "x", depth_height, " out of range"));
    }
    const double aspect = double(depth_width) / depth_height, camera_aspect = double(camera_width) / camera_height;
    if (std::abs(aspect / camera_aspect - 1) > 0.02) {
      return Fail(CVIS_INVALID_ARGUMENT,
                  Str("cvis_mvs_sensor_depth_map: depth image ", depth_width, "x", depth_height,
                      " does not have the ", camera_width, "x", camera_height, " photo's aspect"));
    }
    const View& view = ws.view(view_index);
    std::shared_ptr<const cv::Mat> mask;
    if (cvis_status s = ws.Mask(view_index, &mask); s != CVIS_OK) return s;
    const std::vector<float> smooth = Smooth(depth, confidence, depth_width, depth_height, min_confidence);
    const double to_depth_x = double(depth_width) / camera_width, to_depth_y = double(depth_height) / camera_height;

    DepthMap map(view.width, view.height);
    std::fill(map.cost.begin(), map.cost.end(), 0.0f);
    VisitCameraModel(camera_model, [&](auto model) {
      using Model = decltype(model);
      for (int y = 0; y < view.height; ++y) {
        const uint8_t* keep = mask ? mask->ptr<uint8_t>(y) : nullptr;
        for (int x = 0; x < view.width; ++x) {
          if (keep != nullptr && keep[x] == 0) continue;
          const double u = (x + 0.5 - view.cx) / view.fx, v = (y + 0.5 - view.cy) / view.fy;
          double px, py;
          Model::ImgFromCam(camera_params, u, v, &px, &py);
          const float d = Sample(smooth, depth_width, depth_height, px * to_depth_x, py * to_depth_y);
          if (d > 0) map.depth[map.Index(x, y)] = d;
        }
      }
    });
    const int step = std::max(1, int(std::lround(double(view.width) / depth_width)));
    Normals(view, step, &map);
    const int64_t valid = std::count_if(map.depth.begin(), map.depth.end(), [](float d) { return d > 0; });
    if (cvis_status s = map.Write(out_depth_path); s != CVIS_OK) return s;
    if (out_valid_pixels != nullptr) *out_valid_pixels = valid;
    return CVIS_OK;
  });
}

extern "C" cvis_status cvis_depth_map_ratio(const char* measured_path, const char* sensor_path,
                                            double* out_median_ratio, double* out_spread,
                                            int64_t* out_count) {
  using namespace cvis;
  using namespace cvis::mvs;
  return Guard([&] {
    if (measured_path == nullptr || sensor_path == nullptr || out_median_ratio == nullptr ||
        out_spread == nullptr || out_count == nullptr) {
      return Fail(CVIS_INVALID_ARGUMENT, "cvis_depth_map_ratio: null argument");
    }
    DepthMap measured, sensor;
    if (cvis_status s = DepthMap::Read(measured_path, &measured); s != CVIS_OK) return s;
    if (cvis_status s = DepthMap::Read(sensor_path, &sensor); s != CVIS_OK) return s;
    if (measured.width != sensor.width || measured.height != sensor.height) {
      return Fail(CVIS_INVALID_ARGUMENT, Str(BaseName(sensor_path), ": depth map is ", sensor.width, "x",
                                             sensor.height, " but ", BaseName(measured_path), " is ",
                                             measured.width, "x", measured.height));
    }
    std::vector<double> ratios;
    for (size_t i = 0; i < measured.depth.size(); ++i) {
      if (measured.depth[i] > 0 && sensor.depth[i] > 0) ratios.push_back(double(measured.depth[i]) / sensor.depth[i]);
    }
    *out_count = int64_t(ratios.size());
    const double median = Median(&ratios);
    for (double& r : ratios) r = std::abs(r / median - 1);
    *out_median_ratio = median;
    *out_spread = Median(&ratios);
    return CVIS_OK;
  });
}
