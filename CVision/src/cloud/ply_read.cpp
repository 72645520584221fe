// Reading PLY bodies: every element in file order, keeping vertex positions, normals, colours
// and face indices, and stepping over everything else (lists included) by its declared types.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "../io/image_io.h"
#include "../util/status.h"
#include "ply.h"
#include "ply_header.h"

namespace cvis {
namespace {

// Reads the values of a PLY body one at a time, binary in either byte order or ascii tokens.
class BodyReader {
 public:
  BodyReader(const char* data, const char* end, PlyHeader::Format format)
      : cursor_(data), end_(end), format_(format) {}

  double Read(PlyType type) {
    if (format_ == PlyHeader::Format::kAscii) return ReadAscii();
    const size_t size = PlyTypeSize(type);
    if (size_t(end_ - cursor_) < size) throw PlyError(CVIS_DECODE_ERROR, "file ends early");
    // The value's bytes in host (little-endian) order, swapped for a big-endian file.
    unsigned char bytes[8];
    const bool swap = format_ == PlyHeader::Format::kBinaryBigEndian;
    for (size_t k = 0; k < size; ++k) bytes[k] = uint8_t(cursor_[swap ? size - 1 - k : k]);
    cursor_ += size;
    switch (type) {
      case PlyType::kInt8: return double(int8_t(bytes[0]));
      case PlyType::kUInt8: return double(bytes[0]);
      case PlyType::kInt16: { int16_t v; std::memcpy(&v, bytes, 2); return v; }
      case PlyType::kUInt16: { uint16_t v; std::memcpy(&v, bytes, 2); return v; }
      case PlyType::kInt32: { int32_t v; std::memcpy(&v, bytes, 4); return v; }
      case PlyType::kUInt32: { uint32_t v; std::memcpy(&v, bytes, 4); return v; }
      case PlyType::kFloat32: { float v; std::memcpy(&v, bytes, 4); return v; }
      case PlyType::kFloat64: { double v; std::memcpy(&v, bytes, 8); return v; }
    }
    return 0.0;
  }

  // A list's length: a non-negative integer.
  int64_t ReadCount(PlyType type) {
    const double value = Read(type);
    if (!(value >= 0) || value != std::floor(value) || value > 1e9) {
      throw PlyError(CVIS_DECODE_ERROR, Str("bad list length ", value));
    }
    return int64_t(value);
  }

  void Skip(const PlyProperty& property) {
    if (!property.is_list) {
      Read(property.type);
      return;
    }
    const int64_t count = ReadCount(property.count_type);
    for (int64_t k = 0; k < count; ++k) Read(property.type);
  }

  size_t remaining() const { return size_t(end_ - cursor_); }

 private:
  // Ascii values are whitespace-separated tokens; line breaks carry no meaning of their own.
  // The buffer ends in a NUL byte, so strtod stops there at the latest.
  double ReadAscii() {
    while (cursor_ < end_ && (*cursor_ == ' ' || *cursor_ == '\t' || *cursor_ == '\n' ||
                              *cursor_ == '\r')) {
      ++cursor_;
    }
    if (cursor_ >= end_) throw PlyError(CVIS_DECODE_ERROR, "file ends early");
    char* next = nullptr;
    const double value = std::strtod(cursor_, &next);
    if (next == cursor_ || next > end_) {
      const char* stop = cursor_;
      while (stop < end_ && stop - cursor_ < 16 && !std::isspace(static_cast<unsigned char>(*stop))) ++stop;
      throw PlyError(CVIS_DECODE_ERROR, Str("'", std::string(cursor_, stop), "' is not a number"));
    }
    cursor_ = next;
    return value;
  }

  const char* cursor_;
  const char* end_;
  PlyHeader::Format format_;
};

// What a vertex property is for; kSkip for properties the cloud does not keep.
enum VertexRole { kX, kY, kZ, kNx, kNy, kNz, kRed, kGreen, kBlue, kU, kV, kNumRoles, kSkip = -1 };

int VertexRoleOf(const PlyProperty& property) {
  if (property.is_list) return kSkip;
  static const char* kNames[kNumRoles] = {"x", "y", "z", "nx", "ny", "nz", "red", "green", "blue", "s", "t"};
  for (int role = 0; role < kNumRoles; ++role) {
    if (property.name == kNames[role]) return role;
  }
  if (property.name == "diffuse_red") return kRed;
  if (property.name == "diffuse_green") return kGreen;
  if (property.name == "diffuse_blue") return kBlue;
  // Texture coordinates go by several names: s t (Blender, ours), u v, texture_u texture_v.
  if (property.name == "u" || property.name == "texture_u") return kU;
  if (property.name == "v" || property.name == "texture_v") return kV;
  return kSkip;
}

uint8_t ColorByte(double value, PlyType type) {
  // Colours stored as floats are in [0, 1]; integer types are taken as 0..255.
  const double scaled = PlyTypeIsFloat(type) ? value * 255.0 : value;
  return uint8_t(std::lround(std::clamp(std::isfinite(scaled) ? scaled : 0.0, 0.0, 255.0)));
}

void ReadVertices(const PlyElement& element, BodyReader* reader, cvis_cloud* cloud) {
  std::vector<int> roles;
  bool has[kNumRoles] = {};
  for (const PlyProperty& property : element.properties) {
    roles.push_back(VertexRoleOf(property));
    if (roles.back() != kSkip) has[roles.back()] = true;
  }
  if (!has[kX] || !has[kY] || !has[kZ]) {
    throw PlyError(CVIS_DECODE_ERROR, "vertex element lacks x, y or z");
  }
  const bool keep_normals = has[kNx] && has[kNy] && has[kNz];
  const bool keep_colors = has[kRed] && has[kGreen] && has[kBlue];
  const bool keep_uvs = has[kU] && has[kV];
  const size_t n = size_t(element.count);
  cloud->points.assign(3 * n, 0.0f);
  if (keep_normals) cloud->normals.assign(3 * n, 0.0f);
  if (keep_colors) cloud->colors.assign(3 * n, 0);
  if (keep_uvs) cloud->uvs.assign(2 * n, 0.0f);
  for (size_t i = 0; i < n; ++i) {
    for (size_t p = 0; p < roles.size(); ++p) {
      const PlyProperty& property = element.properties[p];
      const int role = roles[p];
      if (role == kSkip) {
        reader->Skip(property);
        continue;
      }
      const double value = reader->Read(property.type);
      if (role <= kZ) {
        cloud->points[3 * i + role] = float(value);
      } else if (role <= kNz) {
        if (keep_normals) cloud->normals[3 * i + role - kNx] = float(value);
      } else if (role <= kBlue) {
        if (keep_colors) cloud->colors[3 * i + role - kRed] = ColorByte(value, property.type);
      } else if (keep_uvs) {
        cloud->uvs[2 * i + role - kU] = float(value);
      }
    }
  }
}

void ReadFaces(const PlyElement& element, BodyReader* reader, cvis_cloud* cloud) {
  int indices_property = -1, texture_property = -1;
  for (size_t p = 0; p < element.properties.size(); ++p) {
    const PlyProperty& property = element.properties[p];
    if (property.is_list && (property.name == "vertex_indices" || property.name == "vertex_index")) {
      indices_property = int(p);
    }
    // MeshLab's texture page of a face.
    if (!property.is_list && property.name == "texnumber") texture_property = int(p);
  }
  if (indices_property < 0) {
    throw PlyError(CVIS_DECODE_ERROR, "face element has no vertex_indices list");
  }
  std::vector<double> polygon;
  for (int64_t f = 0; f < element.count; ++f) {
    int32_t texture = 0;
    for (size_t p = 0; p < element.properties.size(); ++p) {
      const PlyProperty& property = element.properties[p];
      if (int(p) == texture_property) {
        const double value = reader->Read(property.type);
        texture = std::isfinite(value) && value >= 0 && value < 65536 ? int32_t(value) : -1;
        continue;
      }
      if (int(p) != indices_property) {
        reader->Skip(property);
        continue;
      }
      const int64_t count = reader->ReadCount(property.count_type);
      polygon.resize(size_t(count));
      for (int64_t k = 0; k < count; ++k) {
        const double index = reader->Read(property.type);
        if (!(index >= 0) || index != std::floor(index) || index >= double(INT32_MAX)) {
          throw PlyError(CVIS_DECODE_ERROR, Str("face ", f, " has a bad vertex index ", index));
        }
        polygon[size_t(k)] = index;
      }
      // A polygon becomes a fan of triangles around its first corner.
      for (int64_t k = 1; k + 1 < count; ++k) {
        cloud->triangles.push_back(int32_t(polygon[0]));
        cloud->triangles.push_back(int32_t(polygon[size_t(k)]));
        cloud->triangles.push_back(int32_t(polygon[size_t(k + 1)]));
      }
    }
    if (texture_property >= 0) {
      cloud->triangle_textures.resize(cloud->triangles.size() / 3, texture);
    }
  }
}

// The least number of body bytes an element can take: binary lists take at least their count.
double MinimumBytes(const PlyElement& element, bool ascii) {
  double record = 0;
  for (const PlyProperty& property : element.properties) {
    record += ascii ? 2.0 : double(PlyTypeSize(property.is_list ? property.count_type : property.type));
  }
  return record * double(element.count);
}

void ReadBody(const std::vector<char>& bytes, cvis_cloud* cloud) {
  const PlyHeader header = ParsePlyHeader(bytes.data(), bytes.size() - 1);
  const bool ascii = header.format == PlyHeader::Format::kAscii;
  const char* body = bytes.data() + header.body_offset;
  const char* end = bytes.data() + bytes.size() - 1;  // the buffer's final NUL is no data
  // A header that promises more than the file holds is refused before anything is allocated.
  double needed = 0;
  for (const PlyElement& element : header.elements) needed += MinimumBytes(element, ascii);
  if (needed > double(end - body) + 1) {
    throw PlyError(CVIS_DECODE_ERROR, Str("truncated: the header declares at least ", needed,
                                          " bytes of data, the file has ", end - body));
  }
  BodyReader reader(body, end, header.format);
  bool has_vertices = false;
  for (const PlyElement& element : header.elements) {
    try {
      if (element.name == "vertex") {
        if (has_vertices) throw PlyError(CVIS_DECODE_ERROR, "a second vertex element");
        if (element.count > INT32_MAX) throw PlyError(CVIS_DECODE_ERROR, "too many vertices");
        has_vertices = true;
        ReadVertices(element, &reader, cloud);
      } else if (element.name == "face") {
        ReadFaces(element, &reader, cloud);
      } else {
        for (int64_t i = 0; i < element.count; ++i) {
          for (const PlyProperty& property : element.properties) reader.Skip(property);
        }
      }
    } catch (const PlyError& error) {
      throw PlyError(error.status, Str(error.what(), " in element '", element.name, "'"));
    }
  }
  if (!has_vertices) throw PlyError(CVIS_DECODE_ERROR, "no vertex element");
  const int64_t num_points = cloud->NumPoints();
  for (size_t k = 0; k < cloud->triangles.size(); ++k) {
    if (cloud->triangles[k] >= num_points) {
      throw PlyError(CVIS_DECODE_ERROR, Str("face ", k / 3, " refers to vertex ", cloud->triangles[k],
                                            " of ", num_points));
    }
  }
}

}  // namespace

cvis_status ReadPly(const std::string& path, cvis_cloud* cloud) {
  std::unique_ptr<FILE, int (*)(FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!file) {
    return Fail(CVIS_IO_ERROR, Str(BaseName(path), ": cannot open (", std::strerror(errno), ")"));
  }
  // One read of the whole file: clouds of a few million points are tens of megabytes.
  std::vector<char> bytes;
  if (fseeko(file.get(), 0, SEEK_END) != 0) {
    return Fail(CVIS_IO_ERROR, Str(BaseName(path), ": cannot seek (", std::strerror(errno), ")"));
  }
  const off_t size = ftello(file.get());
  std::rewind(file.get());
  if (size < 0) {
    return Fail(CVIS_IO_ERROR, Str(BaseName(path), ": cannot size (", std::strerror(errno), ")"));
  }
  bytes.resize(size_t(size));
  if (std::fread(bytes.data(), 1, bytes.size(), file.get()) != bytes.size()) {
    return Fail(CVIS_IO_ERROR, Str(BaseName(path), ": read failed (", std::strerror(errno), ")"));
  }
  bytes.push_back('\0');  // stops strtod at the end of an ascii body
  try {
    *cloud = cvis_cloud();
    ReadBody(bytes, cloud);
  } catch (const PlyError& error) {
    *cloud = cvis_cloud();
    return Fail(error.status, Str(BaseName(path), ": ", error.what()));
  }
  return CVIS_OK;
}

}  // namespace cvis
