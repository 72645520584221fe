// C entry points of cvis_cloud: clouds and meshes read from PLY, made from memory, written back.
#include <memory>

#include "../../include/cvis_cloud.h"
#include "../util/status.h"
#include "cloud.h"
#include "ply.h"

extern "C" cvis_status cvis_cloud_load_ply(const char* path, cvis_cloud** out) {
  using namespace cvis;
  return Guard([&] {
    if (path == nullptr || out == nullptr) {
      return Fail(CVIS_INVALID_ARGUMENT, "cvis_cloud_load_ply: null argument");
    }
    *out = nullptr;
    auto cloud = std::make_unique<cvis_cloud>();
    if (const cvis_status status = ReadPly(path, cloud.get()); status != CVIS_OK) return status;
    *out = cloud.release();
    return CVIS_OK;
  });
}

extern "C" cvis_status cvis_cloud_create(int64_t num_points, const float* points,
                                         const float* normals, const uint8_t* colors,
                                         int64_t num_triangles, const int32_t* triangles,
                                         cvis_cloud** out) {
  using namespace cvis;
  return Guard([&] {
    if (out == nullptr) return Fail(CVIS_INVALID_ARGUMENT, "cvis_cloud_create: null argument");
    *out = nullptr;
    if (num_points < 0 || num_triangles < 0 || (num_points > 0 && points == nullptr) ||
        (num_triangles > 0 && triangles == nullptr)) {
      return Fail(CVIS_INVALID_ARGUMENT, Str("cvis_cloud_create: ", num_points, " points and ",
                                             num_triangles, " triangles without their data"));
    }
    if (num_points > INT32_MAX) {
      return Fail(CVIS_LIMIT_EXCEEDED, Str("cvis_cloud_create: ", num_points, " points"));
    }
    const size_t n = size_t(num_points) * 3;
    for (int64_t k = 0; k < 3 * num_triangles; ++k) {
      if (triangles[k] < 0 || triangles[k] >= num_points) {
        return Fail(CVIS_INVALID_ARGUMENT, Str("cvis_cloud_create: triangle ", k / 3,
                                               " refers to vertex ", triangles[k], " of ", num_points));
      }
    }
    auto cloud = std::make_unique<cvis_cloud>();
    if (n > 0) cloud->points.assign(points, points + n);
    if (normals != nullptr && n > 0) cloud->normals.assign(normals, normals + n);
    if (colors != nullptr && n > 0) cloud->colors.assign(colors, colors + n);
    if (num_triangles > 0) cloud->triangles.assign(triangles, triangles + 3 * num_triangles);
    *out = cloud.release();
    return CVIS_OK;
  });
}

extern "C" cvis_status cvis_cloud_save_ply(const cvis_cloud* cloud, const char* path) {
  using namespace cvis;
  return Guard([&] {
    if (cloud == nullptr || path == nullptr) {
      return Fail(CVIS_INVALID_ARGUMENT, "cvis_cloud_save_ply: null argument");
    }
    return WritePly(path, *cloud);
  });
}

extern "C" void cvis_cloud_destroy(cvis_cloud* cloud) { delete cloud; }

extern "C" int64_t cvis_cloud_num_points(const cvis_cloud* cloud) {
  return cloud ? cloud->NumPoints() : 0;
}

extern "C" cvis_status cvis_cloud_concat(const cvis_cloud* first, const cvis_cloud* second, cvis_cloud** out) {
  using namespace cvis;
  return Guard([&] {
    if (first == nullptr || second == nullptr || out == nullptr) {
      return Fail(CVIS_INVALID_ARGUMENT, "cvis_cloud_concat: null argument");
    }
    *out = nullptr;
    if (first->NumTriangles() > 0 || second->NumTriangles() > 0) {
      return Fail(CVIS_INVALID_ARGUMENT, "cvis_cloud_concat: a mesh is not a point cloud");
    }
    if (first->NumPoints() + second->NumPoints() > INT32_MAX) {
      return Fail(CVIS_LIMIT_EXCEEDED, Str("cvis_cloud_concat: ", first->NumPoints() + second->NumPoints(), " points"));
    }
    auto joined = std::make_unique<cvis_cloud>();
    // An attribute that one of them lacks is filled in for its points: zero normals, grey.
    auto join = [](auto& into, const auto& a, size_t a_size, const auto& b, size_t b_size, auto fill) {
      if (a.empty() && b.empty()) return;
      into.reserve(a_size + b_size);
      if (a.empty()) into.assign(a_size, fill); else into.assign(a.begin(), a.end());
      if (b.empty()) into.insert(into.end(), b_size, fill); else into.insert(into.end(), b.begin(), b.end());
    };
    const size_t a_size = first->points.size(), b_size = second->points.size();
    join(joined->points, first->points, a_size, second->points, b_size, 0.0f);
    join(joined->normals, first->normals, a_size, second->normals, b_size, 0.0f);
    join(joined->colors, first->colors, a_size, second->colors, b_size, uint8_t(128));
    *out = joined.release();
    return CVIS_OK;
  });
}

extern "C" int64_t cvis_cloud_num_triangles(const cvis_cloud* cloud) {
  return cloud ? cloud->NumTriangles() : 0;
}

extern "C" const float* cvis_cloud_points(const cvis_cloud* cloud) {
  return cloud && !cloud->points.empty() ? cloud->points.data() : nullptr;
}

extern "C" const int32_t* cvis_cloud_triangles(const cvis_cloud* cloud) {
  return cloud && !cloud->triangles.empty() ? cloud->triangles.data() : nullptr;
}

extern "C" const float* cvis_cloud_normals(const cvis_cloud* cloud) {
  return cloud && !cloud->normals.empty() ? cloud->normals.data() : nullptr;
}

extern "C" const uint8_t* cvis_cloud_colors(const cvis_cloud* cloud) {
  return cloud && !cloud->colors.empty() ? cloud->colors.data() : nullptr;
}

extern "C" const float* cvis_cloud_uvs(const cvis_cloud* cloud) {
  return cloud && !cloud->uvs.empty() ? cloud->uvs.data() : nullptr;
}

extern "C" const int32_t* cvis_cloud_triangle_textures(const cvis_cloud* cloud) {
  return cloud && !cloud->triangle_textures.empty() ? cloud->triangle_textures.data() : nullptr;
}
