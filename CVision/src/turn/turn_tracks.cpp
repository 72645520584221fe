// Point tracks through a turntable's frames: corners followed from frame to frame by pyramidal
// Lucas-Kanade. A texture-poor object gives descriptor matching a few dozen faint features a
// frame, most of them ambiguous; tracking a corner one small step at a time needs no descriptor
// to be distinctive, only the patch to stay alike over one step, and keeps thousands.

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <opencv2/imgproc.hpp>
#include <opencv2/video/tracking.hpp>

#include "../../include/cvis_turn.h"
#include "../io/image_io.h"
#include "../util/parallel.h"
#include "../util/status.h"

namespace cvis {
namespace {

struct Frame {
  cv::Mat grey;  // working size
  cv::Mat mask;  // working size, 255 = object
};

// Decodes every frame and its mask at the working size; scale receives working / full.
cvis_status LoadFrames(const char* const* image_paths, const char* const* mask_paths, int n,
                       const cvis_turn_track_options& o, std::vector<Frame>* frames, double* scale) {
  frames->assign(size_t(n), Frame());
  std::vector<cv::Size> sizes(static_cast<size_t>(n));
  std::vector<cvis_status> statuses(size_t(n), CVIS_OK);
  std::vector<std::string> messages(static_cast<size_t>(n));
  ParallelFor(n, o.num_threads, 1, [&](int64_t begin, int64_t end, int) {
    for (int64_t i = begin; i < end; ++i) {
      cv::Mat image, mask;
      cvis_status status = DecodeImage(image_paths[i], true, &image);
      if (status == CVIS_OK) status = DecodeMask(mask_paths[i], &mask);
      if (status != CVIS_OK) {
        statuses[size_t(i)] = status;
        messages[size_t(i)] = cvis_last_error_message();
        continue;
      }
      sizes[size_t(i)] = image.size();
      const double s = std::min(1.0, double(o.working_side) / std::max(image.cols, image.rows));
      const cv::Size size(std::max(1, int(std::lround(image.cols * s))), std::max(1, int(std::lround(image.rows * s))));
      Frame& frame = (*frames)[size_t(i)];
      cv::Mat small;
      cv::resize(image, small, size, 0, 0, cv::INTER_AREA);
      cv::cvtColor(small, frame.grey, cv::COLOR_BGR2GRAY);
      cv::resize(mask, frame.mask, size, 0, 0, cv::INTER_NEAREST);
      cv::threshold(frame.mask, frame.mask, 0, 255, cv::THRESH_BINARY);
    }
  });
  for (int i = 0; i < n; ++i) {
    if (statuses[size_t(i)] != CVIS_OK) return Fail(statuses[size_t(i)], messages[size_t(i)]);
    if (sizes[size_t(i)] != sizes[0]) {
      return Fail(CVIS_INVALID_ARGUMENT, Str(BaseName(image_paths[i]), " differs in shape from ",
                                             BaseName(image_paths[0]), ": no fixed camera took both"));
    }
  }
  *scale = double((*frames)[0].grey.cols) / sizes[0].width;
  return CVIS_OK;
}

struct Observation {
  int frame;
  cv::Point2f xy;  // working size, OpenCV's pixel centres
};

// Follows the points of `from` into `to`; keeps those that come back within the round trip,
// land in the mask and move.
void Follow(const Frame& from, const Frame& to, const cvis_turn_track_options& o,
            std::vector<cv::Point2f>* points, std::vector<int>* ids) {
  if (points->empty()) return;
  const cv::Size window(o.window, o.window);
  const cv::TermCriteria criteria(cv::TermCriteria::COUNT | cv::TermCriteria::EPS, 30, 0.01);
  std::vector<cv::Point2f> forward, back;
  std::vector<uchar> found, found_back;
  std::vector<float> error;
  cv::calcOpticalFlowPyrLK(from.grey, to.grey, *points, forward, found, error, window, o.pyramid_levels, criteria);
  cv::calcOpticalFlowPyrLK(to.grey, from.grey, forward, back, found_back, error, window, o.pyramid_levels, criteria);
  std::vector<cv::Point2f> kept;
  std::vector<int> kept_ids;
  for (size_t k = 0; k < points->size(); ++k) {
    if (!found[k] || !found_back[k]) continue;
    if (cv::norm(back[k] - (*points)[k]) > o.max_round_trip) continue;
    if (cv::norm(forward[k] - (*points)[k]) < o.min_motion) continue;
    const int x = int(std::floor(forward[k].x + 0.5f)), y = int(std::floor(forward[k].y + 0.5f));
    if (x < 0 || y < 0 || x >= to.mask.cols || y >= to.mask.rows || to.mask.at<uchar>(y, x) == 0) continue;
    kept.push_back(forward[k]);
    kept_ids.push_back((*ids)[k]);
  }
  *points = std::move(kept);
  *ids = std::move(kept_ids);
}

}  // namespace
}  // namespace cvis

extern "C" void cvis_turn_track_options_default(cvis_turn_track_options* options) {
  options->working_side = 1024;
  options->max_corners = 2000;
  options->quality_level = 0.001;
  options->min_distance = 5;
  options->window = 21;
  options->pyramid_levels = 3;
  options->max_round_trip = 0.5;
  options->min_motion = 0.3;
  options->seam_frames = 6;
  options->num_threads = 1;
}

extern "C" cvis_status cvis_turn_tracks_create(const char* const* image_paths, const char* const* mask_paths,
                                               int32_t count, const cvis_turn_track_options* options,
                                               cvis_turn_tracks** tracks) {
  using namespace cvis;
  return Guard([&]() -> cvis_status {
    if (image_paths == nullptr || mask_paths == nullptr || options == nullptr || tracks == nullptr) {
      return Fail(CVIS_INVALID_ARGUMENT, "cvis_turn_tracks_create: null argument");
    }
    *tracks = nullptr;
    if (count < 3) return Fail(CVIS_NOT_ENOUGH_DATA, Str("turn tracks need 3 frames, got ", count));
    cvis_turn_track_options o = *options;
    if (o.working_side < 16 || o.max_corners < 1 || !(o.quality_level > 0 && o.quality_level < 1) ||
        !(o.min_distance >= 0) || o.window < 3 || o.pyramid_levels < 0 || !(o.max_round_trip > 0) ||
        !(o.min_motion >= 0) || o.seam_frames < 0) {
      return Fail(CVIS_INVALID_ARGUMENT, "cvis_turn_tracks_create: option out of range");
    }
    o.num_threads = std::max(1, o.num_threads);
    for (int i = 0; i < count; ++i) {
      if (image_paths[i] == nullptr || mask_paths[i] == nullptr) {
        return Fail(CVIS_INVALID_ARGUMENT, "cvis_turn_tracks_create: null path");
      }
    }
    std::vector<Frame> frames;
    double scale = 1;
    if (cvis_status status = LoadFrames(image_paths, mask_paths, count, o, &frames, &scale); status != CVIS_OK) {
      return status;
    }
    std::vector<std::vector<Observation>> observed;
    std::vector<cv::Point2f> active;
    std::vector<int> ids;
    const int steps = count + std::min(o.seam_frames, count - 1);
    for (int step = 0; step < steps; ++step) {
      const int i = step % count;
      if (step > 0) {
        Follow(frames[size_t((step - 1) % count)], frames[size_t(i)], o, &active, &ids);
        for (size_t k = 0; k < active.size(); ++k) {
          auto& track = observed[size_t(ids[k])];
          // Past the seam a track may come back to a frame it started in: it keeps the first.
          if (std::none_of(track.begin(), track.end(), [&](const Observation& ob) { return ob.frame == i; })) {
            track.push_back({i, active[k]});
          }
        }
      }
      if (step >= count) continue;
      // New corners where no tracked point already is.
      cv::Mat free_mask = frames[size_t(i)].mask.clone();
      for (const auto& p : active) cv::circle(free_mask, p, std::max(1, int(o.min_distance)), 0, -1);
      std::vector<cv::Point2f> corners;
      cv::goodFeaturesToTrack(frames[size_t(i)].grey, corners, o.max_corners, o.quality_level, o.min_distance, free_mask);
      for (const auto& c : corners) {
        ids.push_back(int(observed.size()));
        observed.push_back({{i, c}});
        active.push_back(c);
      }
    }
    std::unique_ptr<cvis_turn_tracks, void (*)(cvis_turn_tracks*)> result(
        static_cast<cvis_turn_tracks*>(std::calloc(1, sizeof(cvis_turn_tracks))), cvis_turn_tracks_destroy);
    if (!result) return Fail(CVIS_INTERNAL_ERROR, "out of memory");
    size_t total = 0;
    for (const auto& track : observed) if (track.size() >= 2) total += track.size();
    result->track = static_cast<int32_t*>(std::malloc(std::max<size_t>(1, total) * sizeof(int32_t)));
    result->frame = static_cast<int32_t*>(std::malloc(std::max<size_t>(1, total) * sizeof(int32_t)));
    result->xy = static_cast<double*>(std::malloc(std::max<size_t>(1, total) * 2 * sizeof(double)));
    if (!result->track || !result->frame || !result->xy) return Fail(CVIS_INTERNAL_ERROR, "out of memory");
    int32_t t = 0;
    size_t k = 0;
    for (const auto& track : observed) {
      if (track.size() < 2) continue;
      for (const auto& ob : track) {
        result->track[k] = t;
        result->frame[k] = ob.frame;
        // OpenCV's pixel centres are integers; ours are at +0.5, and the scale maps corners.
        result->xy[2 * k] = (ob.xy.x + 0.5) / scale;
        result->xy[2 * k + 1] = (ob.xy.y + 0.5) / scale;
        ++k;
      }
      ++t;
    }
    result->num_tracks = t;
    result->num_observations = int32_t(k);
    *tracks = result.release();
    return CVIS_OK;
  });
}

extern "C" void cvis_turn_tracks_destroy(cvis_turn_tracks* tracks) {
  if (tracks == nullptr) return;
  std::free(tracks->track);
  std::free(tracks->frame);
  std::free(tracks->xy);
  std::free(tracks);
}
