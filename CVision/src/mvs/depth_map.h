// A per-pixel depth, normal and cost map of one view, and its file format (cvis_mvs.h):
// "CVISDM01", int32 width, int32 height, then width*height float32 depths, width*height*3
// float32 normals, width*height float32 costs, row-major, little-endian.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "../../include/cvis_core.h"

namespace cvis {
namespace mvs {

struct DepthMap {
  int width = 0, height = 0;
  std::vector<float> depth;   // width * height; z-depth in the view's camera frame, 0 = invalid
  std::vector<float> normal;  // width * height * 3; unit normal in the camera frame, towards it
  std::vector<float> cost;    // width * height; final matching cost (1 - NCC [+ geometric term])

  DepthMap() = default;
  // All pixels invalid: depth 0, normal (0, 0, -1) (facing the camera), cost 2 (worst NCC).
  DepthMap(int width, int height);

  size_t Index(int x, int y) const { return size_t(y) * size_t(width) + size_t(x); }
  float Depth(int x, int y) const { return depth[Index(x, y)]; }
  const float* Normal(int x, int y) const { return &normal[3 * Index(x, y)]; }
  // Bytes held by the arrays (what a cache charges for the map).
  size_t Bytes() const { return (depth.size() + normal.size() + cost.size()) * sizeof(float); }

  // Reads path into *map. CVIS_IO_ERROR when the file cannot be opened, CVIS_DECODE_ERROR when it
  // is not a depth map or is truncated; the message names the file.
  static cvis_status Read(const std::string& path, DepthMap* map);
  // Writes to path + ".tmp" and renames it to path, so a reader never sees a torn map.
  cvis_status Write(const std::string& path) const;
};

}  // namespace mvs
}  // namespace cvis

// The opaque C handle is the map itself.
struct cvis_depth_map {
  cvis::mvs::DepthMap map;
};
