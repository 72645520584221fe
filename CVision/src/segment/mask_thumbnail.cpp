// A preview of an image with its mask shown, for the report's automatic-mask thumbnails.

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "../../include/cvis_segment.h"
#include "../io/image_io.h"
#include "../util/buffer.h"
#include "../util/status.h"

extern "C" cvis_status cvis_make_masked_thumbnail(const char* image_path, const char* mask_path, int32_t max_side,
                                                  int32_t jpeg_quality, cvis_buffer** out) {
  using namespace cvis;
  return Guard([&] {
    if (image_path == nullptr || mask_path == nullptr || out == nullptr) {
      return Fail(CVIS_INVALID_ARGUMENT, "cvis_make_masked_thumbnail: null argument");
    }
    *out = nullptr;
    if (max_side < 1 || max_side > 8192 || jpeg_quality < 1 || jpeg_quality > 100) {
      return Fail(CVIS_INVALID_ARGUMENT, "cvis_make_masked_thumbnail: max_side or jpeg_quality out of range");
    }
    cv::Mat image, mask;
    if (cvis_status s = DecodeImageForSize(image_path, max_side, &image); s != CVIS_OK) return s;
    if (cvis_status s = DecodeMask(mask_path, &mask); s != CVIS_OK) return s;
    const double scale = std::min(1.0, double(max_side) / std::max(image.cols, image.rows));
    const cv::Size size(std::max(1, int(std::lround(image.cols * scale))), std::max(1, int(std::lround(image.rows * scale))));
    cv::resize(image, image, size, 0, 0, cv::INTER_AREA);
    cv::resize(mask, mask, size, 0, 0, cv::INTER_AREA);
    const cv::Mat object = mask >= 128;
    // The background dimmed toward blue: what the run left out reads at a glance.
    cv::Mat dimmed = image * 0.35 + cv::Scalar(90, 30, 0);
    dimmed.copyTo(image, ~object);
    std::vector<std::vector<cv::Point>> contours;
    cv::findContours(object, contours, cv::RETR_EXTERNAL, cv::CHAIN_APPROX_SIMPLE);
    cv::drawContours(image, contours, -1, cv::Scalar(0, 200, 255), 1, cv::LINE_AA);
    auto buffer = std::make_unique<cvis_buffer>();
    const std::vector<int> params = {cv::IMWRITE_JPEG_QUALITY, jpeg_quality};
    if (!cv::imencode(".jpg", image, buffer->bytes, params)) {
      return Fail(CVIS_INTERNAL_ERROR, Str(BaseName(image_path), ": JPEG encoding failed"));
    }
    *out = buffer.release();
    return CVIS_OK;
  });
}
