// The views of one dense reconstruction and a bounded, thread-safe cache of what PatchMatch and
// fusion read from disk: grey and colour images, masks and depth maps.
//
// Usage from C++ (PatchMatch, fusion), always inside a cvis::Guard:
//   cvis_mvs_workspace* ws = ...;                  // from cvis_mvs_workspace_create
//   const mvs::View& view = ws->workspace.view(i); // pose, intrinsics, projection helpers
//   std::shared_ptr<const cv::Mat> grey;
//   if (cvis_status s = ws->workspace.Grey(i, &grey); s != CVIS_OK) return s;
// Every loader returns a cvis_status (message set, naming the file) and hands out a shared_ptr:
// what a caller holds stays valid however the cache evicts meanwhile, and the cache may drop it
// at any time after, so hold the pointer (not a raw Mat reference) for as long as it is used.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include <opencv2/core.hpp>

#include "../../include/cvis_mvs.h"
#include "depth_map.h"

namespace cvis {
namespace mvs {

// A pinhole view (cvis_mvs_view) with the geometry helpers both PatchMatch and fusion need.
// Pixel convention as COLMAP: pixel (col, row) covers [col, col+1) x [row, row+1), its centre is
// (col + 0.5, row + 0.5), and a camera point (X, Y, Z) projects to (fx X/Z + cx, fy Y/Z + cy).
struct View {
  int width = 0, height = 0;
  double fx = 1, fy = 1, cx = 0, cy = 0;
  double R[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};  // cam_from_world rotation, row-major
  double t[3] = {0, 0, 0};                     // cam_from_world translation
  double center[3] = {0, 0, 0};                // camera centre in world, -R^T t

  View() = default;
  explicit View(const cvis_mvs_view& view);
  cvis_mvs_view ToC() const;

  // x_cam = R x_world + t.
  void CamFromWorld(const double* world, double* cam) const {
    for (int r = 0; r < 3; ++r) {
      cam[r] = R[3 * r] * world[0] + R[3 * r + 1] * world[1] + R[3 * r + 2] * world[2] + t[r];
    }
  }
  // x_world = R^T (x_cam - t).
  void WorldFromCam(const double* cam, double* world) const {
    const double d[3] = {cam[0] - t[0], cam[1] - t[1], cam[2] - t[2]};
    for (int c = 0; c < 3; ++c) world[c] = R[c] * d[0] + R[3 + c] * d[1] + R[6 + c] * d[2];
  }
  // Rotates a direction (normal) from world to camera: R n.
  void CamFromWorldDirection(const double* world, double* cam) const {
    for (int r = 0; r < 3; ++r) cam[r] = R[3 * r] * world[0] + R[3 * r + 1] * world[1] + R[3 * r + 2] * world[2];
  }
  // Rotates a direction (normal) from camera to world: R^T n.
  void WorldFromCamDirection(const double* cam, double* world) const {
    for (int c = 0; c < 3; ++c) world[c] = R[c] * cam[0] + R[3 + c] * cam[1] + R[6 + c] * cam[2];
  }
  // Pixel (x, y) of a camera point; false when it is not in front (z <= 0).
  bool ProjectCam(const double* cam, double* x, double* y) const {
    if (!(cam[2] > 0)) return false;
    *x = fx * cam[0] / cam[2] + cx;
    *y = fy * cam[1] / cam[2] + cy;
    return true;
  }
  // The camera point at z-depth `depth` seen through pixel position (x, y) (a pixel centre is
  // col + 0.5, row + 0.5).
  void CamFromPixel(double x, double y, double depth, double* cam) const {
    cam[0] = (x - cx) / fx * depth;
    cam[1] = (y - cy) / fy * depth;
    cam[2] = depth;
  }
};

// The workspace proper. Thread-safe: every method may be called concurrently.
class Workspace {
 public:
  // image_paths and mask_paths have one entry per view; an empty mask path means no mask.
  // cache_bytes bounds the bytes of decoded images and depth maps the cache retains.
  Workspace(std::vector<View> views, std::vector<std::string> image_paths,
            std::vector<std::string> mask_paths, uint64_t cache_bytes);

  int NumViews() const { return int(views_.size()); }
  const View& view(int i) const { return views_[size_t(i)]; }
  const std::string& ImagePath(int i) const { return image_paths_[size_t(i)]; }
  bool HasMask(int i) const { return !mask_paths_[size_t(i)].empty(); }

  // The view's image as CV_32F grey intensity in [0, 1] (BT.601 weights), view size.
  cvis_status Grey(int i, std::shared_ptr<const cv::Mat>* out);
  // The view's image as CV_8UC3 BGR (OpenCV order), view size; fusion takes colours from it.
  cvis_status Colour(int i, std::shared_ptr<const cv::Mat>* out);
  // The view's mask as CV_8U, 255 = keep and 0 = drop, view size. *out is null when the view
  // has no mask (everything kept).
  cvis_status Mask(int i, std::shared_ptr<const cv::Mat>* out);
  // The depth map at path (cached by path: a file rewritten under the same name while cached is
  // not reread, so write each pass's maps to their own names).
  cvis_status Depth(const std::string& path, std::shared_ptr<const DepthMap>* out);

  // Bytes the cache retains now (always <= the bound, except an item larger than the whole
  // bound, which is handed out but not retained).
  uint64_t CachedBytes() const;
  uint64_t CacheBound() const { return cache_bytes_; }

 private:
  struct Entry {
    std::string key;
    std::shared_ptr<const void> value;
    size_t bytes;
  };
  // Looks key up, marking it most recently used; null when absent.
  std::shared_ptr<const void> Find(const std::string& key);
  // Inserts (or returns the entry another thread inserted first), evicting the least recently
  // used entries to stay within the bound.
  std::shared_ptr<const void> Insert(const std::string& key, std::shared_ptr<const void> value,
                                     size_t bytes);
  cvis_status LoadImage(int i, std::shared_ptr<const cv::Mat>* colour);
  cvis_status CheckIndex(int i, const char* what) const;

  std::vector<View> views_;
  std::vector<std::string> image_paths_, mask_paths_;
  uint64_t cache_bytes_;

  mutable std::mutex mutex_;
  std::list<Entry> lru_;  // most recently used first
  std::unordered_map<std::string, std::list<Entry>::iterator> index_;
  uint64_t cached_bytes_ = 0;
};

}  // namespace mvs
}  // namespace cvis

// The opaque C handle.
struct cvis_mvs_workspace {
  cvis::mvs::Workspace workspace;
};
