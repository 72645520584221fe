// Whether the background of two frames stands still: the test that tells a fixed camera (a
// turntable) from a moving one when masks hide the background from the features.

#include <algorithm>
#include <cmath>
#include <vector>

#include <opencv2/imgproc.hpp>

#include "../../include/cvis_feature.h"
#include "../../include/cvis_io.h"
#include "../io/image_io.h"
#include "../util/status.h"
#include "keep_mask.h"

namespace cvis {
namespace {

// The comparison size: enough to see texture move by a pixel of a phone frame's 1/25th, small
// enough that decoding (JPEG at 1/8 scale) dominates.
constexpr int kSide = 160;
// Background pixels whose grey gradient (per pixel, intensity in [0, 1]) is below this carry no
// texture: a shift of the camera does not change them, so they cannot testify.
constexpr float kMinGradient = 0.02f;

// The frame upright, grey in [0, 1], its longer side kSide, and its background (255 where the
// keep mask drops the pixel, or everywhere without masks) at the same size.
cvis_status LoadSmall(const char* image_path, const char* mask_path, const cvis_rect* keep_rect,
                      cv::Mat* grey, cv::Mat* background) {
  cv::Mat image;
  if (cvis_status status = DecodeImageForSize(image_path, kSide, &image); status != CVIS_OK) return status;
  // The mask is built at the upright full size the rectangle refers to.
  int width = 0, height = 0;
  if (cvis_status status = cvis_probe_image(image_path, &width, &height); status != CVIS_OK) return status;
  cv::Mat keep;
  if (cvis_status status = BuildKeepMask(mask_path, keep_rect, cv::Size(width, height), &keep);
      status != CVIS_OK) {
    return status;
  }
  const double scale = double(kSide) / std::max(image.cols, image.rows);
  const cv::Size size(std::max(1, int(std::lround(image.cols * scale))),
                      std::max(1, int(std::lround(image.rows * scale))));
  cv::Mat small;
  cv::resize(image, small, size, 0, 0, cv::INTER_AREA);
  cv::cvtColor(small, small, cv::COLOR_BGR2GRAY);
  small.convertTo(*grey, CV_32F, 1.0 / 255.0);
  if (keep.empty()) {
    *background = cv::Mat(size, CV_8U, cv::Scalar(255));
  } else {
    cv::Mat small_keep;
    cv::resize(keep, small_keep, size, 0, 0, cv::INTER_AREA);
    // A pixel is background only when none of it is kept: the object's edge must not count.
    *background = small_keep == 0;
  }
  return CVIS_OK;
}

}  // namespace
}  // namespace cvis

extern "C" cvis_status cvis_background_change(const char* image_a, const char* mask_a,
                                              const char* image_b, const char* mask_b,
                                              const cvis_rect* keep_rect, double* change,
                                              double* textured_fraction) {
  using namespace cvis;
  return Guard([&] {
    if (image_a == nullptr || image_b == nullptr || change == nullptr || textured_fraction == nullptr) {
      return Fail(CVIS_INVALID_ARGUMENT, "cvis_background_change: null argument");
    }
    cv::Mat grey_a, grey_b, background_a, background_b;
    if (cvis_status s = LoadSmall(image_a, mask_a, keep_rect, &grey_a, &background_a); s != CVIS_OK) return s;
    if (cvis_status s = LoadSmall(image_b, mask_b, keep_rect, &grey_b, &background_b); s != CVIS_OK) return s;
    if (grey_a.size() != grey_b.size()) {
      return Fail(CVIS_INVALID_ARGUMENT, Str(BaseName(image_a), " and ", BaseName(image_b),
                                             " differ in shape: no fixed camera took both"));
    }
    std::vector<float> differences;
    for (int y = 1; y + 1 < grey_a.rows; ++y) {
      const float* above = grey_a.ptr<float>(y - 1);
      const float* row = grey_a.ptr<float>(y);
      const float* below = grey_a.ptr<float>(y + 1);
      const float* other = grey_b.ptr<float>(y);
      const uint8_t* in_a = background_a.ptr<uint8_t>(y);
      const uint8_t* in_b = background_b.ptr<uint8_t>(y);
      for (int x = 1; x + 1 < grey_a.cols; ++x) {
        if (!in_a[x] || !in_b[x]) continue;
        const float gx = 0.5f * (row[x + 1] - row[x - 1]), gy = 0.5f * (below[x] - above[x]);
        if (gx * gx + gy * gy < kMinGradient * kMinGradient) continue;
        differences.push_back(std::abs(row[x] - other[x]));
      }
    }
    *textured_fraction = double(differences.size()) / double(grey_a.total());
    if (differences.empty()) {
      *change = 0.0;
      return CVIS_OK;
    }
    auto middle = differences.begin() + differences.size() / 2;
    std::nth_element(differences.begin(), middle, differences.end());
    *change = *middle;
    return CVIS_OK;
  });
}
