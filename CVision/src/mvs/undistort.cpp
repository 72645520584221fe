// Undistortion of one image to a pinhole view for the dense stage (cvis_mvs_undistort_image).
//
// The output keeps the camera's focal lengths and principal point (so that no source pixel is
// magnified or shrunk near the centre) and the original size; every output pixel centre is mapped
// back through the camera model's distortion to the original image and sampled bilinearly. A
// final area downscale brings the longer side to max_side, with the intrinsics scaled in COLMAP's
// pixel convention (a scale s maps cx to cx * s, the image corner staying at 0).
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "../../include/cvis_mvs.h"
#include "../io/image_io.h"
#include "../io/image_write.h"
#include "../feature/keep_mask.h"
#include "../optim/camera_models.h"
#include "../util/status.h"

namespace cvis {
namespace mvs {
namespace {

constexpr int kMaxSide = 1 << 15;

// Writes a PNG through a temporary name (io/image_write.h).
cvis_status WritePng(const cv::Mat& image, const std::string& path) { return WriteImageAtomically(path, image); }

}  // namespace
}  // namespace mvs
}  // namespace cvis

extern "C" void cvis_mvs_working_size(int32_t width, int32_t height, int32_t max_side,
                                      int32_t* out_width, int32_t* out_height) {
  int32_t w = width, h = height;
  const int32_t long_side = std::max(width, height);
  if (max_side > 0 && long_side > max_side) {
    // The longer side becomes max_side exactly; the shorter keeps the aspect, rounded.
    const double scale = double(max_side) / long_side;
    w = width >= height ? max_side : std::max(1, int(std::lround(width * scale)));
    h = height > width ? max_side : std::max(1, int(std::lround(height * scale)));
  }
  if (out_width != nullptr) *out_width = w;
  if (out_height != nullptr) *out_height = h;
}

extern "C" cvis_status cvis_mvs_undistort_image(const char* image_path, const char* mask_path,
                                                const cvis_rect* keep_rect, int32_t camera_model,
                                                const double* camera_params, int32_t camera_width,
                                                int32_t camera_height, int32_t max_side,
                                                const char* out_image_path,
                                                const char* out_mask_path, cvis_mvs_view* out_view) {
  using namespace cvis;
  return Guard([&] {
    if (image_path == nullptr || camera_params == nullptr || out_image_path == nullptr ||
        out_view == nullptr) {
      return Fail(CVIS_INVALID_ARGUMENT, "cvis_mvs_undistort_image: null argument");
    }
    if (!IsValidCameraModel(camera_model)) {
      return Fail(CVIS_INVALID_ARGUMENT,
                  Str("cvis_mvs_undistort_image: unknown camera model ", camera_model));
    }
    if (camera_width < 1 || camera_height < 1 || max_side < 0 || max_side > mvs::kMaxSide) {
      return Fail(CVIS_INVALID_ARGUMENT,
                  Str("cvis_mvs_undistort_image: camera size ", camera_width, "x", camera_height,
                      " or max_side ", max_side, " out of range"));
    }
    cv::Mat image, alpha;
    if (cvis_status s = DecodeImage(image_path, true, &image, &alpha); s != CVIS_OK) return s;
    // The model describes the upright image at camera size; an image stored at another
    // resolution of the same shape is taken at its own size with the intrinsics scaled.
    const double sx = double(image.cols) / camera_width, sy = double(image.rows) / camera_height;
    if (std::abs(sx / sy - 1.0) > 0.01) {
      return Fail(CVIS_INVALID_ARGUMENT,
                  Str(BaseName(image_path), ": image is ", image.cols, "x", image.rows,
                      " but its camera is ", camera_width, "x", camera_height));
    }
    double params[CVIS_CAMERA_PARAMS_STRIDE] = {0};
    const int num_params = CameraModelNumParams(camera_model);
    std::copy(camera_params, camera_params + num_params, params);
    double fx, fy, cx, cy;
    if (camera_model == CVIS_PINHOLE) {
      params[0] *= sx; params[1] *= sy; params[2] *= sx; params[3] *= sy;
      fx = params[0]; fy = params[1]; cx = params[2]; cy = params[3];
    } else {
      // One focal length: scaled by the mean factor (they agree within 1 %).
      params[0] *= 0.5 * (sx + sy); params[1] *= sx; params[2] *= sy;
      fx = fy = params[0]; cx = params[1]; cy = params[2];
    }
    if (!(fx > 0) || !(fy > 0)) {
      return Fail(CVIS_INVALID_ARGUMENT, "cvis_mvs_undistort_image: focal length must be > 0");
    }
    cv::Mat keep;
    // The image's alpha channel masks it too, as it masks its features.
    if (cvis_status s = BuildKeepMask(mask_path, keep_rect, image.size(), &keep, AlphaKeepMask(alpha));
        s != CVIS_OK) {
      return s;
    }
    // Output pixel centre -> normalised pinhole coordinates -> distorted source position, in
    // OpenCV's integer-centred coordinates for remap.
    const int width = image.cols, height = image.rows;
    cv::Mat map_x(height, width, CV_32F), map_y(height, width, CV_32F);
    VisitCameraModel(camera_model, [&](auto model) {
      using Model = decltype(model);
      for (int y = 0; y < height; ++y) {
        float* mx = map_x.ptr<float>(y);
        float* my = map_y.ptr<float>(y);
        for (int x = 0; x < width; ++x) {
          const double u = (x + 0.5 - cx) / fx, v = (y + 0.5 - cy) / fy;
          double px, py;
          Model::ImgFromCam(params, u, v, &px, &py);
          mx[x] = float(px - 0.5);
          my[x] = float(py - 0.5);
        }
      }
    });
    cv::Mat undistorted;
    cv::remap(image, undistorted, map_x, map_y, cv::INTER_LINEAR, cv::BORDER_CONSTANT);
    // Kept: the source position lies in the original image (pixel areas [0, size]) and every
    // given mask keeps its nearest source pixel.
    cv::Mat mask(height, width, CV_8U);
    for (int y = 0; y < height; ++y) {
      const float* mx = map_x.ptr<float>(y);
      const float* my = map_y.ptr<float>(y);
      uint8_t* m = mask.ptr<uint8_t>(y);
      for (int x = 0; x < width; ++x) {
        const float px = mx[x] + 0.5f, py = my[x] + 0.5f;
        bool inside = px >= 0 && py >= 0 && px <= width && py <= height;
        if (inside && !keep.empty()) {
          const int kx = std::min(width - 1, int(px)), ky = std::min(height - 1, int(py));
          inside = keep.at<uint8_t>(ky, kx) != 0;
        }
        m[x] = inside ? 255 : 0;
      }
    }
    // Area downscale to max_side (never up), intrinsics scaled per axis.
    int32_t out_width = width, out_height = height;
    cvis_mvs_working_size(width, height, max_side, &out_width, &out_height);
    if (out_width != width || out_height != height) {
      cv::resize(undistorted, undistorted, cv::Size(out_width, out_height), 0, 0, cv::INTER_AREA);
      cv::resize(mask, mask, cv::Size(out_width, out_height), 0, 0, cv::INTER_AREA);
      cv::threshold(mask, mask, 127, 255, cv::THRESH_BINARY);
    }
    const double scale_x = double(out_width) / width, scale_y = double(out_height) / height;
    if (cvis_status s = mvs::WritePng(undistorted, out_image_path); s != CVIS_OK) return s;
    if (out_mask_path != nullptr) {
      if (cvis_status s = mvs::WritePng(mask, out_mask_path); s != CVIS_OK) return s;
    }
    out_view->width = out_width;
    out_view->height = out_height;
    out_view->fx = fx * scale_x;
    out_view->fy = fy * scale_y;
    out_view->cx = cx * scale_x;
    out_view->cy = cy * scale_y;
    return CVIS_OK;
  });
}
