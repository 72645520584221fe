// Error plumbing shared by every C entry point: a thread-local message and a guard that turns
// any C++ exception into a status code, so nothing throws across the C boundary.
#pragma once

#include <exception>
#include <sstream>
#include <string>

#include "../../include/cvis_core.h"

namespace cvis {

void SetLastError(const std::string& message);

// Records message as the last error and returns status (for early returns in entry points).
inline cvis_status Fail(cvis_status status, const std::string& message) {
  SetLastError(message);
  return status;
}

// Builds a message from streamable parts: Fail(CVIS_INVALID_ARGUMENT, Str("n = ", n)).
template <typename... Parts>
std::string Str(const Parts&... parts) {
  std::ostringstream stream;
  (stream << ... << parts);
  return stream.str();
}

// Runs body (returning cvis_status) and converts any exception into CVIS_INTERNAL_ERROR (or
// CVIS_DECODE_ERROR etc. for exceptions that say so) with the exception's text as the message.
cvis_status GuardException(const std::exception& error);

template <typename Body>
cvis_status Guard(Body&& body) noexcept {
  try {
    SetLastError("");
    return body();
  } catch (const std::exception& error) {
    return GuardException(error);
  } catch (...) {
    return Fail(CVIS_INTERNAL_ERROR, "unknown C++ exception");
  }
}

}  // namespace cvis
