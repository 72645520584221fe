// Mesh repair (degenerate and duplicated triangles, non-manifold edges), small pieces removed,
// and vertex colours carried over from the cloud.
#include <algorithm>
#include <array>
#include <cstdint>
#include <numeric>

#include "internal.h"
#include "mesh.h"
#include "status.h"

namespace cvis_mesh_core {
namespace {

// Open3D 0.16's repairs (RemoveDuplicatedTriangles, RemoveNonManifoldEdges,
// ClusterConnectedTriangles) hash every edge in node-based maps and rebuild them each round,
// tens of seconds on a few million Poisson triangles. The same repairs here work on one sorted
// array of edges, in a second or two (docs/benchmarks.md).

// An undirected edge (the smaller vertex index in the high half) and a triangle that has it.
struct EdgeUse {
  uint64_t key;
  uint32_t triangle;
  bool operator<(const EdgeUse& other) const {
    return key != other.key ? key < other.key : triangle < other.triangle;
  }
};

uint64_t EdgeKey(int a, int b) {
  const uint32_t lo = uint32_t(std::min(a, b)), hi = uint32_t(std::max(a, b));
  return uint64_t(lo) << 32 | hi;
}

// Every edge use of the triangles, sorted by edge (then triangle).
std::vector<EdgeUse> SortedEdges(const std::vector<Eigen::Vector3i>& triangles) {
  std::vector<EdgeUse> edges;
  edges.reserve(3 * triangles.size());
  for (size_t i = 0; i < triangles.size(); ++i) {
    const Eigen::Vector3i& t = triangles[i];
    for (int k = 0; k < 3; ++k) edges.push_back({EdgeKey(t[k], t[(k + 1) % 3]), uint32_t(i)});
  }
  std::sort(edges.begin(), edges.end());
  return edges;
}

// Calls body(begin, end) for each run of uses of one edge in the sorted array.
template <typename Body>
void ForEachEdge(const std::vector<EdgeUse>& edges, Body&& body) {
  for (size_t begin = 0; begin < edges.size();) {
    size_t end = begin + 1;
    while (end < edges.size() && edges[end].key == edges[begin].key) ++end;
    body(begin, end);
    begin = end;
  }
}

// Triangles with a repeated vertex, and the second and later copies of a triangle (the same
// three vertices in any order): Open3D's RemoveDegenerateTriangles and RemoveDuplicatedTriangles.
std::vector<bool> DegenerateOrDuplicated(const std::vector<Eigen::Vector3i>& triangles) {
  std::vector<bool> drop(triangles.size(), false);
  std::vector<std::pair<std::array<int, 3>, uint32_t>> sorted;
  sorted.reserve(triangles.size());
  for (size_t i = 0; i < triangles.size(); ++i) {
    std::array<int, 3> v{triangles[i][0], triangles[i][1], triangles[i][2]};
    std::sort(v.begin(), v.end());
    if (v[0] == v[1] || v[1] == v[2]) {
      drop[i] = true;
      continue;
    }
    sorted.push_back({v, uint32_t(i)});
  }
  std::sort(sorted.begin(), sorted.end());
  for (size_t k = 1; k < sorted.size(); ++k) {
    if (sorted[k].first == sorted[k - 1].first) drop[sorted[k].second] = true;
  }
  return drop;
}

// Open3D's RemoveNonManifoldEdges: at every edge of more than two triangles, the smallest ones
// go until two are left. Removing triangles never makes an edge non-manifold, so one pass over
// the edges settles it.
void MarkNonManifold(const open3d::geometry::TriangleMesh& mesh, const std::vector<EdgeUse>& edges,
                     std::vector<bool>* drop) {
  std::vector<std::pair<double, uint32_t>> around;
  ForEachEdge(edges, [&](size_t begin, size_t end) {
    if (end - begin <= 2) return;
    around.clear();
    for (size_t k = begin; k < end; ++k) {
      const uint32_t t = edges[k].triangle;
      if ((*drop)[t]) continue;
      const Eigen::Vector3i& f = mesh.triangles_[t];
      const Eigen::Vector3d& a = mesh.vertices_[size_t(f[0])];
      const double area = (mesh.vertices_[size_t(f[1])] - a).cross(mesh.vertices_[size_t(f[2])] - a).norm();
      around.push_back({area, t});
    }
    if (around.size() <= 2) return;
    std::sort(around.begin(), around.end());
    for (size_t k = 0; k + 2 < around.size(); ++k) (*drop)[around[k].second] = true;
  });
}

// Each kept triangle's piece (triangles joined through shared edges) and the pieces' sizes.
std::vector<uint32_t> PieceSizes(const std::vector<EdgeUse>& edges, const std::vector<bool>& drop,
                                 std::vector<uint32_t>* piece_of) {
  std::vector<uint32_t> parent(drop.size());
  std::iota(parent.begin(), parent.end(), 0u);
  auto find = [&](uint32_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  ForEachEdge(edges, [&](size_t begin, size_t end) {
    uint32_t first = UINT32_MAX;
    for (size_t k = begin; k < end; ++k) {
      const uint32_t t = edges[k].triangle;
      if (drop[t]) continue;
      if (first == UINT32_MAX) {
        first = find(t);
      } else {
        const uint32_t other = find(t);
        if (other != first) parent[other] = first;
      }
    }
  });
  std::vector<uint32_t> sizes(drop.size(), 0);
  piece_of->assign(drop.size(), 0);
  for (uint32_t t = 0; t < drop.size(); ++t) {
    if (drop[t]) continue;
    (*piece_of)[t] = find(t);
    ++sizes[(*piece_of)[t]];
  }
  return sizes;
}

}  // namespace
}  // namespace cvis_mesh_core

extern "C" void cvis_clean_options_default(cvis_clean_options* options) {
  *options = cvis_clean_options{};
  options->min_component_fraction = 0.02;
}

extern "C" cvis_status cvis_mesh_clean(cvis_mesh* handle, const cvis_clean_options* options) {
  using namespace cvis_mesh_core;
  return Guard([&] {
    if (handle == nullptr || options == nullptr) return Fail(CVIS_INVALID_ARGUMENT, "cvis_mesh_clean: null argument");
    if (!(options->min_component_fraction >= 0 && options->min_component_fraction <= 1)) {
      return Fail(CVIS_INVALID_ARGUMENT,
                  Str("min component fraction ", options->min_component_fraction, ": want [0, 1]"));
    }
    auto& mesh = handle->mesh;
    // These only drop triangles, so vertex arrays (and the densities beside them) stay aligned.
    std::vector<bool> drop = DegenerateOrDuplicated(mesh.triangles_);
    const std::vector<EdgeUse> edges = SortedEdges(mesh.triangles_);
    MarkNonManifold(mesh, edges, &drop);
    if (options->min_component_fraction > 0) {
      std::vector<uint32_t> piece_of;
      const std::vector<uint32_t> sizes = PieceSizes(edges, drop, &piece_of);
      const uint32_t largest = sizes.empty() ? 0 : *std::max_element(sizes.begin(), sizes.end());
      const double floor = options->min_component_fraction * double(largest);
      for (size_t t = 0; t < drop.size(); ++t) {
        if (!drop[t] && double(sizes[piece_of[t]]) < floor) drop[t] = true;
      }
    }
    std::vector<bool> keep(drop.size());
    for (size_t t = 0; t < drop.size(); ++t) keep[t] = !drop[t];
    mesh.triangle_normals_.clear();
    KeepTriangles(handle, keep);
    handle->densities.clear();  // trimming is over; simplification does not keep them
    RecomputeNormals(&mesh);
    return CVIS_OK;
  });
}

extern "C" cvis_status cvis_mesh_transfer_colors(cvis_mesh* handle, const cvis_mesh_cloud* cloud) {
  using namespace cvis_mesh_core;
  return Guard([&] {
    if (handle == nullptr || cloud == nullptr) return Fail(CVIS_INVALID_ARGUMENT, "cvis_mesh_transfer_colors: null argument");
    auto& mesh = handle->mesh;
    mesh.vertex_colors_.assign(mesh.vertices_.size(), Eigen::Vector3d(0.5, 0.5, 0.5));
    if (!cloud->cloud.HasColors()) return CVIS_OK;
    const auto& tree = cloud->Tree();
    ParallelFor(int64_t(mesh.vertices_.size()), 2, [&](int64_t begin, int64_t end) {
      std::vector<int> index(1);
      std::vector<double> squared(1);
      for (int64_t i = begin; i < end; ++i) {
        if (tree.SearchKNN(mesh.vertices_[size_t(i)], 1, index, squared) == 1) {
          mesh.vertex_colors_[size_t(i)] = cloud->cloud.colors_[size_t(index[0])];
        }
      }
    });
    return CVIS_OK;
  });
}
