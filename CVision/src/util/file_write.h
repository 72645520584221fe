// Writing files the way every output of the core is written: under a temporary name, renamed
// into place, and a failure named for what it is (a full disk is not "cannot write").
#pragma once

#include <cstddef>
#include <string>

#include "../../include/cvis_core.h"

namespace cvis {

// Records why writing `path` (which needed `bytes`) failed with errno `error`: CVIS_NO_SPACE,
// "no space left on /data (/dev/sdb1) while writing PATH (needs about 12 MB, 0 MB free)", for a
// full disk or quota; else CVIS_IO_ERROR, "NAME: cannot write (STRERROR)".
cvis_status WriteFailure(const std::string& path, int error, size_t bytes);

// Writes `size` bytes to the temporary ".NAME.tmp" beside `path` (created anew, never through a
// link) and renames it to `path`; on failure nothing is left at either name that was not there
// before.
cvis_status WriteFileAtomically(const std::string& path, const void* data, size_t size);

}  // namespace cvis
