// Handle accessors and the checkpoint format of cvis_features.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "../io/image_io.h"
#include "../util/file_write.h"
#include "../util/status.h"
#include "features.h"

// File layout (native little-endian): "CVISFT04", int32 width, height, count, descriptor dim, float blur score,
// float contrast (grey standard deviation), double contrast threshold, int32 count at the base threshold, int32 flags (bit 0: masked by alpha),
// then count x 4 float keypoints, count x 128 byte descriptors, count x 3 byte colours. Files of
// another version are not read (the caller extracts again).

namespace cvis {
namespace {
constexpr char kMagic[8] = {'C', 'V', 'I', 'S', 'F', 'T', '0', '4'};
}  // namespace
}  // namespace cvis

extern "C" void cvis_features_destroy(cvis_features* features) { delete features; }

extern "C" int32_t cvis_features_count(const cvis_features* f) { return f ? f->Count() : 0; }
extern "C" int32_t cvis_features_image_width(const cvis_features* f) {
  return f ? f->image_width : 0;
}
extern "C" int32_t cvis_features_image_height(const cvis_features* f) {
  return f ? f->image_height : 0;
}
extern "C" const float* cvis_features_keypoints(const cvis_features* f) {
  return f ? f->keypoints.data() : nullptr;
}
extern "C" const float* cvis_features_descriptors(const cvis_features* f) {
  return f ? f->descriptors.data() : nullptr;
}
extern "C" const uint8_t* cvis_features_colors(const cvis_features* f) {
  return f ? f->colors.data() : nullptr;
}
extern "C" double cvis_features_blur_score(const cvis_features* f) { return f ? f->blur_score : 0.0; }
extern "C" double cvis_features_contrast(const cvis_features* f) { return f ? f->contrast : 0.0; }
extern "C" double cvis_features_contrast_threshold(const cvis_features* f) {
  return f ? f->contrast_threshold : 0.0;
}
extern "C" int32_t cvis_features_count_at_base_threshold(const cvis_features* f) {
  return f ? f->count_at_base_threshold : 0;
}
extern "C" int32_t cvis_features_mask_from_alpha(const cvis_features* f) {
  return f && f->mask_from_alpha ? 1 : 0;
}

extern "C" cvis_status cvis_features_save(const cvis_features* features, const char* path) {
  using namespace cvis;
  return Guard([&] {
    if (features == nullptr || path == nullptr) {
      return Fail(CVIS_INVALID_ARGUMENT, "cvis_features_save: null argument");
    }
    // Written beside the target and renamed, so an interrupted run never leaves a torn
    // checkpoint that a resume would trust.
    const std::string temporary = std::string(path) + ".tmp";
    FILE* file = std::fopen(temporary.c_str(), "wb");
    const size_t file_bytes = 64 + 4 * features->keypoints.size() + features->descriptor_bytes.size() +
                              features->colors.size();
    if (file == nullptr) return WriteFailure(path, errno, file_bytes);
    const int32_t count = features->Count();
    const int32_t header[4] = {features->image_width, features->image_height, count,
                               cvis_features::kDescriptorDim};
    const std::vector<uint8_t>& bytes = features->descriptor_bytes;
    const float blur = float(features->blur_score);
    const float contrast = float(features->contrast);
    const double threshold = features->contrast_threshold;
    const int32_t extra[2] = {features->count_at_base_threshold, features->mask_from_alpha ? 1 : 0};
    bool ok = std::fwrite(kMagic, 1, 8, file) == 8 && std::fwrite(header, 4, 4, file) == 4 &&
              std::fwrite(&blur, 4, 1, file) == 1 && std::fwrite(&contrast, 4, 1, file) == 1 &&
              std::fwrite(&threshold, 8, 1, file) == 1 &&
              std::fwrite(extra, 4, 2, file) == 2;
    ok = ok && std::fwrite(features->keypoints.data(), 4, features->keypoints.size(), file) ==
                   features->keypoints.size();
    ok = ok && std::fwrite(bytes.data(), 1, bytes.size(), file) == bytes.size();
    ok = ok && std::fwrite(features->colors.data(), 1, features->colors.size(), file) ==
                   features->colors.size();
    int error = ok ? 0 : errno;
    if (std::fclose(file) != 0 && error == 0) error = errno;
    if (error == 0 && std::rename(temporary.c_str(), path) != 0) error = errno;
    if (error != 0) {
      std::remove(temporary.c_str());
      return WriteFailure(path, error, file_bytes);
    }
    return CVIS_OK;
  });
}

extern "C" cvis_status cvis_features_load(const char* path, cvis_features** out) {
  using namespace cvis;
  return Guard([&] {
    if (path == nullptr || out == nullptr) {
      return Fail(CVIS_INVALID_ARGUMENT, "cvis_features_load: null argument");
    }
    *out = nullptr;
    std::unique_ptr<FILE, int (*)(FILE*)> file(std::fopen(path, "rb"), &std::fclose);
    if (!file) {
      return Fail(CVIS_IO_ERROR, Str(BaseName(path), ": cannot open (", std::strerror(errno), ")"));
    }
    char magic[8];
    int32_t header[4];
    float blur = 0.0f;
    float contrast = 0.0f;
    double threshold = 0.0;
    int32_t extra[2] = {0, 0};
    if (std::fread(magic, 1, 8, file.get()) != 8 || std::memcmp(magic, kMagic, 8) != 0 ||
        std::fread(header, 4, 4, file.get()) != 4 || std::fread(&blur, 4, 1, file.get()) != 1 ||
        std::fread(&contrast, 4, 1, file.get()) != 1 ||
        std::fread(&threshold, 8, 1, file.get()) != 1 || std::fread(extra, 4, 2, file.get()) != 2 ||
        header[0] < 0 || header[1] < 0 ||
        header[2] < 0 || header[3] != cvis_features::kDescriptorDim) {
      return Fail(CVIS_DECODE_ERROR, Str(BaseName(path), ": not a CVision feature file"));
    }
    auto features = std::make_unique<cvis_features>();
    features->image_width = header[0];
    features->image_height = header[1];
    features->blur_score = blur;
    features->contrast = contrast;
    features->contrast_threshold = threshold;
    features->count_at_base_threshold = extra[0];
    features->mask_from_alpha = (extra[1] & 1) != 0;
    const size_t count = size_t(header[2]);
    std::vector<uint8_t>& bytes = features->descriptor_bytes;
    bytes.resize(count * cvis_features::kDescriptorDim);
    features->keypoints.resize(count * 4);
    features->colors.resize(count * 3);
    features->descriptors.resize(bytes.size());
    const bool ok =
        std::fread(features->keypoints.data(), 4, count * 4, file.get()) == count * 4 &&
        std::fread(bytes.data(), 1, bytes.size(), file.get()) == bytes.size() &&
        std::fread(features->colors.data(), 1, count * 3, file.get()) == count * 3;
    if (!ok) return Fail(CVIS_DECODE_ERROR, Str(BaseName(path), ": truncated feature file"));
    for (size_t i = 0; i < count; ++i) {
      DequantizeDescriptor(&bytes[i * cvis_features::kDescriptorDim],
                           &features->descriptors[i * cvis_features::kDescriptorDim]);
    }
    *out = features.release();
    return CVIS_OK;
  });
}
