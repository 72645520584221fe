// Sharpness of a frame as gradient energy, so blurred frames can be told apart and left out.
#pragma once

#include <opencv2/core.hpp>

namespace cvis {

// Mean squared gradient magnitude (Sobel, intensities in [0, 1]) of the grey image, area-
// downscaled so its longer side is at most 640 px: the score then compares frames of one
// capture regardless of their resolution. Only pixels the keep mask keeps count when it is
// given (the object's sharpness, not the backdrop's). 0 for an empty image or mask.
double BlurScore(const cv::Mat& image, const cv::Mat& keep);

// Standard deviation of the grey levels (intensities in [0, 1]) over the pixels the keep mask
// keeps (all when it is empty), at the blur score's working size: how much there is to see at
// all. 0 for an empty image or mask.
double Contrast(const cv::Mat& image, const cv::Mat& keep);

}  // namespace cvis
