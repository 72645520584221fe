// Depth-map files and the cvis_depth_map_* entry points.
#include "depth_map.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "../../include/cvis_mvs.h"
#include "../io/image_io.h"
#include "../util/file_write.h"
#include "../util/status.h"

namespace cvis {
namespace mvs {
namespace {

constexpr char kMagic[8] = {'C', 'V', 'I', 'S', 'D', 'M', '0', '1'};
// Far above any working size; guards the allocation against a corrupt header.
constexpr int kMaxSide = 1 << 15;

// The host is little-endian (x86-64, arm64): the arrays are written as they are in memory.
static_assert(sizeof(float) == 4, "float32 expected");

}  // namespace

DepthMap::DepthMap(int width, int height)
    : width(width), height(height), depth(size_t(width) * height, 0.0f),
      normal(size_t(width) * height * 3, 0.0f), cost(size_t(width) * height, 2.0f) {
  for (size_t i = 2; i < normal.size(); i += 3) normal[i] = -1.0f;
}

cvis_status DepthMap::Read(const std::string& path, DepthMap* map) {
  std::unique_ptr<FILE, int (*)(FILE*)> file(std::fopen(path.c_str(), "rb"), std::fclose);
  if (!file) {
    return Fail(CVIS_IO_ERROR, Str(BaseName(path), ": cannot open depth map (",
                                   std::strerror(errno), ")"));
  }
  char magic[8];
  int32_t size[2];
  if (std::fread(magic, 1, 8, file.get()) != 8 || std::memcmp(magic, kMagic, 8) != 0 ||
      std::fread(size, 4, 2, file.get()) != 2) {
    return Fail(CVIS_DECODE_ERROR, Str(BaseName(path), ": not a depth map (no CVISDM01 header)"));
  }
  if (size[0] < 1 || size[1] < 1 || size[0] > kMaxSide || size[1] > kMaxSide) {
    return Fail(CVIS_DECODE_ERROR,
                Str(BaseName(path), ": depth map size ", size[0], "x", size[1], " out of range"));
  }
  DepthMap loaded;
  loaded.width = size[0];
  loaded.height = size[1];
  const size_t n = size_t(size[0]) * size[1];
  loaded.depth.resize(n);
  loaded.normal.resize(3 * n);
  loaded.cost.resize(n);
  const bool ok = std::fread(loaded.depth.data(), 4, n, file.get()) == n &&
                  std::fread(loaded.normal.data(), 4, 3 * n, file.get()) == 3 * n &&
                  std::fread(loaded.cost.data(), 4, n, file.get()) == n;
  if (!ok) return Fail(CVIS_DECODE_ERROR, Str(BaseName(path), ": depth map truncated"));
  *map = std::move(loaded);
  return CVIS_OK;
}

cvis_status DepthMap::Write(const std::string& path) const {
  const std::string temporary = path + ".tmp";
  FILE* file = std::fopen(temporary.c_str(), "wb");
  const size_t bytes = 8 + 8 + 4 * (depth.size() + normal.size() + cost.size());
  if (file == nullptr) return WriteFailure(path, errno, bytes);
  const int32_t size[2] = {width, height};
  bool ok = std::fwrite(kMagic, 1, 8, file) == 8 && std::fwrite(size, 4, 2, file) == 2 &&
            std::fwrite(depth.data(), 4, depth.size(), file) == depth.size() &&
            std::fwrite(normal.data(), 4, normal.size(), file) == normal.size() &&
            std::fwrite(cost.data(), 4, cost.size(), file) == cost.size();
  int error = ok ? 0 : errno;
  if (std::fclose(file) != 0 && error == 0) error = errno;
  if (error == 0 && std::rename(temporary.c_str(), path.c_str()) != 0) error = errno;
  if (error != 0) {
    std::remove(temporary.c_str());
    return WriteFailure(path, error, bytes);
  }
  return CVIS_OK;
}

}  // namespace mvs
}  // namespace cvis

extern "C" cvis_status cvis_depth_map_load(const char* path, cvis_depth_map** out) {
  using namespace cvis;
  return Guard([&] {
    if (path == nullptr || out == nullptr) {
      return Fail(CVIS_INVALID_ARGUMENT, "cvis_depth_map_load: null argument");
    }
    *out = nullptr;
    auto map = std::make_unique<cvis_depth_map>();
    if (cvis_status status = mvs::DepthMap::Read(path, &map->map); status != CVIS_OK) return status;
    *out = map.release();
    return CVIS_OK;
  });
}

extern "C" cvis_status cvis_depth_map_create(int32_t width, int32_t height, cvis_depth_map** out) {
  using namespace cvis;
  return Guard([&] {
    if (out == nullptr) return Fail(CVIS_INVALID_ARGUMENT, "cvis_depth_map_create: null argument");
    *out = nullptr;
    if (width < 1 || height < 1 || width > (1 << 15) || height > (1 << 15)) {
      return Fail(CVIS_INVALID_ARGUMENT,
                  Str("cvis_depth_map_create: size ", width, "x", height, " out of range"));
    }
    auto map = std::make_unique<cvis_depth_map>();
    map->map = mvs::DepthMap(width, height);
    *out = map.release();
    return CVIS_OK;
  });
}

extern "C" cvis_status cvis_depth_map_save(const cvis_depth_map* map, const char* path) {
  using namespace cvis;
  return Guard([&] {
    if (map == nullptr || path == nullptr) {
      return Fail(CVIS_INVALID_ARGUMENT, "cvis_depth_map_save: null argument");
    }
    return map->map.Write(path);
  });
}

extern "C" void cvis_depth_map_destroy(cvis_depth_map* map) { delete map; }
extern "C" int32_t cvis_depth_map_width(const cvis_depth_map* map) { return map ? map->map.width : 0; }
extern "C" int32_t cvis_depth_map_height(const cvis_depth_map* map) {
  return map ? map->map.height : 0;
}
extern "C" float* cvis_depth_map_depths(cvis_depth_map* map) {
  return map ? map->map.depth.data() : nullptr;
}
extern "C" float* cvis_depth_map_normals(cvis_depth_map* map) {
  return map ? map->map.normal.data() : nullptr;
}
extern "C" float* cvis_depth_map_costs(cvis_depth_map* map) {
  return map ? map->map.cost.data() : nullptr;
}
