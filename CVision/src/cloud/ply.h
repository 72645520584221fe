// PLY files (Turk 1994): reading ascii and binary point clouds and meshes, and writing binary
// little-endian point clouds with normals and colours.
#pragma once

#include <cstdint>
#include <string>

#include "../../include/cvis_core.h"
#include "cloud.h"

namespace cvis {

// Reads vertex x, y, z (any numeric type), optional nx, ny, nz and red, green, blue (uchar, or
// float in [0, 1]) and optional faces (a list property vertex_indices or vertex_index, polygons
// split into triangle fans). Other elements and properties, lists included, are skipped.
// Returns CVIS_IO_ERROR when the file cannot be read and CVIS_DECODE_ERROR for a malformed one,
// with a one-line message that names the file.
cvis_status ReadPly(const std::string& path, cvis_cloud* cloud);

// Writes the cloud as binary little-endian PLY: float x y z nx ny nz, uchar red green blue (zero
// normals and grey when the cloud has none) and, for a mesh, faces as lists of three int
// indices. Written to a temporary name beside path, then renamed.
cvis_status WritePly(const std::string& path, const cvis_cloud& cloud);

// A writer for point records produced in several batches: the records go to a temporary body
// file first, so memory does not grow with the cloud; Finish writes the header (with comment,
// when not empty, as one more comment line) and the body to a second temporary file and renames
// it to path.
class PlyPointWriter {
 public:
  explicit PlyPointWriter(std::string path, std::string comment = "");
  ~PlyPointWriter();  // removes temporaries left by a writer that was not finished
  PlyPointWriter(const PlyPointWriter&) = delete;
  PlyPointWriter& operator=(const PlyPointWriter&) = delete;

  // Opens the body file; CVIS_IO_ERROR with the message set on failure.
  cvis_status Open();
  // Appends count records (normals and colors may be NULL).
  cvis_status Append(int64_t count, const float* points, const float* normals,
                     const uint8_t* colors);
  cvis_status Finish();
  int64_t count() const { return count_; }

 private:
  std::string path_;
  std::string body_path_;
  std::string temporary_path_;
  std::string comment_;
  FILE* body_ = nullptr;
  int64_t count_ = 0;
};

}  // namespace cvis
