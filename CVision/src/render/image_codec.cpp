// Encoded images in memory to pixels (textures inside GLB and USDZ files), image files to pixels
// through the capture decoder (upright, as the pipeline sees them), and pixels to PNG files
// written atomically (renders).
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "../io/image_io.h"
#include "../util/buffer.h"
#include "../util/file_write.h"
#include "../util/status.h"

struct cvis_image {
  int32_t width = 0, height = 0, channels = 0;
  std::vector<uint8_t> pixels;
};

namespace {

// A new handle holding a copy of an 8-bit image of `channels` channels, rows packed.
cvis_image* NewImage(const cv::Mat& converted, int32_t channels) {
  auto result = std::make_unique<cvis_image>();
  result->width = converted.cols;
  result->height = converted.rows;
  result->channels = channels;
  result->pixels.resize(size_t(converted.cols) * converted.rows * channels);
  for (int y = 0; y < converted.rows; ++y) {
    const uint8_t* row = converted.ptr<uint8_t>(y);
    std::copy(row, row + size_t(converted.cols) * channels, result->pixels.data() + size_t(y) * converted.cols * channels);
  }
  return result.release();
}

}  // namespace

extern "C" cvis_status cvis_image_decode(const uint8_t* data, size_t size, int32_t channels, cvis_image** out) {
  using namespace cvis;
  return Guard([&]() -> cvis_status {
    if (out == nullptr) return Fail(CVIS_INVALID_ARGUMENT, "cvis_image_decode: out is NULL");
    *out = nullptr;
    if (channels != 3 && channels != 4) {
      return Fail(CVIS_INVALID_ARGUMENT, Str("cvis_image_decode: channels ", channels, ", want 3 or 4"));
    }
    if (data == nullptr || size == 0) return Fail(CVIS_DECODE_ERROR, "empty image data");
    // Through the capture's decoders: the size the image declares is checked against the pixel
    // limit first (a texture is as untrusted as a photo), and libpng's messages are kept.
    cv::Mat image;
    if (cvis_status status = DecodeEncoded(data, size, "embedded image", &image); status != CVIS_OK) return status;
    if (image.depth() == CV_16U) image.convertTo(image, CV_8U, 1.0 / 257.0);
    if (image.depth() != CV_8U) return Fail(CVIS_DECODE_ERROR, "unsupported image depth (want 8 or 16 bits)");
    cv::Mat converted;
    const int c = image.channels();
    if (channels == 3) {
      if (c == 1) cv::cvtColor(image, converted, cv::COLOR_GRAY2RGB);
      else if (c == 3) cv::cvtColor(image, converted, cv::COLOR_BGR2RGB);
      else if (c == 4) cv::cvtColor(image, converted, cv::COLOR_BGRA2RGB);
      else return Fail(CVIS_DECODE_ERROR, Str("unsupported image with ", c, " channels"));
    } else {
      if (c == 1) cv::cvtColor(image, converted, cv::COLOR_GRAY2RGBA);
      else if (c == 3) cv::cvtColor(image, converted, cv::COLOR_BGR2RGBA);
      else if (c == 4) cv::cvtColor(image, converted, cv::COLOR_BGRA2RGBA);
      else return Fail(CVIS_DECODE_ERROR, Str("unsupported image with ", c, " channels"));
    }
    *out = NewImage(converted, channels);
    return CVIS_OK;
  });
}

extern "C" cvis_status cvis_image_read(const char* path, int32_t channels, cvis_image** out) {
  using namespace cvis;
  return Guard([&]() -> cvis_status {
    if (path == nullptr || out == nullptr) return Fail(CVIS_INVALID_ARGUMENT, "cvis_image_read: null argument");
    *out = nullptr;
    if (channels != 3 && channels != 4) {
      return Fail(CVIS_INVALID_ARGUMENT, Str("cvis_image_read: channels ", channels, ", want 3 or 4"));
    }
    cv::Mat bgr, alpha;
    if (cvis_status status = DecodeImage(path, true, &bgr, channels == 4 ? &alpha : nullptr); status != CVIS_OK) {
      return status;
    }
    cv::Mat converted;
    if (channels == 3) {
      cv::cvtColor(bgr, converted, cv::COLOR_BGR2RGB);
    } else {
      cv::cvtColor(bgr, converted, cv::COLOR_BGR2RGBA);
      if (!alpha.empty()) cv::insertChannel(alpha, converted, 3);
    }
    *out = NewImage(converted, channels);
    return CVIS_OK;
  });
}

extern "C" void cvis_image_destroy(cvis_image* image) { delete image; }
extern "C" int32_t cvis_image_width(const cvis_image* image) { return image ? image->width : 0; }
extern "C" int32_t cvis_image_height(const cvis_image* image) { return image ? image->height : 0; }
extern "C" int32_t cvis_image_channels(const cvis_image* image) { return image ? image->channels : 0; }
extern "C" const uint8_t* cvis_image_pixels(const cvis_image* image) {
  return image && !image->pixels.empty() ? image->pixels.data() : nullptr;
}

namespace cvis {
namespace {
// PNG bytes of an 8-bit RGB, RGBA or grey image (OpenCV encodes BGR order).
bool EncodePng(int32_t width, int32_t height, int32_t channels, const uint8_t* pixels,
               std::vector<uint8_t>* encoded) {
  const int type = channels == 1 ? CV_8UC1 : channels == 3 ? CV_8UC3 : CV_8UC4;
  const cv::Mat image(height, width, type, const_cast<uint8_t*>(pixels));
  cv::Mat bgr;
  if (channels == 3) cv::cvtColor(image, bgr, cv::COLOR_RGB2BGR);
  else if (channels == 4) cv::cvtColor(image, bgr, cv::COLOR_RGBA2BGRA);
  else bgr = image;
  return cv::imencode(".png", bgr, *encoded);
}
}  // namespace
}  // namespace cvis

extern "C" cvis_status cvis_image_encode_png(int32_t width, int32_t height, int32_t channels,
                                             const uint8_t* pixels, cvis_buffer** out) {
  using namespace cvis;
  return Guard([&]() -> cvis_status {
    if (out == nullptr || pixels == nullptr || width < 1 || height < 1 ||
        (channels != 1 && channels != 3 && channels != 4)) {
      return Fail(CVIS_INVALID_ARGUMENT, "cvis_image_encode_png: no pixels, or a bad size or channel count");
    }
    *out = nullptr;
    auto buffer = std::make_unique<cvis_buffer>();
    if (!EncodePng(width, height, channels, pixels, &buffer->bytes)) return Fail(CVIS_INTERNAL_ERROR, "PNG encoding failed");
    *out = buffer.release();
    return CVIS_OK;
  });
}

extern "C" cvis_status cvis_image_write_png(const char* path, int32_t width, int32_t height, int32_t channels,
                                            const uint8_t* pixels) {
  using namespace cvis;
  return Guard([&]() -> cvis_status {
    if (path == nullptr || pixels == nullptr || width < 1 || height < 1 ||
        (channels != 1 && channels != 3 && channels != 4)) {
      return Fail(CVIS_INVALID_ARGUMENT, "cvis_image_write_png: no path or pixels, or a bad size or channel count");
    }
    std::vector<uint8_t> encoded;
    if (!EncodePng(width, height, channels, pixels, &encoded)) return Fail(CVIS_INTERNAL_ERROR, Str(path, ": PNG encoding failed"));
    return WriteFileAtomically(path, encoded.data(), encoded.size());
  });
}
