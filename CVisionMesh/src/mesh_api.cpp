// C entry points of cvis_mesh: meshes made from memory, copied out, their topology; and the
// helpers every mesh step shares (normals, compaction).
#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "internal.h"
#include "mesh.h"
#include "status.h"

namespace cvis_mesh_core {

void RecomputeNormals(open3d::geometry::TriangleMesh* mesh) {
  std::vector<Eigen::Vector3d> normals(mesh->vertices_.size(), Eigen::Vector3d::Zero());
  for (const auto& t : mesh->triangles_) {
    const Eigen::Vector3d& a = mesh->vertices_[size_t(t[0])];
    const Eigen::Vector3d face = (mesh->vertices_[size_t(t[1])] - a).cross(mesh->vertices_[size_t(t[2])] - a);
    for (int k = 0; k < 3; ++k) normals[size_t(t[k])] += face;  // |face| = 2 x area: area-weighted
  }
  for (auto& n : normals) {
    const double length = n.norm();
    n = length > 0 ? Eigen::Vector3d(n / length) : Eigen::Vector3d(0, 0, 1);
  }
  mesh->vertex_normals_ = std::move(normals);
  mesh->triangle_normals_.clear();
}

void CompactVertices(cvis_mesh* handle) {
  auto& mesh = handle->mesh;
  std::vector<int> remap(mesh.vertices_.size(), -1);
  int next = 0;
  for (auto& t : mesh.triangles_) {
    for (int k = 0; k < 3; ++k) {
      int& slot = remap[size_t(t[k])];
      if (slot < 0) slot = next++;
    }
  }
  auto compact = [&](auto& values) {
    if (values.size() != remap.size()) return;
    std::remove_reference_t<decltype(values)> kept;
    kept.resize(size_t(next));
    for (size_t i = 0; i < remap.size(); ++i) {
      if (remap[i] >= 0) kept[size_t(remap[i])] = values[i];
    }
    values = std::move(kept);
  };
  compact(mesh.vertex_normals_);
  compact(mesh.vertex_colors_);
  compact(handle->densities);
  compact(mesh.vertices_);  // last: the others compare their size with the old vertex count
  for (auto& t : mesh.triangles_) {
    for (int k = 0; k < 3; ++k) t[k] = remap[size_t(t[k])];
  }
  mesh.triangle_normals_.clear();
  mesh.adjacency_list_.clear();
}

void KeepTriangles(cvis_mesh* handle, const std::vector<bool>& keep) {
  auto& triangles = handle->mesh.triangles_;
  size_t kept = 0;
  for (size_t i = 0; i < triangles.size(); ++i) {
    if (keep[i]) triangles[kept++] = triangles[i];
  }
  triangles.resize(kept);
  CompactVertices(handle);
}

}  // namespace cvis_mesh_core

extern "C" cvis_status cvis_mesh_create(int64_t num_vertices, const float* positions,
                                        const float* normals, const uint8_t* colors,
                                        int64_t num_triangles, const int32_t* triangles,
                                        cvis_mesh** out) {
  using namespace cvis_mesh_core;
  return Guard([&] {
    if (out == nullptr) return Fail(CVIS_INVALID_ARGUMENT, "cvis_mesh_create: null argument");
    *out = nullptr;
    if (num_vertices < 0 || num_triangles < 0 || num_vertices > INT32_MAX ||
        (num_vertices > 0 && positions == nullptr) || (num_triangles > 0 && triangles == nullptr)) {
      return Fail(CVIS_INVALID_ARGUMENT, Str("cvis_mesh_create: ", num_vertices, " vertices and ",
                                             num_triangles, " triangles without their data"));
    }
    auto handle = std::make_unique<cvis_mesh>();
    auto& mesh = handle->mesh;
    mesh.vertices_.resize(size_t(num_vertices));
    for (int64_t i = 0; i < num_vertices; ++i) {
      const float* p = positions + 3 * i;
      mesh.vertices_[size_t(i)] = Eigen::Vector3d(p[0], p[1], p[2]);
    }
    mesh.triangles_.resize(size_t(num_triangles));
    for (int64_t i = 0; i < num_triangles; ++i) {
      const int32_t* t = triangles + 3 * i;
      for (int k = 0; k < 3; ++k) {
        if (t[k] < 0 || t[k] >= num_vertices) {
          return Fail(CVIS_INVALID_ARGUMENT, Str("cvis_mesh_create: triangle ", i, " refers to vertex ",
                                                 t[k], " of ", num_vertices));
        }
      }
      mesh.triangles_[size_t(i)] = Eigen::Vector3i(t[0], t[1], t[2]);
    }
    if (normals != nullptr) {
      mesh.vertex_normals_.resize(size_t(num_vertices));
      for (int64_t i = 0; i < num_vertices; ++i) {
        const float* n = normals + 3 * i;
        mesh.vertex_normals_[size_t(i)] = Eigen::Vector3d(n[0], n[1], n[2]);
      }
    } else {
      RecomputeNormals(&mesh);
    }
    mesh.vertex_colors_.assign(size_t(num_vertices), Eigen::Vector3d(0.5, 0.5, 0.5));
    if (colors != nullptr) {
      for (int64_t i = 0; i < num_vertices; ++i) {
        const uint8_t* c = colors + 3 * i;
        mesh.vertex_colors_[size_t(i)] = Eigen::Vector3d(c[0], c[1], c[2]) / 255.0;
      }
    }
    *out = handle.release();
    return CVIS_OK;
  });
}

extern "C" void cvis_mesh_destroy(cvis_mesh* mesh) { delete mesh; }

extern "C" int64_t cvis_mesh_num_vertices(const cvis_mesh* mesh) {
  return mesh == nullptr ? 0 : int64_t(mesh->mesh.vertices_.size());
}

extern "C" int64_t cvis_mesh_num_triangles(const cvis_mesh* mesh) {
  return mesh == nullptr ? 0 : int64_t(mesh->mesh.triangles_.size());
}

extern "C" void cvis_mesh_copy_vertices(const cvis_mesh* handle, float* positions, float* normals,
                                        uint8_t* colors) {
  if (handle == nullptr) return;
  const auto& mesh = handle->mesh;
  const size_t n = mesh.vertices_.size();
  for (size_t i = 0; i < n; ++i) {
    for (int k = 0; k < 3; ++k) {
      if (positions != nullptr) positions[3 * i + size_t(k)] = float(mesh.vertices_[i][k]);
      if (normals != nullptr) {
        normals[3 * i + size_t(k)] = mesh.vertex_normals_.size() == n ? float(mesh.vertex_normals_[i][k]) : 0.f;
      }
      if (colors != nullptr) {
        const double c = mesh.vertex_colors_.size() == n ? mesh.vertex_colors_[i][k] : 0.5;
        colors[3 * i + size_t(k)] = uint8_t(std::lround(std::clamp(c, 0.0, 1.0) * 255.0));
      }
    }
  }
}

extern "C" void cvis_mesh_copy_triangles(const cvis_mesh* handle, int32_t* triangles) {
  if (handle == nullptr || triangles == nullptr) return;
  const auto& source = handle->mesh.triangles_;
  for (size_t i = 0; i < source.size(); ++i) {
    for (int k = 0; k < 3; ++k) triangles[3 * i + size_t(k)] = source[i][k];
  }
}

extern "C" void cvis_mesh_copy_triangle_centroids(const cvis_mesh* handle, float* centroids) {
  if (handle == nullptr || centroids == nullptr) return;
  const auto& mesh = handle->mesh;
  for (size_t i = 0; i < mesh.triangles_.size(); ++i) {
    const auto& t = mesh.triangles_[i];
    const Eigen::Vector3d c = (mesh.vertices_[size_t(t[0])] + mesh.vertices_[size_t(t[1])] +
                               mesh.vertices_[size_t(t[2])]) / 3.0;
    for (int k = 0; k < 3; ++k) centroids[3 * i + size_t(k)] = float(c[k]);
  }
}

extern "C" cvis_status cvis_mesh_remove_triangles(cvis_mesh* handle, const uint8_t* remove) {
  using namespace cvis_mesh_core;
  return Guard([&] {
    if (handle == nullptr || (remove == nullptr && !handle->mesh.triangles_.empty())) {
      return Fail(CVIS_INVALID_ARGUMENT, "cvis_mesh_remove_triangles: null argument");
    }
    std::vector<bool> keep(handle->mesh.triangles_.size());
    for (size_t i = 0; i < keep.size(); ++i) keep[i] = remove[i] == 0;
    KeepTriangles(handle, keep);
    return CVIS_OK;
  });
}

extern "C" cvis_status cvis_mesh_topology_of(const cvis_mesh* handle, cvis_mesh_topology* out) {
  using namespace cvis_mesh_core;
  return Guard([&] {
    if (handle == nullptr || out == nullptr) return Fail(CVIS_INVALID_ARGUMENT, "cvis_mesh_topology_of: null argument");
    std::unordered_map<uint64_t, int32_t> edges;
    edges.reserve(handle->mesh.triangles_.size() * 2);
    for (const auto& t : handle->mesh.triangles_) {
      for (int k = 0; k < 3; ++k) {
        const uint64_t a = uint32_t(t[k]), b = uint32_t(t[(k + 1) % 3]);
        ++edges[std::min(a, b) << 32 | std::max(a, b)];
      }
    }
    *out = cvis_mesh_topology{};
    for (const auto& [key, count] : edges) {
      if (count == 1) ++out->boundary_edges;
      if (count > 2) ++out->non_manifold_edges;
    }
    if (!handle->mesh.triangles_.empty()) {
      const auto clusters = std::get<1>(handle->mesh.ClusterConnectedTriangles());
      out->components = int64_t(clusters.size());
    }
    out->watertight = !handle->mesh.triangles_.empty() && out->boundary_edges == 0 && out->non_manifold_edges == 0;
    return CVIS_OK;
  });
}
