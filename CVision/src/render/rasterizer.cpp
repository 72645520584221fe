#include "rasterizer.h"

#include <algorithm>
#include <cmath>

namespace cvis {

namespace {

// The grey of a mesh without colours.
constexpr float kGrey = 180.0f;

// A projected corner: pixel coordinates, 1 / z, and the attributes divided by z.
struct ScreenVertex {
  double x, y;
  double inverse_z;
  double r, g, b, u, v;  // attribute / z
};

// The edge function of the directed edge a -> b at p: positive to the left of a -> b in the
// y-down pixel frame's (x, y) cross product. Evaluated with the edge's endpoints in a canonical
// order (lexicographic), so the two triangles sharing an edge get exactly opposite values and a
// pixel centre on it is never drawn twice or not at all.
inline double Edge(const ScreenVertex& a, const ScreenVertex& b, double px, double py) {
  const bool swapped = (b.x < a.x) || (b.x == a.x && b.y < a.y);
  const ScreenVertex& p = swapped ? b : a;
  const ScreenVertex& q = swapped ? a : b;
  const double value = (q.x - p.x) * (py - p.y) - (q.y - p.y) * (px - p.x);
  return swapped ? -value : value;
}

// Top-left rule: a pixel centre exactly on an edge belongs to the triangle for which the
// directed edge (in the orientation with a positive area) points this way; the neighbour sees
// the edge reversed and leaves the pixel.
inline bool OwnsEdge(const ScreenVertex& a, const ScreenVertex& b) {
  const double dy = b.y - a.y, dx = b.x - a.x;
  return dy > 0 || (dy == 0 && dx < 0);
}

CameraVertex Lerp(const CameraVertex& a, const CameraVertex& b, double t) {
  const float s = static_cast<float>(t);
  return {a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t, a.z + (b.z - a.z) * t,
          a.r + (b.r - a.r) * s,  a.g + (b.g - a.g) * s,  a.b + (b.b - a.b) * s,
          a.u + (b.u - a.u) * s,  a.v + (b.v - a.v) * s};
}

}  // namespace

Rasterizer::Rasterizer(const cvis_render_camera& camera)
    : camera_(camera),
      inverse_depth_(size_t(camera.width) * size_t(camera.height), 0.0f),
      rgba_(size_t(camera.width) * size_t(camera.height) * 4, 0) {}

void Rasterizer::CopyRGBA(uint8_t* rgba) const { std::copy(rgba_.begin(), rgba_.end(), rgba); }

void Rasterizer::DrawMesh(const cvis_render_mesh& mesh) {
  mesh_ = &mesh;
  textured_ = mesh.texture != nullptr && mesh.uvs != nullptr && mesh.texture_width > 0 &&
              mesh.texture_height > 0;
  const double* R = camera_.rotation;
  const double* t = camera_.translation;
  std::vector<CameraVertex> vertices(size_t(mesh.num_vertices));
  for (int64_t i = 0; i < mesh.num_vertices; ++i) {
    const double X = mesh.positions[3 * i], Y = mesh.positions[3 * i + 1], Z = mesh.positions[3 * i + 2];
    CameraVertex& v = vertices[size_t(i)];
    v.x = R[0] * X + R[1] * Y + R[2] * Z + t[0];
    v.y = R[3] * X + R[4] * Y + R[5] * Z + t[1];
    v.z = R[6] * X + R[7] * Y + R[8] * Z + t[2];
    if (mesh.colors != nullptr) {
      v.r = mesh.colors[3 * i], v.g = mesh.colors[3 * i + 1], v.b = mesh.colors[3 * i + 2];
    } else {
      v.r = v.g = v.b = kGrey;
    }
    v.u = mesh.uvs != nullptr ? mesh.uvs[2 * i] : 0.0f;
    v.v = mesh.uvs != nullptr ? mesh.uvs[2 * i + 1] : 0.0f;
  }
  for (int64_t f = 0; f < mesh.num_faces; ++f) {
    const int32_t* face = mesh.faces + 3 * f;
    DrawClipped(vertices[size_t(face[0])], vertices[size_t(face[1])], vertices[size_t(face[2])]);
  }
  mesh_ = nullptr;
}

void Rasterizer::DrawClipped(const CameraVertex& a, const CameraVertex& b, const CameraVertex& c) {
  const double near = camera_.near_depth;
  const CameraVertex* in[3] = {&a, &b, &c};
  int inside = 0;
  for (const CameraVertex* v : in) inside += v->z >= near ? 1 : 0;
  if (inside == 0) return;
  if (inside == 3) {
    const CameraVertex corners[3] = {a, b, c};
    DrawTriangle(corners);
    return;
  }
  // Sutherland-Hodgman against one plane: at most four corners, drawn as a fan.
  CameraVertex polygon[4];
  int n = 0;
  for (int k = 0; k < 3; ++k) {
    const CameraVertex& p = *in[k];
    const CameraVertex& q = *in[(k + 1) % 3];
    const bool p_in = p.z >= near, q_in = q.z >= near;
    if (p_in) polygon[n++] = p;
    if (p_in != q_in) {
      CameraVertex cut = Lerp(p, q, (near - p.z) / (q.z - p.z));
      cut.z = near;
      polygon[n++] = cut;
    }
  }
  for (int k = 1; k + 1 < n; ++k) {
    const CameraVertex corners[3] = {polygon[0], polygon[k], polygon[k + 1]};
    DrawTriangle(corners);
  }
}

void Rasterizer::DrawTriangle(const CameraVertex* corners) {
  ScreenVertex s[3];
  for (int k = 0; k < 3; ++k) {
    const CameraVertex& c = corners[k];
    const double iz = 1.0 / c.z;
    s[k] = {camera_.fx * c.x * iz + camera_.cx, camera_.fy * c.y * iz + camera_.cy, iz,
            c.r * iz, c.g * iz, c.b * iz, c.u * iz, c.v * iz};
  }
  double area = Edge(s[0], s[1], s[2].x, s[2].y);
  if (!(std::abs(area) > 0.0) || !std::isfinite(area)) return;  // degenerate, or NaN corners
  // Both sides are drawn: orient the corners so that the area is positive.
  if (area < 0) {
    std::swap(s[1], s[2]);
    area = -area;
  }
  const int W = camera_.width, H = camera_.height;
  const double min_x = std::min({s[0].x, s[1].x, s[2].x}), max_x = std::max({s[0].x, s[1].x, s[2].x});
  const double min_y = std::min({s[0].y, s[1].y, s[2].y}), max_y = std::max({s[0].y, s[1].y, s[2].y});
  // Pixel i's centre is i + 0.5.
  const int x0 = static_cast<int>(std::max(0.0, std::ceil(min_x - 0.5)));
  const int x1 = static_cast<int>(std::min(double(W - 1), std::floor(max_x - 0.5)));
  const int y0 = static_cast<int>(std::max(0.0, std::ceil(min_y - 0.5)));
  const int y1 = static_cast<int>(std::min(double(H - 1), std::floor(max_y - 0.5)));
  if (x0 > x1 || y0 > y1) return;
  const bool own12 = OwnsEdge(s[1], s[2]), own20 = OwnsEdge(s[2], s[0]), own01 = OwnsEdge(s[0], s[1]);
  const double inverse_area = 1.0 / area;
  for (int y = y0; y <= y1; ++y) {
    const double py = y + 0.5;
    for (int x = x0; x <= x1; ++x) {
      const double px = x + 0.5;
      const double e0 = Edge(s[1], s[2], px, py);  // weight of corner 0
      if (e0 < 0 || (e0 == 0 && !own12)) continue;
      const double e1 = Edge(s[2], s[0], px, py);
      if (e1 < 0 || (e1 == 0 && !own20)) continue;
      const double e2 = Edge(s[0], s[1], px, py);
      if (e2 < 0 || (e2 == 0 && !own01)) continue;
      const double w0 = e0 * inverse_area, w1 = e1 * inverse_area, w2 = e2 * inverse_area;
      const double iz = w0 * s[0].inverse_z + w1 * s[1].inverse_z + w2 * s[2].inverse_z;
      const size_t at = size_t(y) * size_t(W) + size_t(x);
      if (!(iz > inverse_depth_[at])) continue;  // nearer is a larger 1 / z
      inverse_depth_[at] = static_cast<float>(iz);
      const double z = 1.0 / iz;
      float rgb[3];
      if (textured_) {
        const double u = (w0 * s[0].u + w1 * s[1].u + w2 * s[2].u) * z;
        const double v = (w0 * s[0].v + w1 * s[1].v + w2 * s[2].v) * z;
        SampleTexture(static_cast<float>(u), static_cast<float>(v), rgb);
      } else {
        rgb[0] = static_cast<float>((w0 * s[0].r + w1 * s[1].r + w2 * s[2].r) * z);
        rgb[1] = static_cast<float>((w0 * s[0].g + w1 * s[1].g + w2 * s[2].g) * z);
        rgb[2] = static_cast<float>((w0 * s[0].b + w1 * s[1].b + w2 * s[2].b) * z);
      }
      uint8_t* out = &rgba_[4 * at];
      for (int k = 0; k < 3; ++k) {
        out[k] = static_cast<uint8_t>(std::clamp(std::lround(rgb[k]), 0L, 255L));
      }
      out[3] = 255;
    }
  }
}

void Rasterizer::SampleTexture(float u, float v, float* rgb) const {
  const int W = mesh_->texture_width, H = mesh_->texture_height;
  // Texel (i, j)'s centre is at u = (i + 0.5) / W, v = 1 - (j + 0.5) / H (v runs up, rows down).
  const float x = u * W - 0.5f, y = (1.0f - v) * H - 0.5f;
  if (!std::isfinite(x) || !std::isfinite(y)) {
    rgb[0] = rgb[1] = rgb[2] = 0;
    return;
  }
  const float fx = std::floor(x), fy = std::floor(y);
  const float ax = x - fx, ay = y - fy;
  const auto clamp_index = [](float value, int size) {
    return static_cast<int>(std::clamp(value, 0.0f, float(size - 1)));
  };
  const int xa = clamp_index(fx, W), xb = clamp_index(fx + 1, W);
  const int ya = clamp_index(fy, H), yb = clamp_index(fy + 1, H);
  const uint8_t* t = mesh_->texture;
  const uint8_t* p00 = t + 3 * (size_t(ya) * W + xa);
  const uint8_t* p10 = t + 3 * (size_t(ya) * W + xb);
  const uint8_t* p01 = t + 3 * (size_t(yb) * W + xa);
  const uint8_t* p11 = t + 3 * (size_t(yb) * W + xb);
  for (int k = 0; k < 3; ++k) {
    const float top = p00[k] + (p10[k] - p00[k]) * ax;
    const float bottom = p01[k] + (p11[k] - p01[k]) * ax;
    rgb[k] = top + (bottom - top) * ay;
  }
}

}  // namespace cvis
