// Square fiducial markers through OpenCV's aruco module (4.6's contrib API): the predefined
// dictionaries by name, detection with sub-pixel corners in the upright image, and drawing.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <opencv2/aruco.hpp>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "../../include/cvis_markers.h"
#include "../io/image_io.h"
#include "../util/buffer.h"
#include "../util/status.h"

namespace cvis {

namespace {

struct NamedDictionary {
  const char* name;
  cv::aruco::PREDEFINED_DICTIONARY_NAME value;
};

// Every predefined dictionary of OpenCV 4.6, as OpenCV spells it; the index is ours.
constexpr NamedDictionary kDictionaries[] = {
    {"DICT_4X4_50", cv::aruco::DICT_4X4_50},         {"DICT_4X4_100", cv::aruco::DICT_4X4_100},
    {"DICT_4X4_250", cv::aruco::DICT_4X4_250},       {"DICT_4X4_1000", cv::aruco::DICT_4X4_1000},
    {"DICT_5X5_50", cv::aruco::DICT_5X5_50},         {"DICT_5X5_100", cv::aruco::DICT_5X5_100},
    {"DICT_5X5_250", cv::aruco::DICT_5X5_250},       {"DICT_5X5_1000", cv::aruco::DICT_5X5_1000},
    {"DICT_6X6_50", cv::aruco::DICT_6X6_50},         {"DICT_6X6_100", cv::aruco::DICT_6X6_100},
    {"DICT_6X6_250", cv::aruco::DICT_6X6_250},       {"DICT_6X6_1000", cv::aruco::DICT_6X6_1000},
    {"DICT_7X7_50", cv::aruco::DICT_7X7_50},         {"DICT_7X7_100", cv::aruco::DICT_7X7_100},
    {"DICT_7X7_250", cv::aruco::DICT_7X7_250},       {"DICT_7X7_1000", cv::aruco::DICT_7X7_1000},
    {"DICT_ARUCO_ORIGINAL", cv::aruco::DICT_ARUCO_ORIGINAL},
    {"DICT_APRILTAG_16h5", cv::aruco::DICT_APRILTAG_16h5},
    {"DICT_APRILTAG_25h9", cv::aruco::DICT_APRILTAG_25h9},
    {"DICT_APRILTAG_36h10", cv::aruco::DICT_APRILTAG_36h10},
    {"DICT_APRILTAG_36h11", cv::aruco::DICT_APRILTAG_36h11},
};
constexpr int32_t kDictionaryCount = int32_t(sizeof(kDictionaries) / sizeof(kDictionaries[0]));

std::string Upper(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return char(std::toupper(c)); });
  return text;
}

cv::Ptr<cv::aruco::Dictionary> Dictionary(int32_t index) {
  return cv::aruco::getPredefinedDictionary(kDictionaries[index].value);
}

// An 8-bit grey level as linear light (the sRGB curve, which camera JPEGs and renders are
// encoded with): a lens and a pixel blur light, not code values.
float LinearLight(int code) {
  const double v = code / 255.0;
  return float(v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4));
}

// The linear light at (x, y) (OpenCV's pixel centres at whole numbers), bilinear; -1 outside.
float Sample(const cv::Mat& light, double x, double y) {
  const int x0 = int(std::floor(x)), y0 = int(std::floor(y));
  if (x0 < 0 || y0 < 0 || x0 + 1 >= light.cols || y0 + 1 >= light.rows) return -1;
  const double fx = x - x0, fy = y - y0;
  const float* r0 = light.ptr<float>(y0);
  const float* r1 = light.ptr<float>(y0 + 1);
  return float((r0[x0] * (1 - fx) + r0[x0 + 1] * fx) * (1 - fy) + (r1[x0] * (1 - fx) + r1[x0 + 1] * fx) * fy);
}

// Refines a marker's corners (OpenCV's convention) as the intersections of its four edges, each a
// line fitted to the points where the light across the edge crosses halfway between the black
// border and the white margin. Unbiased for any symmetric blur, where the sub-pixel corner search
// around one corner of a square (made for a chessboard's saddles) pulls it inwards by a tenth of a
// pixel or more, and a marker of 50 px then reads 0.4 % small. Keeps the corners as they are when
// an edge is too short, too faint or too ragged to fit.
void RefineByEdges(const cv::Mat& light, std::vector<cv::Point2f>* corners) {
  const std::vector<cv::Point2f>& c = *corners;
  const cv::Point2d centre = (cv::Point2d(c[0]) + cv::Point2d(c[1]) + cv::Point2d(c[2]) + cv::Point2d(c[3])) * 0.25;
  cv::Vec3d lines[4];  // a x + b y = d, (a, b) the outward unit normal
  for (int k = 0; k < 4; ++k) {
    const cv::Point2d p0 = c[size_t(k)], p1 = c[size_t((k + 1) % 4)];
    const double length = cv::norm(p1 - p0);
    if (length < 16) return;
    const cv::Point2d along = (p1 - p0) / length;
    cv::Point2d normal(-along.y, along.x);
    if (normal.dot(centre - (p0 + p1) * 0.5) > 0) normal = -normal;
    // Within the border: a sixth of a 4x4 marker's side (a tenth of the largest dictionaries'),
    // measured across this edge, to the opposite one (seen obliquely, much less than its length).
    const cv::Point2d opposite = (cv::Point2d(c[size_t((k + 2) % 4)]) + cv::Point2d(c[size_t((k + 3) % 4)])) * 0.5;
    const double across = std::abs(normal.dot(opposite - p0));
    const double reach = std::min(8.0, 0.08 * across);
    if (reach < 1.5) return;
    std::vector<cv::Point2d> points;
    const int count = std::max(6, int(0.6 * length));
    for (int n = 0; n < count; ++n) {
      const cv::Point2d q = p0 + along * (length * (0.2 + 0.6 * (n + 0.5) / count));
      const double step = 0.125;
      const int steps = int(2 * reach / step) + 1;
      std::vector<float> profile(static_cast<size_t>(steps));
      bool inside = true;
      for (int i = 0; i < steps && inside; ++i) {
        const cv::Point2d at = q + normal * (-reach + i * step);
        profile[size_t(i)] = Sample(light, at.x, at.y);
        inside = profile[size_t(i)] >= 0;
      }
      if (!inside) continue;
      const float dark = profile.front(), bright = profile.back();
      if (bright - dark < 0.1f) continue;
      const float half = 0.5f * (dark + bright);
      // The crossing nearest the first estimate of the edge (offset 0).
      double best = 1e9;
      for (int i = 0; i + 1 < steps; ++i) {
        const float a = profile[size_t(i)], b = profile[size_t(i + 1)];
        if ((a - half) * (b - half) > 0 || a == b) continue;
        const double offset = -reach + step * (i + (half - a) / (b - a));
        if (std::abs(offset) < std::abs(best)) best = offset;
      }
      if (std::abs(best) <= reach) points.push_back(q + normal * best);
    }
    if (int(points.size()) < count / 2) return;
    // A line through the points, then again without those more than half a pixel off it.
    for (int pass = 0; pass < 2; ++pass) {
      cv::Vec4f fit;
      std::vector<cv::Point2f> floats(points.begin(), points.end());
      cv::fitLine(floats, fit, cv::DIST_L2, 0, 0.01, 0.01);
      const double a = -fit[1], b = fit[0], d = a * fit[2] + b * fit[3];
      lines[k] = cv::Vec3d(a, b, d);
      std::vector<cv::Point2d> kept;
      for (const cv::Point2d& p : points) {
        if (std::abs(a * p.x + b * p.y - d) <= 0.5) kept.push_back(p);
      }
      if (int(kept.size()) < count / 2) return;
      points.swap(kept);
    }
  }
  std::vector<cv::Point2f> refined(4);
  for (int k = 0; k < 4; ++k) {
    // Corner k is where edge k - 1 (from corner k - 1) meets edge k.
    const cv::Vec3d& l1 = lines[(k + 3) % 4];
    const cv::Vec3d& l2 = lines[k];
    const double det = l1[0] * l2[1] - l1[1] * l2[0];
    if (std::abs(det) < 1e-3) return;
    const cv::Point2d corner((l1[2] * l2[1] - l1[1] * l2[2]) / det, (l1[0] * l2[2] - l1[2] * l2[0]) / det);
    if (cv::norm(corner - cv::Point2d(c[size_t(k)])) > 2.0) return;
    refined[size_t(k)] = corner;
  }
  *corners = refined;
}

// Detects on a grey image and writes the markers (corners moved to the pixel-corner convention).
cvis_status Detect(const cv::Mat& gray, int32_t dictionary, const cvis_marker_detection_options& options,
                   cvis_buffer** out, int32_t* count) {
  if (options.subpixel_window < 1 || options.subpixel_window > 64) {
    return Fail(CVIS_INVALID_ARGUMENT, Str("marker detection: subpixel_window ", options.subpixel_window, " is not 1..64"));
  }
  if (!(options.min_perimeter_rate > 0 && options.min_perimeter_rate < 4)) {
    return Fail(CVIS_INVALID_ARGUMENT, Str("marker detection: min_perimeter_rate ", options.min_perimeter_rate,
                                           " is not above 0 and below 4"));
  }
  cv::Ptr<cv::aruco::DetectorParameters> parameters = cv::aruco::DetectorParameters::create();
  parameters->cornerRefinementMethod = cv::aruco::CORNER_REFINE_SUBPIX;
  parameters->cornerRefinementWinSize = options.subpixel_window;
  // OpenCV's rate is of the perimeter over the longer side; ours is the same quantity.
  parameters->minMarkerPerimeterRate = options.min_perimeter_rate;
  std::vector<std::vector<cv::Point2f>> corners;
  std::vector<int> ids;
  cv::aruco::detectMarkers(gray, Dictionary(dictionary), corners, ids, parameters);
  if (!ids.empty()) {
    float table[256];
    for (int i = 0; i < 256; ++i) table[i] = LinearLight(i);
    cv::Mat light(gray.size(), CV_32F);
    for (int y = 0; y < gray.rows; ++y) {
      const uint8_t* in = gray.ptr<uint8_t>(y);
      float* out = light.ptr<float>(y);
      for (int x = 0; x < gray.cols; ++x) out[x] = table[in[x]];
    }
    for (std::vector<cv::Point2f>& marker : corners) RefineByEdges(light, &marker);
  }
  auto buffer = std::make_unique<cvis_buffer>();
  buffer->bytes.resize(ids.size() * sizeof(cvis_marker));
  for (size_t i = 0; i < ids.size(); ++i) {
    cvis_marker marker{};
    marker.id = ids[i];
    for (int k = 0; k < 4; ++k) {
      // OpenCV puts a pixel's centre at whole numbers; ours (COLMAP's) at +0.5.
      marker.corners[2 * k] = double(corners[i][size_t(k)].x) + 0.5;
      marker.corners[2 * k + 1] = double(corners[i][size_t(k)].y) + 0.5;
    }
    std::memcpy(buffer->bytes.data() + i * sizeof(cvis_marker), &marker, sizeof(cvis_marker));
  }
  *count = int32_t(ids.size());
  *out = buffer.release();
  return CVIS_OK;
}

}  // namespace

}  // namespace cvis

extern "C" int32_t cvis_marker_dictionary_count(void) { return cvis::kDictionaryCount; }

extern "C" const char* cvis_marker_dictionary_name(int32_t index) {
  return index >= 0 && index < cvis::kDictionaryCount ? cvis::kDictionaries[index].name : nullptr;
}

extern "C" cvis_status cvis_marker_dictionary_find(const char* name, int32_t* index) {
  using namespace cvis;
  return Guard([&]() -> cvis_status {
    if (name == nullptr || index == nullptr) return Fail(CVIS_INVALID_ARGUMENT, "cvis_marker_dictionary_find: null argument");
    std::string wanted = Upper(name);
    if (wanted.rfind("DICT_", 0) != 0) wanted = "DICT_" + wanted;
    for (int32_t i = 0; i < kDictionaryCount; ++i) {
      if (Upper(kDictionaries[i].name) == wanted) {
        *index = i;
        return CVIS_OK;
      }
    }
    return Fail(CVIS_INVALID_ARGUMENT, Str("no marker dictionary is called ", name));
  });
}

extern "C" int32_t cvis_marker_dictionary_size(int32_t index) {
  if (index < 0 || index >= cvis::kDictionaryCount) return 0;
  try {
    return cvis::Dictionary(index)->bytesList.rows;
  } catch (...) {
    return 0;
  }
}

extern "C" void cvis_marker_detection_options_default(cvis_marker_detection_options* options) {
  if (options == nullptr) return;
  options->subpixel_window = 5;
  options->min_perimeter_rate = 0.01;
}

extern "C" cvis_status cvis_detect_markers(const char* image_path, int32_t dictionary,
                                           const cvis_marker_detection_options* options, cvis_buffer** out,
                                           int32_t* count) {
  using namespace cvis;
  return Guard([&]() -> cvis_status {
    if (image_path == nullptr || options == nullptr || out == nullptr || count == nullptr) {
      return Fail(CVIS_INVALID_ARGUMENT, "cvis_detect_markers: null argument");
    }
    *out = nullptr;
    *count = 0;
    if (dictionary < 0 || dictionary >= kDictionaryCount) {
      return Fail(CVIS_INVALID_ARGUMENT, Str("cvis_detect_markers: no dictionary ", dictionary));
    }
    cv::Mat image;
    if (cvis_status status = DecodeImage(image_path, true, &image); status != CVIS_OK) return status;
    cv::Mat gray;
    cv::cvtColor(image, gray, cv::COLOR_BGR2GRAY);
    return Detect(gray, dictionary, *options, out, count);
  });
}

extern "C" cvis_status cvis_detect_markers_gray(const uint8_t* pixels, int32_t width, int32_t height, int32_t stride,
                                                int32_t dictionary, const cvis_marker_detection_options* options,
                                                cvis_buffer** out, int32_t* count) {
  using namespace cvis;
  return Guard([&]() -> cvis_status {
    if (pixels == nullptr || options == nullptr || out == nullptr || count == nullptr || width <= 0 || height <= 0 ||
        stride < width) {
      return Fail(CVIS_INVALID_ARGUMENT, "cvis_detect_markers_gray: null or empty image");
    }
    *out = nullptr;
    *count = 0;
    if (dictionary < 0 || dictionary >= kDictionaryCount) {
      return Fail(CVIS_INVALID_ARGUMENT, Str("cvis_detect_markers_gray: no dictionary ", dictionary));
    }
    const cv::Mat gray(height, width, CV_8U, const_cast<uint8_t*>(pixels), size_t(stride));
    return Detect(gray, dictionary, *options, out, count);
  });
}

extern "C" cvis_status cvis_draw_marker(int32_t dictionary, int32_t id, int32_t side, uint8_t* pixels) {
  using namespace cvis;
  return Guard([&]() -> cvis_status {
    if (pixels == nullptr) return Fail(CVIS_INVALID_ARGUMENT, "cvis_draw_marker: null pixels");
    if (dictionary < 0 || dictionary >= kDictionaryCount) {
      return Fail(CVIS_INVALID_ARGUMENT, Str("cvis_draw_marker: no dictionary ", dictionary));
    }
    cv::Ptr<cv::aruco::Dictionary> dict = Dictionary(dictionary);
    if (id < 0 || id >= dict->bytesList.rows) {
      return Fail(CVIS_INVALID_ARGUMENT, Str("marker id ", id, " is not in ", kDictionaries[dictionary].name, " (ids 0 to ",
                                             dict->bytesList.rows - 1, ")"));
    }
    if (side < dict->markerSize + 2 || side > 16384) {
      return Fail(CVIS_INVALID_ARGUMENT, Str("cvis_draw_marker: side ", side, " px is not ", dict->markerSize + 2, "..16384"));
    }
    cv::Mat image;
    cv::aruco::drawMarker(dict, id, side, image, 1);
    for (int y = 0; y < side; ++y) std::memcpy(pixels + size_t(y) * size_t(side), image.ptr<uint8_t>(y), size_t(side));
    return CVIS_OK;
  });
}
