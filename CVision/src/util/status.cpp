#include "status.h"

#include <system_error>

#include <ceres/version.h>
#include <opencv2/core.hpp>

namespace cvis {
namespace {
thread_local std::string last_error;
}  // namespace

void SetLastError(const std::string& message) { last_error = message; }

cvis_status GuardException(const std::exception& error) {
  if (auto* cv_error = dynamic_cast<const cv::Exception*>(&error)) {
    return Fail(CVIS_INTERNAL_ERROR, Str("OpenCV: ", cv_error->err, " in ", cv_error->func));
  }
  if (dynamic_cast<const std::bad_alloc*>(&error)) {
    return Fail(CVIS_OUT_OF_MEMORY, "out of memory");
  }
  // A thread that cannot start (EAGAIN) under a memory or process limit is the same want.
  if (auto* system = dynamic_cast<const std::system_error*>(&error);
      system != nullptr && system->code() == std::errc::resource_unavailable_try_again) {
    return Fail(CVIS_OUT_OF_MEMORY, "cannot start a thread (resource temporarily unavailable)");
  }
  return Fail(CVIS_INTERNAL_ERROR, error.what());
}

}  // namespace cvis

extern "C" {

const char* cvis_last_error_message(void) { return cvis::last_error.c_str(); }

void cvis_set_num_threads(int32_t num_threads) {
  cv::setNumThreads(num_threads > 0 ? num_threads : -1);
}

const char* cvis_version_string(void) {
  static const std::string version =
      cvis::Str("OpenCV ", CV_VERSION, ", Ceres ", CERES_VERSION_STRING);
  return version.c_str();
}

}  // extern "C"
