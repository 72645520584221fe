// Accuracy and completeness of a reconstructed cloud or mesh against a reference surface at a
// distance threshold tau (Knapitsch et al. 2017, Tanks and Temples; Schöps et al. 2017, ETH3D).
#pragma once

#include "../../include/cvis_cloud.h"
#include "cloud.h"

namespace cvis {

struct CloudComparisonInput {
  const cvis_cloud* ours = nullptr;
  const cvis_cloud* reference = nullptr;
  const cvis_cloud* region = nullptr;  // may be null
  double scale = 1;
  double rotation[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  double translation[3] = {0, 0, 0};
  double tau = 0;
  double sample_spacing = 0;
  int num_threads = 2;
};

// Ours is mapped by the similarity and, when it is a mesh, sampled at sample_spacing. Accuracy:
// the share of our points (inside the region's bounding box when there is a region) within tau
// of the reference surface (exact point-to-triangle distance; the reference's points when it
// has no triangles). Completeness: the share of samples of the reference surface (the region's
// when given) within tau of one of our points. Throws std::invalid_argument for bad input and
// std::length_error when the sampling would be unreasonably large.
cvis_cloud_comparison CompareClouds(const CloudComparisonInput& input);

}  // namespace cvis
