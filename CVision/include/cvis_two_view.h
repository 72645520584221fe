/* Robust two-view geometry: the fundamental, essential and homography matrices of a pair. */
#ifndef CVIS_TWO_VIEW_H
#define CVIS_TWO_VIEW_H

#include "cvis_core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What relates the two views (as COLMAP's TwoViewGeometry::ConfigurationType). */
typedef enum cvis_two_view_config {
  CVIS_TWO_VIEW_DEGENERATE = 0,     /* too few inliers: not a verified pair */
  CVIS_TWO_VIEW_CALIBRATED = 1,     /* E explains the matches: general motion, known K */
  CVIS_TWO_VIEW_UNCALIBRATED = 2,   /* F explains the matches, E does not */
  CVIS_TWO_VIEW_PLANAR = 3,         /* H explains them and there is translation */
  CVIS_TWO_VIEW_PANORAMIC = 4,      /* H explains them with (near) pure rotation */
  CVIS_TWO_VIEW_PLANAR_OR_PANORAMIC = 5
} cvis_two_view_config;

typedef struct cvis_two_view_options {
  double max_error_px;          /* default 4.0: epipolar / transfer error threshold */
  double confidence;            /* default 0.9999 */
  int32_t max_iterations;       /* default 10000 */
  int32_t min_num_inliers;      /* default 15 */
  double min_inlier_ratio;      /* default 0.25: a-priori minimum, caps RANSAC iterations (COLMAP) */
  double max_h_inlier_ratio;    /* default 0.8: H/F inlier ratio above which a pair is planar */
  double min_e_f_inlier_ratio;  /* default 0.95: E/F inlier ratio for a calibrated pair */
  uint64_t seed;                /* default 0: RANSAC seed, so results are reproducible */
} cvis_two_view_options;

void cvis_two_view_options_default(cvis_two_view_options* options);

typedef struct cvis_two_view_geometry {
  int32_t config;                 /* cvis_two_view_config */
  int32_t num_inliers;            /* inliers of the chosen model */
  int32_t num_f_inliers;
  int32_t num_e_inliers;          /* 0 when no intrinsics were given */
  int32_t num_h_inliers;
  double F[9];                    /* x2^T F x1 = 0, pixels */
  double E[9];                    /* valid when num_e_inliers > 0 */
  double H[9];                    /* x2 ~ H x1, pixels */
  double cam2_from_cam1_rotation[9];     /* from E (or F and the given K), when intrinsics given */
  double cam2_from_cam1_translation[3];  /* unit length */
  double median_triangulation_angle_deg; /* of the inliers, from the recovered pose; 0 if none */
} cvis_two_view_geometry;

/* Estimates the geometry of n correspondences (points1[i] <-> points2[i], n x 2 doubles, pixels).
 * K1 and K2 (3x3, row-major) may be NULL; when given (even as a prior) E and the relative pose are
 * estimated too. inlier_mask (n bytes, may be NULL) receives 1 for inliers of the chosen model.
 * A pair that fails verification is not an error: config = DEGENERATE. */
cvis_status cvis_estimate_two_view(const double* points1, const double* points2, int32_t n,
                                   const double* K1, const double* K2,
                                   const cvis_two_view_options* options,
                                   cvis_two_view_geometry* out, uint8_t* inlier_mask);

/* Focal lengths from a fundamental matrix with known principal points (Bougnoux 1998), in
 * pixels. CVIS_NO_CONVERGENCE when the formula gives a non-positive square (near-degenerate F). */
cvis_status cvis_focal_lengths_from_fundamental(const double F[9], const double principal1[2],
                                                const double principal2[2], double* focal1,
                                                double* focal2);

/* Relative pose of a verified pair from its fundamental matrix and intrinsics: E = K2^T F K1,
 * decomposed, and of its four candidates the one that puts most of the n correspondences
 * (points1[i] <-> points2[i], pixels) in front of both cameras. For checks over a whole view
 * graph, where estimating E again for every pair would cost RANSAC each time. rotation (3x3,
 * row-major) and translation (unit length) are cam2_from_cam1; in_front receives the count. */
cvis_status cvis_relative_pose_from_fundamental(const double F[9], const double K1[9],
                                                const double K2[9], const double* points1,
                                                const double* points2, int32_t n,
                                                double rotation[9], double translation[3],
                                                int32_t* in_front);

#ifdef __cplusplus
}
#endif
#endif
