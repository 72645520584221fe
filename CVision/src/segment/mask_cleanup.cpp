// Cleaning a per-frame change mask and bringing it to full resolution.

#include <algorithm>
#include <cmath>

#include <opencv2/imgproc.hpp>

#include "background_model.h"

namespace cvis {

cv::Mat Holes(const cv::Mat& mask) {
  // Flood the outside from a one-pixel frame around the image: what the flood misses among the
  // mask's 0-pixels is enclosed.
  cv::Mat padded;
  cv::copyMakeBorder(mask, padded, 1, 1, 1, 1, cv::BORDER_CONSTANT, cv::Scalar(0));
  cv::floodFill(padded, cv::Point(0, 0), cv::Scalar(128), nullptr, cv::Scalar(0), cv::Scalar(0), 4);
  cv::Mat inner = padded(cv::Rect(1, 1, mask.cols, mask.rows));
  return inner == 0;
}

void RemoveSmallRegions(cv::Mat* mask, int min_area) {
  if (min_area <= 1) return;
  cv::Mat labels, stats, centroids;
  const int count = cv::connectedComponentsWithStats(*mask, labels, stats, centroids, 8, CV_32S);
  std::vector<uint8_t> keep(size_t(count), 0);
  for (int label = 1; label < count; ++label) keep[size_t(label)] = stats.at<int>(label, cv::CC_STAT_AREA) >= min_area;
  for (int y = 0; y < mask->rows; ++y) {
    const int* row = labels.ptr<int>(y);
    uint8_t* out = mask->ptr<uint8_t>(y);
    for (int x = 0; x < mask->cols; ++x) out[x] = keep[size_t(row[x])] ? 255 : 0;
  }
}

cv::Mat CleanChangeMask(const cv::Mat& changed, int min_area) {
  // Kernels scale with the working size: 3 px and 7 px at 480 px.
  const int side = std::max(changed.cols, changed.rows);
  const int open_size = std::max(3, 2 * int(std::lround(side / 480.0)) + 1);
  const int close_size = std::max(5, 2 * int(std::lround(3.0 * side / 480.0)) + 1);
  cv::Mat mask;
  cv::morphologyEx(changed, mask, cv::MORPH_OPEN,
                   cv::getStructuringElement(cv::MORPH_ELLIPSE, cv::Size(open_size, open_size)));
  cv::morphologyEx(mask, mask, cv::MORPH_CLOSE,
                   cv::getStructuringElement(cv::MORPH_ELLIPSE, cv::Size(close_size, close_size)));
  RemoveSmallRegions(&mask, min_area);
  mask.setTo(255, Holes(mask));
  return mask;
}

cv::Mat UpsampleMask(const cv::Mat& mask, const cv::Mat& guide) {
  const cv::Size full = guide.size();
  cv::Mat soft;
  mask.convertTo(soft, CV_32F, 1.0 / 255.0);
  cv::resize(soft, soft, full, 0, 0, cv::INTER_LINEAR);
  if (full == mask.size()) {
    cv::Mat binary = soft >= 0.5f;
    return binary;
  }
  // He, Sun and Tang's guided filter: locally the output is a linear function of the guide, so
  // a blurred step from upsampling becomes the image's own edge where the image has one. The
  // window spans about two working pixels.
  const double scale = double(full.width) / mask.cols;
  const int radius = std::max(2, int(std::lround(1.5 * scale)));
  const cv::Size window(2 * radius + 1, 2 * radius + 1);
  const double eps = 4e-3;
  cv::Mat mean_i, mean_p, corr_ip, corr_ii;
  cv::boxFilter(guide, mean_i, CV_32F, window);
  cv::boxFilter(soft, mean_p, CV_32F, window);
  cv::boxFilter(guide.mul(soft), corr_ip, CV_32F, window);
  cv::boxFilter(guide.mul(guide), corr_ii, CV_32F, window);
  cv::Mat var_i = corr_ii - mean_i.mul(mean_i);
  cv::Mat cov_ip = corr_ip - mean_i.mul(mean_p);
  cv::Mat a = cov_ip / (var_i + eps);
  cv::Mat b = mean_p - a.mul(mean_i);
  cv::boxFilter(a, a, CV_32F, window);
  cv::boxFilter(b, b, CV_32F, window);
  cv::Mat refined = a.mul(guide) + b;
  cv::Mat binary = refined >= 0.5f;
  return binary;
}

}  // namespace cvis
