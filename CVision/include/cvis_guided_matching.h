/* Guided matching: descriptor matching restricted to the epipolar geometry a pair already has. */
#ifndef CVIS_GUIDED_MATCHING_H
#define CVIS_GUIDED_MATCHING_H

#include "cvis_feature.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Matches the descriptors of a against b among the keypoint pairs within max_error_px of each
 * other's epipolar line under F (row-major 3x3, x_b^T F x_a = 0, pixels), with the ratio test,
 * distance limit and mutual check of options taken among those candidates only (as COLMAP's
 * guided matching). Writes up to min(count(a), count(b)) index pairs (index in a, index in b)
 * into matches, which must hold 2 * min(count(a), count(b)) int32s. Thread-safe. */
cvis_status cvis_match_features_guided(const cvis_features* a, const cvis_features* b,
                                       const double fundamental[9], double max_error_px,
                                       const cvis_match_options* options, int32_t* matches,
                                       int32_t* num_matches);

#ifdef __cplusplus
}
#endif
#endif
