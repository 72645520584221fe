// The storage behind an opaque cvis_cloud: points with optional normals and colours, and the
// triangles of a mesh (empty for a point cloud).
#pragma once

#include <cstdint>
#include <vector>

struct cvis_cloud {
  std::vector<float> points;      // x y z per point
  std::vector<float> normals;     // nx ny nz per point, or empty
  std::vector<uint8_t> colors;    // r g b per point, or empty
  std::vector<int32_t> triangles; // three vertex indices per triangle
  std::vector<float> uvs;         // u v per point (PLY s t), or empty
  std::vector<int32_t> triangle_textures;  // texture page per triangle (PLY texnumber), or empty

  int64_t NumPoints() const { return int64_t(points.size() / 3); }
  int64_t NumTriangles() const { return int64_t(triangles.size() / 3); }
};
