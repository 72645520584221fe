#include "ply_header.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "../util/status.h"

namespace cvis {
namespace {

PlyType ParseType(const std::string& word, int line) {
  // Both the PLY 1.0 names and the sized aliases (rply, Open3D and Blender write either).
  static const struct { const char* name; PlyType type; } kTypes[] = {
      {"char", PlyType::kInt8},     {"int8", PlyType::kInt8},       {"uchar", PlyType::kUInt8},
      {"uint8", PlyType::kUInt8},   {"short", PlyType::kInt16},     {"int16", PlyType::kInt16},
      {"ushort", PlyType::kUInt16}, {"uint16", PlyType::kUInt16},   {"int", PlyType::kInt32},
      {"int32", PlyType::kInt32},   {"uint", PlyType::kUInt32},     {"uint32", PlyType::kUInt32},
      {"float", PlyType::kFloat32}, {"float32", PlyType::kFloat32}, {"double", PlyType::kFloat64},
      {"float64", PlyType::kFloat64}};
  for (const auto& entry : kTypes) {
    if (word == entry.name) return entry.type;
  }
  throw PlyError(CVIS_DECODE_ERROR, Str("header line ", line, ": unknown property type '", word, "'"));
}

}  // namespace

PlyHeader ParsePlyHeader(const char* bytes, size_t size) {
  PlyHeader header;
  size_t position = 0;
  int line_number = 0;
  bool has_format = false;
  while (true) {
    if (position >= size) throw PlyError(CVIS_DECODE_ERROR, "header has no end_header line");
    const char* start = bytes + position;
    const void* newline = std::memchr(start, '\n', size - position);
    if (newline == nullptr) throw PlyError(CVIS_DECODE_ERROR, "header has no end_header line");
    size_t length = static_cast<const char*>(newline) - start;
    position += length + 1;
    ++line_number;
    if (length > 0 && start[length - 1] == '\r') --length;  // files written on Windows
    std::string line(start, length);
    if (line_number == 1) {
      if (line != "ply") throw PlyError(CVIS_DECODE_ERROR, "not a PLY file (no 'ply' on the first line)");
      continue;
    }
    std::istringstream words(line);
    std::string keyword;
    words >> keyword;
    if (keyword.empty() || keyword == "comment" || keyword == "obj_info") continue;
    if (keyword == "end_header") break;
    if (keyword == "format") {
      std::string format, version;
      words >> format >> version;
      if (format == "ascii") {
        header.format = PlyHeader::Format::kAscii;
      } else if (format == "binary_little_endian") {
        header.format = PlyHeader::Format::kBinaryLittleEndian;
      } else if (format == "binary_big_endian") {
        header.format = PlyHeader::Format::kBinaryBigEndian;
      } else {
        throw PlyError(CVIS_DECODE_ERROR, Str("header line ", line_number, ": unknown format '", format, "'"));
      }
      has_format = true;
    } else if (keyword == "element") {
      PlyElement element;
      std::string count;
      words >> element.name >> count;
      char* end = nullptr;
      errno = 0;
      const long long value = std::strtoll(count.c_str(), &end, 10);
      if (element.name.empty() || count.empty() || *end != '\0' || errno != 0 || value < 0) {
        throw PlyError(CVIS_DECODE_ERROR, Str("header line ", line_number, ": bad element line '", line, "'"));
      }
      element.count = value;
      header.elements.push_back(std::move(element));
    } else if (keyword == "property") {
      if (header.elements.empty()) {
        throw PlyError(CVIS_DECODE_ERROR, Str("header line ", line_number, ": property before any element"));
      }
      PlyProperty property;
      std::string type;
      words >> type;
      if (type == "list") {
        std::string count_type, item_type;
        words >> count_type >> item_type;
        property.is_list = true;
        property.count_type = ParseType(count_type, line_number);
        property.type = ParseType(item_type, line_number);
        if (PlyTypeIsFloat(property.count_type)) {
          throw PlyError(CVIS_DECODE_ERROR, Str("header line ", line_number, ": list count of a float type"));
        }
      } else {
        property.type = ParseType(type, line_number);
      }
      words >> property.name;
      if (property.name.empty()) {
        throw PlyError(CVIS_DECODE_ERROR, Str("header line ", line_number, ": property without a name"));
      }
      header.elements.back().properties.push_back(std::move(property));
    } else {
      throw PlyError(CVIS_DECODE_ERROR, Str("header line ", line_number, ": unknown keyword '", keyword, "'"));
    }
  }
  if (!has_format) throw PlyError(CVIS_DECODE_ERROR, "header has no format line");
  header.body_offset = position;
  return header;
}

}  // namespace cvis
