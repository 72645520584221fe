#include "status.h"

#include <meshoptimizer.h>
#include <open3d/Open3DConfig.h>

extern "C" const char* cvis_mesh_version_string(void) {
  static const std::string version = cvis_mesh_core::Str(
      "Open3D ", OPEN3D_VERSION, ", meshoptimizer ", MESHOPTIMIZER_VERSION / 100, ".",
      MESHOPTIMIZER_VERSION % 100);
  return version.c_str();
}
