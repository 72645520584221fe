// Prints what libheif reads from a HEIF file: the primary image's size, bit depth, alpha, corner
// colours (decoded with transformations), thumbnails, EXIF block size and the depth image with its
// representation info. make-heic-samples.sh runs it on each sample it writes, as a check.
//
// Usage: describe_heif FILE...
#include <libheif/heif.h>

#include <cstdio>
#include <vector>

namespace {

void Corners(const heif_image_handle* handle) {
  heif_image* image = nullptr;
  heif_error error = heif_decode_image(handle, &image, heif_colorspace_RGB, heif_chroma_interleaved_RGB, nullptr);
  if (error.code != heif_error_Ok) {
    std::printf("  decode failed: %s\n", error.message);
    return;
  }
  int stride = 0;
  const uint8_t* rows = heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride);
  const int w = heif_image_get_width(image, heif_channel_interleaved);
  const int h = heif_image_get_height(image, heif_channel_interleaved);
  const int points[4][2] = {{4, 4}, {w - 5, 4}, {4, h - 5}, {w - 5, h - 5}};
  const char* names[4] = {"top-left", "top-right", "bottom-left", "bottom-right"};
  for (int i = 0; i < 4; ++i) {
    const uint8_t* p = rows + points[i][1] * stride + points[i][0] * 3;
    std::printf("  %s rgb %d %d %d\n", names[i], p[0], p[1], p[2]);
  }
  heif_image_release(image);
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    heif_context* context = heif_context_alloc();
    heif_error error = heif_context_read_from_file(context, argv[i], nullptr);
    if (error.code != heif_error_Ok) {
      std::printf("%s: %s\n", argv[i], error.message);
      heif_context_free(context);
      continue;
    }
    heif_image_handle* handle = nullptr;
    heif_context_get_primary_image_handle(context, &handle);
    std::printf("%s: %dx%d (ispe %dx%d), %d-bit, alpha %d, thumbnails %d, exif blocks %d\n", argv[i],
                heif_image_handle_get_width(handle), heif_image_handle_get_height(handle),
                heif_image_handle_get_ispe_width(handle), heif_image_handle_get_ispe_height(handle),
                heif_image_handle_get_luma_bits_per_pixel(handle), heif_image_handle_has_alpha_channel(handle),
                heif_image_handle_get_number_of_thumbnails(handle),
                heif_image_handle_get_number_of_metadata_blocks(handle, "Exif"));
    Corners(handle);
    if (heif_image_handle_has_depth_image(handle)) {
      heif_item_id id = 0;
      heif_image_handle_get_list_of_depth_image_IDs(handle, &id, 1);
      heif_image_handle* depth = nullptr;
      heif_image_handle_get_depth_image_handle(handle, id, &depth);
      std::printf("  depth %dx%d, %d-bit\n", heif_image_handle_get_width(depth), heif_image_handle_get_height(depth),
                  heif_image_handle_get_luma_bits_per_pixel(depth));
      const heif_depth_representation_info* info = nullptr;
      if (heif_image_handle_get_depth_image_representation_info(handle, id, &info)) {
        std::printf("  depth info: type %d, z_near %d %g, z_far %d %g, d_min %d, d_max %d\n",
                    int(info->depth_representation_type), info->has_z_near, info->z_near, info->has_z_far,
                    info->z_far, info->has_d_min, info->has_d_max);
        heif_depth_representation_info_free(info);
      }
      heif_image* image = nullptr;
      error = heif_decode_image(depth, &image, heif_colorspace_monochrome, heif_chroma_monochrome, nullptr);
      if (error.code == heif_error_Ok) {
        int stride = 0;
        const uint8_t* rows = heif_image_get_plane_readonly(image, heif_channel_Y, &stride);
        std::printf("  depth samples (0,0) %d (159,0) %d (0,119) %d (159,119) %d (80,60) %d\n", rows[0], rows[159],
                    rows[119 * stride], rows[119 * stride + 159], rows[60 * stride + 80]);
        heif_image_release(image);
      } else {
        std::printf("  depth decode failed: %s\n", error.message);
      }
      heif_image_handle_release(depth);
    }
    heif_image_handle_release(handle);
    heif_context_free(context);
  }
  return 0;
}
