/* A fixed camera watching a turntable: point tracks followed through the turn, and the circular
 * motion (one axis, one angle a frame) adjusted to them.
 *
 * The turn's frame: z along the turn axis, the camera centre at (0, -1, 0) (the distance to the
 * axis is the unit; the origin is the axis point at the camera's height). Frame i sees the plate
 * turned by angle_i about z: cam_from_plate_i = (R_rig Rz(angle_i), R_rig (0, 1, 0)), R_rig the
 * rig's rotation (angle-axis), one pinhole camera (focal length, principal point) for all. */
#ifndef CVIS_TURN_H
#define CVIS_TURN_H

#include "cvis_core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cvis_turn_track_options {
  int32_t working_side;        /* default 1024: longer side (px) tracked at; never upscaled */
  int32_t max_corners;         /* default 2000: new corners a frame, inside its mask */
  double quality_level;        /* default 0.001: of the frame's strongest corner (Shi-Tomasi);
                                  low, because a texture-poor object's corners are all faint */
  double min_distance;         /* default 5: px at working size between corners */
  int32_t window;              /* default 21: Lucas-Kanade window, px at working size */
  int32_t pyramid_levels;      /* default 3 */
  double max_round_trip;       /* default 0.5: px a point may miss its start by, tracked forward
                                  then back: larger is drift (shading, occlusion) */
  double min_motion;           /* default 0.3: px a point must move a frame: what stays put is
                                  the still backdrop or shading fixed to the lights */
  int32_t seam_frames;         /* default 6: tracking continues from the last frame into this many
                                  first frames, so a closed turn's tracks cross its seam */
  int32_t num_threads;         /* default 1: frames decoded in parallel */
} cvis_turn_track_options;

void cvis_turn_track_options_default(cvis_turn_track_options* options);

/* Tracks: observation k is track[k] seen in frame[k] at xy[2k], xy[2k+1] (pixels of the full
 * upright image). A track has at most one observation a frame and at least two. */
typedef struct cvis_turn_tracks {
  int32_t num_tracks;
  int32_t num_observations;
  int32_t* track;
  int32_t* frame;
  double* xy;
} cvis_turn_tracks;

/* Follows corners (Shi-Tomasi, inside each frame's mask) from frame to frame in the given order
 * with pyramidal Lucas-Kanade, keeping a point while it tracks back to where it came from, stays
 * in the mask and moves. The frames share one upright size (a fixed camera's); masks are 8-bit
 * images (nonzero = object) of any size, scaled to the frame. At least 3 frames. */
cvis_status cvis_turn_tracks_create(const char* const* image_paths, const char* const* mask_paths,
                                    int32_t count, const cvis_turn_track_options* options,
                                    cvis_turn_tracks** tracks);
void cvis_turn_tracks_destroy(cvis_turn_tracks* tracks);

/* How the frames' angles move in an adjustment. */
typedef enum cvis_turn_steps {
  CVIS_TURN_EVEN = 0,         /* angle_i = i * step, step refined (angles[1] - angles[0] at start) */
  CVIS_TURN_EVEN_CLOSED = 1,  /* angle_i = i * step with step = +-2 pi / num_frames (the sign of
                                 angles[1] - angles[0]): one whole turn, its last frame a step
                                 before its first */
  CVIS_TURN_FREE = 2          /* every angle refined but the first (the gauge) */
} cvis_turn_steps;

/* The problem: arrays owned by the caller, refined in place during the call only. */
typedef struct cvis_turn_problem {
  int32_t num_frames;
  double* angles;              /* num_frames, radians */
  double rig[3];               /* R_rig, angle-axis */
  double focal_length;         /* px */
  double principal_point[2];   /* px, held */
  int32_t num_points;
  double* points3D;            /* num_points x 3, in the turn's frame */
  int32_t num_observations;
  const int32_t* obs_frame;    /* num_observations */
  const int32_t* obs_point;    /* num_observations */
  const double* obs_xy;        /* num_observations x 2, px */
} cvis_turn_problem;

typedef struct cvis_turn_options {
  int32_t steps;               /* cvis_turn_steps; default CVIS_TURN_EVEN */
  double loss_scale;           /* default 1: Cauchy scale, px */
  int32_t refine_focal_length; /* default 1 */
  int32_t max_iterations;      /* default 200 */
  int32_t num_threads;         /* default 1 */
} cvis_turn_options;

void cvis_turn_options_default(cvis_turn_options* options);

typedef struct cvis_turn_summary {
  double initial_cost;         /* Ceres's cost: half the sum of the robust squared residuals */
  double final_cost;
  int32_t iterations;
  int32_t usable;              /* 1 when Ceres reports a usable solution */
} cvis_turn_summary;

/* Refines the rig, the focal length, the angles (as options->steps says) and the points against
 * the observations. Points whose position is not finite take no part. Validates every index. */
cvis_status cvis_turn_adjust(cvis_turn_problem* problem, const cvis_turn_options* options,
                             cvis_turn_summary* summary);

/* Each point from its observations under the problem's motion (linear, all views at once);
 * a point seen from fewer than 2 frames, or behind any camera that sees it, becomes NaN. */
cvis_status cvis_turn_triangulate(cvis_turn_problem* problem);

/* Each observation's reprojection error in px (infinity when its point is NaN or behind the
 * camera) into errors (num_observations). */
cvis_status cvis_turn_reprojection_errors(const cvis_turn_problem* problem, double* errors);

#ifdef __cplusplus
}
#endif
#endif
