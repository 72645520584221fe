// HEIF/HEIC decoding through libheif, behind image_io's DecodeImage/DecodeImageForSize: the
// primary image as 8-bit BGR (10- and 12-bit files are reduced), grids assembled, alpha split off.
//
// Orientation: HEIF carries its own transformations (irot, imir, clap), which libheif applies;
// the standard says a reader must then ignore the EXIF orientation, which phones also write (and
// keep consistent). So for HEIF "upright" means "libheif's transformations applied", and EXIF
// orientation is never applied on top.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <opencv2/core.hpp>

#include "../../include/cvis_core.h"

namespace cvis {

// Whether the file starts with an ISOBMFF 'ftyp' box of a HEIF brand (heic, heix, mif1, ...),
// the same brands ImageFormat.sniff accepts.
bool IsHeif(const std::string& path);

// Decodes the primary image as 8-bit BGR, with its HEIF transformations applied when
// apply_transformations (else the coded pixels, as stored). When alpha is given it receives the
// alpha plane (8-bit) or an empty Mat. When min_long_side > 0 a thumbnail item whose longer side
// is at least that (and whose shape matches the image) may be decoded instead.
// CVIS_DECODE_ERROR naming the file when libheif cannot read or decode it.
cvis_status DecodeHeif(const std::string& path, bool apply_transformations, int min_long_side,
                       cv::Mat* image, cv::Mat* alpha);

// The primary image's size after its transformations, from the file's boxes (no decoding).
cvis_status ProbeHeif(const std::string& path, int* width, int* height);

// The primary image's EXIF as libexif loads it: "Exif\0\0" and the TIFF header onwards (the HEIF
// block's 4-byte offset header dropped). Empty when the file has none or cannot be read.
std::vector<uint8_t> ReadHeifExif(const std::string& path);

// Why a HEIF file cannot be whole, or "" when it can: its top-level boxes (ftyp, meta, mdat, ...)
// are walked by their sizes to the end of the file; a box that ends beyond it means a truncated
// file ("truncated HEIF: ..."), a header that is no box a corrupt one ("corrupt HEIF: ...").
std::string HeifStructureProblem(FILE* file, long size);

}  // namespace cvis
