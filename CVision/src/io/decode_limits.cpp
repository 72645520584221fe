// The process-wide pixel limit and the checks the decoders run before decoding.
#include "decode_limits.h"

#include <atomic>
#include <cstdio>
#include <memory>

#include "../../include/cvis_io.h"
#include "../util/status.h"
#include "heif_io.h"
#include "image_io.h"

namespace cvis {
namespace {

// 120 MP: every phone frame and panorama below the 200 MP class (48-50 MP main cameras, 108 MP
// sensors at 12000x9000, a phone panorama's 63 MP) and the 100 MP medium-format cameras, which
// are 102 MP (11648x8736) and so would fail a round 100; a decompression bomb (a 40 KB JPEG or a
// 2.6 MB PNG declaring 30000x30000, 900 MP) is far above it. One such image decodes to 360 MB of
// 8-bit BGR, and with two decodes in flight the feature stage stays under about 2 GB; 200 MP
// phone modes are opted into with --max-megapixels.
constexpr uint64_t kDefaultMaxPixels = 120000000;

std::atomic<uint64_t> g_max_pixels{kDefaultMaxPixels};

// Megapixels as a person reads them: 900, 48.77, and as many digits as it takes to differ from
// the limit it is compared with (100.000004 is not "100").
std::string Megapixels(uint64_t pixels, uint64_t other) {
  const auto text = [](uint64_t value, int digits) {
    char buffer[48];
    std::snprintf(buffer, sizeof(buffer), "%.*f", digits, double(value) / 1e6);
    std::string out = buffer;
    if (out.find('.') != std::string::npos) {
      while (out.back() == '0') out.pop_back();
      if (out.back() == '.') out.pop_back();
    }
    return out;
  };
  for (int digits = 2; digits <= 6; ++digits) {
    const std::string mine = text(pixels, digits);
    if (digits == 6 || mine != text(other, digits)) return mine;
  }
  return text(pixels, 6);
}

using FilePtr = std::unique_ptr<FILE, int (*)(FILE*)>;

// The declared size of an open file of a kind with a header probe; false when the header gives none.
bool DeclaredSize(FILE* file, ImageKind kind, int* width, int* height) {
  switch (kind) {
    case ImageKind::kJpeg: return ProbeJpeg(file, width, height);
    case ImageKind::kPng: return ProbePng(file, width, height);
    case ImageKind::kPnm: return ProbePnm(file, width, height);
    default: return false;
  }
}

const char* KindName(ImageKind kind) {
  switch (kind) {
    case ImageKind::kJpeg: return "JPEG";
    case ImageKind::kPng: return "PNG";
    case ImageKind::kPnm: return "PNM";
    default: return "image";
  }
}

// The check on an open file (HEIF excluded: libheif sizes it from the path).
cvis_status CheckOpenFile(FILE* file, const std::string& name, ImageKind* kind) {
  *kind = SniffImageKind(file);
  if (*kind == ImageKind::kOther) {
    return Fail(CVIS_DECODE_ERROR, Str(BaseName(name), ": not a decodable image (not JPEG, PNG, HEIC or PGM, ",
                                       "the only formats whose size is checked before decoding)"));
  }
  if (*kind == ImageKind::kHeif) return CVIS_OK;
  int width = 0, height = 0;
  if (!DeclaredSize(file, *kind, &width, &height)) {
    return Fail(CVIS_DECODE_ERROR, Str(BaseName(name), ": not a decodable image (", KindName(*kind),
                                       " header without a valid size)"));
  }
  return CheckPixelLimit(name, width, height);
}

}  // namespace

uint64_t MaxImagePixels() { return g_max_pixels.load(std::memory_order_relaxed); }

cvis_status CheckPixelLimit(const std::string& path, int64_t width, int64_t height) {
  const uint64_t limit = MaxImagePixels();
  const uint64_t pixels = uint64_t(width) * uint64_t(height);
  if (width <= 0 || height <= 0 || pixels <= limit) return CVIS_OK;
  return Fail(CVIS_LIMIT_EXCEEDED, Str(BaseName(path), ": declares ", width, "\u00d7", height, " = ",
                                       Megapixels(pixels, limit), " MP, above the ", Megapixels(limit, pixels),
                                       " MP limit (--max-megapixels)"));
}

cvis_status CheckDecodable(const std::string& path, ImageKind* kind) {
  FilePtr file(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!file) return Fail(CVIS_IO_ERROR, Str(BaseName(path), ": cannot open"));
  if (cvis_status status = CheckOpenFile(file.get(), path, kind); status != CVIS_OK) return status;
  if (*kind != ImageKind::kHeif) return CVIS_OK;
  file.reset();
  int width = 0, height = 0;
  if (cvis_status status = ProbeHeif(path, &width, &height); status != CVIS_OK) return status;
  return CheckPixelLimit(path, width, height);
}

cvis_status CheckDecodable(const uint8_t* data, size_t size, const std::string& name, ImageKind* kind) {
  if (data == nullptr || size == 0) return Fail(CVIS_DECODE_ERROR, Str(name, ": empty image data"));
  FilePtr file(fmemopen(const_cast<uint8_t*>(data), size, "rb"), &std::fclose);
  if (!file) return Fail(CVIS_INTERNAL_ERROR, Str(name, ": cannot read image data"));
  if (cvis_status status = CheckOpenFile(file.get(), name, kind); status != CVIS_OK) return status;
  if (*kind == ImageKind::kHeif) {
    return Fail(CVIS_DECODE_ERROR, Str(name, ": not a decodable image (HEIF is read from files only)"));
  }
  return CVIS_OK;
}

}  // namespace cvis

extern "C" void cvis_decode_limits_default(cvis_decode_limits* limits) {
  if (limits == nullptr) return;
  limits->max_pixels = cvis::kDefaultMaxPixels;
}

extern "C" cvis_status cvis_set_decode_limits(const cvis_decode_limits* limits) {
  using namespace cvis;
  return Guard([&] {
    if (limits == nullptr || limits->max_pixels == 0) {
      return Fail(CVIS_INVALID_ARGUMENT, "cvis_set_decode_limits: max_pixels must be above 0");
    }
    g_max_pixels.store(limits->max_pixels, std::memory_order_relaxed);
    return CVIS_OK;
  });
}

extern "C" void cvis_get_decode_limits(cvis_decode_limits* limits) {
  if (limits == nullptr) return;
  limits->max_pixels = cvis::MaxImagePixels();
}

extern "C" cvis_status cvis_check_decodable(const char* path) {
  using namespace cvis;
  return Guard([&] {
    if (path == nullptr) return Fail(CVIS_INVALID_ARGUMENT, "cvis_check_decodable: null path");
    ImageKind kind;
    return CheckDecodable(path, &kind);
  });
}
