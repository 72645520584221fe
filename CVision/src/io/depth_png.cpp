// A depth image stored as a single-channel PNG (16-bit: millimetres, as capture tools write them),
// decoded as stored: no orientation applied, no scaling.
#include <cstring>
#include <memory>
#include <string>

#include <opencv2/core.hpp>

#include "../../include/cvis_io.h"
#include "../util/buffer.h"
#include "../util/status.h"
#include "image_io.h"

extern "C" cvis_status cvis_read_depth_png(const char* path, int32_t* width, int32_t* height,
                                           int32_t* bit_depth, cvis_buffer** values) {
  using namespace cvis;
  return Guard([&]() -> cvis_status {
    if (path == nullptr || width == nullptr || height == nullptr || bit_depth == nullptr || values == nullptr) {
      return Fail(CVIS_INVALID_ARGUMENT, "cvis_read_depth_png: null argument");
    }
    *width = *height = *bit_depth = 0;
    *values = nullptr;
    cv::Mat decoded;
    if (cvis_status status = DecodeAsStored(path, &decoded); status != CVIS_OK) return status;
    if (decoded.channels() != 1 || (decoded.depth() != CV_16U && decoded.depth() != CV_8U)) {
      return Fail(CVIS_DECODE_ERROR, Str(BaseName(path), ": a depth image has one 8- or 16-bit channel, this one has ",
                                         decoded.channels(), " channel(s)"));
    }
    cv::Mat samples;
    decoded.convertTo(samples, CV_32F);
    auto buffer = std::make_unique<cvis_buffer>();
    buffer->bytes.resize(size_t(samples.rows) * size_t(samples.cols) * sizeof(float));
    for (int y = 0; y < samples.rows; ++y) {
      std::memcpy(buffer->bytes.data() + size_t(y) * size_t(samples.cols) * sizeof(float), samples.ptr<float>(y),
                  size_t(samples.cols) * sizeof(float));
    }
    *width = samples.cols;
    *height = samples.rows;
    *bit_depth = decoded.depth() == CV_16U ? 16 : 8;
    *values = buffer.release();
    return CVIS_OK;
  });
}
