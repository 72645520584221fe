// The keep mask of an image: what its mask file, keep-rectangle and alpha channel leave for
// features, blur scores, the background test and the dense stage's masks alike, built one way so
// they all agree on the same pixels.
#pragma once

#include <opencv2/core.hpp>

#include "../../include/cvis_feature.h"

namespace cvis {

// The keep mask an alpha channel implies (255 where alpha >= 128, the same cut as a mask file's):
// empty when there is no alpha, when every pixel is opaque (nothing to mask) or when none is (a
// picture that shows nothing is a writer's mistake, not a cut-out: the image is taken as opaque).
cv::Mat AlphaKeepMask(const cv::Mat& alpha);

// Full-size upright keep mask (255 = keep) from the optional mask file, keep-rectangle and alpha
// keep mask (AlphaKeepMask; empty = none), combined with AND; empty when none is given. A pixel
// belongs to the rectangle when its centre does. A mask of another resolution but the same shape
// is scaled; one of another shape fails with a message naming the file. A rectangle is clipped to
// the image; one that keeps no pixel of it fails (CVIS_INVALID_ARGUMENT, "mask rectangle ...").
cvis_status BuildKeepMask(const char* mask_path, const cvis_rect* keep_rect, cv::Size size,
                          cv::Mat* keep, const cv::Mat& alpha_keep = cv::Mat());

// Distance (pixels, float) from every pixel to the nearest pixel a keep mask drops, measured
// between pixel centres; pixels beyond the image border do not count as dropped.
cv::Mat DistanceToDropped(const cv::Mat& keep);

}  // namespace cvis
