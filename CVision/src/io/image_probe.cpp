// Header probes shared by cvis_probe_image and the decoders' pixel limit.
#include "image_probe.h"

#include <cctype>
#include <cstdint>
#include <cstring>

namespace cvis {
namespace {

uint32_t BigEndian32(const unsigned char* bytes) {
  return (uint32_t(bytes[0]) << 24) | (uint32_t(bytes[1]) << 16) | (uint32_t(bytes[2]) << 8) |
         uint32_t(bytes[3]);
}

// The next PNM header number: whitespace and '#' comments to the end of their line skipped.
// False when the file ends, or the number does not fit an int, first.
bool ReadPnmNumber(FILE* file, int* value) {
  int c = std::fgetc(file);
  for (;;) {
    if (c == '#') {
      while (c != EOF && c != '\n' && c != '\r') c = std::fgetc(file);
    } else if (c != EOF && std::isspace(c)) {
      c = std::fgetc(file);
    } else {
      break;
    }
  }
  if (c == EOF || !std::isdigit(c)) return false;
  int64_t number = 0;
  while (c != EOF && std::isdigit(c)) {
    number = number * 10 + (c - '0');
    if (number > INT32_MAX) return false;
    c = std::fgetc(file);
  }
  *value = int(number);
  return true;
}

}  // namespace

ImageKind SniffImageKind(FILE* file) {
  unsigned char head[12] = {0};
  if (file == nullptr || std::fseek(file, 0, SEEK_SET) != 0) return ImageKind::kOther;
  const size_t got = std::fread(head, 1, sizeof(head), file);
  if (got >= 3 && head[0] == 0xFF && head[1] == 0xD8 && head[2] == 0xFF) return ImageKind::kJpeg;
  if (got >= 8 && std::memcmp(head, "\x89PNG\r\n\x1a\n", 8) == 0) return ImageKind::kPng;
  if (got >= 3 && head[0] == 'P' && head[1] >= '1' && head[1] <= '6' && std::isspace(head[2])) {
    return ImageKind::kPnm;
  }
  if (got == sizeof(head) && std::memcmp(head + 4, "ftyp", 4) == 0) {
    static const char* const kBrands[] = {"heic", "heix", "hevc", "heim", "heis", "mif1", "msf1"};
    for (const char* brand : kBrands) {
      if (std::memcmp(head + 8, brand, 4) == 0) return ImageKind::kHeif;
    }
  }
  return ImageKind::kOther;
}

ImageKind SniffImageKind(const std::string& path) {
  FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) return ImageKind::kOther;
  const ImageKind kind = SniffImageKind(file);
  std::fclose(file);
  return kind;
}

bool ProbePng(FILE* file, int* width, int* height) {
  unsigned char head[24];
  if (std::fseek(file, 0, SEEK_SET) != 0 || std::fread(head, 1, 24, file) != 24) return false;
  if (std::memcmp(head, "\x89PNG\r\n\x1a\n", 8) != 0 || std::memcmp(head + 12, "IHDR", 4) != 0) {
    return false;
  }
  const uint32_t w = BigEndian32(head + 16), h = BigEndian32(head + 20);
  // The PNG standard bounds both sides by 2^31 - 1.
  if (w == 0 || h == 0 || w > uint32_t(INT32_MAX) || h > uint32_t(INT32_MAX)) return false;
  *width = int(w);
  *height = int(h);
  return true;
}

bool ProbeJpeg(FILE* file, int* width, int* height) {
  unsigned char bytes[9];
  if (std::fseek(file, 0, SEEK_SET) != 0 || std::fread(bytes, 1, 2, file) != 2) return false;
  if (bytes[0] != 0xFF || bytes[1] != 0xD8) return false;
  for (int segments = 0; segments < 4096; ++segments) {
    int marker = std::fgetc(file);
    while (marker == 0xFF) marker = std::fgetc(file);  // fill bytes
    if (marker == EOF) return false;
    if (marker == 0xD8 || (marker >= 0xD0 && marker <= 0xD7) || marker == 0x01) continue;
    if (std::fread(bytes, 1, 2, file) != 2) return false;
    const int length = (bytes[0] << 8) | bytes[1];
    if (length < 2) return false;
    const bool is_sof = marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 &&
                        marker != 0xCC;
    if (is_sof) {
      if (std::fread(bytes, 1, 5, file) != 5) return false;
      *height = (bytes[1] << 8) | bytes[2];
      *width = (bytes[3] << 8) | bytes[4];
      return *width > 0 && *height > 0;
    }
    if (marker == 0xDA || marker == 0xD9) return false;  // scan or end before any frame
    if (std::fseek(file, length - 2, SEEK_CUR) != 0) return false;
  }
  return false;
}

bool ProbePnm(FILE* file, int* width, int* height) {
  unsigned char magic[2];
  if (std::fseek(file, 0, SEEK_SET) != 0 || std::fread(magic, 1, 2, file) != 2) return false;
  if (magic[0] != 'P' || magic[1] < '1' || magic[1] > '6') return false;
  int w = 0, h = 0;
  if (!ReadPnmNumber(file, &w) || !ReadPnmNumber(file, &h) || w <= 0 || h <= 0) return false;
  *width = w;
  *height = h;
  return true;
}

}  // namespace cvis
