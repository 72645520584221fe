// The per-pixel temporal background model behind cvis_segment.h, and the image operations its
// masks are cleaned with.
#pragma once

#include <string>
#include <vector>

#include <opencv2/core.hpp>

#include "../../include/cvis_segment.h"

struct cvis_background_model {
  cvis_background_options options{};
  std::vector<std::string> paths;
  cv::Size size;                    // working size
  std::vector<cv::Mat> frames;      // CV_8UC3 Lab at the working size, one per frame
  std::vector<float> gains;         // each frame's lightness relative to the background's
  cv::Mat background;               // CV_32FC3: weighted L, a, b of each pixel's background
  cv::Mat noise;                    // CV_32F: the background cluster's spread (3-D distance)
  cv::Mat unsettled;                // CV_8U: no colour holds half of the frames (never still)
  cv::Mat core;                     // CV_8U: enclosed by what changed, never changing itself
  cv::Mat envelope;                 // CV_8U: changed in some frame
  std::vector<cv::Mat> masks;       // CV_8U at the working size, 255 = object
  cvis_background_stats stats{};
};

namespace cvis {

// Lightness is weighted down against chroma: exposure drift and soft shading change it most.
constexpr float kLightnessWeight = 0.6f;

// 255 where a binary mask's 0-regions are enclosed (touch no image border), i.e. its holes.
cv::Mat Holes(const cv::Mat& mask);

// Removes 255-regions smaller than min_area pixels (8-connected).
void RemoveSmallRegions(cv::Mat* mask, int min_area);

// Opens (drops specks), closes (joins fragments), drops regions under min_area and fills holes.
cv::Mat CleanChangeMask(const cv::Mat& changed, int min_area);

// The working-size mask at `full` size with edges snapped to the full-size grey `guide` (a
// guided filter: the mask's edge follows the image's where the two agree).
cv::Mat UpsampleMask(const cv::Mat& mask, const cv::Mat& guide);

}  // namespace cvis
