// What an image file is and the size its header declares, read without decoding: the decoders
// check that size against the pixel limit before they allocate anything (decode_limits.h).
#pragma once

#include <cstdio>
#include <string>

namespace cvis {

// The formats the decoders take, told apart by their first bytes.
enum class ImageKind { kJpeg, kPng, kHeif, kPnm, kOther };

// The kind of the file at path (kOther when it cannot be read).
ImageKind SniffImageKind(const std::string& path);

// The kind of an open file, from its first bytes (HEIF by its 'ftyp' brand, as IsHeif).
ImageKind SniffImageKind(FILE* file);

// PNG: the IHDR chunk, always first at a fixed offset. False when it is not there or declares a
// zero side.
bool ProbePng(FILE* file, int* width, int* height);

// JPEG: the marker segments walked up to the first start-of-frame (SOF0..SOF15 except DHT, JPG
// and DAC), which holds the frame size; the entropy-coded data is never read.
bool ProbeJpeg(FILE* file, int* width, int* height);

// PNM (PBM, PGM, PPM; plain or raw): the text header's width and height, comments skipped.
bool ProbePnm(FILE* file, int* width, int* height);

}  // namespace cvis
