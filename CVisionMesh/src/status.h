// Error plumbing of the mesh core's C entry points: CVision's own (util/status.h), so both cores
// leave their message in one thread-local slot, read by cvis_last_error_message(), and Swift
// checks every call the same way. CVisionMesh depends on CVision, which defines it.
#pragma once

#include "../../CVision/src/util/status.h"
#include "../include/cvis_mesh.h"

namespace cvis_mesh_core {

using cvis::Fail;
using cvis::Guard;
using cvis::SetLastError;
using cvis::Str;

}  // namespace cvis_mesh_core
