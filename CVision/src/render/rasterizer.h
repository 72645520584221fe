// A z-buffer rasteriser of triangles with ambient (unlit) shading, for offscreen renders of a
// model: exact coverage (pixel centres, top-left fill rule), perspective-correct interpolation
// of colours and texture coordinates, near-plane clipping in the camera frame.
#pragma once

#include <cstdint>
#include <vector>

#include "../../include/cvis_render.h"

namespace cvis {

// A vertex after the camera transform: position in the camera frame and its attributes
// (RGB 0..255 and UV), which clipping interpolates linearly in the camera frame.
struct CameraVertex {
  double x, y, z;
  float r, g, b;
  float u, v;
};

class Rasterizer {
 public:
  // A frame of camera.width x camera.height pixels, empty (alpha 0) and with no depth.
  explicit Rasterizer(const cvis_render_camera& camera);

  // Draws mesh (already validated: sizes, indices) into the frame.
  void DrawMesh(const cvis_render_mesh& mesh);

  // The frame as RGBA, top row first.
  void CopyRGBA(uint8_t* rgba) const;

 private:
  // Clips a triangle against z = near_depth and draws what is left (one or two triangles).
  void DrawClipped(const CameraVertex& a, const CameraVertex& b, const CameraVertex& c);
  // Draws a triangle whose corners are all at depth >= near_depth.
  void DrawTriangle(const CameraVertex* corners);
  // The colour at texture coordinates (u, v), bilinear, clamped to the border.
  void SampleTexture(float u, float v, float* rgb) const;

  cvis_render_camera camera_;
  const cvis_render_mesh* mesh_ = nullptr;
  bool textured_ = false;
  std::vector<float> inverse_depth_;  // 1 / z of the nearest surface so far, 0 = none
  std::vector<uint8_t> rgba_;
};

}  // namespace cvis
