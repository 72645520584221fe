// Image decoding shared by feature extraction and probing: one place decides how EXIF orientation
// is applied, so keypoints, colours, masks and probed sizes all live in the same upright frame.
#pragma once

#include <string>

#include <opencv2/core.hpp>

#include "../../include/cvis_core.h"

namespace cvis {

// The last path component, for one-line messages that name the file at fault.
std::string BaseName(const std::string& path);

// EXIF orientation tag (1..8) of a file, 0 when absent or unreadable. For HEIF it is the tag as
// written, which decoding ignores (the file's irot/imir rule).
int ReadExifOrientation(const std::string& path);

// Rotates/flips an image as stored so that it is upright (EXIF orientation 1..8; others: no-op).
cv::Mat ApplyExifOrientation(const cv::Mat& image, int orientation);

// True for orientations 5..8, which swap width and height.
inline bool OrientationSwapsAxes(int orientation) { return orientation >= 5 && orientation <= 8; }

// Every decoder below first checks that the file's kind is one we decode and that the size its
// header declares is within the pixel limit (decode_limits.h): CVIS_LIMIT_EXCEEDED names the file
// and its size before anything is allocated.

// Decodes path as 8-bit BGR (grey images are replicated), upright when apply_orientation (HEIF:
// its irot/imir/clap applied by libheif, never its EXIF orientation; see heif_io.h).
// Returns CVIS_IO_ERROR for an unreadable file and CVIS_DECODE_ERROR for an undecodable one,
// with the message set. When alpha is given it receives the image's alpha channel as 8-bit
// (upright like the image; 16-bit alpha is scaled), or an empty Mat when the image has none:
// PNGs of colour type grey+alpha, RGBA, or a palette with transparency carry one.
cvis_status DecodeImage(const std::string& path, bool apply_orientation, cv::Mat* image,
                        cv::Mat* alpha = nullptr);

// Decodes path upright like DecodeImage, letting a JPEG skip detail a caller will throw away:
// libjpeg scales in the DCT domain by the largest of 1/2, 1/4, 1/8 that keeps the longer side at
// or above min_long_side (8x faster for a phone photo's thumbnail); a HEIF file's thumbnail item
// is used when it is that large. Other formats: full size.
cvis_status DecodeImageForSize(const std::string& path, int min_long_side, cv::Mat* image);

// Decodes an 8-bit single-channel mask as stored (masks are written upright already).
cvis_status DecodeMask(const std::string& path, cv::Mat* mask);

// Decodes path as stored (IMREAD_UNCHANGED: 8 or 16 bits, channels kept, no orientation).
cvis_status DecodeAsStored(const std::string& path, cv::Mat* image);

// Decodes a JPEG or PNG held in memory (a texture inside a model file) as stored; name is what
// the messages call it. Other formats are refused: glTF and USDZ embed only these two.
cvis_status DecodeEncoded(const uint8_t* data, size_t size, const std::string& name, cv::Mat* image);

}  // namespace cvis
