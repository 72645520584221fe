#include "keep_mask.h"

#include <algorithm>
#include <cmath>

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
    const int x0 = std::max(0, int(std::ceil(keep_rect->x - 0.5)));
    const int y0 = std::max(0, int(std::ceil(keep_rect->y - 0.5)));
    const int x1 = std::min(size.width, int(std::ceil(keep_rect->x + keep_rect->width - 0.5)));
    const int y1 = std::min(size.height, int(std::ceil(keep_rect->y + keep_rect->height - 0.5)));
    cv::Mat rect_mask = cv::Mat::zeros(size, CV_8U);
    if (x1 > x0 && y1 > y0) rect_mask(cv::Rect(x0, y0, x1 - x0, y1 - y0)).setTo(255);
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
