/* Bundle adjustment with Ceres: cameras, poses and points refined against observations. */
#ifndef CVIS_BUNDLE_H
#define CVIS_BUNDLE_H

#include "cvis_core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Camera models, numbered and laid out as COLMAP's (params in this order):
 *   SIMPLE_PINHOLE f, cx, cy          PINHOLE fx, fy, cx, cy
 *   SIMPLE_RADIAL  f, cx, cy, k       RADIAL  f, cx, cy, k1, k2
 *   SIMPLE_RADIAL_FISHEYE f, cx, cy, k (equidistant: radius f theta (1 + k theta^2)) */
typedef enum cvis_camera_model {
  CVIS_SIMPLE_PINHOLE = 0,
  CVIS_PINHOLE = 1,
  CVIS_SIMPLE_RADIAL = 2,
  CVIS_RADIAL = 3,
  CVIS_SIMPLE_RADIAL_FISHEYE = 8
} cvis_camera_model;

#define CVIS_CAMERA_PARAMS_STRIDE 8  /* doubles reserved per camera in camera_params */

/* Pose handling per image. */
#define CVIS_POSE_FREE (-1)
#define CVIS_POSE_CONSTANT 3
/* 0, 1 or 2: the pose is free except that translation coordinate (fixes the gauge's scale). */

typedef enum cvis_loss {
  CVIS_LOSS_TRIVIAL = 0,
  CVIS_LOSS_HUBER = 1,
  CVIS_LOSS_CAUCHY = 2,
  CVIS_LOSS_SOFT_L1 = 3
} cvis_loss;

/* The problem: arrays owned by the caller, refined in place during the call only. */
typedef struct cvis_ba_problem {
  int32_t num_cameras;
  const int32_t* camera_models;     /* num_cameras */
  double* camera_params;            /* num_cameras x CVIS_CAMERA_PARAMS_STRIDE */
  const uint8_t* camera_constant;   /* num_cameras, may be NULL: 1 = keep all params fixed */

  int32_t num_images;
  const int32_t* image_camera;      /* num_images: index into cameras */
  double* image_poses;              /* num_images x 6: cam_from_world angle-axis, translation */
  const int32_t* pose_mode;         /* num_images: CVIS_POSE_FREE, CVIS_POSE_CONSTANT or 0..2 */

  int32_t num_points;
  double* points3D;                 /* num_points x 3 */
  const uint8_t* point_constant;    /* num_points, may be NULL */

  int32_t num_observations;
  const int32_t* obs_image;         /* num_observations: index into images */
  const int32_t* obs_point;         /* num_observations: index into points */
  const double* obs_xy;             /* num_observations x 2, pixels */
} cvis_ba_problem;

typedef struct cvis_ba_options {
  int32_t loss;                     /* default CVIS_LOSS_CAUCHY */
  double loss_scale_px;             /* default 1.0 */
  int32_t max_iterations;           /* default 100 */
  double function_tolerance;        /* default 1e-6 */
  double gradient_tolerance;        /* default 1e-10 */
  double parameter_tolerance;       /* default 1e-8 */
  int32_t refine_focal_length;      /* default 1 */
  int32_t refine_principal_point;   /* default 0 */
  int32_t refine_extra_params;      /* default 1: radial distortion */
  int32_t num_threads;              /* default 1 */
} cvis_ba_options;

void cvis_ba_options_default(cvis_ba_options* options);

typedef struct cvis_ba_summary {
  double initial_rms_px;            /* RMS reprojection error before, over all observations whose
                                       point is in front of its camera (others have none) */
  double final_rms_px;
  int32_t iterations;
  int32_t usable;                   /* 1 when Ceres reports a usable solution */
  double seconds;
} cvis_ba_summary;

/* Validates every index and size (Ceres aborts on misuse), builds the problem, solves it and
 * writes the refined parameters back. CVIS_INVALID_ARGUMENT names the first bad index. */
cvis_status cvis_bundle_adjust(cvis_ba_problem* problem, const cvis_ba_options* options,
                               cvis_ba_summary* summary);

/* Pose priors (ARKit poses): per image a camera centre and a world-to-camera rotation that its
 * free pose is pulled towards, each through a robust cost (Cauchy, in units of its sigma), so
 * the poses' frame and scale are the priors' while a few bad priors do not dominate. */
typedef struct cvis_ba_pose_priors {
  const uint8_t* has_prior;         /* num_images of the problem: 1 = the image has a prior */
  const double* centers;            /* num_images x 3: prior camera centre in world */
  const double* rotations;          /* num_images x 3: prior cam_from_world rotation, angle-axis */
  double position_sigma;            /* a centre coordinate's standard deviation, world units, > 0 */
  double rotation_sigma_rad;        /* a rotation's, radians; 0 = no rotation cost */
  double loss_scale;                /* Cauchy scale in sigmas; default 2 */
} cvis_ba_pose_priors;

void cvis_ba_pose_priors_default(cvis_ba_pose_priors* priors);

/* cvis_bundle_adjust with pose priors (NULL: none). Poses held constant, or not in the problem
 * (no observation), take no prior cost. */
cvis_status cvis_bundle_adjust_with_priors(cvis_ba_problem* problem, const cvis_ba_pose_priors* priors,
                                           const cvis_ba_options* options, cvis_ba_summary* summary);

/* Motion prior of a sequence (video frames): for each triple of consecutive frames (a, b, c), a
 * robust cost on the second difference of their camera centres, c_a - 2 c_b + c_c, in units of
 * sigma_fraction times the triple's mean step at the start (Cauchy, scale loss_scale). It holds
 * the distance a frame linked to its neighbours by two-view tracks only would otherwise be free
 * to take (bundle adjustment slides it onto its neighbour), and costs nothing at constant speed. */
typedef struct cvis_ba_motion_prior {
  int32_t num_triples;
  const int32_t* triples;  /* num_triples x 3 image indices of the problem, in sequence order */
  double sigma_fraction;   /* > 0 */
  double loss_scale;       /* > 0 */
} cvis_ba_motion_prior;

/* cvis_bundle_adjust with pose priors and a motion prior (either NULL: none). A triple whose
 * start steps are zero, or with an image not in the problem, takes no cost. */
cvis_status cvis_bundle_adjust_with_motion(cvis_ba_problem* problem, const cvis_ba_pose_priors* priors,
                                           const cvis_ba_motion_prior* motion,
                                           const cvis_ba_options* options, cvis_ba_summary* summary);

/* Residuals (2) of one observation and their Jacobians, as evaluated by the cost function that
 * cvis_bundle_adjust gives it (analytic derivatives, with a constant pose and/or camera held as
 * data), or with autodiff != 0 by the autodiff functor of the same form: for testing the one
 * against the other. Jacobians are row-major: jacobian_pose 2 x 6, jacobian_point 2 x 3,
 * jacobian_camera 2 x (the model's number of params); each may be NULL, and those of constant
 * blocks are not written. */
cvis_status cvis_ba_evaluate_observation(int32_t camera_model, const double* camera_params,
                                         const double* cam_from_world, const double* point3D,
                                         const double* observed_xy, int32_t pose_constant,
                                         int32_t camera_constant, int32_t autodiff,
                                         double* residuals, double* jacobian_pose,
                                         double* jacobian_point, double* jacobian_camera);

/* Projects points with a camera model: n points in camera coordinates (n x 3) to pixels (n x 2).
 * Points behind the camera give NaN. */
cvis_status cvis_project_points(int32_t camera_model, const double* camera_params, int32_t n,
                                const double* points_in_camera, double* pixels);

/* Inverts the model: n pixels to undistorted normalised coordinates (n x 2), iteratively. */
cvis_status cvis_unproject_points(int32_t camera_model, const double* camera_params, int32_t n,
                                  const double* pixels, double* normalized);

#ifdef __cplusplus
}
#endif
#endif
