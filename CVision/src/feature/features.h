// The storage behind the opaque cvis_features handle. Descriptors are kept twice: as the bytes
// they were quantised to (what matching multiplies, similarity.h, and what a checkpoint stores)
// and as one contiguous row-major float matrix of unit rows (count x 128: retrieval, guided
// matching and the C API read these).
#pragma once

#include <cstdint>
#include <vector>

#include "../../include/cvis_feature.h"

struct cvis_features {
  static constexpr int kDescriptorDim = 128;

  int32_t image_width = 0;            // upright, full size
  int32_t image_height = 0;
  double blur_score = 0.0;            // gradient energy, see blur.h
  double contrast = 0.0;              // standard deviation of grey levels in [0, 1], see blur.h
  double contrast_threshold = 0.0;    // the SIFT contrast threshold the keypoints passed
  int32_t count_at_base_threshold = 0;  // passed the masks at the options' threshold
  bool mask_from_alpha = false;       // the image's alpha channel masked it
  std::vector<float> keypoints;       // count x 4: x, y (COLMAP pixel convention), scale, angle
  std::vector<float> descriptors;     // count x 128, unit L2 length
  std::vector<uint8_t> descriptor_bytes;  // count x 128, the quantised form the floats come from
  std::vector<uint8_t> colors;        // count x 3, RGB

  int32_t Count() const { return static_cast<int32_t>(keypoints.size() / 4); }
};

namespace cvis {

// Descriptors are quantised to bytes (x 512, saturated, as COLMAP stores them) when extracted;
// the bytes are kept (matching multiplies them, similarity.h) and are what a checkpoint stores,
// so it reloads bit-identical features at a quarter of the size. These convert between the two
// forms; the float form is renormalised to unit length.
void QuantizeDescriptor(const float* unit, uint8_t* bytes);
void DequantizeDescriptor(const uint8_t* bytes, float* unit);

}  // namespace cvis
