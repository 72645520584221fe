// PatchMatch multi-view stereo for one reference view, after Schönberger et al. 2016 (COLMAP),
// Xu & Tao 2019 (ACMH/ACMM) and Shen 2013.
//
// Every pixel holds a plane hypothesis (z-depth and unit normal in the reference camera frame,
// facing the camera) and its cost: the mean of the best top_k per-source costs 1 - NCC, NCC
// being bilateral-weighted over a sparse window warped by the plane's homography. Hypotheses
// improve by ACMH's adaptive checkerboard propagation (red pixels read black neighbours and vice
// versa, so a sweep over one colour is race-free and its result does not depend on the thread
// count) and random refinement. The photometric pass solves coarse-to-fine (ACMM): half
// resolution first, then the full resolution starts from the upsampled hypotheses. The
// geometric pass starts from the photometric map and adds Schönberger's forward-backward
// reprojection error through the sources' photometric maps to each source's cost. The planar-prior
// pass (patch_match_planar.cpp) keeps the photometric map and fills what it left undecided.
#pragma once

#include <string>
#include <vector>

#include "../../include/cvis_mvs.h"
#include "depth_map.h"
#include "workspace.h"

namespace cvis {
namespace mvs {

struct PatchMatchProblem {
  int reference = 0;
  std::vector<int> sources;
  double depth_min = 0, depth_max = 0;
  std::vector<double> points_in_world;  // x, y, z per sparse point
  cvis_patch_match_pass pass = CVIS_PATCH_MATCH_PHOTOMETRIC;
  std::string previous_depth_path;              // geometric and planar-prior passes
  std::vector<std::string> source_depth_paths;  // per source; empty = not used for that source
  std::vector<cvis_mvs_plane> envelope;          // planar-prior pass: the room's envelope, or empty

  bool geometric() const { return pass == CVIS_PATCH_MATCH_GEOMETRIC; }
};

// Checks options; the message names the field (CVIS_INVALID_ARGUMENT).
cvis_status ValidatePatchMatchOptions(const cvis_patch_match_options& options);

// Runs one pass and leaves the filtered map (view size) in *out.
cvis_status RunPatchMatch(Workspace& workspace, const PatchMatchProblem& problem,
                          const cvis_patch_match_options& options, DepthMap* out);

}  // namespace mvs
}  // namespace cvis
