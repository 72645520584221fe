// The header of a PLY file: its format and the elements with their properties, in file order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "../../include/cvis_core.h"

namespace cvis {

// A malformed or unreadable PLY file; the reader turns it into a status and a message that
// names the file.
struct PlyError : std::runtime_error {
  PlyError(cvis_status status, const std::string& message)
      : std::runtime_error(message), status(status) {}
  cvis_status status;
};

enum class PlyType { kInt8, kUInt8, kInt16, kUInt16, kInt32, kUInt32, kFloat32, kFloat64 };

inline size_t PlyTypeSize(PlyType type) {
  switch (type) {
    case PlyType::kInt8: case PlyType::kUInt8: return 1;
    case PlyType::kInt16: case PlyType::kUInt16: return 2;
    case PlyType::kInt32: case PlyType::kUInt32: case PlyType::kFloat32: return 4;
    case PlyType::kFloat64: return 8;
  }
  return 0;
}

inline bool PlyTypeIsFloat(PlyType type) {
  return type == PlyType::kFloat32 || type == PlyType::kFloat64;
}

struct PlyProperty {
  std::string name;
  PlyType type = PlyType::kFloat32;  // the item type for a list
  bool is_list = false;
  PlyType count_type = PlyType::kUInt8;
};

struct PlyElement {
  std::string name;
  int64_t count = 0;
  std::vector<PlyProperty> properties;
};

struct PlyHeader {
  enum class Format { kAscii, kBinaryLittleEndian, kBinaryBigEndian };
  Format format = Format::kAscii;
  std::vector<PlyElement> elements;
  size_t body_offset = 0;  // bytes from the start of the file to the first body byte
};

// Parses the header at the start of bytes (throws PlyError(CVIS_DECODE_ERROR, what)).
PlyHeader ParsePlyHeader(const char* bytes, size_t size);

}  // namespace cvis
