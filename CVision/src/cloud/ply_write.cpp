// Writing binary little-endian PLY point clouds: records go to a body file as they come, and the
// finished file (header + body) appears under its name only once complete (rename(2)).
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include "../io/image_io.h"
#include "../util/file_write.h"
#include "../util/status.h"
#include "ply.h"

namespace cvis {
namespace {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "PLY records are written in host order");

constexpr size_t kRecordBytes = 6 * sizeof(float) + 3;  // x y z nx ny nz red green blue

// The header; comment, when not empty, is one more comment line.
std::string Header(int64_t count, int64_t num_triangles, const std::string& comment = "") {
  const std::string faces =
      num_triangles > 0 ? Str("element face ", num_triangles, "\nproperty list uchar int vertex_indices\n") : "";
  return Str("ply\nformat binary_little_endian 1.0\ncomment written by Photogrammetry\n",
             comment.empty() ? "" : Str("comment ", comment, "\n"),
             "element vertex ", count, "\n",
             "property float x\nproperty float y\nproperty float z\n",
             "property float nx\nproperty float ny\nproperty float nz\n",
             "property uchar red\nproperty uchar green\nproperty uchar blue\n", faces, "end_header\n");
}

// Why writing `path` failed, from errno (util/file_write.h); the size a point cloud still needs
// is not known here.
cvis_status PlyWriteFailure(const std::string& path) { return WriteFailure(path, errno, 0); }

// count records of x y z nx ny nz (float) red green blue (uchar); zero normals and grey colours
// stand in for missing ones.
std::vector<unsigned char> PackRecords(int64_t count, const float* points, const float* normals,
                                       const uint8_t* colors) {
  std::vector<unsigned char> records(size_t(count) * kRecordBytes);
  const float zero[3] = {0, 0, 0};
  const uint8_t grey[3] = {128, 128, 128};
  for (int64_t i = 0; i < count; ++i) {
    unsigned char* record = &records[size_t(i) * kRecordBytes];
    std::memcpy(record, points + 3 * i, 12);
    std::memcpy(record + 12, normals != nullptr ? normals + 3 * i : zero, 12);
    std::memcpy(record + 24, colors != nullptr ? colors + 3 * i : grey, 3);
  }
  return records;
}

}  // namespace

PlyPointWriter::PlyPointWriter(std::string path, std::string comment)
    : path_(std::move(path)),
      body_path_(path_ + ".body.tmp"),
      temporary_path_(path_ + ".tmp"),
      comment_(std::move(comment)) {}

PlyPointWriter::~PlyPointWriter() {
  if (body_ != nullptr) std::fclose(body_);
  std::remove(body_path_.c_str());
  std::remove(temporary_path_.c_str());
}

cvis_status PlyPointWriter::Open() {
  body_ = std::fopen(body_path_.c_str(), "wb+");
  if (body_ == nullptr) return PlyWriteFailure(path_);
  return CVIS_OK;
}

cvis_status PlyPointWriter::Append(int64_t count, const float* points, const float* normals,
                                   const uint8_t* colors) {
  if (body_ == nullptr) return Fail(CVIS_INTERNAL_ERROR, "PlyPointWriter: not open");
  const std::vector<unsigned char> records = PackRecords(count, points, normals, colors);
  if (std::fwrite(records.data(), 1, records.size(), body_) != records.size()) {
    return PlyWriteFailure(path_);
  }
  count_ += count;
  return CVIS_OK;
}

cvis_status PlyPointWriter::Finish() {
  if (body_ == nullptr) return Fail(CVIS_INTERNAL_ERROR, "PlyPointWriter: not open");
  if (std::fflush(body_) != 0 || std::fseek(body_, 0, SEEK_SET) != 0) return PlyWriteFailure(path_);
  FILE* out = std::fopen(temporary_path_.c_str(), "wb");
  if (out == nullptr) return PlyWriteFailure(path_);
  const std::string header = Header(count_, 0, comment_);
  bool ok = std::fwrite(header.data(), 1, header.size(), out) == header.size();
  std::vector<char> chunk(1 << 20);
  size_t got;
  while (ok && (got = std::fread(chunk.data(), 1, chunk.size(), body_)) > 0) {
    ok = std::fwrite(chunk.data(), 1, got, out) == got;
  }
  ok = ok && !std::ferror(body_);
  ok = (std::fclose(out) == 0) && ok;
  std::fclose(body_);
  body_ = nullptr;
  std::remove(body_path_.c_str());
  if (!ok || std::rename(temporary_path_.c_str(), path_.c_str()) != 0) return PlyWriteFailure(path_);
  return CVIS_OK;
}

cvis_status WritePly(const std::string& path, const cvis_cloud& cloud) {
  const std::string temporary = path + ".tmp";
  FILE* out = std::fopen(temporary.c_str(), "wb");
  if (out == nullptr) return PlyWriteFailure(path);
  const int64_t num_points = cloud.NumPoints();
  const std::string header = Header(num_points, cloud.NumTriangles());
  bool ok = std::fwrite(header.data(), 1, header.size(), out) == header.size();
  // Batches keep the staging buffer small for large clouds.
  constexpr int64_t kBatch = 1 << 16;
  const float* normals = cloud.normals.empty() ? nullptr : cloud.normals.data();
  const uint8_t* colors = cloud.colors.empty() ? nullptr : cloud.colors.data();
  for (int64_t begin = 0; ok && begin < num_points; begin += kBatch) {
    const std::vector<unsigned char> records =
        PackRecords(std::min(kBatch, num_points - begin), cloud.points.data() + 3 * begin,
                    normals ? normals + 3 * begin : nullptr, colors ? colors + 3 * begin : nullptr);
    ok = std::fwrite(records.data(), 1, records.size(), out) == records.size();
  }
  std::vector<unsigned char> faces;
  for (size_t t = 0; ok && t < cloud.triangles.size(); t += 3) {
    faces.push_back(3);
    const size_t at = faces.size();
    faces.resize(at + 12);
    std::memcpy(&faces[at], &cloud.triangles[t], 12);
    if (faces.size() >= (1 << 20) || t + 3 == cloud.triangles.size()) {
      ok = std::fwrite(faces.data(), 1, faces.size(), out) == faces.size();
      faces.clear();
    }
  }
  ok = (std::fclose(out) == 0) && ok;
  if (!ok || std::rename(temporary.c_str(), path.c_str()) != 0) {
    const cvis_status status = PlyWriteFailure(path);
    std::remove(temporary.c_str());
    return status;
  }
  return CVIS_OK;
}

}  // namespace cvis
