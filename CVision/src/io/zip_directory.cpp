// Central-directory reader for the zip caps (see zip_directory.h). Layouts from PKWARE's
// APPNOTE.TXT: end of central directory 4.3.16, Zip64 end record 4.3.14 and locator 4.3.15,
// central directory header 4.3.12, Zip64 extended information extra field 4.5.3.
#include "zip_directory.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>

namespace cvis {
namespace {

uint16_t Le16(const unsigned char* p) { return uint16_t(p[0] | (p[1] << 8)); }
uint32_t Le32(const unsigned char* p) { return uint32_t(Le16(p)) | (uint32_t(Le16(p + 2)) << 16); }
uint64_t Le64(const unsigned char* p) { return uint64_t(Le32(p)) | (uint64_t(Le32(p + 4)) << 32); }

bool ReadAt(FILE* file, uint64_t offset, size_t count, unsigned char* out) {
  return fseeko(file, off_t(offset), SEEK_SET) == 0 && std::fread(out, 1, count, file) == count;
}

// A central directory larger than this is not read ahead (100,000 entries of 256-byte names
// fit in 32 MiB); the caps then apply while streaming only.
constexpr uint64_t kMaxDirectoryBytes = 64ull << 20;

}  // namespace

bool ReadZipDirectory(const std::string& path, std::vector<ZipDirectoryEntry>* entries) {
  entries->clear();
  std::unique_ptr<FILE, int (*)(FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!file || fseeko(file.get(), 0, SEEK_END) != 0) return false;
  const uint64_t size = uint64_t(ftello(file.get()));
  if (size < 22) return false;

  // The end record is the last 22 bytes plus a comment of at most 65535.
  const uint64_t tail_size = std::min<uint64_t>(size, 22 + 65535);
  std::vector<unsigned char> tail(tail_size);
  if (!ReadAt(file.get(), size - tail_size, tail_size, tail.data())) return false;
  int64_t end = -1;
  for (int64_t i = int64_t(tail_size) - 22; i >= 0; --i) {
    if (Le32(&tail[size_t(i)]) == 0x06054b50 &&
        uint64_t(i) + 22 + Le16(&tail[size_t(i) + 20]) <= tail_size) {
      end = i;
      break;
    }
  }
  if (end < 0) return false;
  const unsigned char* record = &tail[size_t(end)];
  uint64_t count = Le16(record + 10);
  uint64_t directory_size = Le32(record + 12);
  uint64_t directory_offset = Le32(record + 16);
  const uint64_t end_offset = size - tail_size + uint64_t(end);
  if (count == 0xFFFF || directory_size == 0xFFFFFFFF || directory_offset == 0xFFFFFFFF) {
    // Zip64: a locator just before the end record points at the Zip64 end record.
    unsigned char locator[20], record64[56];
    if (end_offset < 20 || !ReadAt(file.get(), end_offset - 20, 20, locator) ||
        Le32(locator) != 0x07064b50 || !ReadAt(file.get(), Le64(locator + 8), 56, record64) ||
        Le32(record64) != 0x06064b50) {
      return false;
    }
    count = Le64(record64 + 32);
    directory_size = Le64(record64 + 40);
    directory_offset = Le64(record64 + 48);
  } else if (directory_offset + directory_size < end_offset) {
    // Data before the archive (a self-extractor's stub) shifts every offset; the directory ends
    // where the end record starts, as libarchive also assumes.
    directory_offset = end_offset - directory_size;
  }
  if (directory_size > kMaxDirectoryBytes || directory_offset + directory_size > size) return false;
  std::vector<unsigned char> directory(static_cast<size_t>(directory_size));
  if (!ReadAt(file.get(), directory_offset, directory.size(), directory.data())) return false;

  size_t at = 0;
  for (uint64_t k = 0; k < count; ++k) {
    if (at + 46 > directory.size() || Le32(&directory[at]) != 0x02014b50) return false;
    const unsigned char* header = &directory[at];
    ZipDirectoryEntry entry;
    entry.compressed_size = Le32(header + 20);
    entry.uncompressed_size = Le32(header + 24);
    const size_t name_length = Le16(header + 28), extra_length = Le16(header + 30),
                 comment_length = Le16(header + 32);
    if (at + 46 + name_length + extra_length + comment_length > directory.size()) return false;
    entry.name.assign(reinterpret_cast<const char*>(header + 46), name_length);
    // Zip64 extra field: the 64-bit values of exactly the fields that read 0xFFFFFFFF, in order
    // uncompressed, compressed, local header offset.
    const unsigned char* extra = header + 46 + name_length;
    for (size_t e = 0; e + 4 <= extra_length;) {
      const uint16_t id = Le16(extra + e), length = Le16(extra + e + 2);
      if (e + 4 + length > extra_length) break;
      if (id == 0x0001) {
        size_t field = e + 4;
        const size_t field_end = e + 4 + length;
        if (entry.uncompressed_size == 0xFFFFFFFF && field + 8 <= field_end) {
          entry.uncompressed_size = Le64(extra + field);
          field += 8;
        }
        if (entry.compressed_size == 0xFFFFFFFF && field + 8 <= field_end) {
          entry.compressed_size = Le64(extra + field);
          field += 8;
        }
      }
      e += 4 + length;
    }
    entries->push_back(std::move(entry));
    at += 46 + name_length + extra_length + comment_length;
  }
  return true;
}

}  // namespace cvis
