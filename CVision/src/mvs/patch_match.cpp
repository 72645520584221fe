// The PatchMatch solver (see patch_match.h).
#include "patch_match.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <memory>
#include <thread>

#include <opencv2/imgproc.hpp>

#include "../io/image_io.h"
#include "../util/status.h"
#include "patch_match_kernels.h"

namespace cvis {
namespace mvs {
namespace {

constexpr float kMaxCost = 2.0f;  // 1 - NCC of the worst match
constexpr int kMaxSources = 64;

// Counter-based randomness: every pixel visit draws from its own stream, keyed by what the visit
// is, so results depend on the seed only (not on the thread count or the order of rows).
struct Random {
  uint64_t state;
  static uint64_t Mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  Random(uint64_t seed, uint64_t a, uint64_t b) : state(Mix(seed ^ Mix(a * 0x9e3779b97f4a7c15ULL ^ Mix(b)))) {}
  uint64_t Next() { return Mix(state += 0x9e3779b97f4a7c15ULL); }
  float Uniform() { return float(Next() >> 40) * (1.0f / 16777216.0f); }  // [0, 1)
  float Uniform(float lo, float hi) { return lo + (hi - lo) * Uniform(); }
};

// Runs body(row) for rows [0, n) on num_threads threads (the caller's included), rows handed
// out one at a time so that uneven rows (masks) balance.
template <typename Body>
void ParallelRows(int num_threads, int n, const Body& body) {
  std::atomic<int> next{0};
  auto worker = [&] {
    for (int row; (row = next.fetch_add(1)) < n;) body(row);
  };
  std::vector<std::thread> threads;
  for (int i = 1; i < std::min(num_threads, n); ++i) threads.emplace_back(worker);
  worker();
  for (auto& thread : threads) thread.join();
}

// ACMH's adaptive checkerboard sampling: four V-shaped near regions and four long strips, each
// offset at an odd Manhattan distance so that it falls on the other colour.
struct Regions {
  std::vector<std::pair<int, int>> region[8];
  Regions() {
    const int dirs[4][2] = {{0, -1}, {0, 1}, {-1, 0}, {1, 0}};
    for (int d = 0; d < 4; ++d) {
      const int ax = dirs[d][0], ay = dirs[d][1];  // along the direction
      const int px = -ay, py = ax;                 // across it
      auto& near = region[2 * d];
      near.push_back({ax, ay});
      for (int k = 1; k <= 3; ++k) {
        near.push_back({ax * (k + 1) + px * k, ay * (k + 1) + py * k});
        near.push_back({ax * (k + 1) - px * k, ay * (k + 1) - py * k});
      }
      auto& far = region[2 * d + 1];
      for (int k = 0; k < 11; ++k) far.push_back({ax * (3 + 2 * k), ay * (3 + 2 * k)});
    }
  }
};

struct Hypothesis {
  float depth;
  float normal[3];
};

// One resolution of the problem: scaled views and images.
struct Level {
  View ref;
  cv::Mat grey;  // CV_32F
  cv::Mat mask;  // CV_8U, 255 = keep (empty: all kept)
  std::vector<View> src_views;
  std::vector<cv::Mat> src_grey;
  std::vector<SourceGeometry> geometry;
};

View ScaledView(const View& view, int width, int height) {
  View out = view;
  const double sx = double(width) / view.width, sy = double(height) / view.height;
  out.width = width;
  out.height = height;
  out.fx *= sx;
  out.cx *= sx;
  out.fy *= sy;
  out.cy *= sy;
  return out;
}

cv::Mat Downscale(const cv::Mat& image, int width, int height) {
  if (image.cols == width && image.rows == height) return image;
  cv::Mat out;
  cv::resize(image, out, cv::Size(width, height), 0, 0, cv::INTER_AREA);
  return out;
}

class Solver {
 public:
  Solver(const PatchMatchProblem& problem, const cvis_patch_match_options& options)
      : problem_(problem), options_(options),
        window_(options.window_radius, options.window_step, options.sigma_spatial,
                options.sigma_color),
        cos_min_angle_(float(std::cos(options.min_triangulation_angle_deg * M_PI / 180))) {}

  cvis_status Load(Workspace& ws);
  void Run(DepthMap* out);

 private:
  void SetLevel(int level_index);
  void Initialise(bool from_coarse, int coarse_width, int coarse_height,
                  const std::vector<Hypothesis>& coarse, const std::vector<uint8_t>& coarse_valid);
  void Sweep(int iteration, int colour, bool random_refinement);
  float Evaluate(const RefPatch& patch, int x, int y, const Hypothesis& h, int* consistent) const;
  float GeometricError(int j, const double* X, const float* pixel, bool* consistent) const;
  void RandomNormal(Random& random, int x, int y, float* n) const;
  void FaceCamera(int x, int y, float* n) const;
  void Finish(DepthMap* out);

  const PatchMatchProblem& problem_;
  const cvis_patch_match_options& options_;
  Window window_;
  float cos_min_angle_;
  Regions regions_;

  View full_ref_;
  std::shared_ptr<const cv::Mat> full_grey_, full_mask_;
  std::vector<View> full_src_views_;
  std::vector<std::shared_ptr<const cv::Mat>> full_src_grey_;
  std::shared_ptr<const DepthMap> previous_;
  std::vector<std::shared_ptr<const DepthMap>> src_depth_;  // geometric pass, per source

  Level level_;
  int level_index_ = 0;
  int width_ = 0, height_ = 0;
  std::vector<Hypothesis> state_;
  std::vector<float> cost_;
  std::vector<uint8_t> active_;  // inside the mask, the window inside the image, textured
};

cvis_status Solver::Load(Workspace& ws) {
  full_ref_ = ws.view(problem_.reference);
  if (cvis_status s = ws.Grey(problem_.reference, &full_grey_); s != CVIS_OK) return s;
  if (cvis_status s = ws.Mask(problem_.reference, &full_mask_); s != CVIS_OK) return s;
  for (int j : problem_.sources) {
    full_src_views_.push_back(ws.view(j));
    std::shared_ptr<const cv::Mat> grey;
    if (cvis_status s = ws.Grey(j, &grey); s != CVIS_OK) return s;
    full_src_grey_.push_back(grey);
  }
  if (problem_.geometric) {
    if (cvis_status s = ws.Depth(problem_.previous_depth_path, &previous_); s != CVIS_OK) return s;
    if (previous_->width != full_ref_.width || previous_->height != full_ref_.height) {
      return Fail(CVIS_INVALID_ARGUMENT,
                  Str(BaseName(problem_.previous_depth_path), ": depth map is ", previous_->width,
                      "x", previous_->height, " but the reference view is ", full_ref_.width, "x",
                      full_ref_.height));
    }
    src_depth_.resize(problem_.sources.size());
    for (size_t j = 0; j < problem_.sources.size(); ++j) {
      if (j >= problem_.source_depth_paths.size() || problem_.source_depth_paths[j].empty()) continue;
      const std::string& path = problem_.source_depth_paths[j];
      if (cvis_status s = ws.Depth(path, &src_depth_[j]); s != CVIS_OK) return s;
      if (src_depth_[j]->width != full_src_views_[j].width ||
          src_depth_[j]->height != full_src_views_[j].height) {
        return Fail(CVIS_INVALID_ARGUMENT, Str(BaseName(path), ": depth map size differs from its view"));
      }
    }
  }
  return CVIS_OK;
}

void Solver::SetLevel(int level_index) {
  level_index_ = level_index;
  const int shrink = 1 << level_index;
  width_ = std::max(1, (full_ref_.width + shrink / 2) / shrink);
  height_ = std::max(1, (full_ref_.height + shrink / 2) / shrink);
  level_.ref = ScaledView(full_ref_, width_, height_);
  level_.grey = Downscale(*full_grey_, width_, height_);
  level_.mask = cv::Mat();
  if (full_mask_) {
    level_.mask = Downscale(*full_mask_, width_, height_);
    if (level_index > 0) cv::threshold(level_.mask, level_.mask, 127, 255, cv::THRESH_BINARY);
  }
  level_.src_views.clear();
  level_.src_grey.clear();
  level_.geometry.clear();
  for (size_t j = 0; j < full_src_views_.size(); ++j) {
    const View& v = full_src_views_[j];
    const int w = std::max(1, (v.width + shrink / 2) / shrink);
    const int h = std::max(1, (v.height + shrink / 2) / shrink);
    level_.src_views.push_back(ScaledView(v, w, h));
    level_.src_grey.push_back(Downscale(*full_src_grey_[j], w, h));
    level_.geometry.push_back(MakeSourceGeometry(level_.ref, level_.src_views.back()));
  }
}

void Solver::FaceCamera(int x, int y, float* n) const {
  const float rx = float((x + 0.5 - level_.ref.cx) / level_.ref.fx);
  const float ry = float((y + 0.5 - level_.ref.cy) / level_.ref.fy);
  if (n[0] * rx + n[1] * ry + n[2] > 0) {
    n[0] = -n[0];
    n[1] = -n[1];
    n[2] = -n[2];
  }
}

void Solver::RandomNormal(Random& random, int x, int y, float* n) const {
  // Uniform on the sphere (Marsaglia), then turned towards the camera.
  float a, b, s;
  do {
    a = random.Uniform(-1, 1);
    b = random.Uniform(-1, 1);
    s = a * a + b * b;
  } while (s >= 1 || s < 1e-6f);
  const float r = 2 * std::sqrt(1 - s);
  n[0] = a * r;
  n[1] = b * r;
  n[2] = 1 - 2 * s;
  FaceCamera(x, y, n);
}

float Solver::GeometricError(int j, const double* X, const float* pixel, bool* consistent) const {
  *consistent = false;
  const float max_error = float(options_.geom_consistency_max_error);
  const DepthMap* map = src_depth_[size_t(j)].get();
  const SourceGeometry& g = level_.geometry[size_t(j)];
  double Xs[3];
  for (int r = 0; r < 3; ++r) Xs[r] = g.R[3 * r] * X[0] + g.R[3 * r + 1] * X[1] + g.R[3 * r + 2] * X[2] + g.t[r];
  if (!(Xs[2] > 0)) return max_error;
  const double u = g.fx * Xs[0] / Xs[2] + g.cx, v = g.fy * Xs[1] / Xs[2] + g.cy;
  if (!(u >= 0 && v >= 0 && u < map->width && v < map->height)) return max_error;
  const float ds = map->Depth(int(u), int(v));
  if (!(ds > 0)) return max_error;
  // Back through the source's depth at the projected position, then into the reference.
  const double Ys[3] = {(u - g.cx) / g.fx * ds, (v - g.cy) / g.fy * ds, ds};
  const double d[3] = {Ys[0] - g.t[0], Ys[1] - g.t[1], Ys[2] - g.t[2]};
  double Y[3];
  for (int c = 0; c < 3; ++c) Y[c] = g.R[c] * d[0] + g.R[3 + c] * d[1] + g.R[6 + c] * d[2];
  if (!(Y[2] > 0)) return max_error;
  const View& ref = level_.ref;
  const double ex = ref.fx * Y[0] / Y[2] + ref.cx - pixel[0];
  const double ey = ref.fy * Y[1] / Y[2] + ref.cy - pixel[1];
  const float error = float(std::sqrt(ex * ex + ey * ey));
  *consistent = error < 1.0f && std::fabs(Xs[2] - ds) < 0.01 * ds;
  return std::min(error, max_error);
}

float Solver::Evaluate(const RefPatch& patch, int x, int y, const Hypothesis& h,
                       int* consistent) const {
  const View& ref = level_.ref;
  const float pixel[2] = {x + 0.5f, y + 0.5f};
  const double ray[3] = {(pixel[0] - ref.cx) / ref.fx, (pixel[1] - ref.cy) / ref.fy, 1.0};
  const double X[3] = {ray[0] * h.depth, ray[1] * h.depth, double(h.depth)};
  const float* n = h.normal;
  const double n_dot_X = n[0] * X[0] + n[1] * X[1] + n[2] * X[2];
  if (!(n_dot_X < 0)) return kMaxCost;  // the plane is seen from behind
  float m[3];
  PlaneVector(ref, n, float(-n_dot_X), m);
  const double norm_X = std::sqrt(X[0] * X[0] + X[1] * X[1] + X[2] * X[2]);
  const int num_sources = int(level_.geometry.size());
  float costs[kMaxSources];
  if (consistent) *consistent = 0;
  const float geometric_max =
      problem_.geometric ? float(options_.geom_consistency_regularizer * options_.geom_consistency_max_error) : 0.0f;
  int seeing = 0;  // sources whose image holds the point: only these vote
  for (int j = 0; j < num_sources; ++j) {
    const SourceGeometry& g = level_.geometry[size_t(j)];
    double Xs[3];
    for (int r = 0; r < 3; ++r) Xs[r] = g.R[3 * r] * X[0] + g.R[3 * r + 1] * X[1] + g.R[3 * r + 2] * X[2] + g.t[r];
    if (!(Xs[2] > 0)) continue;
    const double us = g.fx * Xs[0] / Xs[2] + g.cx, vs = g.fy * Xs[1] / Xs[2] + g.cy;
    if (!(us >= 0 && vs >= 0 && us <= g.width && vs <= g.height)) continue;
    float& cost = costs[seeing++];
    const double b[3] = {X[0] - g.center_in_ref[0], X[1] - g.center_in_ref[1],
                         X[2] - g.center_in_ref[2]};
    const double n_dot_b = n[0] * b[0] + n[1] * b[1] + n[2] * b[2];
    const double norm_b = std::sqrt(b[0] * b[0] + b[1] * b[1] + b[2] * b[2]);
    const double cos_angle = (X[0] * b[0] + X[1] * b[1] + X[2] * b[2]) / (norm_X * norm_b);
    // The source must see the plane's front and see the point from a different enough angle.
    if (!(n_dot_b < 0) || cos_angle > cos_min_angle_) {
      cost = kMaxCost + geometric_max;
      continue;
    }
    float H[9];
    ComposeHomography(g, m, H);
    const cv::Mat& src = level_.src_grey[size_t(j)];
    const float ncc = PatchNcc(patch, window_, src.ptr<float>(), int(src.step1()), src.cols,
                               src.rows, H, x, y);
    cost = 1.0f - ncc;
    if (problem_.geometric && src_depth_[size_t(j)]) {
      bool ok;
      cost += float(options_.geom_consistency_regularizer) * GeometricError(j, X, pixel, &ok);
      if (consistent && ok) ++*consistent;
    } else {
      cost += geometric_max;
    }
  }
  if (seeing == 0) return kMaxCost + geometric_max;
  const int k = std::min(seeing, int(options_.top_k_views));
  std::partial_sort(costs, costs + k, costs + seeing);
  float sum = 0;
  for (int i = 0; i < k; ++i) sum += costs[i];
  return sum / float(k);
}

void Solver::Initialise(bool from_coarse, int coarse_width, int coarse_height,
                        const std::vector<Hypothesis>& coarse,
                        const std::vector<uint8_t>& coarse_valid) {
  state_.assign(size_t(width_) * height_, Hypothesis{0, {0, 0, -1}});
  cost_.assign(size_t(width_) * height_, kMaxCost);
  active_.assign(size_t(width_) * height_, 0);
  const float depth_min = float(problem_.depth_min), depth_max = float(problem_.depth_max);
  ParallelRows(options_.num_threads, height_, [&](int y) {
    const float* grey = level_.grey.ptr<float>();
    const int stride = int(level_.grey.step1());
    RefPatch patch;
    for (int x = 0; x < width_; ++x) {
      const size_t i = size_t(y) * width_ + x;
      if (!level_.mask.empty() && level_.mask.at<uint8_t>(y, x) == 0) continue;
      MakeRefPatch(grey, stride, width_, height_, x, y, window_, &patch);
      if (!patch.textured) continue;
      active_[i] = 1;
      Random random(options_.seed, 0x1000 + level_index_ + (problem_.geometric ? 0x100 : 0), i);
      Hypothesis h;
      bool have = false;
      if (from_coarse) {
        const size_t c = size_t(std::min(y * coarse_height / height_, coarse_height - 1)) * coarse_width +
                         std::min(x * coarse_width / width_, coarse_width - 1);
        if (coarse_valid[c]) {
          h = coarse[c];
          have = true;
        }
      } else if (previous_ && previous_->depth[i] > 0) {
        h.depth = previous_->depth[i];
        for (int k = 0; k < 3; ++k) h.normal[k] = previous_->normal[3 * i + k];
        have = true;
      }
      if (have) FaceCamera(x, y, h.normal);
      if (!have) {
        h.depth = random.Uniform(depth_min, depth_max);
        RandomNormal(random, x, y, h.normal);
      }
      state_[i] = h;
      cost_[i] = Evaluate(patch, x, y, h, nullptr);
    }
  });
  if (from_coarse || problem_.geometric) return;
  // Sparse points: their depth with a fronto-parallel normal around their projection, kept
  // where it beats the random start.
  const View& ref = level_.ref;
  RefPatch patch;
  for (size_t p = 0; p + 2 < problem_.points_in_world.size(); p += 3) {
    double cam[3], u, v;
    ref.CamFromWorld(&problem_.points_in_world[p], cam);
    if (!ref.ProjectCam(cam, &u, &v)) continue;
    const int px = int(std::floor(u)), py = int(std::floor(v));
    for (int y = py - 1; y <= py + 1; ++y) {
      for (int x = px - 1; x <= px + 1; ++x) {
        if (x < 0 || y < 0 || x >= width_ || y >= height_) continue;
        const size_t i = size_t(y) * width_ + x;
        if (!active_[i]) continue;
        MakeRefPatch(level_.grey.ptr<float>(), int(level_.grey.step1()), width_, height_, x, y, window_, &patch);
        const Hypothesis h{float(cam[2]), {0, 0, -1}};
        const float c = Evaluate(patch, x, y, h, nullptr);
        if (c < cost_[i]) {
          state_[i] = h;
          cost_[i] = c;
        }
      }
    }
  }
}

void Solver::Sweep(int iteration, int colour, bool random_refinement) {
  const float depth_min = float(problem_.depth_min), depth_max = float(problem_.depth_max);
  // Perturbations shrink with every sweep (Schönberger): coarse steps first, fine ones later.
  const float shrink = std::pow(0.5f, float(iteration));
  const float depth_perturbation = 0.05f * shrink;
  const float normal_perturbation = 0.3f * shrink;
  const View& ref = level_.ref;
  ParallelRows(options_.num_threads, height_, [&](int y) {
    RefPatch patch;
    for (int x = (y + colour) % 2; x < width_; x += 2) {
      const size_t i = size_t(y) * width_ + x;
      if (!active_[i]) continue;
      MakeRefPatch(level_.grey.ptr<float>(), int(level_.grey.step1()), width_, height_, x, y, window_, &patch);
      const float rx = float((x + 0.5 - ref.cx) / ref.fx), ry = float((y + 0.5 - ref.cy) / ref.fy);
      Hypothesis best = state_[i];
      float best_cost = cost_[i];
      auto consider = [&](const Hypothesis& h) {
        const float c = Evaluate(patch, x, y, h, nullptr);
        if (c < best_cost) {
          best_cost = c;
          best = h;
        }
      };
      // Propagation: from each region the neighbour with the lowest cost lends its plane.
      // Propagated planes are copied exactly, so in a converged area most candidates are the
      // plane this pixel already has or one just tried: those are skipped.
      float tried[9][4];
      int num_tried = 0;
      auto seen = [&](const float* n, float plane) {
        for (int t = 0; t < num_tried; ++t) {
          if (std::fabs(tried[t][3] - plane) <= 1e-6f * std::fabs(plane) && tried[t][0] == n[0] &&
              tried[t][1] == n[1] && tried[t][2] == n[2]) {
            return true;
          }
        }
        tried[num_tried][0] = n[0];
        tried[num_tried][1] = n[1];
        tried[num_tried][2] = n[2];
        tried[num_tried][3] = plane;
        ++num_tried;
        return false;
      };
      seen(best.normal, best.depth * (best.normal[0] * rx + best.normal[1] * ry + best.normal[2]));
      for (const auto& region : regions_.region) {
        float region_cost = kMaxCost * 10;
        size_t pick = 0;
        for (const auto& [dx, dy] : region) {
          const int nx = x + dx, ny = y + dy;
          if (nx < 0 || ny < 0 || nx >= width_ || ny >= height_) continue;
          const size_t k = size_t(ny) * width_ + nx;
          if (active_[k] && cost_[k] < region_cost) {
            region_cost = cost_[k];
            pick = k;
          }
        }
        if (region_cost >= kMaxCost * 10) continue;
        // The neighbour's plane intersected with this pixel's ray.
        const Hypothesis& nb = state_[pick];
        const int px = int(pick % size_t(width_)), py = int(pick / size_t(width_));
        const float prx = float((px + 0.5 - ref.cx) / ref.fx), pry = float((py + 0.5 - ref.cy) / ref.fy);
        const float* n = nb.normal;
        const float plane = nb.depth * (n[0] * prx + n[1] * pry + n[2]);  // n . X (< 0)
        const float n_dot_ray = n[0] * rx + n[1] * ry + n[2];
        if (!(n_dot_ray < 0) || seen(n, plane)) continue;
        const float depth = plane / n_dot_ray;
        if (!(depth >= depth_min && depth <= depth_max)) continue;
        consider(Hypothesis{depth, {n[0], n[1], n[2]}});
      }
      // Refinement around the best: perturbed (and early on random) depth and normal.
      Random random(options_.seed, (uint64_t(level_index_) << 32) ^ (uint64_t(iteration) << 8) ^
                                       uint64_t(colour) ^ (problem_.geometric ? 0x10000 : 0), i);
      const Hypothesis current = best;
      Hypothesis perturbed_depth = current, perturbed_normal = current;
      perturbed_depth.depth = std::min(depth_max, std::max(depth_min,
          current.depth * (1 + random.Uniform(-depth_perturbation, depth_perturbation))));
      for (int k = 0; k < 3; ++k) {
        perturbed_normal.normal[k] += random.Uniform(-normal_perturbation, normal_perturbation);
      }
      float* pn = perturbed_normal.normal;
      const float norm = std::sqrt(pn[0] * pn[0] + pn[1] * pn[1] + pn[2] * pn[2]);
      for (int k = 0; k < 3; ++k) pn[k] /= norm;
      FaceCamera(x, y, pn);
      if (random_refinement) {
        Hypothesis random_depth = current, random_normal = current, random_both;
        random_depth.depth = random.Uniform(depth_min, depth_max);
        RandomNormal(random, x, y, random_normal.normal);
        random_both = random_normal;
        random_both.depth = random_depth.depth;
        consider(random_depth);
        consider(random_normal);
        consider(random_both);
      }
      consider(perturbed_depth);
      consider(perturbed_normal);
      Hypothesis both = perturbed_normal;
      both.depth = perturbed_depth.depth;
      consider(both);
      state_[i] = best;
      cost_[i] = best_cost;
    }
  });
}

void Solver::Finish(DepthMap* out) {
  *out = DepthMap(width_, height_);
  const int min_views = problem_.geometric ? options_.filter_min_views : 0;
  const float max_cost = float(options_.filter_max_cost);
  const View& ref = level_.ref;
  ParallelRows(options_.num_threads, height_, [&](int y) {
    for (int x = 0; x < width_; ++x) {
      const size_t i = size_t(y) * width_ + x;
      if (!active_[i]) continue;
      const Hypothesis& h = state_[i];
      out->cost[i] = cost_[i];
      for (int k = 0; k < 3; ++k) out->normal[3 * i + k] = h.normal[k];
      if (cost_[i] > max_cost) continue;
      if (min_views > 0) {
        const float pixel[2] = {x + 0.5f, y + 0.5f};
        double X[3];
        ref.CamFromPixel(pixel[0], pixel[1], h.depth, X);
        int consistent = 0;
        for (size_t j = 0; j < src_depth_.size(); ++j) {
          bool ok = false;
          if (src_depth_[j]) GeometricError(int(j), X, pixel, &ok);
          consistent += ok;
        }
        if (consistent < min_views) continue;
      }
      out->depth[i] = h.depth;
    }
  });
}

void Solver::Run(DepthMap* out) {
  const int iterations = options_.num_iterations;
  if (problem_.geometric) {
    // Starts from a converged photometric map: a third of the sweeps, local refinement only.
    SetLevel(0);
    Initialise(false, 0, 0, {}, {});
    for (int it = 0; it < std::max(1, iterations / 3); ++it) {
      for (int colour = 0; colour < 2; ++colour) Sweep(it + 1, colour, false);
    }
    Finish(out);
    return;
  }
  // Coarse-to-fine (ACMM) when the half-resolution view still has room for its windows: the
  // random search converges at a quarter of the pixels, the full resolution only refines.
  const bool coarse_to_fine = std::min(full_ref_.width, full_ref_.height) >= 16 * window_.radius + 32;
  if (coarse_to_fine) {
    SetLevel(1);
    Initialise(false, 0, 0, {}, {});
    for (int it = 0; it < iterations; ++it) {
      for (int colour = 0; colour < 2; ++colour) Sweep(it, colour, true);
    }
    const std::vector<Hypothesis> coarse = state_;
    std::vector<uint8_t> coarse_valid(coarse.size());
    for (size_t i = 0; i < coarse.size(); ++i) coarse_valid[i] = active_[i] && cost_[i] < kMaxCost;
    const int cw = width_, ch = height_;
    SetLevel(0);
    Initialise(true, cw, ch, coarse, coarse_valid);
    for (int colour = 0; colour < 2; ++colour) Sweep(iterations, colour, false);
  } else {
    SetLevel(0);
    Initialise(false, 0, 0, {}, {});
    for (int it = 0; it < iterations; ++it) {
      for (int colour = 0; colour < 2; ++colour) Sweep(it, colour, true);
    }
  }
  Finish(out);
}

}  // namespace

cvis_status RunPatchMatch(Workspace& workspace, const PatchMatchProblem& problem,
                          const cvis_patch_match_options& options, DepthMap* out) {
  Solver solver(problem, options);
  if (cvis_status status = solver.Load(workspace); status != CVIS_OK) return status;
  solver.Run(out);
  return CVIS_OK;
}

}  // namespace mvs
}  // namespace cvis
