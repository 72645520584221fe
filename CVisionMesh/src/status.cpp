#include "status.h"

#include <new>

#include <meshoptimizer.h>
#include <open3d/Open3DConfig.h>

namespace cvis_mesh_core {
namespace {
thread_local std::string last_error;
}  // namespace

void SetLastError(const std::string& message) { last_error = message; }

cvis_status GuardException(const std::exception& error) {
  if (dynamic_cast<const std::bad_alloc*>(&error)) return Fail(CVIS_LIMIT_EXCEEDED, "out of memory");
  return Fail(CVIS_INTERNAL_ERROR, error.what());
}

}  // namespace cvis_mesh_core

extern "C" const char* cvis_mesh_last_error_message(void) { return cvis_mesh_core::last_error.c_str(); }

extern "C" const char* cvis_mesh_version_string(void) {
  static const std::string version = cvis_mesh_core::Str(
      "Open3D ", OPEN3D_VERSION, ", meshoptimizer ", MESHOPTIMIZER_VERSION / 100, ".",
      MESHOPTIMIZER_VERSION % 100);
  return version.c_str();
}
