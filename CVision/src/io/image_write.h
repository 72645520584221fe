// Encoding an image to a file as every image output of the core is written: encoded in memory,
// written under a temporary name and renamed, a full disk named as such (util/file_write.h).
#pragma once

#include <string>
#include <vector>

#include <opencv2/core.hpp>

#include "../../include/cvis_core.h"

namespace cvis {

// Encodes `image` in the format of `path`'s extension (.png, .jpg) with OpenCV's `params` and
// writes it through a temporary beside it (util/file_write.h). Encoding in memory keeps libpng's and
// libjpeg's own write errors (printed to standard error, naming no file) out of the way: the
// write is ours, and so is its errno.
cvis_status WriteImageAtomically(const std::string& path, const cv::Mat& image,
                                 const std::vector<int>& params = {});

}  // namespace cvis
