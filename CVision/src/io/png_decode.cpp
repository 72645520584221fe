// PNG through libpng with error and warning functions of our own (see codecs.h).
#include <csetjmp>
#include <cstdio>
#include <string>
#include <vector>

#include <png.h>

#include "../util/status.h"
#include "codecs.h"
#include "image_io.h"

namespace cvis {
namespace {

struct PngErrors {
  std::jmp_buf escape;
  char error[256] = {0};
};

void OnPngError(png_structp png, png_const_charp message) {
  auto* errors = static_cast<PngErrors*>(png_get_error_ptr(png));
  std::snprintf(errors->error, sizeof(errors->error), "%s", message != nullptr ? message : "unknown error");
  std::longjmp(errors->escape, 1);
}

// Warnings concern ancillary chunks (a colour profile, text) that are skipped; the pixels are whole.
void OnPngWarning(png_structp, png_const_charp) {}

// Destroys libpng's structures however the decode ends.
struct PngReader {
  png_structp png = nullptr;
  png_infop info = nullptr;
  ~PngReader() {
    if (png != nullptr) png_destroy_read_struct(&png, info != nullptr ? &info : nullptr, nullptr);
  }
};

// The libpng calls, in a frame that holds nothing with a destructor (the long jump of an error
// skips destructors). rows is sized here and filled with pointers into out. False after an error.
bool RunDecoder(PngReader* reader, PngErrors* errors, FILE* file, DecodeMode mode, cv::Mat* out,
                std::vector<png_bytep>* rows) {
  png_structp png = reader->png;
  png_infop info = reader->info;
  if (setjmp(errors->escape) != 0) return false;
  png_init_io(png, file);
  png_read_info(png, info);
  const png_uint_32 width = png_get_image_width(png, info), height = png_get_image_height(png, info);
  const int bit_depth = png_get_bit_depth(png, info), color_type = png_get_color_type(png, info);
  const bool colour = (color_type & PNG_COLOR_MASK_COLOR) != 0;
  const bool transparency = png_get_valid(png, info, PNG_INFO_tRNS) != 0;
  // Channels of the result: as imread gives them. A grey image's tRNS is not made an alpha.
  int channels = 1;
  if (mode == DecodeMode::kColor) {
    channels = 3;
  } else if (mode == DecodeMode::kUnchanged) {
    if ((color_type & PNG_COLOR_MASK_ALPHA) != 0 || (colour && transparency)) {
      channels = 4;
    } else if (colour) {
      channels = 3;
    }
  }
  const bool sixteen = mode == DecodeMode::kUnchanged && bit_depth == 16;
  if (bit_depth == 16) {
    if (sixteen) png_set_swap(png); else png_set_strip_16(png);  // native byte order / high byte
  }
  if (color_type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
  if (!colour && bit_depth < 8) png_set_expand_gray_1_2_4_to_8(png);
  if (channels == 4) {
    if (transparency) png_set_tRNS_to_alpha(png);
    if (!colour) png_set_gray_to_rgb(png);
    png_set_bgr(png);
  } else {
    png_set_strip_alpha(png);
    if (channels == 3) {
      if (colour) png_set_bgr(png); else png_set_gray_to_rgb(png);
    } else if (colour) {
      png_set_rgb_to_gray(png, PNG_ERROR_ACTION_NONE, 0.299, 0.587);
    }
  }
  png_set_interlace_handling(png);
  png_read_update_info(png, info);
  const int depth = sixteen ? CV_16U : CV_8U;
  out->create(int(height), int(width), CV_MAKETYPE(depth, channels));
  if (png_get_rowbytes(png, info) != out->cols * out->elemSize()) {
    png_error(png, "unexpected row size after conversion");
  }
  rows->resize(height);
  for (png_uint_32 y = 0; y < height; ++y) (*rows)[y] = out->ptr<uint8_t>(int(y));
  png_read_image(png, rows->data());
  png_read_end(png, nullptr);
  return true;
}

}  // namespace

cvis_status DecodePng(FILE* file, const std::string& name, DecodeMode mode, cv::Mat* out) {
  if (std::fseek(file, 0, SEEK_SET) != 0) return Fail(CVIS_IO_ERROR, Str(BaseName(name), ": cannot read"));
  PngErrors errors;
  PngReader reader;
  reader.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &errors, OnPngError, OnPngWarning);
  if (reader.png == nullptr) return Fail(CVIS_INTERNAL_ERROR, Str(BaseName(name), ": libpng could not start"));
  reader.info = png_create_info_struct(reader.png);
  if (reader.info == nullptr) return Fail(CVIS_INTERNAL_ERROR, Str(BaseName(name), ": libpng could not start"));
  cv::Mat decoded;
  std::vector<png_bytep> rows;
  if (!RunDecoder(&reader, &errors, file, mode, &decoded, &rows)) {
    return Fail(CVIS_DECODE_ERROR, Str(BaseName(name), ": not a decodable PNG (libpng: ", errors.error, ")"));
  }
  *out = decoded;
  return CVIS_OK;
}

}  // namespace cvis
