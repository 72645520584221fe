// Decoding with our own EXIF orientation handling: the decoders return pixels as stored and the
// libexif tag is applied here, so decode and cvis_probe_image can never disagree. JPEG and PNG go
// to libjpeg and libpng directly (codecs.h), PNM to OpenCV (told to ignore orientation), HEIF to
// libheif (heif_io.cpp), which applies the file's own transformations instead. Nothing is decoded
// before its header's size passes the pixel limit (decode_limits.h).
#include "image_io.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <cerrno>
#include <memory>
#include <string>
#include <utility>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "../../include/cvis_io.h"
#include "../util/status.h"
#include "codecs.h"
#include "decode_limits.h"
#include "heif_io.h"
#include "image_probe.h"

namespace cvis {

std::string BaseName(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

cv::Mat ApplyExifOrientation(const cv::Mat& image, int orientation) {
  cv::Mat out;
  switch (orientation) {
    case 2: cv::flip(image, out, 1); break;                      // mirrored horizontally
    case 3: cv::flip(image, out, -1); break;                     // rotated 180
    case 4: cv::flip(image, out, 0); break;                      // mirrored vertically
    case 5: cv::transpose(image, out); break;                    // transposed
    case 6: cv::transpose(image, out); cv::flip(out, out, 1); break;   // rotate 90 CW
    case 7: cv::transpose(image, out); cv::flip(out, out, -1); break;  // transverse
    case 8: cv::transpose(image, out); cv::flip(out, out, 0); break;   // rotate 90 CCW
    default: return image;
  }
  return out;
}

namespace {

// Distinguishes "cannot read" (IO) from "cannot decode" (content) before a decoder is asked.
cvis_status CheckReadable(const std::string& path) {
  FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) {
    return Fail(CVIS_IO_ERROR, Str(BaseName(path), ": cannot open (", std::strerror(errno), ")"));
  }
  std::fseek(file, 0, SEEK_END);
  const long size = std::ftell(file);
  std::fclose(file);
  if (size <= 0) return Fail(CVIS_DECODE_ERROR, Str(BaseName(path), ": empty file"));
  return CVIS_OK;
}

using FilePtr = std::unique_ptr<FILE, int (*)(FILE*)>;

// The imread flags that give what mode asks of a file OpenCV decodes (PNM).
int ImreadFlags(DecodeMode mode) {
  switch (mode) {
    case DecodeMode::kColor: return cv::IMREAD_COLOR | cv::IMREAD_IGNORE_ORIENTATION;
    case DecodeMode::kGrey: return cv::IMREAD_GRAYSCALE | cv::IMREAD_IGNORE_ORIENTATION;
    default: return cv::IMREAD_UNCHANGED;
  }
}

// Decodes path in mode (no orientation applied) once CheckDecodable allows it: its kind is one
// we decode and the size its header declares is within the pixel limit, so nothing is allocated
// for a file that only claims to be huge. A JPEG is decoded at the largest reduction (1/2, 1/4,
// 1/8) that keeps its longer side at or above min_long_side (0: full size).
cvis_status DecodeChecked(const std::string& path, DecodeMode mode, int min_long_side, cv::Mat* out) {
  if (cvis_status status = CheckReadable(path); status != CVIS_OK) return status;
  ImageKind kind = ImageKind::kOther;
  if (cvis_status status = CheckDecodable(path, &kind); status != CVIS_OK) return status;
  if (kind == ImageKind::kHeif) {
    cv::Mat bgr;
    if (cvis_status status = DecodeHeif(path, true, min_long_side, &bgr, nullptr); status != CVIS_OK) return status;
    if (mode == DecodeMode::kGrey) cv::cvtColor(bgr, bgr, cv::COLOR_BGR2GRAY);
    *out = bgr;
    return CVIS_OK;
  }
  if (kind == ImageKind::kPnm) {
    *out = cv::imread(path, ImreadFlags(mode));
    if (out->empty()) return Fail(CVIS_DECODE_ERROR, Str(BaseName(path), ": not a decodable image (corrupt PNM?)"));
    return CVIS_OK;
  }
  FilePtr file(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!file) return Fail(CVIS_IO_ERROR, Str(BaseName(path), ": cannot open (", std::strerror(errno), ")"));
  if (kind == ImageKind::kPng) return DecodePng(file.get(), path, mode, out);
  int factor = 1, width = 0, height = 0;
  if (min_long_side > 0 && ProbeJpeg(file.get(), &width, &height)) {
    // libjpeg rounds a reduced size up, so long / factor >= min_long_side is a safe test.
    const int long_side = std::max(width, height);
    while (factor < 8 && long_side / (factor * 2) >= min_long_side) factor *= 2;
  }
  return DecodeJpeg(file.get(), path, mode, factor, out);
}

// Decodes in colour (8-bit BGR), upright when apply_orientation; EXIF orientation is always
// ours to apply, never a decoder's.
cvis_status DecodeColor(const std::string& path, int min_long_side, bool apply_orientation, cv::Mat* image) {
  cv::Mat decoded;
  if (cvis_status status = DecodeChecked(path, DecodeMode::kColor, min_long_side, &decoded); status != CVIS_OK) {
    return status;
  }
  *image = apply_orientation ? ApplyExifOrientation(decoded, ReadExifOrientation(path)) : decoded;
  return CVIS_OK;
}

// Whether a file is a PNG that can hold an alpha channel: colour type 4 (grey + alpha), 6 (RGBA)
// or 3 (palette, whose tRNS chunk may make entries transparent). Reads the IHDR only.
bool MayHaveAlpha(const std::string& path) {
  unsigned char head[26];
  FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) return false;
  const size_t got = std::fread(head, 1, sizeof(head), file);
  std::fclose(file);
  if (got != sizeof(head) || std::memcmp(head, "\x89PNG\r\n\x1a\n", 8) != 0 ||
      std::memcmp(head + 12, "IHDR", 4) != 0) {
    return false;
  }
  const int color_type = head[25];
  return color_type == 3 || color_type == 4 || color_type == 6;
}

// Decodes a PNG that may have alpha as stored (IMREAD_UNCHANGED: depth and channels kept, no
// orientation applied) and splits it into 8-bit BGR and alpha. For 8-bit files the colour is
// what IMREAD_COLOR gives (libpng strips the alpha either way); OpenCV expands grey + alpha and
// palettes with transparency to four channels.
cvis_status DecodeWithAlpha(const std::string& path, bool apply_orientation, cv::Mat* image,
                            cv::Mat* alpha) {
  cv::Mat decoded;
  if (cvis_status status = DecodeChecked(path, DecodeMode::kUnchanged, 0, &decoded); status != CVIS_OK) {
    return status;
  }
  if (decoded.depth() == CV_16U) decoded.convertTo(decoded, CV_8U, 1.0 / 257.0);
  alpha->release();
  cv::Mat color;
  switch (decoded.channels()) {
    case 1: cv::cvtColor(decoded, color, cv::COLOR_GRAY2BGR); break;
    case 2: {
      cv::Mat planes[2];
      cv::split(decoded, planes);
      cv::cvtColor(planes[0], color, cv::COLOR_GRAY2BGR);
      *alpha = planes[1];
      break;
    }
    case 4:
      cv::cvtColor(decoded, color, cv::COLOR_BGRA2BGR);
      cv::extractChannel(decoded, *alpha, 3);
      break;
    default: color = decoded; break;
  }
  if (apply_orientation) {
    const int orientation = ReadExifOrientation(path);
    color = ApplyExifOrientation(color, orientation);
    if (!alpha->empty()) *alpha = ApplyExifOrientation(*alpha, orientation);
  }
  *image = color;
  return CVIS_OK;
}

}  // namespace

cvis_status DecodeImage(const std::string& path, bool apply_orientation, cv::Mat* image,
                        cv::Mat* alpha) {
  if (IsHeif(path)) return DecodeHeif(path, apply_orientation, 0, image, alpha);
  if (alpha != nullptr) {
    if (MayHaveAlpha(path)) return DecodeWithAlpha(path, apply_orientation, image, alpha);
    alpha->release();
  }
  return DecodeColor(path, 0, apply_orientation, image);
}

cvis_status DecodeMask(const std::string& path, cv::Mat* mask) {
  return DecodeChecked(path, DecodeMode::kGrey, 0, mask);
}

cvis_status DecodeAsStored(const std::string& path, cv::Mat* image) {
  return DecodeChecked(path, DecodeMode::kUnchanged, 0, image);
}

cvis_status DecodeEncoded(const uint8_t* data, size_t size, const std::string& name, cv::Mat* image) {
  ImageKind kind = ImageKind::kOther;
  if (cvis_status status = CheckDecodable(data, size, name, &kind); status != CVIS_OK) return status;
  if (kind != ImageKind::kJpeg && kind != ImageKind::kPng) {
    return Fail(CVIS_DECODE_ERROR, Str(name, ": not a decodable image (an embedded image is JPEG or PNG)"));
  }
  FilePtr file(fmemopen(const_cast<uint8_t*>(data), size, "rb"), &std::fclose);
  if (!file) return Fail(CVIS_INTERNAL_ERROR, Str(name, ": cannot read image data"));
  return kind == ImageKind::kPng ? DecodePng(file.get(), name, DecodeMode::kUnchanged, image)
                                 : DecodeJpeg(file.get(), name, DecodeMode::kUnchanged, 1, image);
}

}  // namespace cvis

namespace cvis {
namespace {

uint32_t BigEndian32(const unsigned char* bytes) {
  return (uint32_t(bytes[0]) << 24) | (uint32_t(bytes[1]) << 16) | (uint32_t(bytes[2]) << 8) |
         uint32_t(bytes[3]);
}

// Reads a file forward in blocks, so that a JPEG's entropy-coded data can be scanned for its
// markers at memchr speed.
class ForwardReader {
 public:
  ForwardReader(FILE* file, long size) : file_(file), size_(size) {}

  // The next byte, or -1 at the end of the file.
  int Next() {
    if (pos_ == len_ && !Fill()) return -1;
    return buffer_[pos_++];
  }

  // Skips to just past the next 0xFF byte; false at the end of the file.
  bool SkipPastFF() {
    for (;;) {
      if (pos_ == len_ && !Fill()) return false;
      const void* hit = std::memchr(buffer_ + pos_, 0xFF, len_ - pos_);
      if (hit != nullptr) {
        pos_ = size_t(static_cast<const unsigned char*>(hit) - buffer_) + 1;
        return true;
      }
      pos_ = len_;
    }
  }

  // Skips n bytes; false when the file ends first.
  bool Skip(long n) {
    const long buffered = long(len_ - pos_);
    if (n <= buffered) {
      pos_ += size_t(n);
      return true;
    }
    const long target = Offset() + n;
    if (target > size_ || std::fseek(file_, target, SEEK_SET) != 0) return false;
    start_ = target;
    pos_ = len_ = 0;
    return true;
  }

  // The file offset of the next byte.
  long Offset() const { return start_ + long(pos_); }

 private:
  bool Fill() {
    start_ += long(len_);
    pos_ = 0;
    len_ = std::fread(buffer_, 1, sizeof(buffer_), file_);
    return len_ > 0;
  }

  FILE* file_;
  long size_;
  unsigned char buffer_[1 << 16];
  long start_ = 0;  // file offset of buffer_[0]
  size_t pos_ = 0, len_ = 0;
};

// Whether a JPEG holds all of itself: its marker segments are walked (by their lengths) and its
// entropy-coded scans searched for the next marker, through every scan of a progressive file,
// until the end-of-image marker FFD9. Bytes after it (padding, a phone's appended video) are
// allowed; a file that ends first is truncated, and libjpeg would fill the missing rows with grey
// and only warn, on standard error, without the file's name.
bool JpegIsComplete(FILE* file, long size) {
  if (std::fseek(file, 0, SEEK_SET) != 0) return false;
  ForwardReader reader(file, size);
  if (reader.Next() != 0xFF || reader.Next() != 0xD8) return false;
  for (;;) {
    // Between segments and inside scans alike, the next marker starts at the next 0xFF (libjpeg
    // skips stray bytes between segments the same way).
    if (!reader.SkipPastFF()) return false;
    int marker = reader.Next();
    while (marker == 0xFF) marker = reader.Next();  // fill bytes
    if (marker < 0) return false;
    if (marker == 0x00 || (marker >= 0xD0 && marker <= 0xD7)) continue;  // stuffed byte, restart
    if (marker == 0xD9) return true;
    if (marker == 0xD8 || marker == 0x01) continue;  // no length field
    const int high = reader.Next(), low = reader.Next();
    if (low < 0) return false;
    const int length = (high << 8) | low;
    if (length < 2 || !reader.Skip(length - 2)) return false;
  }
}

// Whether a PNG holds all of itself: its chunks are walked by their lengths up to IEND.
bool PngIsComplete(FILE* file, long size) {
  long offset = 8;
  unsigned char header[8];
  while (offset + 12 <= size) {
    if (std::fseek(file, offset, SEEK_SET) != 0 || std::fread(header, 1, 8, file) != 8) return false;
    const long length = long(BigEndian32(header));
    if (std::memcmp(header + 4, "IEND", 4) == 0) return true;
    offset += 12 + length;  // length, type, data, CRC
  }
  return false;
}

// Why an image file is incomplete, or "" when it is whole (or of a format not checked).
std::string TruncationReason(const std::string& path) {
  FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) return "";
  unsigned char head[8] = {0};
  const size_t got = std::fread(head, 1, sizeof(head), file);
  std::fseek(file, 0, SEEK_END);
  const long size = std::ftell(file);
  std::string reason;
  if (got >= 3 && head[0] == 0xFF && head[1] == 0xD8 && head[2] == 0xFF) {
    if (!JpegIsComplete(file, size)) {
      reason = Str("truncated JPEG: the file ends after ", size, " bytes, before its end-of-image marker");
    }
  } else if (got == 8 && std::memcmp(head, "\x89PNG\r\n\x1a\n", 8) == 0) {
    if (!PngIsComplete(file, size)) {
      reason = Str("truncated PNG: the file ends after ", size, " bytes, before its IEND chunk");
    }
  } else if (got == 8 && std::memcmp(head + 4, "ftyp", 4) == 0 && IsHeif(path)) {
    reason = HeifStructureProblem(file, size);
  }
  std::fclose(file);
  return reason;
}

}  // namespace
}  // namespace cvis

namespace cvis {

cvis_status DecodeImageForSize(const std::string& path, int min_long_side, cv::Mat* image) {
  if (IsHeif(path)) return DecodeHeif(path, true, min_long_side, image, nullptr);
  return DecodeColor(path, min_long_side, true, image);
}

}  // namespace cvis

extern "C" cvis_status cvis_probe_image(const char* path, int32_t* width, int32_t* height) {
  return cvis::Guard([&] {
    if (path == nullptr || width == nullptr || height == nullptr) {
      return cvis::Fail(CVIS_INVALID_ARGUMENT, "cvis_probe_image: null argument");
    }
    if (cvis_status status = cvis::CheckReadable(path); status != CVIS_OK) return status;
    if (const std::string reason = cvis::TruncationReason(path); !reason.empty()) {
      return cvis::Fail(CVIS_DECODE_ERROR, cvis::Str(cvis::BaseName(path), ": ", reason));
    }
    int w = 0, h = 0;
    if (cvis::IsHeif(path)) {
      // The size after HEIF's own transformations; its EXIF orientation must not swap it again.
      if (cvis_status status = cvis::ProbeHeif(path, &w, &h); status != CVIS_OK) return status;
      *width = w;
      *height = h;
      return CVIS_OK;
    }
    FILE* file = std::fopen(path, "rb");
    const bool parsed = file != nullptr && (cvis::ProbePng(file, &w, &h) || cvis::ProbeJpeg(file, &w, &h) ||
                                            cvis::ProbePnm(file, &w, &h));
    if (file != nullptr) std::fclose(file);
    if (!parsed) {
      // Other formats are not sized by decoding them (a TIFF or WebP could claim any size), and
      // not decoded: CheckDecodable says why, naming the file.
      cvis::ImageKind kind = cvis::ImageKind::kOther;
      if (cvis_status status = cvis::CheckDecodable(path, &kind); status != CVIS_OK) return status;
      return cvis::Fail(CVIS_DECODE_ERROR, cvis::Str(cvis::BaseName(path), ": not a decodable image"));
    }
    if (cvis::OrientationSwapsAxes(cvis::ReadExifOrientation(path))) std::swap(w, h);
    *width = w;
    *height = h;
    return CVIS_OK;
  });
}
