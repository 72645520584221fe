/* Absolute pose (PnP) and multi-view triangulation, on normalised image coordinates. */
#ifndef CVIS_GEOMETRY_H
#define CVIS_GEOMETRY_H

#include "cvis_core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cvis_absolute_pose_options {
  double max_error;          /* default 0.004: reprojection threshold in normalised units (px / f) */
  double confidence;         /* default 0.9999 */
  int32_t max_iterations;    /* default 10000 */
  int32_t min_num_inliers;   /* default 12 */
  int32_t refine;            /* default 1: Levenberg-Marquardt on the inliers afterwards */
  uint64_t seed;             /* default 0 */
} cvis_absolute_pose_options;

void cvis_absolute_pose_options_default(cvis_absolute_pose_options* options);

/* Robust PnP: n 3D points (n x 3) and their undistorted normalised observations (n x 2, i.e.
 * K^-1 applied). Writes cam_from_world as angle-axis (3) and translation (3), the inlier mask
 * (n bytes, may be NULL) and the inlier count. CVIS_NOT_ENOUGH_DATA below min_num_inliers. */
cvis_status cvis_estimate_absolute_pose(const double* points3D, const double* points2D, int32_t n,
                                        const cvis_absolute_pose_options* options,
                                        double cam_from_world_rotation[3],
                                        double cam_from_world_translation[3],
                                        uint8_t* inlier_mask, int32_t* num_inliers);

/* Relative pose from an essential matrix estimated on normalised coordinates (n x 2 each):
 * returns cam2_from_cam1 (angle-axis, unit translation), inlier mask (n bytes, may be NULL) and
 * the count of inliers in front of both cameras. max_error in normalised units. */
cvis_status cvis_estimate_relative_pose(const double* points1, const double* points2, int32_t n,
                                        double max_error, double confidence, uint64_t seed,
                                        double cam2_from_cam1_rotation[3],
                                        double cam2_from_cam1_translation[3],
                                        uint8_t* inlier_mask, int32_t* num_inliers);

typedef struct cvis_triangulation_options {
  double min_angle_deg;      /* default 1.5: largest pairwise ray angle must reach this */
  double max_error;          /* default 0.004: per-view reprojection error, normalised units */
  int32_t min_num_views;     /* default 2: views within max_error required to accept */
} cvis_triangulation_options;

void cvis_triangulation_options_default(cvis_triangulation_options* options);

/* Triangulates a batch of tracks. Track i owns observations obs_offsets[i] .. obs_offsets[i+1]-1;
 * each observation names a pose (obs_pose[k], an index into poses: num_poses x 12, the row-major
 * 3x4 cam_from_world matrix) and its normalised image point (obs_xy, 2 per observation).
 * For each track: a DLT estimate over all its views, rejection of views beyond max_error, and
 * the depth (positive in every kept view) and angle checks. Writes points3D (num_tracks x 3),
 * valid (num_tracks bytes) and, when obs_inlier is not NULL, 1 per kept observation. */
cvis_status cvis_triangulate_tracks(int32_t num_tracks, const int32_t* obs_offsets,
                                    const int32_t* obs_pose, const double* obs_xy,
                                    int32_t num_poses, const double* poses,
                                    const cvis_triangulation_options* options, double* points3D,
                                    uint8_t* valid, uint8_t* obs_inlier);

#ifdef __cplusplus
}
#endif
#endif
