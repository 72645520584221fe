// Video files through OpenCV's FFmpeg back end: container info, one sequential pass that measures
// every frame (sharpness, motion of tracked points), and a second that writes chosen frames.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include <opencv2/core/version.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/video/tracking.hpp>
#include <opencv2/videoio.hpp>

#include "../../include/cvis_video.h"
#include "../util/buffer.h"
#include "../util/status.h"
#include "decode_limits.h"
#include "image_io.h"

namespace cvis {
namespace {

// Opens path with FFmpeg and OpenCV's auto-rotation off (see ClockwiseRotation).
cvis_status OpenVideo(const std::string& path, cv::VideoCapture* capture) {
  // FFmpeg's own log lines ("moov atom not found") would come before our one-line error; OpenCV
  // reads this variable as it first loads FFmpeg (-8: AV_LOG_QUIET). A user's own setting wins.
  static std::once_flag quiet;
  std::call_once(quiet, [] { setenv("OPENCV_FFMPEG_LOGLEVEL", "-8", 0); });
  if (!capture->open(path, cv::CAP_FFMPEG) || !capture->isOpened()) {
    return Fail(CVIS_DECODE_ERROR,
                Str(BaseName(path), ": cannot be opened as a video (not a video file, corrupt, or an unknown codec)"));
  }
  capture->set(cv::CAP_PROP_ORIENTATION_AUTO, 0);
  // A frame is an image like any other: its declared size is held to the same pixel limit.
  return CheckPixelLimit(path, static_cast<int64_t>(capture->get(cv::CAP_PROP_FRAME_WIDTH)),
                         static_cast<int64_t>(capture->get(cv::CAP_PROP_FRAME_HEIGHT)));
}

// The display rotation, clockwise, from OpenCV's reading of the display matrix. OpenCV 4.6 reports
// the angle counterclockwise (an upright phone video, FFmpeg's "rotate 90", as 270) and its own
// auto-rotation turns such videos upside down (opencv/opencv#22088, fixed in 4.7).
int ClockwiseRotation(cv::VideoCapture& capture) {
  int meta = static_cast<int>(std::lround(capture.get(cv::CAP_PROP_ORIENTATION_META)));
  meta = ((meta % 360) + 360) % 360;
#if CV_VERSION_MAJOR == 4 && CV_VERSION_MINOR == 6
  meta = (360 - meta) % 360;
#endif
  // Only quarter turns are honoured: anything else is a file we do not understand.
  return meta % 90 == 0 ? meta : 0;
}

void Rotate(cv::Mat& frame, int clockwise) {
  if (clockwise == 90) cv::rotate(frame, frame, cv::ROTATE_90_CLOCKWISE);
  if (clockwise == 180) cv::rotate(frame, frame, cv::ROTATE_180);
  if (clockwise == 270) cv::rotate(frame, frame, cv::ROTATE_90_COUNTERCLOCKWISE);
}

// A grey copy of frame whose longer side is side (never enlarged).
cv::Mat GreyCopy(const cv::Mat& frame, int side) {
  cv::Mat grey;
  if (frame.channels() == 1) {
    grey = frame;
  } else {
    cv::cvtColor(frame, grey, frame.channels() == 4 ? cv::COLOR_BGRA2GRAY : cv::COLOR_BGR2GRAY);
  }
  const double scale = double(side) / std::max(grey.cols, grey.rows);
  if (scale >= 1) return grey.clone();
  cv::Mat small;
  cv::resize(grey, small, cv::Size(), scale, scale, cv::INTER_AREA);
  return small;
}

double LaplacianVariance(const cv::Mat& grey) {
  cv::Mat laplacian;
  cv::Laplacian(grey, laplacian, CV_32F);
  cv::Scalar mean, deviation;
  cv::meanStdDev(laplacian, mean, deviation);
  return deviation[0] * deviation[0];
}

double Median(std::vector<double> values) {
  if (values.empty()) return 0;
  const size_t middle = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + middle, values.end());
  return values[middle];
}

// Points followed from frame to frame with pyramidal Lucas-Kanade, each track checked by tracking
// it back (forward-backward error under a pixel), and measured from where they were in a reference
// frame. The reference is renewed once the picture has moved renew_distance from it (hand shake
// below that cancels out instead of adding up), and new corners are found, with a new reference,
// when fewer than reseed_tracked of those found last remain.
class PointTracker {
 public:
  explicit PointTracker(const cvis_video_measure_options& options) : options_(options) {}

  // Measures frame (grey, at flow size) against the previous frame and the reference.
  void Track(const cv::Mat& grey, cvis_video_frame_measure* measure) {
    measure->motion = 0;
    measure->tracked = 1;
    measure->lost = 0;
    if (previous_.empty()) {
      Reseed(grey);
      return;
    }
    std::vector<cv::Point2f> next, back;
    std::vector<unsigned char> status, back_status;
    std::vector<float> error;
    const cv::Size window(21, 21);
    const cv::TermCriteria criteria(cv::TermCriteria::COUNT | cv::TermCriteria::EPS, 20, 0.03);
    if (!points_.empty()) {
      cv::calcOpticalFlowPyrLK(previous_, grey, points_, next, status, error, window, 4, criteria);
      cv::calcOpticalFlowPyrLK(grey, previous_, next, back, back_status, error, window, 4, criteria);
    }
    std::vector<cv::Point2f> kept, kept_reference;
    std::vector<double> distances;
    const double longer = std::max(grey.cols, grey.rows);
    for (size_t i = 0; i < next.size(); ++i) {
      const bool inside = next[i].x >= 0 && next[i].y >= 0 && next[i].x < grey.cols && next[i].y < grey.rows;
      if (status[i] && back_status[i] && inside && cv::norm(back[i] - points_[i]) < 1.0) {
        kept.push_back(next[i]);
        kept_reference.push_back(reference_[i]);
        distances.push_back(cv::norm(next[i] - reference_[i]) / longer);
      }
    }
    if (kept.size() < kMinimumPoints) {
      // Nothing to follow: a cut, a jump, a blank frame. Start again from here.
      measure->lost = 1;
      measure->tracked = 0;
      Reseed(grey);
      return;
    }
    const double distance = Median(distances);
    measure->motion = distance - distance_;
    measure->tracked = double(kept.size()) / seeded_;
    points_ = kept;
    reference_ = kept_reference;
    distance_ = distance;
    previous_ = grey;
    if (measure->tracked < options_.reseed_tracked) {
      Reseed(grey);
    } else if (distance >= options_.renew_distance) {
      reference_ = points_;
      distance_ = 0;
    }
  }

 private:
  static constexpr size_t kMinimumPoints = 12;

  void Reseed(const cv::Mat& grey) {
    cv::goodFeaturesToTrack(grey, points_, options_.max_points, 0.01, std::max(4.0, grey.cols / 40.0));
    reference_ = points_;
    seeded_ = std::max<size_t>(1, points_.size());
    distance_ = 0;
    previous_ = grey;
  }

  cvis_video_measure_options options_;
  cv::Mat previous_;
  std::vector<cv::Point2f> points_, reference_;
  size_t seeded_ = 1;
  double distance_ = 0;
};

}  // namespace
}  // namespace cvis

using namespace cvis;

extern "C" {

cvis_status cvis_video_probe(const char* path, cvis_video_info* info) {
  return Guard([&] {
    if (path == nullptr || info == nullptr) return Fail(CVIS_INVALID_ARGUMENT, "null argument");
    *info = cvis_video_info{};
    cv::VideoCapture capture;
    if (cvis_status status = OpenVideo(path, &capture); status != CVIS_OK) return status;
    info->rotation_deg = ClockwiseRotation(capture);
    const int width = static_cast<int>(capture.get(cv::CAP_PROP_FRAME_WIDTH));
    const int height = static_cast<int>(capture.get(cv::CAP_PROP_FRAME_HEIGHT));
    const bool turned = info->rotation_deg % 180 != 0;
    info->width = turned ? height : width;
    info->height = turned ? width : height;
    info->fps = std::max(0.0, capture.get(cv::CAP_PROP_FPS));
    info->frame_count = std::max<int64_t>(0, static_cast<int64_t>(capture.get(cv::CAP_PROP_FRAME_COUNT)));
    const auto fourcc = static_cast<uint32_t>(capture.get(cv::CAP_PROP_FOURCC));
    for (int i = 0; i < 4; ++i) {
      const char c = static_cast<char>((fourcc >> (8 * i)) & 0xFF);
      info->codec[i] = (c >= 32 && c < 127) ? c : '?';
    }
    info->codec[4] = 0;
    if (width <= 0 || height <= 0) {
      return Fail(CVIS_DECODE_ERROR, Str(BaseName(path), ": no video stream"));
    }
    return CVIS_OK;
  });
}

void cvis_video_measure_options_default(cvis_video_measure_options* options) {
  options->sharpness_side = 640;
  options->flow_side = 320;
  options->max_points = 300;
  options->reseed_tracked = 0.5;
  options->renew_distance = 0.02;
}

cvis_status cvis_video_measure(const char* path, const cvis_video_measure_options* options,
                               cvis_video_progress progress, void* user_data, cvis_buffer** measures,
                               int64_t* frames) {
  return Guard([&] {
    if (path == nullptr || options == nullptr || measures == nullptr || frames == nullptr) {
      return Fail(CVIS_INVALID_ARGUMENT, "null argument");
    }
    *measures = nullptr;
    *frames = 0;
    if (options->sharpness_side < 16 || options->flow_side < 16 || options->max_points < 16 ||
        !(options->reseed_tracked >= 0 && options->reseed_tracked < 1) ||
        !(options->renew_distance > 0 && options->renew_distance <= 1)) {
      return Fail(CVIS_INVALID_ARGUMENT, "video measure options out of range");
    }
    cv::VideoCapture capture;
    if (cvis_status status = OpenVideo(path, &capture); status != CVIS_OK) return status;
    const double fps = capture.get(cv::CAP_PROP_FPS);
    std::vector<cvis_video_frame_measure> result;
    PointTracker tracker(*options);
    cv::Mat frame;
    // Rotation changes neither measure, so frames are measured as coded.
    while (capture.read(frame) && !frame.empty()) {
      cvis_video_frame_measure measure{};
      const cv::Mat sharp = GreyCopy(frame, options->sharpness_side);
      measure.sharpness = LaplacianVariance(sharp);
      tracker.Track(GreyCopy(sharp, options->flow_side), &measure);
      const double msec = capture.get(cv::CAP_PROP_POS_MSEC);
      measure.time_s = msec > 0 || result.empty() ? msec / 1000 : (fps > 0 ? result.size() / fps : 0);
      result.push_back(measure);
      if (progress != nullptr && progress(static_cast<int64_t>(result.size()), user_data) != 0) {
        return Fail(CVIS_INVALID_ARGUMENT, "cancelled");
      }
    }
    if (result.empty()) return Fail(CVIS_DECODE_ERROR, Str(BaseName(path), ": no frame could be decoded"));
    auto* buffer = new cvis_buffer;
    const auto* bytes = reinterpret_cast<const uint8_t*>(result.data());
    buffer->bytes.assign(bytes, bytes + result.size() * sizeof(cvis_video_frame_measure));
    *measures = buffer;
    *frames = static_cast<int64_t>(result.size());
    return CVIS_OK;
  });
}

cvis_status cvis_video_write_frames(const char* path, const int64_t* indices, const char* const* paths,
                                    int32_t count, int32_t jpeg_quality, cvis_video_progress progress,
                                    void* user_data) {
  return Guard([&] {
    if (path == nullptr || count < 0 || (count > 0 && (indices == nullptr || paths == nullptr))) {
      return Fail(CVIS_INVALID_ARGUMENT, "null argument");
    }
    if (jpeg_quality < 1 || jpeg_quality > 100) return Fail(CVIS_INVALID_ARGUMENT, "jpeg_quality must be 1..100");
    for (int32_t k = 0; k < count; ++k) {
      if (indices[k] < 0 || (k > 0 && indices[k] <= indices[k - 1])) {
        return Fail(CVIS_INVALID_ARGUMENT, Str("frame indices must ascend from 0 (index ", k, ")"));
      }
    }
    cv::VideoCapture capture;
    if (cvis_status status = OpenVideo(path, &capture); status != CVIS_OK) return status;
    const int rotation = ClockwiseRotation(capture);
    const std::vector<int> params = {cv::IMWRITE_JPEG_QUALITY, jpeg_quality};
    int64_t frame_index = 0;
    int32_t next = 0;
    cv::Mat frame;
    while (next < count && capture.grab()) {
      // Frames between keyframes are only grabbed (demuxed and decoded, never converted to BGR).
      if (frame_index == indices[next]) {
        if (!capture.retrieve(frame) || frame.empty()) break;
        Rotate(frame, rotation);
        if (!cv::imwrite(paths[next], frame, params)) {
          return Fail(CVIS_IO_ERROR, Str(paths[next], ": cannot be written"));
        }
        ++next;
        if (progress != nullptr && progress(next, user_data) != 0) return Fail(CVIS_INVALID_ARGUMENT, "cancelled");
      }
      ++frame_index;
    }
    if (next < count) {
      return Fail(CVIS_DECODE_ERROR, Str(BaseName(path), ": ends before frame ", indices[next]));
    }
    return CVIS_OK;
  });
}

}  // extern "C"
