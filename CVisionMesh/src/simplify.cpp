// Decimation to a triangle cap with meshoptimizer: edge collapse first, clustering when edge
// collapse cannot reach the cap (it will not collapse across some topology).
#include <algorithm>
#include <cmath>

#include <meshoptimizer.h>

#include "internal.h"
#include "mesh.h"
#include "status.h"

extern "C" void cvis_simplify_options_default(cvis_simplify_options* options) {
  *options = cvis_simplify_options{};
  options->target_error = 1;
}

extern "C" cvis_status cvis_mesh_simplify(const cvis_mesh* source, int64_t max_triangles,
                                          const cvis_simplify_options* options, cvis_mesh** out,
                                          int32_t* used_sloppy) {
  using namespace cvis_mesh_core;
  return Guard([&] {
    if (source == nullptr || options == nullptr || out == nullptr) {
      return Fail(CVIS_INVALID_ARGUMENT, "cvis_mesh_simplify: null argument");
    }
    *out = nullptr;
    if (used_sloppy != nullptr) *used_sloppy = 0;
    if (max_triangles < 4) return Fail(CVIS_INVALID_ARGUMENT, Str("triangle cap ", max_triangles, ": want >= 4"));
    if (!(options->target_error > 0 && options->target_error <= 1)) {
      return Fail(CVIS_INVALID_ARGUMENT, Str("target error ", options->target_error, ": want (0, 1]"));
    }
    auto handle = std::make_unique<cvis_mesh>();
    handle->mesh = source->mesh;
    handle->densities.clear();
    auto& mesh = handle->mesh;
    const size_t triangle_count = mesh.triangles_.size();
    if (int64_t(triangle_count) < max_triangles) {
      *out = handle.release();
      return CVIS_OK;
    }
    std::vector<float> positions(mesh.vertices_.size() * 3);
    for (size_t i = 0; i < mesh.vertices_.size(); ++i) {
      for (int k = 0; k < 3; ++k) positions[3 * i + size_t(k)] = float(mesh.vertices_[i][k]);
    }
    std::vector<unsigned int> indices(triangle_count * 3);
    for (size_t i = 0; i < triangle_count; ++i) {
      for (int k = 0; k < 3; ++k) indices[3 * i + size_t(k)] = unsigned(mesh.triangles_[i][k]);
    }
    const size_t cap_indices = size_t(max_triangles - 1) * 3;  // the cap is strict: fewer than
    std::vector<unsigned int> simplified(indices.size());
    float error = 0;
    size_t count = meshopt_simplify(simplified.data(), indices.data(), indices.size(), positions.data(),
                                    mesh.vertices_.size(), sizeof(float) * 3, cap_indices,
                                    float(options->target_error), 0, &error);
    size_t target = cap_indices;
    for (int attempt = 0; count > cap_indices && attempt < 40; ++attempt) {
      if (used_sloppy != nullptr) *used_sloppy = 1;
      count = meshopt_simplifySloppy(simplified.data(), indices.data(), indices.size(), positions.data(),
                                     mesh.vertices_.size(), sizeof(float) * 3, target, 1.f, &error);
      target = std::max<size_t>(3, size_t(double(target) * 0.9) / 3 * 3);
    }
    if (count > cap_indices) {
      return Fail(CVIS_NO_CONVERGENCE, Str("could not simplify ", triangle_count, " triangles below ", max_triangles));
    }
    mesh.triangles_.resize(count / 3);
    for (size_t i = 0; i < count / 3; ++i) {
      mesh.triangles_[i] = Eigen::Vector3i(int(simplified[3 * i]), int(simplified[3 * i + 1]), int(simplified[3 * i + 2]));
    }
    CompactVertices(handle.get());
    RecomputeNormals(&mesh);
    *out = handle.release();
    return CVIS_OK;
  });
}
