// A fixed camera's background from its own frames: each pixel's colour over time clusters around
// the background where the pixel is uncovered; what leaves that cluster is the object.

#include "background_model.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>

#include <opencv2/imgproc.hpp>

#include "../io/image_io.h"
#include "../io/image_write.h"
#include "../util/parallel.h"
#include "../util/status.h"

namespace cvis {
namespace {

using Colour = std::array<float, 3>;

// Candidates tried as a pixel's mode: enough to hit a cluster holding a fifth of the frames.
constexpr int kModeCandidates = 16;
// A second mode must hold this share of the frames to stand for the background.
constexpr float kMinSecondSupport = 0.15f;
// A pixel is stable when it stays within noise in this share of the frames.
constexpr float kStableFrameShare = 0.8f;
// Background lightness steps (levels of 255 per pixel, central difference) that count as texture.
constexpr float kTextureGradient = 3.0f;

float Distance2(const Colour& a, const Colour& b) {
  const float dl = a[0] - b[0], da = a[1] - b[1], db = a[2] - b[2];
  return dl * dl + da * da + db * db;
}

// One frame's pixel as the model compares it: lightness weighted and divided by the frame's gain.
Colour PixelColour(const cv::Mat& frame, int y, int x, float gain) {
  const cv::Vec3b& lab = frame.at<cv::Vec3b>(y, x);
  return {kLightnessWeight * lab[0] / gain, float(lab[1]), float(lab[2])};
}

struct Mode {
  Colour centre{};
  float support = 0;  // share of the frames
  float spread = 0;   // RMS distance of its members from the centre
};

// The densest cluster (radius tau) among values, skipping candidates within `exclude_radius` of
// `exclude` (to find a second mode).
Mode DensestCluster(const std::vector<Colour>& values, float tau, const Colour* exclude, float exclude_radius) {
  const int n = int(values.size());
  const float tau2 = tau * tau;
  const int step = std::max(1, n / kModeCandidates);
  int best = -1, best_count = 0;
  for (int c = 0; c < n; c += step) {
    if (exclude != nullptr && Distance2(values[size_t(c)], *exclude) < exclude_radius * exclude_radius) continue;
    int count = 0;
    for (const Colour& v : values) count += Distance2(v, values[size_t(c)]) < tau2;
    if (count > best_count) {
      best_count = count;
      best = c;
    }
  }
  Mode mode;
  if (best < 0) return mode;
  // One mean-shift step: the members' mean, then the members again around it.
  Colour centre = values[size_t(best)];
  for (int iteration = 0; iteration < 2; ++iteration) {
    Colour sum{0, 0, 0};
    int count = 0;
    for (const Colour& v : values) {
      if (Distance2(v, centre) >= tau2) continue;
      for (int k = 0; k < 3; ++k) sum[size_t(k)] += v[size_t(k)];
      ++count;
    }
    if (count == 0) break;
    for (int k = 0; k < 3; ++k) centre[size_t(k)] = sum[size_t(k)] / float(count);
  }
  double spread2 = 0;
  int count = 0;
  for (const Colour& v : values) {
    const float d2 = Distance2(v, centre);
    if (d2 >= tau2) continue;
    spread2 += d2;
    ++count;
  }
  mode.centre = centre;
  mode.support = float(count) / float(n);
  mode.spread = count > 0 ? float(std::sqrt(spread2 / count)) : 0.f;
  return mode;
}

// Colour gradient magnitude (central differences over L, a and b, the lightness weight undone)
// of a CV_32FC3 background, in levels of 255: its texture, which a moving camera would shift.
cv::Mat ColourGradient(const cv::Mat& background) {
  cv::Mat gx, gy;
  cv::Sobel(background, gx, CV_32F, 1, 0, 1, 0.5);
  cv::Sobel(background, gy, CV_32F, 0, 1, 1, 0.5);
  cv::Mat squared = gx.mul(gx) + gy.mul(gy);
  std::vector<cv::Mat> channels;
  cv::split(squared, channels);
  cv::Mat magnitude;
  cv::sqrt(channels[0] / (kLightnessWeight * kLightnessWeight) + channels[1] + channels[2], magnitude);
  return magnitude;
}

// Frame i's changed pixels against the model's background and noise (255 = changed).
cv::Mat ChangedPixels(const cvis_background_model& model, size_t i) {
  const cv::Mat& frame = model.frames[i];
  const float gain = model.gains[i];
  const float threshold = float(model.options.change_threshold);
  const float shadow_min = float(model.options.shadow_min_ratio);
  cv::Mat changed(model.size, CV_8U, cv::Scalar(0));
  for (int y = 0; y < model.size.height; ++y) {
    const cv::Vec3f* background = model.background.ptr<cv::Vec3f>(y);
    const float* noise = model.noise.ptr<float>(y);
    uint8_t* out = changed.ptr<uint8_t>(y);
    for (int x = 0; x < model.size.width; ++x) {
      const Colour v = PixelColour(frame, y, x, gain);
      const Colour b{background[x][0], background[x][1], background[x][2]};
      const float limit = threshold * noise[x];
      if (Distance2(v, b) < limit * limit) continue;
      if (shadow_min > 0 && b[0] > 0) {
        // A shadow darkens the background and keeps its chroma.
        const float ratio = v[0] / b[0];
        const float da = v[1] - b[1], db = v[2] - b[2];
        if (ratio >= shadow_min && ratio <= 0.95f && da * da + db * db < 0.25f * limit * limit) continue;
      }
      out[x] = 255;
    }
  }
  return changed;
}

// Bin of a Lab colour (lightness weighted as the model keeps it) in a 32^3 histogram.
int FineColourBin(float l, float a, float b) {
  const int bl = std::clamp(int(l / kLightnessWeight) / 8, 0, 31);
  const int ba = std::clamp(int(a) / 8, 0, 31);
  const int bb = std::clamp(int(b) / 8, 0, 31);
  return (bl * 32 + ba) * 32 + bb;
}

// Never-changing pixels that belong to the object: a plain object turning in place shows the same
// colour at the same pixels in every frame (the top of a head), and where the envelope of changes
// does not enclose them their colour tells: the object's colour (what covered the backdrop when
// it changed) and not the backdrop's. Grown from the envelope; a region reaching the image border
// is backdrop (an object stands inside the frame).
cv::Mat StillObjectColour(const cvis_background_model& model, const std::vector<cv::Mat>& cleaned) {
  const int bins = 32 * 32 * 32;
  std::vector<double> object(bins, 0.0), backdrop(bins, 0.0);
  double object_total = 0, backdrop_total = 0;
  for (size_t i = 0; i < cleaned.size(); ++i) {
    for (int y = 0; y < model.size.height; y += 2) {
      const uint8_t* changed = cleaned[i].ptr<uint8_t>(y);
      for (int x = 0; x < model.size.width; x += 2) {
        if (!changed[x]) continue;
        const Colour v = PixelColour(model.frames[i], y, x, model.gains[i]);
        object[size_t(FineColourBin(v[0], v[1], v[2]))] += 1;
        object_total += 1;
      }
    }
  }
  cv::Mat near;
  const int reach = 2 * int(std::lround(std::max(model.size.width, model.size.height) / 40.0)) + 1;
  cv::dilate(model.envelope, near, cv::getStructuringElement(cv::MORPH_ELLIPSE, cv::Size(reach, reach)));
  for (int y = 0; y < model.size.height; ++y) {
    for (int x = 0; x < model.size.width; ++x) {
      if (near.at<uint8_t>(y, x)) continue;
      const cv::Vec3f& b = model.background.at<cv::Vec3f>(y, x);
      backdrop[size_t(FineColourBin(b[0], b[1], b[2]))] += 1;
      backdrop_total += 1;
    }
  }
  cv::Mat candidate(model.size, CV_8U, cv::Scalar(0));
  if (object_total == 0 || backdrop_total == 0) return candidate;
  for (int y = 0; y < model.size.height; ++y) {
    for (int x = 0; x < model.size.width; ++x) {
      if (model.envelope.at<uint8_t>(y, x)) continue;
      const cv::Vec3f& b = model.background.at<cv::Vec3f>(y, x);
      const size_t bin = size_t(FineColourBin(b[0], b[1], b[2]));
      const double p_object = object[bin] / object_total, p_backdrop = backdrop[bin] / backdrop_total;
      // Ten times likelier the object's colour than the backdrop's.
      if (p_object > 10 * p_backdrop && p_object > 0) candidate.at<uint8_t>(y, x) = 255;
    }
  }
  cv::morphologyEx(candidate, candidate, cv::MORPH_OPEN, cv::getStructuringElement(cv::MORPH_ELLIPSE, cv::Size(3, 3)));
  // Keep candidate regions that touch the envelope and not the image border.
  cv::Mat labels;
  const int count = cv::connectedComponents(candidate, labels, 8, CV_32S);
  cv::Mat touching;
  cv::dilate(model.envelope, touching, cv::Mat());
  std::vector<uint8_t> touches(size_t(count), 0), border(size_t(count), 0);
  for (int y = 0; y < model.size.height; ++y) {
    for (int x = 0; x < model.size.width; ++x) {
      const int label = labels.at<int>(y, x);
      if (label == 0) continue;
      if (touching.at<uint8_t>(y, x)) touches[size_t(label)] = 1;
      if (x == 0 || y == 0 || x + 1 == model.size.width || y + 1 == model.size.height) border[size_t(label)] = 1;
    }
  }
  cv::Mat still(model.size, CV_8U, cv::Scalar(0));
  for (int y = 0; y < model.size.height; ++y) {
    for (int x = 0; x < model.size.width; ++x) {
      const int label = labels.at<int>(y, x);
      if (label > 0 && touches[size_t(label)] && !border[size_t(label)]) still.at<uint8_t>(y, x) = 255;
    }
  }
  return still;
}

// Cleans every frame's changes, finds the envelope and its enclosed core, and the final masks.
void Segment(cvis_background_model* model) {
  const int n = int(model->frames.size());
  const int min_area = std::max(4, int(model->options.min_region_share * model->size.area()));
  std::vector<cv::Mat> cleaned(static_cast<size_t>(n));
  const int reach = 2 * int(std::lround(std::max(model->size.width, model->size.height) / 40.0)) + 1;
  ParallelFor(n, model->options.num_threads, 1, [&](int64_t begin, int64_t end, int) {
    for (int64_t i = begin; i < end; ++i) {
      cv::Mat changed = CleanChangeMask(ChangedPixels(*model, size_t(i)), min_area);
      // A textured object turning in place shows similar colours at a pixel now and then: the
      // pixel is unsettled (no colour holds), and in this frame it belongs to what changed nearby.
      cv::Mat near_changed;
      cv::dilate(changed, near_changed, cv::getStructuringElement(cv::MORPH_ELLIPSE, cv::Size(reach, reach)));
      changed |= model->unsettled & near_changed;
      cleaned[size_t(i)] = CleanChangeMask(changed, min_area);
    }
  });
  model->envelope = cv::Mat(model->size, CV_8U, cv::Scalar(0));
  for (const cv::Mat& mask : cleaned) model->envelope |= mask;
  // Pixels the object covers in every frame never change (a textureless object turning in place
  // looks the same from every side): what the envelope of all changes encloses is the object.
  model->core = Holes(model->envelope) | StillObjectColour(*model, cleaned);
  model->masks.resize(size_t(n));
  for (int i = 0; i < n; ++i) {
    cv::Mat mask = cleaned[size_t(i)] | model->core;
    mask.setTo(255, Holes(mask));
    RemoveSmallRegions(&mask, min_area);
    model->masks[size_t(i)] = mask;
  }
}

cvis_status LoadFrames(cvis_background_model* model) {
  const int n = int(model->paths.size());
  const int side = model->options.working_side;
  model->frames.resize(size_t(n));
  std::vector<cv::Size> decoded(static_cast<size_t>(n));
  std::vector<cvis_status> statuses(static_cast<size_t>(n), CVIS_OK);
  std::vector<std::string> messages(static_cast<size_t>(n));
  ParallelFor(n, model->options.num_threads, 1, [&](int64_t begin, int64_t end, int) {
    for (int64_t i = begin; i < end; ++i) {
      cv::Mat image;
      statuses[size_t(i)] = DecodeImageForSize(model->paths[size_t(i)], side, &image);
      if (statuses[size_t(i)] != CVIS_OK) {
        messages[size_t(i)] = cvis_last_error_message();
        continue;
      }
      decoded[size_t(i)] = image.size();
      const double scale = std::min(1.0, double(side) / std::max(image.cols, image.rows));
      const cv::Size size(std::max(1, int(std::lround(image.cols * scale))), std::max(1, int(std::lround(image.rows * scale))));
      cv::Mat small;
      cv::resize(image, small, size, 0, 0, cv::INTER_AREA);
      cv::GaussianBlur(small, small, cv::Size(3, 3), 0.7);
      cv::cvtColor(small, model->frames[size_t(i)], cv::COLOR_BGR2Lab);
    }
  });
  for (int i = 0; i < n; ++i) {
    if (statuses[size_t(i)] != CVIS_OK) return Fail(statuses[size_t(i)], messages[size_t(i)]);
    if (decoded[size_t(i)] != decoded[0]) {
      return Fail(CVIS_INVALID_ARGUMENT, Str(BaseName(model->paths[size_t(i)]), " differs in shape from ",
                                             BaseName(model->paths[0]), ": no fixed camera took both"));
    }
  }
  model->size = model->frames[0].size();
  return CVIS_OK;
}

// Each frame's lightness relative to the per-pixel median lightness: exposure drift divided out.
void EstimateGains(cvis_background_model* model, const std::vector<int>& model_frames) {
  const int n = int(model->frames.size());
  const int m = int(model_frames.size());
  // Every second pixel in each direction is plenty for one number per frame.
  std::vector<cv::Point> samples;
  for (int y = 0; y < model->size.height; y += 2)
    for (int x = 0; x < model->size.width; x += 2) samples.emplace_back(x, y);
  std::vector<float> median(samples.size());
  std::vector<float> values(static_cast<size_t>(m));
  for (size_t s = 0; s < samples.size(); ++s) {
    for (int j = 0; j < m; ++j) values[size_t(j)] = model->frames[size_t(model_frames[size_t(j)])].at<cv::Vec3b>(samples[s])[0];
    std::nth_element(values.begin(), values.begin() + m / 2, values.end());
    median[s] = values[size_t(m / 2)];
  }
  model->gains.assign(size_t(n), 1.f);
  std::vector<float> ratios(samples.size());
  for (int i = 0; i < n; ++i) {
    for (size_t s = 0; s < samples.size(); ++s) {
      ratios[s] = (model->frames[size_t(i)].at<cv::Vec3b>(samples[s])[0] + 4.f) / (median[s] + 4.f);
    }
    std::nth_element(ratios.begin(), ratios.begin() + ratios.size() / 2, ratios.end());
    model->gains[size_t(i)] = std::clamp(ratios[ratios.size() / 2], 0.5f, 2.f);
  }
}

// Each pixel's background (its densest colour cluster), noise and stability; where the object
// covers a pixel more often than not, the second cluster is the background (decided in Create).
void EstimateBackground(cvis_background_model* model, const std::vector<int>& model_frames, cv::Mat* second,
                        cv::Mat* second_support, cv::Mat* second_noise) {
  const int m = int(model_frames.size());
  const float min_spread = float(model->options.min_noise * std::sqrt(3.0));
  // The cluster radius: noise, plus the sub-pixel jitter of strong edges (a median pass first).
  cv::Mat median(model->size, CV_32FC3);
  ParallelFor(model->size.height, model->options.num_threads, 8, [&](int64_t begin, int64_t end, int) {
    std::vector<float> values(static_cast<size_t>(m));
    for (int64_t y = begin; y < end; ++y) {
      for (int x = 0; x < model->size.width; ++x) {
        for (int k = 0; k < 3; ++k) {
          for (int j = 0; j < m; ++j) {
            const int f = model_frames[size_t(j)];
            values[size_t(j)] = PixelColour(model->frames[size_t(f)], int(y), x, model->gains[size_t(f)])[size_t(k)];
          }
          std::nth_element(values.begin(), values.begin() + m / 2, values.end());
          median.at<cv::Vec3f>(int(y), x)[k] = values[size_t(m / 2)];
        }
      }
    }
  });
  const cv::Mat jitter = ColourGradient(median);
  model->background = cv::Mat(model->size, CV_32FC3);
  model->noise = cv::Mat(model->size, CV_32F);
  model->unsettled = cv::Mat(model->size, CV_8U);
  *second = cv::Mat(model->size, CV_32FC3);
  *second_support = cv::Mat(model->size, CV_32F);
  *second_noise = cv::Mat(model->size, CV_32F);
  ParallelFor(model->size.height, model->options.num_threads, 8, [&](int64_t begin, int64_t end, int) {
    std::vector<Colour> values(static_cast<size_t>(m));
    for (int64_t y = begin; y < end; ++y) {
      for (int x = 0; x < model->size.width; ++x) {
        for (int j = 0; j < m; ++j) {
          const int f = model_frames[size_t(j)];
          values[size_t(j)] = PixelColour(model->frames[size_t(f)], int(y), x, model->gains[size_t(f)]);
        }
        const float tau = std::max(3.f * min_spread, 0.35f * jitter.at<float>(int(y), x));
        const Mode first = DensestCluster(values, tau, nullptr, 0);
        const Mode other = DensestCluster(values, tau, &first.centre, 2 * tau);
        model->unsettled.at<uint8_t>(int(y), x) = first.support < 0.5f ? 255 : 0;
        model->background.at<cv::Vec3f>(int(y), x) = {first.centre[0], first.centre[1], first.centre[2]};
        // A wide cluster is not noise: a textured object's colours cluster loosely. The spread a
        // background pixel may claim is its floor, or the jitter of a strong edge.
        const float cap = std::max(min_spread, 0.25f * jitter.at<float>(int(y), x));
        model->noise.at<float>(int(y), x) = std::clamp(first.spread, min_spread, cap);
        second->at<cv::Vec3f>(int(y), x) = {other.centre[0], other.centre[1], other.centre[2]};
        second_support->at<float>(int(y), x) = other.support;
        second_noise->at<float>(int(y), x) = std::clamp(other.spread, min_spread, cap);
      }
    }
  });
  // A pixel's noise is its neighbourhood's: an edge's jitter reaches a pixel beside it.
  cv::dilate(model->noise, model->noise, cv::Mat());
  cv::dilate(*second_noise, *second_noise, cv::Mat());
}

// Bin of a colour in a coarse 16^3 histogram of (weighted) Lab.
int ColourBin(const cv::Vec3f& colour) {
  const int l = std::clamp(int(colour[0] / kLightnessWeight) / 16, 0, 15);
  const int a = std::clamp(int(colour[1]) / 16, 0, 15);
  const int b = std::clamp(int(colour[2]) / 16, 0, 15);
  return (l * 16 + a) * 16 + b;
}

// Pixels near the envelope whose first mode has the core's (the object's) colour and whose
// second mode does not are covered more often than not: their background is the second mode.
int AdoptSecondModes(cvis_background_model* model, const cv::Mat& second, const cv::Mat& second_support,
                     const cv::Mat& second_noise) {
  const int core_area = cv::countNonZero(model->core);
  if (core_area == 0) return 0;
  std::vector<int> histogram(16 * 16 * 16, 0);
  for (int y = 0; y < model->size.height; ++y)
    for (int x = 0; x < model->size.width; ++x)
      if (model->core.at<uint8_t>(y, x)) ++histogram[size_t(ColourBin(model->background.at<cv::Vec3f>(y, x)))];
  const int object_like = std::max(3, core_area / 500);
  cv::Mat near_envelope;
  const int reach = 2 * int(std::lround(std::max(model->size.width, model->size.height) / 80.0)) + 1;
  cv::dilate(model->envelope, near_envelope, cv::getStructuringElement(cv::MORPH_ELLIPSE, cv::Size(reach, reach)));
  int adopted = 0;
  for (int y = 0; y < model->size.height; ++y) {
    for (int x = 0; x < model->size.width; ++x) {
      if (!near_envelope.at<uint8_t>(y, x) || model->core.at<uint8_t>(y, x)) continue;
      if (second_support.at<float>(y, x) < kMinSecondSupport) continue;
      if (histogram[size_t(ColourBin(model->background.at<cv::Vec3f>(y, x)))] < object_like) continue;
      if (histogram[size_t(ColourBin(second.at<cv::Vec3f>(y, x)))] >= object_like) continue;
      model->background.at<cv::Vec3f>(y, x) = second.at<cv::Vec3f>(y, x);
      model->noise.at<float>(y, x) = second_noise.at<float>(y, x);
      ++adopted;
    }
  }
  return adopted;
}

void MeasureStability(cvis_background_model* model) {
  const int n = int(model->frames.size());
  const float cap = float(4.0 * model->options.min_noise * std::sqrt(3.0));
  const float threshold = float(model->options.change_threshold);
  const cv::Mat gradient = ColourGradient(model->background);
  int64_t textured = 0, textured_stable = 0, stable = 0, still_structure = 0;
  const cv::Mat moved = model->envelope | model->core;
  for (int y = 0; y < model->size.height; ++y) {
    for (int x = 0; x < model->size.width; ++x) {
      const cv::Vec3f& bg = model->background.at<cv::Vec3f>(y, x);
      const Colour b{bg[0], bg[1], bg[2]};
      const float limit = threshold * std::min(cap, model->noise.at<float>(y, x));
      int within = 0;
      for (int i = 0; i < n; ++i) within += Distance2(PixelColour(model->frames[size_t(i)], y, x, model->gains[size_t(i)]), b) < limit * limit;
      const bool is_stable = within >= kStableFrameShare * n;
      const bool is_textured = gradient.at<float>(y, x) >= kTextureGradient;
      stable += is_stable;
      textured += is_textured;
      textured_stable += is_stable && is_textured;
      still_structure += is_stable && is_textured && !moved.at<uint8_t>(y, x);
    }
  }
  const double area = double(model->size.area());
  model->stats.frames = n;
  model->stats.width = model->size.width;
  model->stats.height = model->size.height;
  model->stats.textured_share = double(textured) / area;
  model->stats.stable_share = textured > 0 ? double(textured_stable) / double(textured) : 0.0;
  model->stats.still_share = double(stable) / area;
  model->stats.still_structure_share = double(still_structure) / area;
  model->stats.core_share = double(cv::countNonZero(model->core)) / area;
  model->stats.envelope_share = double(cv::countNonZero(model->envelope | model->core)) / area;
}

}  // namespace
}  // namespace cvis

extern "C" void cvis_background_options_default(cvis_background_options* options) {
  if (options == nullptr) return;
  options->working_side = 480;
  options->max_model_frames = 64;
  options->change_threshold = 4.0;
  options->min_noise = 1.5;
  options->shadow_min_ratio = 0.5;
  options->min_region_share = 0.002;
  options->num_threads = 1;
}

extern "C" cvis_status cvis_background_model_create(const char* const* image_paths, int32_t count,
                                                    const cvis_background_options* options,
                                                    cvis_background_model** model) {
  using namespace cvis;
  return Guard([&] {
    if (image_paths == nullptr || options == nullptr || model == nullptr) {
      return Fail(CVIS_INVALID_ARGUMENT, "cvis_background_model_create: null argument");
    }
    *model = nullptr;
    if (count < 3) return Fail(CVIS_NOT_ENOUGH_DATA, Str("a background model needs 3 frames, got ", count));
    if (options->working_side < 32 || options->working_side > 4096 || options->max_model_frames < 3 ||
        !(options->change_threshold > 0) || !(options->min_noise > 0) || !(options->shadow_min_ratio >= 0) ||
        !(options->shadow_min_ratio < 0.95) || !(options->min_region_share >= 0) || !(options->min_region_share < 1)) {
      return Fail(CVIS_INVALID_ARGUMENT, "cvis_background_model_create: option out of range");
    }
    auto built = std::make_unique<cvis_background_model>();
    built->options = *options;
    built->options.num_threads = std::max(1, options->num_threads);
    for (int32_t i = 0; i < count; ++i) {
      if (image_paths[i] == nullptr) return Fail(CVIS_INVALID_ARGUMENT, "cvis_background_model_create: null path");
      built->paths.emplace_back(image_paths[i]);
    }
    if (cvis_status status = LoadFrames(built.get()); status != CVIS_OK) return status;
    std::vector<int> model_frames;
    const int m = std::min(count, options->max_model_frames);
    for (int j = 0; j < m; ++j) model_frames.push_back(int(int64_t(j) * count / m));
    EstimateGains(built.get(), model_frames);
    cv::Mat second, second_support, second_noise;
    EstimateBackground(built.get(), model_frames, &second, &second_support, &second_noise);
    Segment(built.get());
    if (AdoptSecondModes(built.get(), second, second_support, second_noise) > 0) Segment(built.get());
    MeasureStability(built.get());
    *model = built.release();
    return CVIS_OK;
  });
}

extern "C" void cvis_background_model_destroy(cvis_background_model* model) { delete model; }

extern "C" void cvis_background_model_stats(const cvis_background_model* model, cvis_background_stats* stats) {
  if (model != nullptr && stats != nullptr) *stats = model->stats;
}

extern "C" cvis_status cvis_background_model_working_mask(const cvis_background_model* model, int32_t index,
                                                          uint8_t* mask) {
  using namespace cvis;
  return Guard([&] {
    if (model == nullptr || mask == nullptr) return Fail(CVIS_INVALID_ARGUMENT, "cvis_background_model_working_mask: null argument");
    if (index < 0 || size_t(index) >= model->masks.size()) {
      return Fail(CVIS_INVALID_ARGUMENT, Str("cvis_background_model_working_mask: no frame ", index));
    }
    const cv::Mat& source = model->masks[size_t(index)];
    for (int y = 0; y < source.rows; ++y) std::copy_n(source.ptr<uint8_t>(y), source.cols, mask + size_t(y) * size_t(source.cols));
    return CVIS_OK;
  });
}

extern "C" cvis_status cvis_background_model_write_mask(const cvis_background_model* model, int32_t index,
                                                        const char* output_path, double* object_share) {
  using namespace cvis;
  return Guard([&] {
    if (model == nullptr || output_path == nullptr) {
      return Fail(CVIS_INVALID_ARGUMENT, "cvis_background_model_write_mask: null argument");
    }
    if (index < 0 || size_t(index) >= model->masks.size()) {
      return Fail(CVIS_INVALID_ARGUMENT, Str("cvis_background_model_write_mask: no frame ", index));
    }
    cv::Mat image;
    if (cvis_status s = DecodeImage(model->paths[size_t(index)], true, &image); s != CVIS_OK) return s;
    cv::Mat guide;
    cv::cvtColor(image, guide, cv::COLOR_BGR2GRAY);
    guide.convertTo(guide, CV_32F, 1.0 / 255.0);
    const cv::Mat mask = UpsampleMask(model->masks[size_t(index)], guide);
    if (object_share != nullptr) *object_share = double(cv::countNonZero(mask)) / double(mask.total());
    return WriteImageAtomically(output_path, mask);
  });
}
