// Which views see which faces: frustum, facing, mask and occlusion tests. Occlusion is one ray
// per (view, face) from the view centre towards the face centroid, cast with Embree: a face
// hidden behind another part of the mesh must not take its colour from the part in front.
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include <embree3/rtcore.h>

#include "../io/image_io.h"
#include "../util/parallel.h"
#include "texturing.h"

namespace cvis::texture {

void Project(const cvis_mvs_view& view, const std::array<double, 3>& x, double* u, double* v,
             double* depth) {
  const double* R = view.rotation;
  const double* t = view.translation;
  const double cx = R[0] * x[0] + R[1] * x[1] + R[2] * x[2] + t[0];
  const double cy = R[3] * x[0] + R[4] * x[1] + R[5] * x[2] + t[1];
  const double cz = R[6] * x[0] + R[7] * x[1] + R[8] * x[2] + t[2];
  *depth = cz;
  const double z = cz > 1e-12 ? cz : 1e-12;
  *u = view.fx * cx / z + view.cx;
  *v = view.fy * cy / z + view.cy;
}

namespace {

// The view's centre in world coordinates, -R^T t.
std::array<double, 3> Centre(const cvis_mvs_view& view) {
  const double* R = view.rotation;
  const double* t = view.translation;
  return {-(R[0] * t[0] + R[3] * t[1] + R[6] * t[2]), -(R[1] * t[0] + R[4] * t[1] + R[7] * t[2]),
          -(R[2] * t[0] + R[5] * t[1] + R[8] * t[2])};
}

// An Embree scene of the mesh, released with it.
class RayScene {
 public:
  explicit RayScene(const Mesh& mesh) {
    device_ = rtcNewDevice("threads=1");
    if (device_ == nullptr) throw std::runtime_error("Embree: no device");
    scene_ = rtcNewScene(device_);
    RTCGeometry geometry = rtcNewGeometry(device_, RTC_GEOMETRY_TYPE_TRIANGLE);
    auto* vertices = static_cast<float*>(rtcSetNewGeometryBuffer(
        geometry, RTC_BUFFER_TYPE_VERTEX, 0, RTC_FORMAT_FLOAT3, 3 * sizeof(float), mesh.num_vertices));
    auto* indices = static_cast<uint32_t*>(rtcSetNewGeometryBuffer(
        geometry, RTC_BUFFER_TYPE_INDEX, 0, RTC_FORMAT_UINT3, 3 * sizeof(uint32_t), mesh.num_faces));
    if (vertices == nullptr || indices == nullptr) throw std::runtime_error("Embree: no buffers");
    std::copy(mesh.vertices, mesh.vertices + 3 * mesh.num_vertices, vertices);
    for (int64_t i = 0; i < 3 * mesh.num_faces; ++i) indices[i] = uint32_t(mesh.faces[i]);
    rtcCommitGeometry(geometry);
    rtcAttachGeometry(scene_, geometry);
    rtcReleaseGeometry(geometry);
    rtcCommitScene(scene_);
  }
  ~RayScene() {
    rtcReleaseScene(scene_);
    rtcReleaseDevice(device_);
  }
  RayScene(const RayScene&) = delete;
  RayScene& operator=(const RayScene&) = delete;

  // Whether the segment from origin to origin + far * direction hits any face.
  bool Occluded(const std::array<double, 3>& origin, const std::array<double, 3>& direction,
                double far) const {
    RTCIntersectContext context;
    rtcInitIntersectContext(&context);
    RTCRay ray;
    ray.org_x = float(origin[0]);
    ray.org_y = float(origin[1]);
    ray.org_z = float(origin[2]);
    ray.dir_x = float(direction[0]);
    ray.dir_y = float(direction[1]);
    ray.dir_z = float(direction[2]);
    ray.tnear = 0.0f;
    ray.tfar = float(far);
    ray.mask = 0xFFFFFFFFu;
    ray.flags = 0;
    ray.time = 0.0f;
    ray.id = 0;
    rtcOccluded1(scene_, &context, &ray);
    return ray.tfar < 0.0f;  // Embree sets tfar to -inf on a hit
  }

 private:
  RTCDevice device_ = nullptr;
  RTCScene scene_ = nullptr;
};

bool Kept(const cv::Mat& mask, double u, double v) {
  if (mask.empty()) return true;
  const int x = int(std::floor(u)), y = int(std::floor(v));
  if (x < 0 || y < 0 || x >= mask.cols || y >= mask.rows) return false;
  return mask.at<uint8_t>(y, x) >= 128;
}

}  // namespace

std::vector<std::vector<Candidate>> FindCandidateViews(const Mesh& mesh,
                                                       const std::vector<cvis_mvs_view>& views,
                                                       const char* const* image_paths,
                                                       const std::vector<cv::Mat>& masks,
                                                       const cvis_texture_options& options) {
  const RayScene rays(mesh);
  const int64_t n = mesh.num_faces;
  // Per view, the faces it sees and their quality; merged per face afterwards, so that threads
  // never share a vector.
  std::vector<std::vector<std::pair<int64_t, Candidate>>> seen(views.size());
  ParallelFor(int64_t(views.size()), options.num_threads, 1, [&](int64_t begin, int64_t end, int) {
    for (int64_t v = begin; v < end; ++v) {
      const cvis_mvs_view& view = views[v];
      cv::Mat image;
      if (DecodeImage(image_paths[v], false, &image) != CVIS_OK) throw std::runtime_error(cvis_last_error_message());
      const std::array<double, 3> centre = Centre(view);
      const cv::Mat& mask = masks[v];
      for (int64_t f = 0; f < n; ++f) {
        const auto a = mesh.Vertex(mesh.Corner(f, 0)), b = mesh.Vertex(mesh.Corner(f, 1)),
                   c = mesh.Vertex(mesh.Corner(f, 2));
        double u[3], w[3], depth[3];
        Project(view, a, &u[0], &w[0], &depth[0]);
        Project(view, b, &u[1], &w[1], &depth[1]);
        Project(view, c, &u[2], &w[2], &depth[2]);
        bool inside = true;
        for (int k = 0; k < 3 && inside; ++k) {
          inside = depth[k] > 0 && u[k] >= 0 && w[k] >= 0 && u[k] <= view.width && w[k] <= view.height;
        }
        if (!inside) continue;
        // The mask is tested at the centroid only. Where an object meets the ground, the mask's
        // edge runs across faces its front views see squarely; testing their corners too (even
        // pulled a quarter of the way in) takes those views away (docs/benchmarks.md). A corner
        // past the edge costs at most its pixel of background.
        const double mu = (u[0] + u[1] + u[2]) / 3, mw = (w[0] + w[1] + w[2]) / 3;
        if (!Kept(mask, mu, mw)) continue;
        // Facing: the face normal against the direction to the camera.
        const std::array<double, 3> e1{b[0] - a[0], b[1] - a[1], b[2] - a[2]};
        const std::array<double, 3> e2{c[0] - a[0], c[1] - a[1], c[2] - a[2]};
        const std::array<double, 3> normal{e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                                           e1[0] * e2[1] - e1[1] * e2[0]};
        const double normal_length = std::sqrt(normal[0] * normal[0] + normal[1] * normal[1] + normal[2] * normal[2]);
        if (normal_length <= 0) continue;
        const std::array<double, 3> centroid{(a[0] + b[0] + c[0]) / 3, (a[1] + b[1] + c[1]) / 3,
                                             (a[2] + b[2] + c[2]) / 3};
        const std::array<double, 3> to_camera{centre[0] - centroid[0], centre[1] - centroid[1],
                                              centre[2] - centroid[2]};
        const double distance =
            std::sqrt(to_camera[0] * to_camera[0] + to_camera[1] * to_camera[1] + to_camera[2] * to_camera[2]);
        const double cosine =
            (normal[0] * to_camera[0] + normal[1] * to_camera[1] + normal[2] * to_camera[2]) / (normal_length * distance);
        if (cosine < options.min_view_cos) continue;
        // Cast from the face towards the camera, starting a little off the surface so the face
        // and its neighbours do not hide it: the face's own size sets "a little".
        const double size = std::sqrt(0.5 * normal_length);
        const std::array<double, 3> direction{to_camera[0] / distance, to_camera[1] / distance,
                                              to_camera[2] / distance};
        const double offset = std::min(0.5 * distance, 0.5 * size + 1e-6 * distance);
        const std::array<double, 3> origin{centroid[0] + offset * direction[0], centroid[1] + offset * direction[1],
                                           centroid[2] + offset * direction[2]};
        if (rays.Occluded(origin, direction, distance - offset)) continue;
        const double area = 0.5 * std::abs((u[1] - u[0]) * (w[2] - w[0]) - (u[2] - u[0]) * (w[1] - w[0]));
        if (area <= 0) continue;
        // Mean colour at the centroid and halfway to each corner.
        std::array<float, 3> color{0, 0, 0};
        const double su[4] = {mu, 0.5 * (u[0] + mu), 0.5 * (u[1] + mu), 0.5 * (u[2] + mu)};
        const double sw[4] = {mw, 0.5 * (w[0] + mw), 0.5 * (w[1] + mw), 0.5 * (w[2] + mw)};
        for (int k = 0; k < 4; ++k) {
          const auto rgb = SampleBGR(image, su[k], sw[k]);
          for (int c = 0; c < 3; ++c) color[c] += 0.25f * rgb[c];
        }
        seen[v].push_back({f, Candidate{int32_t(v), float(area), color}});
      }
    }
  });
  std::vector<std::vector<Candidate>> candidates(n);
  for (size_t v = 0; v < views.size(); ++v) {
    for (const auto& [f, candidate] : seen[v]) candidates[f].push_back(candidate);
  }
  const size_t keep = size_t(std::max(1, options.max_views_per_face));
  for (auto& list : candidates) {
    std::sort(list.begin(), list.end(), [](const Candidate& x, const Candidate& y) {
      return x.quality != y.quality ? x.quality > y.quality : x.view < y.view;
    });
    if (list.size() > keep) list.resize(keep);
  }
  return candidates;
}

}  // namespace cvis::texture
