// The envelope of a room seen from inside, from every view's photometric depth map together
// (cvis_mvs_room_envelope in cvis_mvs.h). A view alone sees a bare ceiling through its creases
// with one or two walls, which lie on a line and fix no plane (planes.cpp); the views together
// hold the creases of all four walls, the tops of the vertical corners, and the skirting around
// the floor.
#include <algorithm>
#include <string>
#include <vector>

#include "../../include/cvis_mvs.h"
#include "../util/status.h"
#include "depth_map.h"
#include "planes.h"
#include "workspace.h"

namespace cvis {
namespace mvs {
namespace {

// The planes are looked for in about this many sure pixels, spread evenly over the views (each
// view's spread evenly over its own): enough for a side that holds 0.5 % of them
// (kSceneEnvelope) to count hundreds, few enough for RANSAC's passes over them to take seconds.
constexpr size_t kSceneSample = 100000;

}  // namespace
}  // namespace mvs
}  // namespace cvis

extern "C" cvis_status cvis_mvs_room_envelope(cvis_mvs_workspace* workspace, const char* const* depth_paths,
                                              uint64_t seed, cvis_mvs_plane out_planes[6], int32_t* out_count) {
  using namespace cvis;
  using namespace cvis::mvs::internal;
  return Guard([&] {
    if (workspace == nullptr || depth_paths == nullptr || out_planes == nullptr || out_count == nullptr) {
      return Fail(CVIS_INVALID_ARGUMENT, "cvis_mvs_room_envelope: null argument");
    }
    *out_count = 0;
    mvs::Workspace& ws = workspace->workspace;
    std::vector<int> views;
    for (int v = 0; v < ws.NumViews(); ++v) {
      if (depth_paths[v] != nullptr) views.push_back(v);
    }
    if (views.empty()) return CVIS_OK;
    const size_t quota = std::max<size_t>(1, mvs::kSceneSample / views.size());
    std::vector<SamplePoint> sample;
    cv::Vec3d middle(0, 0, 0);
    for (const int v : views) {
      std::shared_ptr<const mvs::DepthMap> map;
      if (cvis_status s = ws.Depth(depth_paths[v], &map); s != CVIS_OK) return s;
      const mvs::View& view = ws.view(v);
      if (map->width != view.width || map->height != view.height) {
        return Fail(CVIS_INVALID_ARGUMENT, Str(depth_paths[v], ": depth map is ", map->width, "x", map->height,
                                               ", its view ", view.width, "x", view.height));
      }
      std::vector<size_t> sure;
      for (size_t i = 0; i < map->depth.size(); ++i) {
        if (map->depth[i] > 0 && map->cost[i] <= kSureCost) sure.push_back(i);
      }
      const size_t step = (sure.size() + quota - 1) / quota;
      for (size_t k = 0; k < sure.size(); k += std::max<size_t>(1, step)) {
        const size_t i = sure[k];
        const double depth = map->depth[i];
        double cam[3], world[3];
        view.CamFromPixel(double(i % size_t(map->width)) + 0.5, double(i / size_t(map->width)) + 0.5, depth, cam);
        view.WorldFromCam(cam, world);
        sample.push_back(SamplePoint{cv::Vec3d(world[0], world[1], world[2]), depth});
      }
      middle += cv::Vec3d(view.center[0], view.center[1], view.center[2]);
    }
    middle *= 1.0 / double(views.size());
    const std::vector<Plane> found = DominantPlanes(sample, middle, seed);
    const std::vector<Plane> envelope = EnvelopePlanes(found, sample, middle, kSceneEnvelope);
    if (envelope.size() != 6) return CVIS_OK;
    for (const int v : views) {
      const double* c = ws.view(v).center;
      for (const Plane& p : envelope) {
        if (!(p.n[0] * c[0] + p.n[1] * c[1] + p.n[2] * c[2] + p.d > 0)) return CVIS_OK;
      }
    }
    for (size_t k = 0; k < envelope.size(); ++k) {
      out_planes[k] = cvis_mvs_plane{{envelope[k].n[0], envelope[k].n[1], envelope[k].n[2]}, envelope[k].d};
    }
    *out_count = 6;
    return CVIS_OK;
  });
}
