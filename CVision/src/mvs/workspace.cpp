// Workspace: lazy loading through a least-recently-used cache bounded in bytes, and the
// cvis_mvs_workspace_* entry points.
#include "workspace.h"

#include <cmath>
#include <utility>

#include <opencv2/imgproc.hpp>

#include "../io/image_io.h"
#include "../util/status.h"

namespace cvis {
namespace mvs {

View::View(const cvis_mvs_view& view)
    : width(view.width), height(view.height), fx(view.fx), fy(view.fy), cx(view.cx), cy(view.cy) {
  for (int i = 0; i < 9; ++i) R[i] = view.rotation[i];
  for (int i = 0; i < 3; ++i) t[i] = view.translation[i];
  for (int c = 0; c < 3; ++c) center[c] = -(R[c] * t[0] + R[3 + c] * t[1] + R[6 + c] * t[2]);
}

cvis_mvs_view View::ToC() const {
  cvis_mvs_view out{};
  out.width = width;
  out.height = height;
  out.fx = fx;
  out.fy = fy;
  out.cx = cx;
  out.cy = cy;
  for (int i = 0; i < 9; ++i) out.rotation[i] = R[i];
  for (int i = 0; i < 3; ++i) out.translation[i] = t[i];
  return out;
}

Workspace::Workspace(std::vector<View> views, std::vector<std::string> image_paths,
                     std::vector<std::string> mask_paths, uint64_t cache_bytes)
    : views_(std::move(views)), image_paths_(std::move(image_paths)),
      mask_paths_(std::move(mask_paths)), cache_bytes_(cache_bytes) {
  mask_paths_.resize(views_.size());
}

uint64_t Workspace::CachedBytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return cached_bytes_;
}

std::shared_ptr<const void> Workspace::Find(const std::string& key) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto found = index_.find(key);
  if (found == index_.end()) return nullptr;
  lru_.splice(lru_.begin(), lru_, found->second);
  return found->second->value;
}

std::shared_ptr<const void> Workspace::Insert(const std::string& key,
                                              std::shared_ptr<const void> value, size_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  // Two threads may load the same item at once (loads run outside the lock so that decoding
  // one view never blocks readers of another); the first insert wins and both share it.
  if (const auto found = index_.find(key); found != index_.end()) {
    lru_.splice(lru_.begin(), lru_, found->second);
    return found->second->value;
  }
  if (bytes > cache_bytes_) return value;  // handed out, never retained
  while (cached_bytes_ + bytes > cache_bytes_ && !lru_.empty()) {
    cached_bytes_ -= lru_.back().bytes;
    index_.erase(lru_.back().key);
    lru_.pop_back();
  }
  lru_.push_front(Entry{key, value, bytes});
  index_[key] = lru_.begin();
  cached_bytes_ += bytes;
  return value;
}

cvis_status Workspace::CheckIndex(int i, const char* what) const {
  if (i < 0 || i >= NumViews()) {
    return Fail(CVIS_INVALID_ARGUMENT,
                Str("workspace ", what, ": view ", i, " not in 0..", NumViews() - 1));
  }
  return CVIS_OK;
}

static size_t MatBytes(const cv::Mat& mat) { return mat.total() * mat.elemSize(); }

cvis_status Workspace::LoadImage(int i, std::shared_ptr<const cv::Mat>* colour) {
  cv::Mat image;
  // Undistorted views are written upright, without EXIF: use the pixels as stored.
  if (cvis_status status = DecodeImage(image_paths_[size_t(i)], false, &image);
      status != CVIS_OK) {
    return status;
  }
  const View& v = views_[size_t(i)];
  if (image.cols != v.width || image.rows != v.height) {
    return Fail(CVIS_INVALID_ARGUMENT,
                Str(BaseName(image_paths_[size_t(i)]), ": image is ", image.cols, "x", image.rows,
                    " but its view is ", v.width, "x", v.height));
  }
  *colour = std::make_shared<const cv::Mat>(std::move(image));
  return CVIS_OK;
}

cvis_status Workspace::Colour(int i, std::shared_ptr<const cv::Mat>* out) {
  if (cvis_status status = CheckIndex(i, "Colour"); status != CVIS_OK) return status;
  const std::string key = Str("colour:", i);
  if (auto found = Find(key)) {
    *out = std::static_pointer_cast<const cv::Mat>(found);
    return CVIS_OK;
  }
  std::shared_ptr<const cv::Mat> colour;
  if (cvis_status status = LoadImage(i, &colour); status != CVIS_OK) return status;
  *out = std::static_pointer_cast<const cv::Mat>(Insert(key, colour, MatBytes(*colour)));
  return CVIS_OK;
}

cvis_status Workspace::Grey(int i, std::shared_ptr<const cv::Mat>* out) {
  if (cvis_status status = CheckIndex(i, "Grey"); status != CVIS_OK) return status;
  const std::string key = Str("grey:", i);
  if (auto found = Find(key)) {
    *out = std::static_pointer_cast<const cv::Mat>(found);
    return CVIS_OK;
  }
  // The colour image is reused when cached but not cached for this: PatchMatch needs only grey.
  std::shared_ptr<const cv::Mat> colour = std::static_pointer_cast<const cv::Mat>(
      Find(Str("colour:", i)));
  if (!colour) {
    if (cvis_status status = LoadImage(i, &colour); status != CVIS_OK) return status;
  }
  cv::Mat grey8, grey;
  cv::cvtColor(*colour, grey8, cv::COLOR_BGR2GRAY);
  grey8.convertTo(grey, CV_32F, 1.0 / 255.0);
  auto value = std::make_shared<const cv::Mat>(std::move(grey));
  *out = std::static_pointer_cast<const cv::Mat>(Insert(key, value, MatBytes(*value)));
  return CVIS_OK;
}

cvis_status Workspace::Mask(int i, std::shared_ptr<const cv::Mat>* out) {
  if (cvis_status status = CheckIndex(i, "Mask"); status != CVIS_OK) return status;
  out->reset();
  if (!HasMask(i)) return CVIS_OK;
  const std::string key = Str("mask:", i);
  if (auto found = Find(key)) {
    *out = std::static_pointer_cast<const cv::Mat>(found);
    return CVIS_OK;
  }
  const std::string& path = mask_paths_[size_t(i)];
  cv::Mat mask;
  if (cvis_status status = DecodeMask(path, &mask); status != CVIS_OK) return status;
  const View& v = views_[size_t(i)];
  if (mask.cols != v.width || mask.rows != v.height) {
    // A mask of another resolution is scaled; one of another shape belongs to another image.
    const double aspect_mask = double(mask.cols) / mask.rows;
    const double aspect_view = double(v.width) / v.height;
    if (std::abs(aspect_mask / aspect_view - 1.0) > 0.01) {
      return Fail(CVIS_INVALID_ARGUMENT, Str(BaseName(path), ": mask is ", mask.cols, "x",
                                             mask.rows, " but its view is ", v.width, "x",
                                             v.height));
    }
    cv::resize(mask, mask, cv::Size(v.width, v.height), 0, 0, cv::INTER_NEAREST);
  }
  cv::threshold(mask, mask, 127, 255, cv::THRESH_BINARY);
  auto value = std::make_shared<const cv::Mat>(std::move(mask));
  *out = std::static_pointer_cast<const cv::Mat>(Insert(key, value, MatBytes(*value)));
  return CVIS_OK;
}

cvis_status Workspace::Depth(const std::string& path, std::shared_ptr<const DepthMap>* out) {
  const std::string key = "depth:" + path;
  if (auto found = Find(key)) {
    *out = std::static_pointer_cast<const DepthMap>(found);
    return CVIS_OK;
  }
  auto map = std::make_shared<DepthMap>();
  if (cvis_status status = DepthMap::Read(path, map.get()); status != CVIS_OK) return status;
  const size_t bytes = map->Bytes();
  *out = std::static_pointer_cast<const DepthMap>(
      Insert(key, std::shared_ptr<const DepthMap>(std::move(map)), bytes));
  return CVIS_OK;
}

}  // namespace mvs
}  // namespace cvis

extern "C" cvis_status cvis_mvs_workspace_create(int32_t num_views, const cvis_mvs_view* views,
                                                 const char* const* image_paths,
                                                 const char* const* mask_paths,
                                                 uint64_t cache_bytes, cvis_mvs_workspace** out) {
  using namespace cvis;
  return Guard([&] {
    if (out == nullptr || (num_views > 0 && (views == nullptr || image_paths == nullptr))) {
      return Fail(CVIS_INVALID_ARGUMENT, "cvis_mvs_workspace_create: null argument");
    }
    *out = nullptr;
    if (num_views < 0) {
      return Fail(CVIS_INVALID_ARGUMENT,
                  Str("cvis_mvs_workspace_create: num_views ", num_views, " < 0"));
    }
    std::vector<mvs::View> copied;
    std::vector<std::string> images, masks;
    for (int32_t i = 0; i < num_views; ++i) {
      const cvis_mvs_view& v = views[i];
      if (v.width < 1 || v.height < 1 || !(v.fx > 0) || !(v.fy > 0) || !std::isfinite(v.cx) ||
          !std::isfinite(v.cy)) {
        return Fail(CVIS_INVALID_ARGUMENT,
                    Str("cvis_mvs_workspace_create: view ", i, " has size ", v.width, "x",
                        v.height, " and focal lengths ", v.fx, ", ", v.fy));
      }
      if (image_paths[i] == nullptr) {
        return Fail(CVIS_INVALID_ARGUMENT,
                    Str("cvis_mvs_workspace_create: view ", i, " has no image path"));
      }
      copied.emplace_back(v);
      images.emplace_back(image_paths[i]);
      masks.emplace_back(mask_paths != nullptr && mask_paths[i] != nullptr ? mask_paths[i] : "");
    }
    *out = new cvis_mvs_workspace{
        mvs::Workspace(std::move(copied), std::move(images), std::move(masks), cache_bytes)};
    return CVIS_OK;
  });
}

extern "C" void cvis_mvs_workspace_destroy(cvis_mvs_workspace* workspace) { delete workspace; }

extern "C" uint64_t cvis_mvs_workspace_cached_bytes(const cvis_mvs_workspace* workspace) {
  return workspace ? workspace->workspace.CachedBytes() : 0;
}
