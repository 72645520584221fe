// Encodes the HEIC test images that libheif's own encoder can write (plain with EXIF, irot,
// 10-bit, alpha, with thumbnail) and the single images that assemble_heif.py composes into a grid
// and a depth file. Every pixel comes from a formula, so a run reproduces the same pictures.
//
// Usage: encode_samples OUT_DIR PARTS_DIR
#include <libexif/exif-data.h>
#include <libheif/heif.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct Rgb { int r, g, b; };

// Quadrant colours, far apart in every channel so a corner's colour names its quadrant after any
// rotation or flip: top-left red, top-right green, bottom-left blue, bottom-right yellow.
Rgb Quadrant(int x, int y, int w, int h) {
  const bool right = x >= w / 2, bottom = y >= h / 2;
  if (!right && !bottom) return {220, 20, 20};
  if (right && !bottom) return {20, 220, 20};
  if (!right) return {20, 20, 220};
  return {220, 220, 20};
}

void Check(heif_error error, const char* what) {
  if (error.code != heif_error_Ok) {
    std::fprintf(stderr, "%s: %s\n", what, error.message);
    std::exit(1);
  }
}

// EXIF as libexif writes it ("Exif\0\0" and a big-endian TIFF): orientation, FocalLength and
// FocalLengthIn35mmFilm, Make and Model.
std::vector<uint8_t> MakeExif(int orientation, double focal_mm, int focal_35mm) {
  ExifData* data = exif_data_new();
  exif_data_unset_option(data, EXIF_DATA_OPTION_FOLLOW_SPECIFICATION);
  exif_data_set_byte_order(data, EXIF_BYTE_ORDER_MOTOROLA);
  const ExifByteOrder order = EXIF_BYTE_ORDER_MOTOROLA;
  auto add = [&](ExifIfd ifd, ExifTag tag, ExifFormat format, unsigned long components) {
    ExifEntry* entry = exif_entry_new();
    entry->tag = tag;
    entry->format = format;
    entry->components = components;
    entry->size = exif_format_get_size(format) * components;
    entry->data = static_cast<unsigned char*>(std::calloc(1, entry->size));
    exif_content_add_entry(data->ifd[ifd], entry);
    exif_entry_unref(entry);
    return entry;
  };
  exif_set_short(add(EXIF_IFD_0, EXIF_TAG_ORIENTATION, EXIF_FORMAT_SHORT, 1)->data, order,
                 ExifShort(orientation));
  const char make[] = "Photogrammetry", model[] = "encode_samples";
  std::memcpy(add(EXIF_IFD_0, EXIF_TAG_MAKE, EXIF_FORMAT_ASCII, sizeof(make))->data, make, sizeof(make));
  std::memcpy(add(EXIF_IFD_0, EXIF_TAG_MODEL, EXIF_FORMAT_ASCII, sizeof(model))->data, model, sizeof(model));
  exif_set_rational(add(EXIF_IFD_EXIF, EXIF_TAG_FOCAL_LENGTH, EXIF_FORMAT_RATIONAL, 1)->data, order,
                    ExifRational{ExifLong(std::lround(focal_mm * 100)), 100});
  exif_set_short(add(EXIF_IFD_EXIF, EXIF_TAG_FOCAL_LENGTH_IN_35MM_FILM, EXIF_FORMAT_SHORT, 1)->data,
                 order, ExifShort(focal_35mm));
  unsigned char* bytes = nullptr;
  unsigned int size = 0;
  exif_data_save_data(data, &bytes, &size);
  std::vector<uint8_t> out(bytes, bytes + size);
  std::free(bytes);
  exif_data_unref(data);
  return out;
}

// An 8-bit interleaved RGB (or RGBA) image filled by pixel(x, y) -> {r, g, b, a}.
template <typename Pixel>
heif_image* MakeRgb(int w, int h, bool with_alpha, Pixel pixel) {
  heif_image* image = nullptr;
  const heif_chroma chroma = with_alpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB;
  Check(heif_image_create(w, h, heif_colorspace_RGB, chroma, &image), "create");
  Check(heif_image_add_plane(image, heif_channel_interleaved, w, h, 8), "plane");
  int stride = 0;
  uint8_t* rows = heif_image_get_plane(image, heif_channel_interleaved, &stride);
  const int channels = with_alpha ? 4 : 3;
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      const std::vector<int> value = pixel(x, y);
      for (int c = 0; c < channels; ++c) rows[y * stride + x * channels + c] = uint8_t(value[c]);
    }
  }
  return image;
}

struct Encoded {
  heif_context* context;
  heif_image_handle* handle;
};

Encoded Encode(heif_image* image, int quality, bool lossless, heif_orientation orientation) {
  heif_context* context = heif_context_alloc();
  heif_encoder* encoder = nullptr;
  Check(heif_context_get_encoder_for_format(context, heif_compression_HEVC, &encoder), "encoder");
  Check(heif_encoder_set_lossy_quality(encoder, quality), "quality");
  if (lossless) Check(heif_encoder_set_lossless(encoder, 1), "lossless");
  heif_encoding_options* options = heif_encoding_options_alloc();
  options->image_orientation = orientation;
  heif_image_handle* handle = nullptr;
  Check(heif_context_encode_image(context, image, encoder, options, &handle), "encode");
  heif_encoding_options_free(options);
  heif_encoder_release(encoder);
  return {context, handle};
}

void Write(const Encoded& encoded, const std::string& path) {
  Check(heif_context_write_to_file(encoded.context, path.c_str()), path.c_str());
  heif_image_handle_release(encoded.handle);
  heif_context_free(encoded.context);
  std::printf("wrote %s\n", path.c_str());
}

std::vector<int> QuadrantPixel(int x, int y, int w, int h) {
  const Rgb c = Quadrant(x, y, w, h);
  return {c.r, c.g, c.b, 255};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: encode_samples OUT_DIR PARTS_DIR\n");
    return 2;
  }
  const std::string out = argv[1], parts = argv[2];

  // (a) plain 8-bit, 320x240, EXIF focal length, and a 160-pixel thumbnail.
  {
    heif_image* image = MakeRgb(320, 240, false, [](int x, int y) { return QuadrantPixel(x, y, 320, 240); });
    Encoded encoded = Encode(image, 90, false, heif_orientation_normal);
    const std::vector<uint8_t> exif = MakeExif(1, 4.25, 26);
    Check(heif_context_add_exif_metadata(encoded.context, encoded.handle, exif.data(), int(exif.size())), "exif");
    heif_encoder* encoder = nullptr;
    Check(heif_context_get_encoder_for_format(encoded.context, heif_compression_HEVC, &encoder), "encoder");
    heif_image_handle* thumbnail = nullptr;
    Check(heif_context_encode_thumbnail(encoded.context, image, encoded.handle, encoder, nullptr, 160, &thumbnail), "thumbnail");
    heif_image_handle_release(thumbnail);
    heif_encoder_release(encoder);
    heif_image_release(image);
    Write(encoded, out + "/plain.heic");
  }
  // (b) stored 320x240, irot so that it displays rotated 90 degrees clockwise (240x320), and
  // EXIF orientation 6 saying the same, as a phone writes both.
  {
    heif_image* image = MakeRgb(320, 240, false, [](int x, int y) { return QuadrantPixel(x, y, 320, 240); });
    Encoded encoded = Encode(image, 90, false, heif_orientation_rotate_90_cw);
    const std::vector<uint8_t> exif = MakeExif(6, 4.25, 26);
    Check(heif_context_add_exif_metadata(encoded.context, encoded.handle, exif.data(), int(exif.size())), "exif");
    heif_image_release(image);
    Write(encoded, out + "/irot.heic");
  }
  // (d) 10-bit, 320x240, no EXIF: the quadrants at full 10-bit scale, bottom-right mid grey 512.
  {
    heif_image* image = nullptr;
    Check(heif_image_create(320, 240, heif_colorspace_RGB, heif_chroma_444, &image), "create");
    const heif_channel channels[3] = {heif_channel_R, heif_channel_G, heif_channel_B};
    for (int c = 0; c < 3; ++c) {
      Check(heif_image_add_plane(image, channels[c], 320, 240, 10), "plane");
      int stride = 0;
      uint8_t* rows = heif_image_get_plane(image, channels[c], &stride);
      for (int y = 0; y < 240; ++y) {
        auto* row = reinterpret_cast<uint16_t*>(rows + y * stride);
        for (int x = 0; x < 320; ++x) {
          const bool right = x >= 160, bottom = y >= 120;
          int v = 0;
          if (right && bottom) v = 512;
          else if (!right && !bottom) v = c == 0 ? 1023 : 0;
          else if (right) v = c == 1 ? 1023 : 0;
          else v = c == 2 ? 1023 : 0;
          row[x] = uint16_t(v);
        }
      }
    }
    Encoded encoded = Encode(image, 90, false, heif_orientation_normal);
    heif_image_release(image);
    Write(encoded, out + "/tenbit.heic");
  }
  // (f) RGBA 128x128: the quadrants, alpha 0 on the left half and 255 on the right.
  {
    heif_image* image = MakeRgb(128, 128, true, [](int x, int y) {
      std::vector<int> p = QuadrantPixel(x, y, 128, 128);
      p[3] = x < 64 ? 0 : 255;
      return p;
    });
    Encoded encoded = Encode(image, 90, false, heif_orientation_normal);
    heif_image_release(image);
    Write(encoded, out + "/alpha.heic");
  }
  // Parts for (c): four 256x256 tiles of a 512x512 quadrant picture, one per file, row by row.
  for (int t = 0; t < 4; ++t) {
    const int ox = (t % 2) * 256, oy = (t / 2) * 256;
    heif_image* image = MakeRgb(256, 256, false, [&](int x, int y) { return QuadrantPixel(ox + x, oy + y, 512, 512); });
    Encoded encoded = Encode(image, 90, false, heif_orientation_normal);
    heif_image_release(image);
    Write(encoded, parts + "/tile" + std::to_string(t) + ".heic");
  }
  // Parts for (e): the colour picture (320x240) and a lossless 8-bit monochrome 160x120 depth
  // picture, v(x, y) = round(200 x / 159 + 55 y / 119).
  {
    heif_image* image = MakeRgb(320, 240, false, [](int x, int y) { return QuadrantPixel(x, y, 320, 240); });
    Encoded encoded = Encode(image, 90, false, heif_orientation_normal);
    heif_image_release(image);
    Write(encoded, parts + "/depth_colour.heic");
  }
  {
    heif_image* image = nullptr;
    Check(heif_image_create(160, 120, heif_colorspace_monochrome, heif_chroma_monochrome, &image), "create");
    Check(heif_image_add_plane(image, heif_channel_Y, 160, 120, 8), "plane");
    int stride = 0;
    uint8_t* rows = heif_image_get_plane(image, heif_channel_Y, &stride);
    for (int y = 0; y < 120; ++y) {
      for (int x = 0; x < 160; ++x) rows[y * stride + x] = uint8_t(std::lround(200.0 * x / 159 + 55.0 * y / 119));
    }
    Encoded encoded = Encode(image, 100, true, heif_orientation_normal);
    heif_image_release(image);
    Write(encoded, parts + "/depth_plane.heic");
  }
  return 0;
}
