// C entry points of PatchMatch: options, the solver and its kernels for tests.
#include <cmath>
#include <vector>

#include "../../include/cvis_mvs.h"
#include "../io/image_io.h"
#include "../util/status.h"
#include "patch_match.h"
#include "patch_match_kernels.h"
#include "planes.h"

namespace cvis {
namespace mvs {

cvis_status ValidatePatchMatchOptions(const cvis_patch_match_options& o) {
  auto bad = [](const char* what) {
    return Fail(CVIS_INVALID_ARGUMENT, Str("PatchMatch options: ", what));
  };
  if (o.window_radius < 1 || o.window_radius > kMaxWindowRadius) return bad("window_radius not in 1...10");
  if (o.window_step < 1 || o.window_step > o.window_radius) return bad("window_step not in 1...window_radius");
  if (!(o.sigma_spatial > 0) || !(o.sigma_color > 0)) return bad("sigma_spatial and sigma_color must be > 0");
  if (o.num_iterations < 1 || o.num_iterations > 100) return bad("num_iterations not in 1...100");
  if (o.coarse_iterations < 1 || o.coarse_iterations > 100) return bad("coarse_iterations not in 1...100");
  if (o.fine_views < 0) return bad("fine_views must be >= 0");
  if (o.planar_prior != 0 && o.planar_prior != 1) return bad("planar_prior must be 0 or 1");
  if (o.top_k_views < 1) return bad("top_k_views must be >= 1");
  if (!(o.min_triangulation_angle_deg >= 0 && o.min_triangulation_angle_deg < 90)) {
    return bad("min_triangulation_angle_deg not in [0, 90)");
  }
  if (!(o.geom_consistency_regularizer >= 0)) return bad("geom_consistency_regularizer must be >= 0");
  if (!(o.geom_consistency_max_error > 0)) return bad("geom_consistency_max_error must be > 0");
  if (!(o.filter_max_cost > 0)) return bad("filter_max_cost must be > 0");
  if (o.filter_min_views < 0) return bad("filter_min_views must be >= 0");
  if (o.num_threads < 1 || o.num_threads > 256) return bad("num_threads not in 1...256");
  return CVIS_OK;
}

}  // namespace mvs
}  // namespace cvis

extern "C" void cvis_patch_match_options_default(cvis_patch_match_options* o) {
  if (o == nullptr) return;
  o->window_radius = 5;
  o->window_step = 2;
  o->sigma_spatial = 5;
  // Not COLMAP's 0.2: a window that straddles an edge (the object against what lies behind or
  // below it) then still weighs the other side, and the plane snaps towards it. Lower still
  // (0.03) empties the maps of pixels the cloud needs (docs/benchmarks.md).
  o->sigma_color = 0.05;
  o->num_iterations = 3;
  o->coarse_iterations = 2;
  o->fine_views = 5;
  o->top_k_views = 4;
  o->min_triangulation_angle_deg = 1;
  o->geom_consistency_regularizer = 0.3;
  o->geom_consistency_max_error = 3;
  o->filter_max_cost = 0.5;
  o->filter_min_views = 2;
  o->num_threads = 2;
  o->seed = 0;
  o->planar_prior = 0;
}

extern "C" cvis_status cvis_patch_match(cvis_mvs_workspace* workspace,
                                        const cvis_patch_match_problem* problem,
                                        const cvis_patch_match_options* options,
                                        const char* out_depth_path) {
  using namespace cvis;
  return Guard([&] {
    if (workspace == nullptr || problem == nullptr || options == nullptr || out_depth_path == nullptr) {
      return Fail(CVIS_INVALID_ARGUMENT, "cvis_patch_match: null argument");
    }
    if (cvis_status s = mvs::ValidatePatchMatchOptions(*options); s != CVIS_OK) return s;
    mvs::Workspace& ws = workspace->workspace;
    const int n = ws.NumViews();
    if (problem->reference < 0 || problem->reference >= n) {
      return Fail(CVIS_INVALID_ARGUMENT,
                  Str("cvis_patch_match: reference ", problem->reference, " not in 0..", n - 1));
    }
    if (problem->num_sources < 1 || problem->num_sources > 64 || problem->sources == nullptr) {
      return Fail(CVIS_INVALID_ARGUMENT,
                  Str("cvis_patch_match: num_sources ", problem->num_sources, " not in 1...64"));
    }
    mvs::PatchMatchProblem p;
    p.reference = problem->reference;
    for (int32_t j = 0; j < problem->num_sources; ++j) {
      const int s = problem->sources[j];
      if (s < 0 || s >= n || s == problem->reference) {
        return Fail(CVIS_INVALID_ARGUMENT,
                    Str("cvis_patch_match: source ", s, " is not another view of 0..", n - 1));
      }
      p.sources.push_back(s);
    }
    if (!(problem->depth_min > 0) || !(problem->depth_max > problem->depth_min) ||
        !std::isfinite(problem->depth_max)) {
      return Fail(CVIS_INVALID_ARGUMENT, Str("cvis_patch_match: depth range ", problem->depth_min,
                                             "...", problem->depth_max, " is not 0 < min < max"));
    }
    p.depth_min = problem->depth_min;
    p.depth_max = problem->depth_max;
    if (problem->num_points > 0 && problem->points_in_world != nullptr) {
      p.points_in_world.assign(problem->points_in_world,
                               problem->points_in_world + 3 * size_t(problem->num_points));
    }
    if (problem->pass < CVIS_PATCH_MATCH_PHOTOMETRIC || problem->pass > CVIS_PATCH_MATCH_PLANAR_PRIOR) {
      return Fail(CVIS_INVALID_ARGUMENT, Str("cvis_patch_match: pass ", problem->pass, " is unknown"));
    }
    p.pass = cvis_patch_match_pass(problem->pass);
    if (p.pass == CVIS_PATCH_MATCH_PLANAR_PRIOR && options->planar_prior == 0) {
      return Fail(CVIS_INVALID_ARGUMENT, "cvis_patch_match: the planar-prior pass needs options.planar_prior");
    }
    if (p.pass != CVIS_PATCH_MATCH_PHOTOMETRIC) {
      if (problem->previous_depth_path == nullptr) {
        return Fail(CVIS_INVALID_ARGUMENT,
                    p.geometric() ? "cvis_patch_match: the geometric pass needs previous_depth_path"
                                  : "cvis_patch_match: the planar-prior pass needs previous_depth_path");
      }
      p.previous_depth_path = problem->previous_depth_path;
      for (int32_t j = 0; j < problem->num_sources; ++j) {
        const char* path = problem->source_depth_paths ? problem->source_depth_paths[j] : nullptr;
        p.source_depth_paths.emplace_back(path ? path : "");
      }
    }
    if (problem->num_envelope_planes != 0) {
      const int32_t n = problem->num_envelope_planes;
      if (p.pass != CVIS_PATCH_MATCH_PLANAR_PRIOR || !mvs::internal::IsEnvelopeCount(n) ||
          problem->envelope_planes == nullptr) {
        return Fail(CVIS_INVALID_ARGUMENT,
                    Str("cvis_patch_match: ", n, " envelope planes (0, or for the planar-prior pass 6 and 2 per notch, at most ",
                        CVIS_MVS_ROOM_ENVELOPE_MAX_PLANES, ")"));
      }
      p.envelope.assign(problem->envelope_planes, problem->envelope_planes + n);
    }
    mvs::DepthMap map;
    if (cvis_status s = mvs::RunPatchMatch(ws, p, *options, &map); s != CVIS_OK) return s;
    return map.Write(out_depth_path);
  });
}

extern "C" cvis_status cvis_mvs_plane_homography(const cvis_mvs_view* reference,
                                                 const cvis_mvs_view* source,
                                                 const double normal[3], double distance,
                                                 double H[9]) {
  using namespace cvis;
  return Guard([&] {
    if (reference == nullptr || source == nullptr || normal == nullptr || H == nullptr) {
      return Fail(CVIS_INVALID_ARGUMENT, "cvis_mvs_plane_homography: null argument");
    }
    if (!(std::fabs(distance) > 0)) {
      return Fail(CVIS_INVALID_ARGUMENT, "cvis_mvs_plane_homography: distance must not be 0");
    }
    const mvs::View ref(*reference), src(*source);
    const mvs::SourceGeometry g = mvs::MakeSourceGeometry(ref, src);
    const float n[3] = {float(normal[0]), float(normal[1]), float(normal[2])};
    float m[3], h[9];
    mvs::PlaneVector(ref, n, float(distance), m);
    mvs::ComposeHomography(g, m, h);
    for (int i = 0; i < 9; ++i) H[i] = h[i];
    return CVIS_OK;
  });
}

extern "C" cvis_status cvis_mvs_bilateral_ncc(const float* reference, int32_t ref_width,
                                              int32_t ref_height, const float* source,
                                              int32_t src_width, int32_t src_height, int32_t x,
                                              int32_t y, const double H[9],
                                              const cvis_patch_match_options* options,
                                              double* ncc) {
  using namespace cvis;
  return Guard([&] {
    if (reference == nullptr || source == nullptr || H == nullptr || options == nullptr ||
        ncc == nullptr) {
      return Fail(CVIS_INVALID_ARGUMENT, "cvis_mvs_bilateral_ncc: null argument");
    }
    if (cvis_status s = mvs::ValidatePatchMatchOptions(*options); s != CVIS_OK) return s;
    const int r = options->window_radius;
    if (x < r || y < r || x >= ref_width - r || y >= ref_height - r || src_width < 2 ||
        src_height < 2) {
      return Fail(CVIS_INVALID_ARGUMENT,
                  Str("cvis_mvs_bilateral_ncc: the window around (", x, ", ", y,
                      ") leaves the ", ref_width, "x", ref_height, " reference"));
    }
    const mvs::Window window(r, options->window_step, options->sigma_spatial, options->sigma_color);
    mvs::RefPatch patch;
    mvs::MakeRefPatch(reference, ref_width, ref_width, ref_height, x, y, window, &patch);
    float h[9];
    for (int i = 0; i < 9; ++i) h[i] = float(H[i]);
    *ncc = patch.textured ? mvs::PatchNcc(patch, window, source, src_width, src_width,
                                          src_height, h, x, y)
                          : -1.0;
    return CVIS_OK;
  });
}
