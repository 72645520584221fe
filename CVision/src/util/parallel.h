// A small parallel loop for the C++ kernels: blocks of indices handed out to a few threads.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace cvis {

// Calls body(begin, end, thread) over [0, n) in blocks of block_size, on num_threads threads
// (the caller's thread included). Which thread runs a block varies, so results must not
// depend on it. The first exception thrown by a body is rethrown here after all threads stop.
template <typename Body>
void ParallelFor(int64_t n, int num_threads, int64_t block_size, Body&& body) {
  if (n <= 0) return;
  block_size = std::max<int64_t>(1, block_size);
  const int64_t num_blocks = (n + block_size - 1) / block_size;
  const int threads = int(std::clamp<int64_t>(num_threads, 1, num_blocks));
  std::atomic<int64_t> next{0};
  std::exception_ptr failure;
  std::mutex failure_mutex;
  auto worker = [&](int thread) {
    try {
      for (int64_t block = next++; block < num_blocks; block = next++) {
        const int64_t begin = block * block_size;
        body(begin, std::min(n, begin + block_size), thread);
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(failure_mutex);
      if (!failure) failure = std::current_exception();
      next = num_blocks;
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(worker, t);
  worker(0);
  for (std::thread& thread : pool) thread.join();
  if (failure) std::rethrow_exception(failure);
}

// Splits [0, n) into num_parts contiguous ranges and runs body(begin, end, part) for each part
// on its own thread: for work whose per-part output is concatenated in part order afterwards.
template <typename Body>
void ParallelParts(int64_t n, int num_parts, Body&& body) {
  num_parts = std::max(1, num_parts);
  ParallelFor(num_parts, num_parts, 1, [&](int64_t part, int64_t, int) {
    body(n * part / num_parts, n * (part + 1) / num_parts, int(part));
  });
}

}  // namespace cvis
