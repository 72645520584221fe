// JPEG through libjpeg with an error manager of our own (see codecs.h).
#include <csetjmp>
#include <cstdio>
#include <string>

#include <jpeglib.h>
#include <jerror.h>

#include <opencv2/imgproc.hpp>

#include "../util/status.h"
#include "codecs.h"
#include "image_io.h"

namespace cvis {
namespace {

// libjpeg's error manager, extended: errors jump back to the decoder, messages are kept.
struct JpegErrors {
  jpeg_error_mgr manager;  // first, so that libjpeg's pointer is also ours
  std::jmp_buf escape;
  char error[JMSG_LENGTH_MAX] = {0};
  char lost[JMSG_LENGTH_MAX] = {0};  // the first warning that means pixels were lost
};

void OnJpegError(j_common_ptr info) {
  auto* errors = reinterpret_cast<JpegErrors*>(info->err);
  (*info->err->format_message)(info, errors->error);
  std::longjmp(errors->escape, 1);
}

// Warnings whose pixels are damaged: data that ends early or cannot be decoded, which libjpeg
// replaces with grey. The others (extra bytes between markers, an unusual JFIF version or Adobe
// transform) leave the image whole.
bool LosesPixels(int code) {
  switch (code) {
    case JWRN_HIT_MARKER:
    case JWRN_JPEG_EOF:
    case JWRN_HUFF_BAD_CODE:
    case JWRN_ARITH_BAD_CODE:
    case JWRN_MUST_RESYNC:
    case JWRN_NOT_SEQUENTIAL:
    case JWRN_BOGUS_PROGRESSION:
      return true;
    default:
      return false;
  }
}

void OnJpegMessage(j_common_ptr info, int level) {
  if (level >= 0) return;  // trace messages
  auto* errors = reinterpret_cast<JpegErrors*>(info->err);
  ++info->err->num_warnings;
  if (errors->lost[0] == 0 && LosesPixels(info->err->msg_code)) {
    (*info->err->format_message)(info, errors->lost);
  }
}

void Silent(j_common_ptr) {}

// A progressive JPEG has about ten scans; each scan is a pass over the whole image, so thousands
// of tiny ones (a few bytes each) make a small file cost minutes to decode. libjpeg-turbo's own
// tools stop at a limit too (djpeg -maxscans).
constexpr int kMaxScans = 500;

// Stops a decode whose scans pass kMaxScans, as an error would.
void CheckScans(j_common_ptr info) {
  if (!info->is_decompressor) return;
  const auto* decompress = reinterpret_cast<j_decompress_ptr>(info);
  if (decompress->input_scan_number <= kMaxScans) return;
  auto* errors = reinterpret_cast<JpegErrors*>(info->err);
  std::snprintf(errors->error, sizeof(errors->error), "more than %d scans", kMaxScans);
  std::longjmp(errors->escape, 1);
}

// Destroys the decompressor however the decode ends.
struct Decompressor {
  jpeg_decompress_struct info;
  jpeg_progress_mgr progress{CheckScans, 0, 0, 0, 0};
  bool created = false;
  ~Decompressor() {
    if (created) jpeg_destroy_decompress(&info);
  }
};

// Converts Adobe CMYK (stored inverted, as Photoshop writes it) to BGR: each channel is its ink
// times the black plate.
void CmykToBgr(const cv::Mat& cmyk, cv::Mat* bgr) {
  bgr->create(cmyk.size(), CV_8UC3);
  for (int y = 0; y < cmyk.rows; ++y) {
    const uint8_t* in = cmyk.ptr<uint8_t>(y);
    uint8_t* out = bgr->ptr<uint8_t>(y);
    for (int x = 0; x < cmyk.cols; ++x, in += 4, out += 3) {
      const int k = in[3];
      out[0] = uint8_t((in[2] * k + 127) / 255);
      out[1] = uint8_t((in[1] * k + 127) / 255);
      out[2] = uint8_t((in[0] * k + 127) / 255);
    }
  }
}

// The libjpeg calls, in a frame that holds nothing with a destructor, so that the long jump of
// an error leaves nothing half-destroyed. False after an error (errors->error says which).
bool RunDecoder(Decompressor* decompressor, JpegErrors* errors, FILE* file, DecodeMode mode, int scale_denom,
                cv::Mat* out) {
  jpeg_decompress_struct* info = &decompressor->info;
  if (setjmp(errors->escape) != 0) return false;
  jpeg_create_decompress(info);
  decompressor->created = true;
  info->progress = &decompressor->progress;
  jpeg_stdio_src(info, file);
  jpeg_read_header(info, TRUE);
  info->scale_num = 1;
  info->scale_denom = unsigned(scale_denom);
  const bool cmyk = info->num_components == 4;
  const bool grey = mode == DecodeMode::kGrey || (mode == DecodeMode::kUnchanged && info->num_components == 1);
  if (cmyk) {
    info->out_color_space = JCS_CMYK;
  } else {
    info->out_color_space = grey ? JCS_GRAYSCALE : JCS_EXT_BGR;
  }
  jpeg_start_decompress(info);
  out->create(int(info->output_height), int(info->output_width), CV_8UC(info->output_components));
  while (info->output_scanline < info->output_height) {
    JSAMPROW row = out->ptr<uint8_t>(int(info->output_scanline));
    jpeg_read_scanlines(info, &row, 1);
  }
  jpeg_finish_decompress(info);
  return true;
}

}  // namespace

cvis_status DecodeJpeg(FILE* file, const std::string& name, DecodeMode mode, int scale_denom, cv::Mat* out) {
  if (scale_denom != 1 && scale_denom != 2 && scale_denom != 4 && scale_denom != 8) {
    return Fail(CVIS_INVALID_ARGUMENT, Str("DecodeJpeg: scale 1/", scale_denom));
  }
  if (std::fseek(file, 0, SEEK_SET) != 0) return Fail(CVIS_IO_ERROR, Str(BaseName(name), ": cannot read"));
  Decompressor decompressor;
  JpegErrors errors;
  decompressor.info.err = jpeg_std_error(&errors.manager);
  errors.manager.error_exit = OnJpegError;
  errors.manager.emit_message = OnJpegMessage;
  errors.manager.output_message = Silent;
  cv::Mat decoded;
  if (!RunDecoder(&decompressor, &errors, file, mode, scale_denom, &decoded)) {
    return Fail(CVIS_DECODE_ERROR, Str(BaseName(name), ": not a decodable JPEG (libjpeg: ", errors.error, ")"));
  }
  if (errors.lost[0] != 0) {
    return Fail(CVIS_DECODE_ERROR, Str(BaseName(name), ": damaged JPEG data (libjpeg: ", errors.lost, ")"));
  }
  if (decoded.channels() == 4) {
    cv::Mat bgr;
    CmykToBgr(decoded, &bgr);
    if (mode == DecodeMode::kGrey) cv::cvtColor(bgr, bgr, cv::COLOR_BGR2GRAY);
    decoded = bgr;
  }
  *out = decoded;
  return CVIS_OK;
}

}  // namespace cvis
