// What a zip's central directory declares about its entries, read before anything is unpacked,
// so that an entry that would inflate beyond the caps is refused before a byte of it is written.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cvis {

// One entry as the central directory declares it (the sizes may lie; the extraction checks
// what actually comes out against them).
struct ZipDirectoryEntry {
  std::string name;            // as stored (bytes; UTF-8 or CP437)
  uint64_t compressed_size;    // bytes in the archive
  uint64_t uncompressed_size;  // bytes once inflated
};

// Reads the central directory of the zip file at path: the end-of-central-directory record in
// its last 64 KiB, Zip64 records and extra fields where sizes or counts overflow 32 bits. False
// when the file has no directory this reader understands (libarchive then judges the archive on
// its own, and the caps are still enforced while streaming).
bool ReadZipDirectory(const std::string& path, std::vector<ZipDirectoryEntry>* entries);

}  // namespace cvis
