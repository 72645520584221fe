// The masks' visual hull: which points some mask says are not the object. A point is outside
// when a view sees it (in front, inside the frame) on a pixel its mask drops, after the mask is
// grown by a margin that absorbs pose and mask-edge error.
#include <cmath>
#include <string>
#include <vector>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "../../include/cvis_mvs.h"
#include "../util/parallel.h"
#include "../util/status.h"

extern "C" cvis_status cvis_visual_hull_outside(int64_t num_points, const float* points,
                                                int32_t num_views, const cvis_mvs_view* views,
                                                const char* const* mask_paths, double dilation_px,
                                                int32_t min_views, int32_t num_threads,
                                                uint8_t* out_outside) {
  using namespace cvis;
  return Guard([&] {
    if (num_points < 0 || num_views < 0 || (num_points > 0 && (points == nullptr || out_outside == nullptr)) ||
        (num_views > 0 && (views == nullptr || mask_paths == nullptr)) || !(dilation_px >= 0) ||
        min_views < 1 || num_threads < 1) {
      return Fail(CVIS_INVALID_ARGUMENT, "cvis_visual_hull_outside: invalid argument");
    }
    // Masks grown by the margin; a view without a mask says nothing.
    std::vector<cv::Mat> masks(static_cast<size_t>(num_views));
    const int radius = int(std::ceil(dilation_px));
    const cv::Mat disc = cv::getStructuringElement(cv::MORPH_ELLIPSE, cv::Size(2 * radius + 1, 2 * radius + 1));
    for (int32_t v = 0; v < num_views; ++v) {
      if (mask_paths[v] == nullptr) continue;
      cv::Mat mask = cv::imread(mask_paths[v], cv::IMREAD_GRAYSCALE);
      if (mask.empty()) return Fail(CVIS_IO_ERROR, Str(mask_paths[v], ": cannot read the mask"));
      if (mask.cols != views[v].width || mask.rows != views[v].height) {
        return Fail(CVIS_INVALID_ARGUMENT, Str(mask_paths[v], ": mask is ", mask.cols, "x", mask.rows,
                                               ", its view ", views[v].width, "x", views[v].height));
      }
      if (radius > 0) cv::dilate(mask, mask, disc);
      masks[size_t(v)] = mask;
    }
    ParallelFor(num_points, num_threads, 4096, [&](int64_t begin, int64_t end, int) {
      for (int64_t i = begin; i < end; ++i) {
        const float* X = points + 3 * i;
        int outside = 0;
        for (int32_t v = 0; v < num_views && outside < min_views; ++v) {
          const cv::Mat& mask = masks[size_t(v)];
          if (mask.empty()) continue;
          const cvis_mvs_view& view = views[v];
          const double* R = view.rotation;
          const double z = R[6] * X[0] + R[7] * X[1] + R[8] * X[2] + view.translation[2];
          if (!(z > 0)) continue;
          const double x = R[0] * X[0] + R[1] * X[1] + R[2] * X[2] + view.translation[0];
          const double y = R[3] * X[0] + R[4] * X[1] + R[5] * X[2] + view.translation[1];
          const double u = view.fx * x / z + view.cx, w = view.fy * y / z + view.cy;
          if (!(u >= 0 && w >= 0 && u < view.width && w < view.height)) continue;
          if (mask.at<uint8_t>(int(w), int(u)) == 0) ++outside;
        }
        out_outside[i] = outside >= min_views ? 1 : 0;
      }
    });
    return CVIS_OK;
  });
}
