// The keep mask of an image: what its mask file and keep-rectangle leave for features, blur
// scores and the background test alike, built one way so they all agree on the same pixels.
#pragma once

#include <opencv2/core.hpp>

#include "../../include/cvis_feature.h"

namespace cvis {

// Full-size upright keep mask (255 = keep) from the optional mask file and keep-rectangle;
// empty when neither is given. A pixel belongs to the rectangle when its centre does. A mask of
// another resolution but the same shape is scaled; one of another shape fails with a message
// naming the file.
cvis_status BuildKeepMask(const char* mask_path, const cvis_rect* keep_rect, cv::Size size,
                          cv::Mat* keep);

}  // namespace cvis
