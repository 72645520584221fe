// Small upright JPEG previews of capture images, for the HTML report's per-image table.
#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "../../include/cvis_io.h"
#include "../util/buffer.h"
#include "../util/status.h"
#include "image_io.h"

namespace cvis {
namespace {

constexpr int kMaxThumbnailSide = 8192;

// The size whose longer side is max_side (never larger than the image) with the aspect kept.
cv::Size ThumbnailSize(const cv::Size& size, int max_side) {
  const int long_side = std::max(size.width, size.height);
  if (long_side <= max_side) return size;
  const double scale = double(max_side) / long_side;
  const auto shrink = [&](int side) {
    return side == long_side ? max_side : std::max(1, int(std::lround(side * scale)));
  };
  return cv::Size(shrink(size.width), shrink(size.height));
}

}  // namespace
}  // namespace cvis

extern "C" cvis_status cvis_make_thumbnail(const char* image_path, int32_t max_side,
                                           int32_t jpeg_quality, cvis_buffer** out) {
  return cvis::Guard([&] {
    if (image_path == nullptr || out == nullptr) {
      return cvis::Fail(CVIS_INVALID_ARGUMENT, "cvis_make_thumbnail: null argument");
    }
    *out = nullptr;
    if (max_side < 1 || max_side > cvis::kMaxThumbnailSide) {
      return cvis::Fail(CVIS_INVALID_ARGUMENT,
                        cvis::Str("cvis_make_thumbnail: max_side ", max_side, " not in 1...",
                                  cvis::kMaxThumbnailSide));
    }
    if (jpeg_quality < 1 || jpeg_quality > 100) {
      return cvis::Fail(CVIS_INVALID_ARGUMENT,
                        cvis::Str("cvis_make_thumbnail: jpeg_quality ", jpeg_quality,
                                  " not in 1...100"));
    }
    cv::Mat image;
    if (cvis_status status = cvis::DecodeImageForSize(image_path, max_side, &image);
        status != CVIS_OK) {
      return status;
    }
    const cv::Size size = cvis::ThumbnailSize(image.size(), max_side);
    if (size != image.size()) cv::resize(image, image, size, 0, 0, cv::INTER_AREA);
    auto buffer = std::make_unique<cvis_buffer>();
    const std::vector<int> params = {cv::IMWRITE_JPEG_QUALITY, jpeg_quality};
    if (!cv::imencode(".jpg", image, buffer->bytes, params)) {
      return cvis::Fail(CVIS_INTERNAL_ERROR,
                        cvis::Str(cvis::BaseName(image_path), ": JPEG encoding failed"));
    }
    *out = buffer.release();
    return CVIS_OK;
  });
}
