// The bytes behind an opaque cvis_buffer (an encoded image, depth values, a video's frame
// measures), owned by the core until cvis_buffer_destroy.
#pragma once

#include <cstdint>
#include <vector>

struct cvis_buffer {
  std::vector<uint8_t> bytes;
};
