// Error plumbing of the mesh core's C entry points: a thread-local message and a guard that
// turns any C++ exception into a status code (as CVision's util/status.h).
#pragma once

#include <exception>
#include <sstream>
#include <string>

#include "../include/cvis_mesh.h"

namespace cvis_mesh_core {

void SetLastError(const std::string& message);

// Records message as the last error and returns status (for early returns in entry points).
inline cvis_status Fail(cvis_status status, const std::string& message) {
  SetLastError(message);
  return status;
}

// Builds a message from streamable parts.
template <typename... Parts>
std::string Str(const Parts&... parts) {
  std::ostringstream stream;
  (stream << ... << parts);
  return stream.str();
}

cvis_status GuardException(const std::exception& error);

// Runs body (returning cvis_status); any exception becomes a status and a message.
template <typename Body>
cvis_status Guard(Body&& body) noexcept {
  try {
    SetLastError("");
    return body();
  } catch (const std::exception& error) {
    return GuardException(error);
  } catch (...) {
    return Fail(CVIS_INTERNAL_ERROR, "unknown C++ exception in the mesh core");
  }
}

}  // namespace cvis_mesh_core
