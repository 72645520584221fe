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
void NormalizeDescriptors(const cv::Mat& raw, bool root_sift, uint8_t* out_bytes, float* out) {
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
    uint8_t* bytes = out_bytes + size_t(i) * cvis_features::kDescriptorDim;
    QuantizeDescriptor(unit.data(), bytes);
    DequantizeDescriptor(bytes, out + size_t(i) * cvis_features::kDescriptorDim);
  }
}


// Octave layers of OpenCV's SIFT (its default, Lowe's 3). A keypoint's contrast, the quantity
// the contrast threshold bounds, is its response times this.
constexpr int kOctaveLayers = 3;

// One SIFT detection on the grey working image, inside the detection mask (may be empty).
// OpenCV would cut to nfeatures before masking, and its cut (and its keypoint order, which
// comes out of parallel loops) is not reproducible among equal responses: we take all and cut
// ourselves.
struct Detection {
  std::vector<cv::KeyPoint> keypoints;
  cv::Mat descriptors;
};

Detection Detect(const cv::Mat& gray, const cv::Mat& mask, double contrast_threshold,
                 double edge_threshold) {
  cv::Ptr<cv::SIFT> sift = cv::SIFT::create(0, kOctaveLayers, contrast_threshold, edge_threshold, 1.6);
  Detection detection;
  sift->detectAndCompute(gray, mask, detection.keypoints, detection.descriptors);
  return detection;
}

// Where a detection's keypoints lie in the full-size upright image and which of them to keep.
struct Placement {
  cv::Rect region;            // the detection region in full-size pixels
  double sx = 1.0, sy = 1.0;  // full-size pixels per working pixel
  const cv::Mat* keep = nullptr;            // full-size keep mask (may be empty)
  const cvis_rect* keep_rect = nullptr;     // may be null
  const cv::Mat* alpha_distance = nullptr;  // distance to the nearest transparent pixel (may be empty)
  double alpha_margin = 0.0;                // in keypoint scales (sigma)
  int image_cols = 0, image_rows = 0;       // the full-size upright image

  // Full-size position (COLMAP convention: resizing maps centre-aligned coordinates x + 0.5
  // linearly) and scale (sigma, full-size pixels) of a working-image keypoint.
  cv::Point2f Position(const cv::KeyPoint& k) const {
    return cv::Point2f(float(region.x + (k.pt.x + 0.5) * sx), float(region.y + (k.pt.y + 0.5) * sy));
  }
  double Sigma(const cv::KeyPoint& k) const { return 0.5 * k.size * 0.5 * (sx + sy); }

  // Whether every mask keeps the keypoint and, with an alpha channel, its descriptor window
  // stays clear of transparent pixels.
  bool Keeps(const cv::KeyPoint& k) const {
    const cv::Point2f p = Position(k);
    const int px = std::clamp(int(p.x), 0, image_cols - 1);
    const int py = std::clamp(int(p.y), 0, image_rows - 1);
    if (!keep->empty() && keep->at<uint8_t>(py, px) == 0) return false;
    if (keep_rect != nullptr &&
        (p.x < keep_rect->x || p.x >= keep_rect->x + keep_rect->width ||
         p.y < keep_rect->y || p.y >= keep_rect->y + keep_rect->height)) {
      return false;
    }
    if (!alpha_distance->empty() && alpha_distance->at<float>(py, px) <= alpha_margin * Sigma(k)) {
      return false;
    }
    return true;
  }
};

// Indices of the detection's keypoints the placement keeps.
std::vector<int> KeptKeypoints(const Detection& detection, const Placement& placement) {
  std::vector<int> kept;
  for (size_t i = 0; i < detection.keypoints.size(); ++i) {
    if (placement.Keeps(detection.keypoints[i])) kept.push_back(int(i));
  }
  return kept;
}

// The keep mask the blur score reads: with an alpha channel, the kept pixels at least two
// working pixels of the 640 px blur scale from a transparent one, so that the cut-out's sharp
// silhouette (the matte, not the photo) does not make a blurred frame look sharp.
cv::Mat BlurKeepMask(const cv::Mat& keep, const cv::Mat& alpha_distance, cv::Size size) {
  if (alpha_distance.empty()) return keep;
  const double margin = 2.0 * std::max(1.0, std::max(size.width, size.height) / 640.0);
  cv::Mat inner = alpha_distance > margin;
  if (!keep.empty()) cv::bitwise_and(inner, keep, inner);
  return cv::countNonZero(inner) > 0 ? inner : keep;
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
  options->min_features = 500;
  options->min_contrast_threshold = 0.005;
  options->alpha_margin = 3.0 * std::sqrt(2.0) * (4 + 1) / 2;
  options->affine_max_tilt = 0;
}

namespace cvis {
namespace {

// The options given (the defaults for null), checked: an entry point's common start.
cvis_status ResolveOptions(const char* image_path, const cvis_sift_options* given, cvis_sift_options* options) {
  cvis_sift_options_default(options);
  if (given != nullptr) *options = *given;
  const bool valid = options->max_features > 0 && options->max_image_size >= 16 &&
                     options->contrast_threshold > 0 && options->edge_threshold > 0 &&
                     options->min_features >= 0 && options->min_contrast_threshold > 0 &&
                     options->affine_max_tilt >= 0 && options->affine_max_tilt <= 8 && options->alpha_margin >= 0;
  return valid ? CVIS_OK : Fail(CVIS_INVALID_ARGUMENT, Str(BaseName(image_path), ": invalid SIFT options"));
}

// The finest keypoint scale (sigma, in working pixels) OpenCV's SIFT reports: octave -1 (its
// doubled input), scale-space layer 1 of 3 less the half-layer its refinement may move, so
// 1.6 * 2^(0.5 / 3) / 2.
const double kFinestSigma = 1.6 * std::pow(2.0, 0.5 / kOctaveLayers) / 2.0;

// How one extraction samples the image: `upscale` times the working size the options give, and
// with `finer_than` > 0 only keypoints of a smaller sigma (full-size pixels), without contrast
// adaptation or affine simulations.
struct Sampling {
  double upscale = 1.0;
  double finer_than = 0.0;
};

// The extraction behind cvis_extract_features and cvis_extract_finer_features.
cvis_status Extract(const char* image_path, const char* mask_path, const cvis_rect* keep_rect,
                    const cvis_sift_options& options, const Sampling& sampling, cvis_features** out) {
  cv::Mat color, alpha;
  if (cvis_status status =
          DecodeImage(image_path, options.apply_exif_orientation != 0, &color, &alpha);
      status != CVIS_OK) {
    return status;
  }
  const cv::Mat alpha_keep = AlphaKeepMask(alpha);
  cv::Mat keep;
  if (cvis_status status = BuildKeepMask(mask_path, keep_rect, color.size(), &keep, alpha_keep);
      status != CVIS_OK) {
    return status;
  }
  const cv::Mat alpha_distance = alpha_keep.empty() ? cv::Mat() : DistanceToDropped(alpha_keep);
  auto features = std::make_unique<cvis_features>();
  features->image_width = color.cols;
  features->image_height = color.rows;
  features->mask_from_alpha = !alpha_keep.empty();
  features->contrast_threshold = options.contrast_threshold;
  // One grey conversion serves the blur score (whole frame) and SIFT (the mask's region).
  cv::Mat gray_full;
  cv::cvtColor(color, gray_full, cv::COLOR_BGR2GRAY);
  const cv::Mat blur_keep = BlurKeepMask(keep, alpha_distance, color.size());
  features->blur_score = BlurScore(gray_full, blur_keep);
  features->contrast = Contrast(gray_full, blur_keep);
  const cv::Rect region = DetectionRegion(keep, color.size());
  if (region.area() == 0) {  // everything masked out
    *out = features.release();
    return CVIS_OK;
  }

  // OpenCV's SIFT always doubles its input (first octave -1), so detecting on an image whose
  // long side is max_image_size already samples scale space at twice that resolution.
  const double scale = sampling.upscale * std::min(1.0, double(options.max_image_size) /
                                                            std::max(color.cols, color.rows));
  // A copy, not a view: SIFT's blurs would otherwise read pixels beyond the region as border.
  cv::Mat gray;
  if (scale != 1.0) {
    const cv::Size size(std::max(1, int(std::lround(region.width * scale))),
                        std::max(1, int(std::lround(region.height * scale))));
    cv::resize(gray_full(region), gray, size, 0, 0, scale < 1.0 ? cv::INTER_AREA : cv::INTER_LINEAR);
  } else {
    gray = gray_full(region).clone();
  }
  cv::Mat detection_mask;
  if (!keep.empty()) cv::resize(keep(region), detection_mask, gray.size(), 0, 0, cv::INTER_NEAREST);

  Placement placement;
  placement.region = region;
  placement.sx = double(region.width) / gray.cols;
  placement.sy = double(region.height) / gray.rows;
  placement.keep = &keep;
  placement.keep_rect = keep_rect;
  placement.alpha_distance = &alpha_distance;
  placement.alpha_margin = options.alpha_margin;
  placement.image_cols = color.cols;
  placement.image_rows = color.rows;

  Detection detection = Detect(gray, detection_mask, options.contrast_threshold, options.edge_threshold);
  std::vector<int> order = KeptKeypoints(detection, placement);
  if (sampling.finer_than > 0) {
    order.erase(std::remove_if(order.begin(), order.end(),
                               [&](int i) { return placement.Sigma(detection.keypoints[i]) >= sampling.finer_than; }),
                order.end());
  }
  features->count_at_base_threshold = int32_t(order.size());
  const bool adapt = sampling.finer_than <= 0;
  // Too few for registration: halve the threshold until enough pass. One detection at the
  // floor serves every step (a threshold only removes keypoints of lower contrast).
  if (adapt && int(order.size()) < options.min_features &&
      options.min_contrast_threshold < options.contrast_threshold) {
    Detection low = Detect(gray, detection_mask, options.min_contrast_threshold, options.edge_threshold);
    const std::vector<int> kept = KeptKeypoints(low, placement);
    auto passing = [&](double threshold) {
      std::vector<int> out;
      for (int i : kept) {
        if (double(low.keypoints[i].response) * kOctaveLayers >= threshold) out.push_back(i);
      }
      return out;
    };
    double threshold = options.contrast_threshold;
    std::vector<int> chosen;
    do {
      threshold = std::max(0.5 * threshold, options.min_contrast_threshold);
      chosen = passing(threshold);
    } while (int(chosen.size()) < options.min_features && threshold > options.min_contrast_threshold);
    if (chosen.size() > order.size()) {
      detection = std::move(low);
      order = std::move(chosen);
      features->contrast_threshold = threshold;
    }
  }
  // Still starved at the floor: affine simulations (ASIFT), when asked for.
  if (adapt && int(order.size()) < options.min_features && options.affine_max_tilt > 0) {
    cv::Ptr<cv::AffineFeature> asift = cv::AffineFeature::create(
        cv::SIFT::create(0, kOctaveLayers, options.min_contrast_threshold, options.edge_threshold, 1.6),
        options.affine_max_tilt);
    Detection affine;
    asift->detectAndCompute(gray, detection_mask, affine.keypoints, affine.descriptors);
    std::vector<int> kept = KeptKeypoints(affine, placement);
    if (kept.size() > order.size()) {
      detection = std::move(affine);
      order = std::move(kept);
      features->contrast_threshold = options.min_contrast_threshold;
    }
  }
  const std::vector<cv::KeyPoint>& keypoints = detection.keypoints;
  const cv::Mat& raw = detection.descriptors;
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
  features->descriptor_bytes.resize(count * cvis_features::kDescriptorDim);
  cv::Mat selected(int(count), raw.cols, CV_32F);
  for (size_t j = 0; j < count; ++j) {
    const int i = order[j];
    const cv::Point2f p = placement.Position(keypoints[i]);
    float* keypoint = &features->keypoints[j * 4];
    keypoint[0] = p.x;
    keypoint[1] = p.y;
    keypoint[2] = float(placement.Sigma(keypoints[i]));  // sigma, full-size pixels
    keypoint[3] = float(keypoints[i].angle * CV_PI / 180.0);
    const int px = std::clamp(int(p.x), 0, color.cols - 1);
    const int py = std::clamp(int(p.y), 0, color.rows - 1);
    const cv::Vec3b bgr = color.at<cv::Vec3b>(py, px);
    features->colors[j * 3 + 0] = bgr[2];
    features->colors[j * 3 + 1] = bgr[1];
    features->colors[j * 3 + 2] = bgr[0];
    raw.row(i).copyTo(selected.row(int(j)));
  }
  NormalizeDescriptors(selected, options.root_sift != 0, features->descriptor_bytes.data(),
                       features->descriptors.data());
  *out = features.release();
  return CVIS_OK;
}

}  // namespace
}  // namespace cvis

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
    if (cvis_status status = ResolveOptions(image_path, options_in, &options); status != CVIS_OK) return status;
    return Extract(image_path, mask_path, keep_rect, options, Sampling(), out);
  });
}

extern "C" cvis_status cvis_extract_finer_features(const char* image_path, const char* mask_path,
                                                   const cvis_rect* keep_rect,
                                                   const cvis_sift_options* options_in,
                                                   const cvis_features* base, cvis_features** out) {
  using namespace cvis;
  return Guard([&] {
    if (image_path == nullptr || base == nullptr || out == nullptr) {
      return Fail(CVIS_INVALID_ARGUMENT, "cvis_extract_finer_features: null argument");
    }
    *out = nullptr;
    cvis_sift_options options;
    if (cvis_status status = ResolveOptions(image_path, options_in, &options); status != CVIS_OK) return status;
    // The finest sigma the base detection can hold, in full-size pixels: its working image is
    // max_image_size on the longer side at most.
    const double base_pixel = std::max(1.0, double(std::max(base->image_width, base->image_height)) /
                                                options.max_image_size);
    Sampling sampling;
    sampling.upscale = 2.0;
    sampling.finer_than = kFinestSigma * base_pixel;
    cvis_features* finer_raw = nullptr;
    if (cvis_status status = Extract(image_path, mask_path, keep_rect, options, sampling, &finer_raw);
        status != CVIS_OK) {
      return status;
    }
    std::unique_ptr<cvis_features> finer(finer_raw);
    if (finer->image_width != base->image_width || finer->image_height != base->image_height) {
      return Fail(CVIS_INVALID_ARGUMENT, Str(BaseName(image_path), ": features are of another image size"));
    }
    // The base's keypoints first and unchanged, so that matches indexing them stay valid; the
    // finer ones after, strongest first, up to max_features in all.
    auto merged = std::make_unique<cvis_features>(*base);
    const int32_t room = std::max(0, options.max_features - base->Count());
    const int32_t added = std::min(room, finer->Count());
    merged->keypoints.insert(merged->keypoints.end(), finer->keypoints.begin(), finer->keypoints.begin() + 4 * added);
    merged->colors.insert(merged->colors.end(), finer->colors.begin(), finer->colors.begin() + 3 * added);
    merged->descriptors.insert(merged->descriptors.end(), finer->descriptors.begin(),
                               finer->descriptors.begin() + size_t(added) * cvis_features::kDescriptorDim);
    merged->descriptor_bytes.insert(merged->descriptor_bytes.end(), finer->descriptor_bytes.begin(),
                                    finer->descriptor_bytes.begin() + size_t(added) * cvis_features::kDescriptorDim);
    *out = merged.release();
    return CVIS_OK;
  });
}
