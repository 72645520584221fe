// Encodes one frame of a capture with ground-truth depth as the two HEIC pictures that
// assemble_heif.py composes into a HEIC with a depth image: the colour picture (HEVC quality 90)
// and a 10-bit monochrome depth picture (lossless), uniform Z between z_near and z_far, at
// 1/REDUCTION of the photo per side (block median of the valid depths), with noise: every depth
// times (1 + NOISE * N(0, 1)), and a fraction OUTLIERS of the depth pixels replaced by a uniform
// depth in [z_near, z_far]. Pixels without depth (0 in the PNG) become z_far.
//
// Usage: encode_depth_frame COLOUR DEPTH_MM_PNG REDUCTION NOISE OUTLIERS SEED Z_NEAR Z_FAR OUT_COLOUR OUT_DEPTH
#include <libheif/heif.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include <opencv2/imgcodecs.hpp>

namespace {

void Check(heif_error error, const char* what) {
  if (error.code != heif_error_Ok) {
    std::fprintf(stderr, "%s: %s\n", what, error.message);
    std::exit(1);
  }
}

void EncodeTo(heif_image* image, int quality, bool lossless, const std::string& path) {
  heif_context* context = heif_context_alloc();
  heif_encoder* encoder = nullptr;
  Check(heif_context_get_encoder_for_format(context, heif_compression_HEVC, &encoder), "encoder");
  Check(heif_encoder_set_lossy_quality(encoder, quality), "quality");
  if (lossless) Check(heif_encoder_set_lossless(encoder, 1), "lossless");
  heif_image_handle* handle = nullptr;
  Check(heif_context_encode_image(context, image, encoder, nullptr, &handle), "encode");
  Check(heif_context_write_to_file(context, path.c_str()), path.c_str());
  heif_image_handle_release(handle);
  heif_encoder_release(encoder);
  heif_context_free(context);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 11) {
    std::fprintf(stderr, "usage: encode_depth_frame COLOUR DEPTH_MM_PNG REDUCTION NOISE OUTLIERS SEED Z_NEAR Z_FAR OUT_COLOUR OUT_DEPTH\n");
    return 2;
  }
  const cv::Mat colour = cv::imread(argv[1], cv::IMREAD_COLOR);
  const cv::Mat depth = cv::imread(argv[2], cv::IMREAD_UNCHANGED);
  const int reduction = std::atoi(argv[3]);
  const double noise = std::atof(argv[4]), outliers = std::atof(argv[5]);
  std::mt19937_64 rng(std::strtoull(argv[6], nullptr, 10));
  const double z_near = std::atof(argv[7]), z_far = std::atof(argv[8]);
  if (colour.empty() || depth.empty() || depth.type() != CV_16UC1 || reduction < 1) {
    std::fprintf(stderr, "cannot read %s or %s (a 16-bit depth PNG)\n", argv[1], argv[2]);
    return 1;
  }
  const int w = colour.cols, h = colour.rows;
  heif_image* image = nullptr;
  Check(heif_image_create(w, h, heif_colorspace_RGB, heif_chroma_interleaved_RGB, &image), "create");
  Check(heif_image_add_plane(image, heif_channel_interleaved, w, h, 8), "plane");
  int stride = 0;
  uint8_t* rows = heif_image_get_plane(image, heif_channel_interleaved, &stride);
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      const cv::Vec3b bgr = colour.at<cv::Vec3b>(y, x);
      for (int c = 0; c < 3; ++c) rows[y * stride + x * 3 + c] = bgr[2 - c];
    }
  }
  EncodeTo(image, 90, false, argv[9]);
  heif_image_release(image);

  const int dw = depth.cols / reduction, dh = depth.rows / reduction;
  std::normal_distribution<double> gauss(0, 1);
  std::uniform_real_distribution<double> uniform(0, 1);
  Check(heif_image_create(dw, dh, heif_colorspace_monochrome, heif_chroma_monochrome, &image), "create");
  Check(heif_image_add_plane(image, heif_channel_Y, dw, dh, 10), "plane");
  rows = heif_image_get_plane(image, heif_channel_Y, &stride);
  std::vector<double> block;
  for (int y = 0; y < dh; ++y) {
    for (int x = 0; x < dw; ++x) {
      block.clear();
      for (int j = 0; j < reduction; ++j) {
        for (int i = 0; i < reduction; ++i) {
          const uint16_t mm = depth.at<uint16_t>(y * reduction + j, x * reduction + i);
          if (mm > 0) block.push_back(mm / 1000.0);
        }
      }
      double z = z_far;
      if (!block.empty()) {
        std::nth_element(block.begin(), block.begin() + block.size() / 2, block.end());
        z = block[block.size() / 2] * (1 + noise * gauss(rng));
      }
      if (uniform(rng) < outliers) z = z_near + uniform(rng) * (z_far - z_near);
      const double s = std::clamp((z - z_near) / (z_far - z_near), 0.0, 1.0);
      reinterpret_cast<uint16_t*>(rows + size_t(y) * size_t(stride))[x] = uint16_t(std::lround(s * 1023));
    }
  }
  EncodeTo(image, 100, true, argv[10]);
  heif_image_release(image);
  return 0;
}
