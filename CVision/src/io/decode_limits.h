// The pixel limit every image decoder checks before it decodes: the size a file's header
// declares, so that a small file that claims a huge image (a decompression bomb) is refused
// before a byte of pixels is allocated.
#pragma once

#include <cstdint>
#include <string>

#include "../../include/cvis_core.h"
#include "image_probe.h"

namespace cvis {

// The limit in force (cvis_set_decode_limits), in pixels.
uint64_t MaxImagePixels();

// CVIS_LIMIT_EXCEEDED when width x height is above the limit: "NAME: declares 30000×30000 =
// 900 MP, above the 120 MP limit (--max-megapixels)"; CVIS_OK otherwise. The sizes are the
// file's own (before any orientation), as its header declares them.
cvis_status CheckPixelLimit(const std::string& path, int64_t width, int64_t height);

// Whether the file at path may be decoded: its kind is one the decoders read and its header's
// size is within the limit. kOther is refused (CVIS_DECODE_ERROR): a format without a probe here
// could only be sized by decoding it. A JPEG, PNG or PNM whose header gives no size is refused
// as undecodable. HEIF is sized by libheif from its boxes. On success *kind says which it is.
cvis_status CheckDecodable(const std::string& path, ImageKind* kind);

// The same for an image held in memory (a texture inside a GLB or USDZ file); name is what the
// messages call it.
cvis_status CheckDecodable(const uint8_t* data, size_t size, const std::string& name, ImageKind* kind);

}  // namespace cvis
