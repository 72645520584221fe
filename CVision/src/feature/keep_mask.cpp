#include "keep_mask.h"

#include <algorithm>
#include <cmath>
#include <iterator>

#include <opencv2/imgproc.hpp>

#include "../io/image_io.h"
#include "../util/status.h"

namespace cvis {

cv::Mat AlphaKeepMask(const cv::Mat& alpha) {
  if (alpha.empty()) return cv::Mat();
  cv::Mat keep;
  cv::threshold(alpha, keep, 127, 255, cv::THRESH_BINARY);
  const int kept = cv::countNonZero(keep);
  if (kept == 0 || kept == int(keep.total())) return cv::Mat();
  return keep;
}

cv::Mat DistanceToDropped(const cv::Mat& keep) {
  cv::Mat distance;
  cv::distanceTransform(keep, distance, cv::DIST_L2, cv::DIST_MASK_PRECISE);
  return distance;
}

cvis_status BuildKeepMask(const char* mask_path, const cvis_rect* keep_rect, cv::Size size,
                          cv::Mat* keep, const cv::Mat& alpha_keep) {
  keep->release();
  if (mask_path != nullptr && mask_path[0] != '\0') {
    cv::Mat mask;
    if (cvis_status status = DecodeMask(mask_path, &mask); status != CVIS_OK) return status;
    if (mask.size() != size) {
      // A mask of another resolution is scaled; one of another shape belongs to another image.
      const double aspect_mask = double(mask.cols) / mask.rows, aspect_image = double(size.width) / size.height;
      if (std::abs(aspect_mask / aspect_image - 1.0) > 0.01) {
        return Fail(CVIS_INVALID_ARGUMENT, Str(BaseName(mask_path), ": mask is ", mask.cols, "x", mask.rows,
                                               ", the image ", size.width, "x", size.height));
      }
      cv::resize(mask, mask, size, 0, 0, cv::INTER_NEAREST);
    }
    cv::threshold(mask, *keep, 127, 255, cv::THRESH_BINARY);
  }
  if (keep_rect != nullptr) {
    const double values[] = {keep_rect->x, keep_rect->y, keep_rect->width, keep_rect->height};
    if (!std::all_of(std::begin(values), std::end(values), [](double v) { return std::isfinite(v); })) {
      return Fail(CVIS_INVALID_ARGUMENT, "mask rectangle: not finite numbers");
    }
    // Clipped to the image in floating point before anything becomes an int: a rectangle
    // reaching past the image (however far: 2^32 does not fit an int) keeps up to its edge.
    const auto first = [](double start, int side) { return int(std::clamp(std::ceil(start - 0.5), 0.0, double(side))); };
    const auto end = [](double start, double length, int side) {
      return int(std::clamp(std::ceil(start + length - 0.5), 0.0, double(side)));
    };
    const int x0 = first(keep_rect->x, size.width), y0 = first(keep_rect->y, size.height);
    const int x1 = end(keep_rect->x, keep_rect->width, size.width), y1 = end(keep_rect->y, keep_rect->height, size.height);
    if (x1 <= x0 || y1 <= y0) {
      // Nothing of the image is kept: the mask, not the photo, is at fault.
      return Fail(CVIS_INVALID_ARGUMENT, Str("mask rectangle ", keep_rect->x, ",", keep_rect->y, " ", keep_rect->width, "x",
                                             keep_rect->height, " lies outside this image (", size.width, "x",
                                             size.height, "): it keeps no pixel of it"));
    }
    cv::Mat rect_mask = cv::Mat::zeros(size, CV_8U);
    rect_mask(cv::Rect(x0, y0, x1 - x0, y1 - y0)).setTo(255);
    if (keep->empty()) *keep = rect_mask; else cv::bitwise_and(*keep, rect_mask, *keep);
  }
  if (!alpha_keep.empty()) {
    if (alpha_keep.size() != size) {
      return Fail(CVIS_INVALID_ARGUMENT, Str("alpha mask is ", alpha_keep.cols, "x", alpha_keep.rows,
                                             ", the image ", size.width, "x", size.height));
    }
    if (keep->empty()) *keep = alpha_keep.clone(); else cv::bitwise_and(*keep, alpha_keep, *keep);
  }
  return CVIS_OK;
}

}  // namespace cvis
