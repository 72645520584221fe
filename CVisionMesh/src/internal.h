// Helpers the mesh steps share, beyond the handles' storage.
#pragma once

#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

#include "mesh.h"

namespace cvis_mesh_core {

// Drops vertices no triangle uses; normals, colours and densities follow their vertices.
void CompactVertices(cvis_mesh* handle);

// Keeps the triangles whose flag is set, then compacts the vertices.
void KeepTriangles(cvis_mesh* handle, const std::vector<bool>& keep);

// Runs body(begin, end) over [0, n) in contiguous blocks on up to num_threads threads (the
// toolchain's clang has no OpenMP runtime).
template <typename Body>
void ParallelFor(int64_t n, int num_threads, Body&& body) {
  const int64_t threads = std::max<int64_t>(1, std::min<int64_t>(num_threads, n / 1024 + 1));
  if (threads == 1) {
    body(int64_t(0), n);
    return;
  }
  std::vector<std::thread> workers;
  const int64_t block = (n + threads - 1) / threads;
  for (int64_t t = 0; t < threads; ++t) {
    const int64_t begin = t * block, end = std::min(n, begin + block);
    if (begin < end) workers.emplace_back([&body, begin, end] { body(begin, end); });
  }
  for (auto& worker : workers) worker.join();
}

}  // namespace cvis_mesh_core
