// JPEG and PNG decoded through libjpeg and libpng directly, not through OpenCV's imread: their
// warnings and errors are captured into the message of the file they belong to (through
// OpenCV, libjpeg and libpng print them on standard error, without a file name, and a JPEG
// whose data are damaged decodes with grey blocks and only a warning). The pixels are those
// imread gives for the same flags.
#pragma once

#include <cstdio>
#include <string>

#include <opencv2/core.hpp>

#include "../../include/cvis_core.h"

namespace cvis {

// What a decode returns, as imread's flags would: 8-bit BGR (IMREAD_COLOR), 8-bit grey
// (IMREAD_GRAYSCALE), or as stored (IMREAD_UNCHANGED: 8 or 16 bits; grey, BGR, or BGRA when the
// file has alpha or transparency other than a grey image's tRNS).
enum class DecodeMode { kColor, kGrey, kUnchanged };

// Decodes the JPEG in file (read from its start), scaled by 1/scale_denom (1, 2, 4 or 8) in the
// DCT domain; kUnchanged is kGrey for a grey file and kColor otherwise. No orientation applied.
// CVIS_DECODE_ERROR names the file (name) and quotes libjpeg: on an error, and on a warning that
// means pixels were lost (data missing or corrupt: libjpeg would fill them with grey).
cvis_status DecodeJpeg(FILE* file, const std::string& name, DecodeMode mode, int scale_denom, cv::Mat* out);

// Decodes the PNG in file (read from its start); no orientation applied. CVIS_DECODE_ERROR names
// the file and quotes libpng's error (a CRC error in image data, data missing); libpng's warnings
// about ancillary chunks (a bad colour profile) are dropped, the pixels being whole.
cvis_status DecodePng(FILE* file, const std::string& name, DecodeMode mode, cv::Mat* out);

}  // namespace cvis
