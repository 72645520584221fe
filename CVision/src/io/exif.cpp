// EXIF via libexif: the orientation (so every consumer sees upright pixels) and the focal length
// hints the camera model needs (35 mm equivalent, or focal plane resolution plus focal length).
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <libexif/exif-data.h>

#include "../../include/cvis_io.h"
#include "../util/status.h"
#include "heif_io.h"
#include "image_io.h"

namespace cvis {
namespace {

struct ExifDataDeleter {
  void operator()(ExifData* data) const { exif_data_unref(data); }
};
using ExifDataPtr = std::unique_ptr<ExifData, ExifDataDeleter>;

ExifDataPtr LoadExif(const std::string& path) {
  if (IsHeif(path)) {
    // libexif finds EXIF in JPEG markers only; HEIF keeps it in an item libheif reads.
    const std::vector<uint8_t> exif = ReadHeifExif(path);
    if (exif.empty()) return nullptr;
    return ExifDataPtr(exif_data_new_from_data(exif.data(), static_cast<unsigned int>(exif.size())));
  }
  return ExifDataPtr(exif_data_new_from_file(path.c_str()));
}

// Reads an integer tag stored as BYTE, SHORT or LONG (PixelXDimension may be either); 0 if absent.
int64_t IntegerTag(ExifData* data, ExifTag tag) {
  ExifEntry* entry = exif_data_get_entry(data, tag);
  if (entry == nullptr || entry->components < 1 || entry->data == nullptr) return 0;
  const ExifByteOrder order = exif_data_get_byte_order(data);
  switch (entry->format) {
    case EXIF_FORMAT_BYTE: return entry->data[0];
    case EXIF_FORMAT_SHORT: return exif_get_short(entry->data, order);
    case EXIF_FORMAT_SSHORT: return exif_get_sshort(entry->data, order);
    case EXIF_FORMAT_LONG: return exif_get_long(entry->data, order);
    case EXIF_FORMAT_SLONG: return exif_get_slong(entry->data, order);
    default: return 0;
  }
}

// Reads a RATIONAL (or integer) tag as a double; 0 if absent or with a zero denominator.
double RealTag(ExifData* data, ExifTag tag) {
  ExifEntry* entry = exif_data_get_entry(data, tag);
  if (entry == nullptr || entry->components < 1 || entry->data == nullptr) return 0.0;
  const ExifByteOrder order = exif_data_get_byte_order(data);
  if (entry->format == EXIF_FORMAT_RATIONAL) {
    const ExifRational value = exif_get_rational(entry->data, order);
    return value.denominator == 0 ? 0.0 : double(value.numerator) / value.denominator;
  }
  if (entry->format == EXIF_FORMAT_SRATIONAL) {
    const ExifSRational value = exif_get_srational(entry->data, order);
    return value.denominator == 0 ? 0.0 : double(value.numerator) / value.denominator;
  }
  return double(IntegerTag(data, tag));
}

// Copies an ASCII tag (Make, Model) trimmed of trailing spaces and NULs.
void StringTag(ExifData* data, ExifTag tag, char* out, size_t size) {
  out[0] = '\0';
  ExifEntry* entry = exif_data_get_entry(data, tag);
  if (entry == nullptr) return;
  exif_entry_get_value(entry, out, static_cast<unsigned int>(size));
  size_t length = std::strlen(out);
  while (length > 0 && (out[length - 1] == ' ' || out[length - 1] == '\0')) out[--length] = '\0';
}

// FocalPlaneResolutionUnit: 2 = inch, 3 = centimetre; 4 (mm) and 5 (um) are common extensions.
double UnitInMillimetres(int64_t unit) {
  switch (unit) {
    case 2: return 25.4;
    case 3: return 10.0;
    case 4: return 1.0;
    case 5: return 0.001;
    default: return 0.0;
  }
}

}  // namespace

int ReadExifOrientation(const std::string& path) {
  ExifDataPtr data = LoadExif(path);
  if (!data) return 0;
  const int64_t orientation = IntegerTag(data.get(), EXIF_TAG_ORIENTATION);
  return orientation >= 1 && orientation <= 8 ? static_cast<int>(orientation) : 0;
}

}  // namespace cvis

extern "C" cvis_status cvis_read_exif(const char* path, cvis_exif_info* out) {
  return cvis::Guard([&] {
    if (path == nullptr || out == nullptr) {
      return cvis::Fail(CVIS_INVALID_ARGUMENT, "cvis_read_exif: null argument");
    }
    std::memset(out, 0, sizeof(*out));
    FILE* file = std::fopen(path, "rb");
    if (file == nullptr) {
      return cvis::Fail(CVIS_IO_ERROR, cvis::Str(cvis::BaseName(path), ": cannot open (",
                                                 std::strerror(errno), ")"));
    }
    std::fclose(file);
    cvis::ExifDataPtr data = cvis::LoadExif(path);
    if (!data) return CVIS_OK;  // no EXIF is not an error
    ExifData* exif = data.get();
    const int64_t orientation = cvis::IntegerTag(exif, EXIF_TAG_ORIENTATION);
    out->orientation = orientation >= 1 && orientation <= 8 ? int32_t(orientation) : 0;
    out->focal_length_mm = cvis::RealTag(exif, EXIF_TAG_FOCAL_LENGTH);
    out->focal_length_35mm = cvis::RealTag(exif, EXIF_TAG_FOCAL_LENGTH_IN_35MM_FILM);
    out->focal_plane_x_resolution = cvis::RealTag(exif, EXIF_TAG_FOCAL_PLANE_X_RESOLUTION);
    out->focal_plane_unit_mm =
        cvis::UnitInMillimetres(cvis::IntegerTag(exif, EXIF_TAG_FOCAL_PLANE_RESOLUTION_UNIT));
    // The standard's default unit is the inch when the resolution is given without one.
    if (out->focal_plane_unit_mm == 0.0 && out->focal_plane_x_resolution > 0.0) {
      out->focal_plane_unit_mm = 25.4;
    }
    out->pixel_width = int32_t(cvis::IntegerTag(exif, EXIF_TAG_PIXEL_X_DIMENSION));
    out->pixel_height = int32_t(cvis::IntegerTag(exif, EXIF_TAG_PIXEL_Y_DIMENSION));
    cvis::StringTag(exif, EXIF_TAG_MAKE, out->make, sizeof(out->make));
    cvis::StringTag(exif, EXIF_TAG_MODEL, out->model, sizeof(out->model));
    return CVIS_OK;
  });
}
