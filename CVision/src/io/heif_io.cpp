// HEIF/HEIC through libheif: the primary image (grids assembled, transformations applied by
// libheif), its EXIF block, thumbnails for small previews, and the depth image.
#include "heif_io.h"

#include <libheif/heif.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <opencv2/imgproc.hpp>

#include "../../include/cvis_io.h"
#include "../util/buffer.h"
#include "../util/status.h"
#include "decode_limits.h"
#include "image_io.h"

namespace cvis {
namespace {

struct ContextDeleter {
  void operator()(heif_context* context) const { heif_context_free(context); }
};
struct HandleDeleter {
  void operator()(heif_image_handle* handle) const { heif_image_handle_release(handle); }
};
struct ImageDeleter {
  void operator()(heif_image* image) const { heif_image_release(image); }
};
struct OptionsDeleter {
  void operator()(heif_decoding_options* options) const { heif_decoding_options_free(options); }
};
using ContextPtr = std::unique_ptr<heif_context, ContextDeleter>;
using HandlePtr = std::unique_ptr<heif_image_handle, HandleDeleter>;
using ImagePtr = std::unique_ptr<heif_image, ImageDeleter>;

// "NAME: <what> (libheif's message)": one line naming the file.
cvis_status HeifFail(const std::string& path, const std::string& what, const heif_error& error) {
  return Fail(CVIS_DECODE_ERROR, Str(BaseName(path), ": ", what, " (", error.message, ")"));
}

// Opens the file and its primary image; libheif reads the boxes only, not the coded data.
cvis_status OpenPrimary(const std::string& path, ContextPtr* context, HandlePtr* primary) {
  FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) {
    return Fail(CVIS_IO_ERROR, Str(BaseName(path), ": cannot open (", std::strerror(errno), ")"));
  }
  std::fseek(file, 0, SEEK_END);
  const long size = std::ftell(file);
  const std::string problem = HeifStructureProblem(file, size);
  std::fclose(file);
  // libheif reads a truncated file's boxes happily and fails (or decodes grey) only later.
  if (!problem.empty()) return Fail(CVIS_DECODE_ERROR, Str(BaseName(path), ": ", problem));
  context->reset(heif_context_alloc());
  // Grid tiles are decoded on the calling thread, not on libheif's own pool: the core already
  // decodes one image per worker, and --threads must bound the threads a run uses (a 48-tile
  // phone photo decodes in the same 0.45 s either way on two cores).
  heif_context_set_max_decoding_threads(context->get(), 0);
  heif_error error = heif_context_read_from_file(context->get(), path.c_str(), nullptr);
  if (error.code != heif_error_Ok) return HeifFail(path, "not a readable HEIF file", error);
  heif_image_handle* handle = nullptr;
  error = heif_context_get_primary_image_handle(context->get(), &handle);
  if (error.code != heif_error_Ok) return HeifFail(path, "no primary image", error);
  primary->reset(handle);
  return CVIS_OK;
}

// The thumbnail to decode instead of the image for a preview of min_long_side pixels: the
// smallest with at least that longer side and the image's shape (so that a thumbnail whose
// transformations disagree with the image's is never taken for it); null when none fits.
HandlePtr PickThumbnail(const heif_image_handle* primary, int min_long_side) {
  const int count = heif_image_handle_get_number_of_thumbnails(primary);
  if (count <= 0 || min_long_side <= 0) return nullptr;
  std::vector<heif_item_id> ids(static_cast<size_t>(count));
  heif_image_handle_get_list_of_thumbnail_IDs(primary, ids.data(), count);
  const double aspect = double(heif_image_handle_get_width(primary)) /
                        std::max(1, heif_image_handle_get_height(primary));
  HandlePtr best;
  int best_side = 0;
  for (heif_item_id id : ids) {
    heif_image_handle* thumbnail = nullptr;
    if (heif_image_handle_get_thumbnail(primary, id, &thumbnail).code != heif_error_Ok) continue;
    HandlePtr owned(thumbnail);
    const int w = heif_image_handle_get_width(thumbnail), h = heif_image_handle_get_height(thumbnail);
    const int side = std::max(w, h);
    if (h <= 0 || side < min_long_side || std::abs(double(w) / h - aspect) > 0.02 * aspect) continue;
    if (!best || side < best_side) {
      best = std::move(owned);
      best_side = side;
    }
  }
  return best;
}

// Decodes one image item to interleaved 8-bit RGB(A) and converts it to BGR (+ alpha).
cvis_status DecodeHandle(const std::string& path, const heif_image_handle* handle,
                         bool apply_transformations, cv::Mat* image, cv::Mat* alpha) {
  // The size the item declares, before libheif allocates its planes (a grid's whole canvas).
  if (cvis_status status = CheckPixelLimit(path, heif_image_handle_get_width(handle), heif_image_handle_get_height(handle));
      status != CVIS_OK) {
    return status;
  }
  const bool with_alpha = alpha != nullptr && heif_image_handle_has_alpha_channel(handle);
  std::unique_ptr<heif_decoding_options, OptionsDeleter> options(heif_decoding_options_alloc());
  options->ignore_transformations = apply_transformations ? 0 : 1;
  options->convert_hdr_to_8bit = 1;  // 10- and 12-bit files: 8-bit like every other input
  heif_image* decoded = nullptr;
  const heif_error error = heif_decode_image(
      handle, &decoded, heif_colorspace_RGB,
      with_alpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB, options.get());
  if (error.code != heif_error_Ok) return HeifFail(path, "HEIF image not decodable", error);
  ImagePtr owned(decoded);
  int stride = 0;
  const uint8_t* rows = heif_image_get_plane_readonly(decoded, heif_channel_interleaved, &stride);
  const int w = heif_image_get_width(decoded, heif_channel_interleaved);
  const int h = heif_image_get_height(decoded, heif_channel_interleaved);
  if (rows == nullptr || w <= 0 || h <= 0) {
    return Fail(CVIS_DECODE_ERROR, Str(BaseName(path), ": HEIF image decoded to no pixels"));
  }
  const cv::Mat view(h, w, with_alpha ? CV_8UC4 : CV_8UC3, const_cast<uint8_t*>(rows), size_t(stride));
  if (with_alpha) {
    cv::cvtColor(view, *image, cv::COLOR_RGBA2BGR);
    cv::extractChannel(view, *alpha, 3);
  } else {
    cv::cvtColor(view, *image, cv::COLOR_RGB2BGR);  // copies out of libheif's buffer
    if (alpha != nullptr) alpha->release();
  }
  return CVIS_OK;
}

uint32_t BigEndian32(const unsigned char* bytes) {
  return (uint32_t(bytes[0]) << 24) | (uint32_t(bytes[1]) << 16) | (uint32_t(bytes[2]) << 8) |
         uint32_t(bytes[3]);
}

}  // namespace

bool IsHeif(const std::string& path) {
  unsigned char head[12];
  FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) return false;
  const size_t got = std::fread(head, 1, sizeof(head), file);
  std::fclose(file);
  if (got != sizeof(head) || std::memcmp(head + 4, "ftyp", 4) != 0) return false;
  static const char* const kBrands[] = {"heic", "heix", "hevc", "heim", "heis", "mif1", "msf1"};
  for (const char* brand : kBrands) {
    if (std::memcmp(head + 8, brand, 4) == 0) return true;
  }
  return false;
}

std::string HeifStructureProblem(FILE* file, long size) {
  long offset = 0;
  unsigned char header[16];
  while (offset < size) {
    if (size - offset < 8 || std::fseek(file, offset, SEEK_SET) != 0 ||
        std::fread(header, 1, 8, file) != 8) {
      return Str("truncated HEIF: the file ends after ", size, " bytes, inside a box header");
    }
    const std::string type(reinterpret_cast<const char*>(header + 4), 4);
    // Box types are four printable characters; anything else is not a box boundary.
    if (!std::all_of(type.begin(), type.end(), [](char c) { return c >= 0x20 && c < 0x7F; })) {
      return Str("corrupt HEIF: no box at byte ", offset);
    }
    uint64_t box_size = BigEndian32(header);
    if (box_size == 1) {  // 64-bit size follows the type
      if (std::fread(header + 8, 1, 8, file) != 8) {
        return Str("truncated HEIF: the file ends after ", size, " bytes, inside a box header");
      }
      box_size = (uint64_t(BigEndian32(header + 8)) << 32) | BigEndian32(header + 12);
    } else if (box_size == 0) {
      return "";  // the last box runs to the end of the file
    }
    if (box_size < 8) return Str("corrupt HEIF: '", type, "' box at byte ", offset, " of size ", box_size);
    if (box_size > uint64_t(size - offset)) {
      return Str("truncated HEIF: the file ends after ", size, " bytes, inside its '", type, "' box");
    }
    offset += long(box_size);
  }
  return "";
}

cvis_status DecodeHeif(const std::string& path, bool apply_transformations, int min_long_side,
                       cv::Mat* image, cv::Mat* alpha) {
  ContextPtr context;
  HandlePtr primary;
  if (cvis_status status = OpenPrimary(path, &context, &primary); status != CVIS_OK) return status;
  // A thumbnail is oriented by its own transformations, so only used when they are applied.
  if (apply_transformations && alpha == nullptr) {
    if (HandlePtr thumbnail = PickThumbnail(primary.get(), min_long_side)) {
      return DecodeHandle(path, thumbnail.get(), true, image, nullptr);
    }
  }
  return DecodeHandle(path, primary.get(), apply_transformations, image, alpha);
}

cvis_status ProbeHeif(const std::string& path, int* width, int* height) {
  ContextPtr context;
  HandlePtr primary;
  if (cvis_status status = OpenPrimary(path, &context, &primary); status != CVIS_OK) return status;
  *width = heif_image_handle_get_width(primary.get());
  *height = heif_image_handle_get_height(primary.get());
  if (*width <= 0 || *height <= 0) {
    return Fail(CVIS_DECODE_ERROR, Str(BaseName(path), ": HEIF image without a size"));
  }
  return CVIS_OK;
}

std::vector<uint8_t> ReadHeifExif(const std::string& path) {
  ContextPtr context(heif_context_alloc());
  if (heif_context_read_from_file(context.get(), path.c_str(), nullptr).code != heif_error_Ok) return {};
  heif_image_handle* handle = nullptr;
  if (heif_context_get_primary_image_handle(context.get(), &handle).code != heif_error_Ok) return {};
  HandlePtr primary(handle);
  heif_item_id id = 0;
  if (heif_image_handle_get_list_of_metadata_block_IDs(handle, "Exif", &id, 1) != 1) return {};
  const size_t size = heif_image_handle_get_metadata_size(handle, id);
  std::vector<uint8_t> block(size);
  if (size < 4 || heif_image_handle_get_metadata(handle, id, block.data()).code != heif_error_Ok) return {};
  // The block opens with the offset of the TIFF header from the end of that 4-byte field
  // (usually 6, past an "Exif\0\0" that some writers keep and some do not).
  const size_t tiff = 4 + size_t(BigEndian32(block.data()));
  if (tiff + 8 > size) return {};
  std::vector<uint8_t> exif = {'E', 'x', 'i', 'f', 0, 0};  // libexif wants the APP1 header
  exif.insert(exif.end(), block.begin() + long(tiff), block.end());
  return exif;
}

}  // namespace cvis

namespace {

// Maps normalised samples (0...1) to what the representation says they are.
void MapDepth(const heif_depth_representation_info& rep, cvis_heic_depth_info* info, std::vector<float>* v) {
  const auto map = [&](auto f) {
    for (float& x : *v) x = float(f(double(x)));
  };
  switch (rep.depth_representation_type) {
    case heif_depth_representation_type_uniform_Z:
      if (rep.has_z_near && rep.has_z_far) {
        map([&](double s) { return rep.z_near + s * (rep.z_far - rep.z_near); });
        info->values = CVIS_DEPTH_Z;
      }
      break;
    case heif_depth_representation_type_uniform_inverse_Z:
      if (rep.has_z_near && rep.has_z_far && rep.z_near > 0 && rep.z_far > 0) {
        map([&](double s) { return 1.0 / (1.0 / rep.z_far + s * (1.0 / rep.z_near - 1.0 / rep.z_far)); });
        info->values = CVIS_DEPTH_Z;
      }
      break;
    case heif_depth_representation_type_uniform_disparity:
      if (rep.has_d_min && rep.has_d_max) {
        map([&](double s) { return rep.d_min + s * (rep.d_max - rep.d_min); });
        info->values = CVIS_DEPTH_DISPARITY;
      }
      break;
    default: break;  // non-uniform: the curve is not read by libheif 1.15
  }
}

}  // namespace

extern "C" cvis_status cvis_read_heic_depth(const char* path, cvis_heic_depth_info* info,
                                            cvis_buffer** values) {
  using namespace cvis;
  return Guard([&]() -> cvis_status {
    if (path == nullptr || info == nullptr || values == nullptr) {
      return Fail(CVIS_INVALID_ARGUMENT, "cvis_read_heic_depth: null argument");
    }
    std::memset(info, 0, sizeof(*info));
    info->representation = -1;
    *values = nullptr;
    ContextPtr context;
    HandlePtr primary;
    if (cvis_status status = OpenPrimary(path, &context, &primary); status != CVIS_OK) return status;
    if (!heif_image_handle_has_depth_image(primary.get())) return CVIS_OK;
    heif_item_id id = 0;
    if (heif_image_handle_get_list_of_depth_image_IDs(primary.get(), &id, 1) != 1) return CVIS_OK;
    heif_image_handle* depth_handle = nullptr;
    heif_error error = heif_image_handle_get_depth_image_handle(primary.get(), id, &depth_handle);
    if (error.code != heif_error_Ok) return HeifFail(path, "depth image unreadable", error);
    HandlePtr depth(depth_handle);
    if (cvis_status status = CheckPixelLimit(path, heif_image_handle_get_width(depth_handle),
                                             heif_image_handle_get_height(depth_handle));
        status != CVIS_OK) {
      return status;
    }
    heif_image* decoded = nullptr;
    error = heif_decode_image(depth_handle, &decoded, heif_colorspace_monochrome,
                              heif_chroma_monochrome, nullptr);
    if (error.code != heif_error_Ok) return HeifFail(path, "depth image not decodable", error);
    ImagePtr owned(decoded);
    int stride = 0;
    const uint8_t* rows = heif_image_get_plane_readonly(decoded, heif_channel_Y, &stride);
    const int w = heif_image_get_width(decoded, heif_channel_Y);
    const int h = heif_image_get_height(decoded, heif_channel_Y);
    const int bits = heif_image_get_bits_per_pixel_range(decoded, heif_channel_Y);
    if (rows == nullptr || w <= 0 || h <= 0 || bits < 1 || bits > 16) {
      return Fail(CVIS_DECODE_ERROR, Str(BaseName(path), ": depth image decoded to no samples"));
    }
    std::vector<float> samples(size_t(w) * size_t(h));
    const double scale = 1.0 / double((1 << bits) - 1);
    for (int y = 0; y < h; ++y) {
      const uint8_t* row = rows + size_t(y) * size_t(stride);
      for (int x = 0; x < w; ++x) {
        // Samples above 8 bits are stored in 16-bit words, native byte order.
        const int value = bits <= 8 ? row[x] : reinterpret_cast<const uint16_t*>(row)[x];
        samples[size_t(y) * size_t(w) + size_t(x)] = float(value * scale);
      }
    }
    info->width = w;
    info->height = h;
    info->bit_depth = bits;
    info->values = CVIS_DEPTH_NORMALIZED;
    const heif_depth_representation_info* rep = nullptr;
    if (heif_image_handle_get_depth_image_representation_info(primary.get(), id, &rep) && rep != nullptr) {
      info->representation = int32_t(rep->depth_representation_type);
      info->has_z_near = rep->has_z_near;
      info->has_z_far = rep->has_z_far;
      info->has_d_min = rep->has_d_min;
      info->has_d_max = rep->has_d_max;
      info->z_near = rep->z_near;
      info->z_far = rep->z_far;
      info->d_min = rep->d_min;
      info->d_max = rep->d_max;
      MapDepth(*rep, info, &samples);
      heif_depth_representation_info_free(rep);
    }
    auto buffer = std::make_unique<cvis_buffer>();
    buffer->bytes.resize(samples.size() * sizeof(float));
    std::memcpy(buffer->bytes.data(), samples.data(), buffer->bytes.size());
    *values = buffer.release();
    return CVIS_OK;
  });
}
