// The PatchMatch solver (see patch_match.h): set-up per resolution, the multi-view cost,
// initialisation, filtering and the pass schedule. Sweeps are in patch_match_sweep.cpp.
#include "patch_match.h"

#include <algorithm>
#include <cmath>
#include <memory>

#include <opencv2/imgproc.hpp>

#include "../io/image_io.h"
#include "../util/status.h"
#include "patch_match_solver.h"

namespace cvis {
namespace mvs {
namespace internal {
namespace {

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

}  // namespace

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
  if (problem_.pass != CVIS_PATCH_MATCH_PHOTOMETRIC) {
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

float Solver::GeometricError(int j, const double* X, const float* pixel, bool* consistent) const {
  *consistent = false;
  const float max_error = float(options_.geom_consistency_max_error);
  const DepthMap* map = src_depth_[size_t(j)].get();
  const SourceGeometry& g = level_.geometry[size_t(j)];
  double Xs[3], u, v;
  if (!ProjectToSource(g, X, Xs, &u, &v)) return max_error;
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
                       int* consistent, uint64_t views, uint64_t* best_views) const {
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
      problem_.geometric() ? float(options_.geom_consistency_regularizer * options_.geom_consistency_max_error) : 0.0f;
  int seeing = 0;  // sources whose image holds the point: only these vote
  int seen_by[kMaxSources];
  for (int j = 0; j < num_sources; ++j) {
    if (!(views >> j & 1)) continue;
    const SourceGeometry& g = level_.geometry[size_t(j)];
    double Xs[3], us, vs;
    if (!ProjectToSource(g, X, Xs, &us, &vs)) continue;
    if (!(us >= 0 && vs >= 0 && us <= g.width && vs <= g.height)) continue;
    seen_by[seeing] = j;
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
    if (problem_.geometric() && src_depth_[size_t(j)]) {
      bool ok;
      cost += float(options_.geom_consistency_regularizer) * GeometricError(j, X, pixel, &ok);
      if (consistent && ok) ++*consistent;
    } else {
      cost += geometric_max;
    }
  }
  if (seeing == 0) return kMaxCost + geometric_max;
  if (best_views) {
    // The sources of the `fine_views` lowest costs.
    int order[kMaxSources];
    for (int i = 0; i < seeing; ++i) order[i] = i;
    const int keep = std::min(seeing, int(options_.fine_views));
    std::partial_sort(order, order + keep, order + seeing, [&](int a, int b) { return costs[a] < costs[b]; });
    *best_views = 0;
    for (int i = 0; i < keep; ++i) *best_views |= uint64_t(1) << seen_by[order[i]];
  }
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
  const bool record_views = from_coarse && level_index_ == 0 && options_.fine_views > 0;
  views_.assign(record_views ? size_t(width_) * height_ : 0, ~uint64_t(0));
  const bool keep_priors = problem_.geometric() && options_.planar_prior && previous_;
  prior_.assign(keep_priors ? size_t(width_) * height_ : 0, 0);
  const float depth_min = float(problem_.depth_min), depth_max = float(problem_.depth_max);
  ParallelFor(height_, options_.num_threads, 1, [&](int64_t row, int64_t, int) {
    const int y = int(row);
    const float* grey = level_.grey.ptr<float>();
    const int stride = int(level_.grey.step1());
    RefPatch patch;
    for (int x = 0; x < width_; ++x) {
      const size_t i = size_t(y) * width_ + x;
      if (!level_.mask.empty() && level_.mask.at<uint8_t>(y, x) == 0) continue;
      if (keep_priors && previous_->depth[i] > 0 && previous_->cost[i] > float(options_.filter_max_cost)) {
        // A planar prior's plane (the only valid pixels above the cost filter): photometry could
        // not decide it before and cannot now, so it stays as it is and Finish asks the sources'
        // maps to agree with it.
        prior_[i] = 1;
        state_[i].depth = previous_->depth[i];
        for (int k = 0; k < 3; ++k) state_[i].normal[k] = previous_->normal[3 * i + k];
        continue;
      }
      MakeRefPatch(grey, stride, width_, height_, x, y, window_, &patch);
      if (!patch.textured) continue;
      active_[i] = 1;
      Random random(options_.seed, 0x1000 + level_index_ + (problem_.geometric() ? 0x100 : 0), i);
      Hypothesis h;
      bool have = false;
      if (from_coarse) {
        const size_t c = size_t(std::min(y * coarse_height / height_, coarse_height - 1)) * coarse_width +
                         std::min(x * coarse_width / width_, coarse_width - 1);
        if (coarse_valid[c]) {
          // The coarse pixel's plane met by this pixel's ray (not its depth copied): the pixels
          // of one coarse pixel then lie on one plane, as propagation would put them.
          h = coarse[c];
          have = true;
          const int coarse_x = int(c % size_t(coarse_width)), coarse_y = int(c / size_t(coarse_width));
          const View& ref = level_.ref;
          const double scale_x = double(width_) / coarse_width, scale_y = double(height_) / coarse_height;
          const double crx = ((coarse_x + 0.5) * scale_x - ref.cx) / ref.fx;
          const double cry = ((coarse_y + 0.5) * scale_y - ref.cy) / ref.fy;
          const double plane = h.depth * (h.normal[0] * crx + h.normal[1] * cry + h.normal[2]);
          const double n_dot_ray = h.normal[0] * (x + 0.5 - ref.cx) / ref.fx +
                                   h.normal[1] * (y + 0.5 - ref.cy) / ref.fy + h.normal[2];
          const double depth = n_dot_ray < 0 ? plane / n_dot_ray : -1;
          if (depth >= depth_min && depth <= depth_max) h.depth = float(depth);
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
      cost_[i] = Evaluate(patch, x, y, h, nullptr, ~uint64_t(0), record_views ? &views_[i] : nullptr);
    }
  });
  if (from_coarse || problem_.geometric()) return;
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

void Solver::Restore() {
  state_.assign(size_t(width_) * height_, Hypothesis{0, {0, 0, -1}});
  cost_.assign(size_t(width_) * height_, kMaxCost);
  active_.assign(size_t(width_) * height_, 0);
  views_.clear();
  ParallelFor(height_, options_.num_threads, 1, [&](int64_t row, int64_t, int) {
    const int y = int(row);
    RefPatch patch;
    for (int x = 0; x < width_; ++x) {
      const size_t i = size_t(y) * width_ + x;
      if (!level_.mask.empty() && level_.mask.at<uint8_t>(y, x) == 0) continue;
      // Active exactly where the photometric pass was: the same textured test on the same image.
      MakeRefPatch(level_.grey.ptr<float>(), int(level_.grey.step1()), width_, height_, x, y, window_, &patch);
      if (!patch.textured) continue;
      active_[i] = 1;
      state_[i].depth = previous_->depth[i];
      for (int k = 0; k < 3; ++k) state_[i].normal[k] = previous_->normal[3 * i + k];
      cost_[i] = previous_->cost[i];
    }
  });
}

void Solver::Finish(DepthMap* out) {
  *out = DepthMap(width_, height_);
  const int min_views = problem_.geometric() ? options_.filter_min_views : 0;
  const float max_cost = float(options_.filter_max_cost);
  const View& ref = level_.ref;
  ParallelFor(height_, options_.num_threads, 1, [&](int64_t row, int64_t, int) {
    const int y = int(row);
    for (int x = 0; x < width_; ++x) {
      const size_t i = size_t(y) * width_ + x;
      const bool from_prior = !prior_.empty() && prior_[i];
      if (!active_[i] && !from_prior) continue;
      const Hypothesis& h = state_[i];
      // A prior's pixel keeps the cost of no match: photometry did not accept it, and the mark
      // tells the geometric pass which pixels to hold fixed.
      out->cost[i] = from_prior ? kMaxCost : cost_[i];
      for (int k = 0; k < 3; ++k) out->normal[3 * i + k] = h.normal[k];
      if (!from_prior && cost_[i] > max_cost) continue;
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
  if (problem_.pass == CVIS_PATCH_MATCH_PLANAR_PRIOR) {
    SetLevel(0);
    Restore();
    PlanarPrior();
    Finish(out);
    return;
  }
  if (problem_.geometric()) {
    // Starts from a converged photometric map: a third of the sweeps, local refinement only.
    SetLevel(0);
    Initialise(false, 0, 0, {}, {});
    for (int it = 0; it < std::max(1, options_.num_iterations / 3); ++it) {
      for (int colour = 0; colour < 2; ++colour) Sweep(it + 1, colour, false);
    }
    Finish(out);
    return;
  }
  // Coarse-to-fine (ACMM) when the half-resolution view still has room for its windows: the
  // random search converges at a quarter of the pixels, the full resolution only refines.
  const bool coarse_to_fine = std::min(full_ref_.width, full_ref_.height) >= 16 * window_.radius + 32;
  if (!coarse_to_fine) {
    SetLevel(0);
    Initialise(false, 0, 0, {}, {});
    for (int it = 0; it < options_.num_iterations; ++it) {
      for (int colour = 0; colour < 2; ++colour) Sweep(it, colour, true);
    }
    Finish(out);
    return;
  }
  const int iterations = options_.coarse_iterations;
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
  Finish(out);
}

}  // namespace internal

cvis_status RunPatchMatch(Workspace& workspace, const PatchMatchProblem& problem,
                          const cvis_patch_match_options& options, DepthMap* out) {
  internal::Solver solver(problem, options);
  if (cvis_status status = solver.Load(workspace); status != CVIS_OK) return status;
  solver.Run(out);
  return CVIS_OK;
}

}  // namespace mvs
}  // namespace cvis