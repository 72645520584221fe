// SIFT extraction (OpenCV) into the COLMAP conventions the rest of the pipeline expects: pixel
// centres at +0.5, keypoints in full-size upright pixels, RootSIFT descriptors of unit length.
#include <algorithm>
#include <tuple>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <numeric>

#include <opencv2/features2d.hpp>
#include <opencv2/imgproc.hpp>

#include "../io/image_io.h"
#include "../util/status.h"
#include "blur.h"
#include "keep_mask.h"
#include "features.h"

namespace cvis {

void QuantizeDescriptor(const float* unit, uint8_t* bytes) {
  for (int k = 0; k < cvis_features::kDescriptorDim; ++k) {
    bytes[k] = static_cast<uint8_t>(std::min(255.0f, std::round(512.0f * unit[k])));
  }
}

void DequantizeDescriptor(const uint8_t* bytes, float* unit) {
  float squared = 0.0f;
  for (int k = 0; k < cvis_features::kDescriptorDim; ++k) {
    unit[k] = bytes[k];
    squared += unit[k] * unit[k];
  }
  const float inverse = squared > 0.0f ? 1.0f / std::sqrt(squared) : 0.0f;
  for (int k = 0; k < cvis_features::kDescriptorDim; ++k) unit[k] *= inverse;
}

namespace {

// Region worth running SIFT on: the keep mask's bounding box plus a margin, so that the blur and
// descriptor windows near the mask edge still see real image content.
cv::Rect DetectionRegion(const cv::Mat& keep, cv::Size size) {
  if (keep.empty()) return cv::Rect(0, 0, size.width, size.height);
  std::vector<cv::Point> points;
  cv::findNonZero(keep, points);
  if (points.empty()) return cv::Rect();
  const int margin = 32;
  cv::Rect box = cv::boundingRect(points);
  box.x -= margin;
  box.y -= margin;
  box.width += 2 * margin;
  box.height += 2 * margin;
  return box & cv::Rect(0, 0, size.width, size.height);
}

// Descriptor rows in place: RootSIFT (L1 normalise, square root) or plain L2, then the byte
// round trip shared with the checkpoint format.
void NormalizeDescriptors(const cv::Mat& raw, bool root_sift, float* out) {
  std::vector<uint8_t> bytes(cvis_features::kDescriptorDim);
  std::vector<float> unit(cvis_features::kDescriptorDim);
  for (int i = 0; i < raw.rows; ++i) {
    const float* row = raw.ptr<float>(i);
    float norm = 0.0f;
    for (int k = 0; k < raw.cols; ++k) norm += root_sift ? std::abs(row[k]) : row[k] * row[k];
    norm = root_sift ? norm : std::sqrt(norm);
    const float inverse = norm > 0.0f ? 1.0f / norm : 0.0f;
    for (int k = 0; k < raw.cols; ++k) {
      unit[k] = root_sift ? std::sqrt(std::abs(row[k]) * inverse) : row[k] * inverse;
    }
    QuantizeDescriptor(unit.data(), bytes.data());
    DequantizeDescriptor(bytes.data(), out + size_t(i) * cvis_features::kDescriptorDim);
  }
}

}  // namespace
}  // namespace cvis

extern "C" void cvis_sift_options_default(cvis_sift_options* options) {
  if (options == nullptr) return;
  options->max_features = 8192;
  options->max_image_size = 1600;
  options->contrast_threshold = 0.04;
  options->edge_threshold = 10.0;
  options->root_sift = 1;
  options->apply_exif_orientation = 1;
}

extern "C" cvis_status cvis_extract_features(const char* image_path, const char* mask_path,
                                             const cvis_rect* keep_rect,
                                             const cvis_sift_options* options_in,
                                             cvis_features** out) {
  using namespace cvis;
  return Guard([&] {
    if (image_path == nullptr || out == nullptr) {
      return Fail(CVIS_INVALID_ARGUMENT, "cvis_extract_features: null argument");
    }
    *out = nullptr;
    cvis_sift_options options;
    cvis_sift_options_default(&options);
    if (options_in != nullptr) options = *options_in;
    if (options.max_features <= 0 || options.max_image_size < 16 ||
        options.contrast_threshold <= 0 || options.edge_threshold <= 0) {
      return Fail(CVIS_INVALID_ARGUMENT, Str(BaseName(image_path), ": invalid SIFT options"));
    }
    cv::Mat color;
    if (cvis_status status = DecodeImage(image_path, options.apply_exif_orientation != 0, &color);
        status != CVIS_OK) {
      return status;
    }
    cv::Mat keep;
    if (cvis_status status = BuildKeepMask(mask_path, keep_rect, color.size(), &keep);
        status != CVIS_OK) {
      return status;
    }
    auto features = std::make_unique<cvis_features>();
    features->image_width = color.cols;
    features->image_height = color.rows;
    // One grey conversion serves the blur score (whole frame) and SIFT (the mask's region).
    cv::Mat gray_full;
    cv::cvtColor(color, gray_full, cv::COLOR_BGR2GRAY);
    features->blur_score = BlurScore(gray_full, keep);
    const cv::Rect region = DetectionRegion(keep, color.size());
    if (region.area() == 0) {  // everything masked out
      *out = features.release();
      return CVIS_OK;
    }

    // OpenCV's SIFT always doubles its input (first octave -1), so detecting on an image whose
    // long side is max_image_size already samples scale space at twice that resolution.
    const double scale = std::min(1.0, double(options.max_image_size) /
                                           std::max(color.cols, color.rows));
    // A copy, not a view: SIFT's blurs would otherwise read pixels beyond the region as border.
    cv::Mat gray;
    if (scale < 1.0) {
      const cv::Size small(std::max(1, int(std::lround(region.width * scale))),
                           std::max(1, int(std::lround(region.height * scale))));
      cv::resize(gray_full(region), gray, small, 0, 0, cv::INTER_AREA);
    } else {
      gray = gray_full(region).clone();
    }
    cv::Mat detection_mask;
    if (!keep.empty()) cv::resize(keep(region), detection_mask, gray.size(), 0, 0, cv::INTER_NEAREST);

    // OpenCV would cut to nfeatures before masking, and its cut (and its keypoint order, which
    // comes out of parallel loops) is not reproducible among equal responses: we cut ourselves.
    cv::Ptr<cv::SIFT> sift = cv::SIFT::create(0, 3,
                                              options.contrast_threshold,
                                              options.edge_threshold, 1.6);
    std::vector<cv::KeyPoint> keypoints;
    cv::Mat raw;
    sift->detectAndCompute(gray, detection_mask, keypoints, raw);

    // Map to full-size pixels (COLMAP convention: resizing maps centre-aligned coordinates
    // x + 0.5 linearly), then keep the strongest that every mask keeps.
    const double sx = double(region.width) / gray.cols, sy = double(region.height) / gray.rows;
    std::vector<int> order;
    std::vector<cv::Point2f> full(keypoints.size());
    for (size_t i = 0; i < keypoints.size(); ++i) {
      full[i] = cv::Point2f(float(region.x + (keypoints[i].pt.x + 0.5) * sx),
                            float(region.y + (keypoints[i].pt.y + 0.5) * sy));
      const int px = std::clamp(int(full[i].x), 0, color.cols - 1);
      const int py = std::clamp(int(full[i].y), 0, color.rows - 1);
      if (!keep.empty() && keep.at<uint8_t>(py, px) == 0) continue;
      if (keep_rect != nullptr &&
          (full[i].x < keep_rect->x || full[i].x >= keep_rect->x + keep_rect->width ||
           full[i].y < keep_rect->y || full[i].y >= keep_rect->y + keep_rect->height)) {
        continue;
      }
      order.push_back(int(i));
    }
    // A total order (response, then position, size, angle) so that runs are bit-identical.
    std::sort(order.begin(), order.end(), [&](int a, int b) {
      const cv::KeyPoint& ka = keypoints[a];
      const cv::KeyPoint& kb = keypoints[b];
      return std::make_tuple(-ka.response, ka.pt.x, ka.pt.y, ka.size, ka.angle) <
             std::make_tuple(-kb.response, kb.pt.x, kb.pt.y, kb.size, kb.angle);
    });
    if (order.size() > size_t(options.max_features)) order.resize(options.max_features);

    const size_t count = order.size();
    features->keypoints.resize(count * 4);
    features->colors.resize(count * 3);
    features->descriptors.resize(count * cvis_features::kDescriptorDim);
    cv::Mat selected(int(count), raw.cols, CV_32F);
    for (size_t j = 0; j < count; ++j) {
      const int i = order[j];
      float* keypoint = &features->keypoints[j * 4];
      keypoint[0] = full[i].x;
      keypoint[1] = full[i].y;
      keypoint[2] = float(0.5 * keypoints[i].size * 0.5 * (sx + sy));  // sigma, full-size pixels
      keypoint[3] = float(keypoints[i].angle * CV_PI / 180.0);
      const int px = std::clamp(int(full[i].x), 0, color.cols - 1);
      const int py = std::clamp(int(full[i].y), 0, color.rows - 1);
      const cv::Vec3b bgr = color.at<cv::Vec3b>(py, px);
      features->colors[j * 3 + 0] = bgr[2];
      features->colors[j * 3 + 1] = bgr[1];
      features->colors[j * 3 + 2] = bgr[0];
      raw.row(i).copyTo(selected.row(int(j)));
    }
    NormalizeDescriptors(selected, options.root_sift != 0, features->descriptors.data());
    *out = features.release();
    return CVIS_OK;
  });
}
