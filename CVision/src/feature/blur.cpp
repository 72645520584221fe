#include "blur.h"

#include <algorithm>
#include <cmath>

#include <opencv2/imgproc.hpp>

#include "../../include/cvis_feature.h"
#include "../util/status.h"

namespace cvis {

namespace {

// The grey image (and keep mask) at the working size both measures read: area-downscaled so
// that the longer side is at most 640 px, so that scores compare across resolutions.
void WorkingSize(const cv::Mat& image, const cv::Mat& keep, cv::Mat* gray, cv::Mat* small_mask) {
  constexpr int kWorkingSide = 640;
  if (image.channels() == 3) cv::cvtColor(image, *gray, cv::COLOR_BGR2GRAY); else *gray = image;
  const double scale = std::min(1.0, double(kWorkingSide) / std::max(gray->cols, gray->rows));
  if (scale < 1.0) {
    const cv::Size size(std::max(1, int(std::lround(gray->cols * scale))),
                        std::max(1, int(std::lround(gray->rows * scale))));
    cv::resize(*gray, *gray, size, 0, 0, cv::INTER_AREA);
    if (!keep.empty()) cv::resize(keep, *small_mask, size, 0, 0, cv::INTER_NEAREST);
  } else if (!keep.empty()) {
    *small_mask = keep;
  }
}

}  // namespace

double BlurScore(const cv::Mat& image, const cv::Mat& keep) {
  if (image.empty()) return 0.0;
  cv::Mat gray, small_mask;
  WorkingSize(image, keep, &gray, &small_mask);
  cv::Mat intensity, gx, gy;
  gray.convertTo(intensity, CV_32F, 1.0 / 255.0);
  // Sobel's 3x3 kernel sums to 8 in its derivative direction: scale to a unit step.
  cv::Sobel(intensity, gx, CV_32F, 1, 0, 3, 0.125);
  cv::Sobel(intensity, gy, CV_32F, 0, 1, 3, 0.125);
  cv::Mat energy = gx.mul(gx) + gy.mul(gy);
  if (small_mask.empty()) return cv::mean(energy)[0];
  if (cv::countNonZero(small_mask) == 0) return 0.0;
  return cv::mean(energy, small_mask)[0];
}

double Contrast(const cv::Mat& image, const cv::Mat& keep) {
  if (image.empty()) return 0.0;
  cv::Mat gray, small_mask;
  WorkingSize(image, keep, &gray, &small_mask);
  if (!small_mask.empty() && cv::countNonZero(small_mask) == 0) return 0.0;
  cv::Scalar mean, deviation;
  cv::meanStdDev(gray, mean, deviation, small_mask);
  return deviation[0] / 255.0;
}

}  // namespace cvis

extern "C" cvis_status cvis_blur_score_gray(const uint8_t* pixels, int32_t width, int32_t height,
                                            int32_t stride, double* out) {
  using namespace cvis;
  return Guard([&] {
    if (pixels == nullptr || out == nullptr || width <= 0 || height <= 0 || stride < width) {
      return Fail(CVIS_INVALID_ARGUMENT, "cvis_blur_score_gray: null or empty image");
    }
    const cv::Mat gray(height, width, CV_8U, const_cast<uint8_t*>(pixels), size_t(stride));
    *out = BlurScore(gray, cv::Mat());
    return CVIS_OK;
  });
}
