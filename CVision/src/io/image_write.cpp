#include "image_write.h"

#include <opencv2/imgcodecs.hpp>

#include "../util/file_write.h"
#include "../util/status.h"
#include "image_io.h"

namespace cvis {

cvis_status WriteImageAtomically(const std::string& path, const cv::Mat& image, const std::vector<int>& params) {
  const size_t dot = path.find_last_of('.');
  const size_t slash = path.find_last_of('/');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) {
    return Fail(CVIS_INVALID_ARGUMENT, Str(BaseName(path), ": no extension to choose an image format by"));
  }
  std::vector<uchar> encoded;
  bool ok = false;
  try {
    ok = cv::imencode(path.substr(dot), image, encoded, params);
  } catch (const cv::Exception&) {
    ok = false;
  }
  if (!ok) return Fail(CVIS_INTERNAL_ERROR, Str(BaseName(path), ": cannot encode the image"));
  return WriteFileAtomically(path, encoded.data(), encoded.size());
}

}  // namespace cvis
