/* Dense multi-view stereo: undistortion to pinhole views and PatchMatch depth maps.
 *
 * The dense stage works on a folder of undistorted views (colour PNG, optional mask PNG) and
 * keeps every depth map on disk, so memory does not grow with the number of images: a
 * cvis_mvs_workspace loads views and depth maps on demand and holds at most a configured number
 * of bytes of them. */
#ifndef CVIS_MVS_H
#define CVIS_MVS_H

#include "cvis_core.h"
#include "cvis_feature.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A pinhole view: intrinsics at its working size and its pose (x_cam = R x_world + t). */
typedef struct cvis_mvs_view {
  int32_t width, height;
  double fx, fy, cx, cy;     /* pixels; the top-left image corner is (0, 0) (COLMAP) */
  double rotation[9];        /* cam_from_world R, row-major */
  double translation[3];     /* cam_from_world t */
} cvis_mvs_view;

/* The size of the view cvis_mvs_undistort_image makes of a width x height image: the longer side
 * brought down to max_side (exactly; the other side keeps the aspect, rounded, at least 1), never
 * up; max_side 0 keeps the size. The one rule for the dense working size. */
void cvis_mvs_working_size(int32_t width, int32_t height, int32_t max_side, int32_t* out_width,
                           int32_t* out_height);

/* Undistorts one image to a pinhole camera with the same focal lengths and principal point,
 * area-downscaled so that its longer side is at most max_side (never upscaled; 0 = full size).
 * camera_model and camera_params are as in cvis_bundle.h (a model of the upright image of size
 * camera_width x camera_height). Masks as for cvis_extract_features (mask_path and keep_rect may
 * be NULL; an alpha channel masks the image too). Writes the colour image to out_image_path (PNG) and, when out_mask_path is not NULL,
 * an 8-bit mask (255 = keep) that is 0 where a mask drops the pixel or the undistorted pixel
 * falls outside the original image. Both files are written to a temporary name and renamed.
 * Fills out_view's size and intrinsics (its pose is left untouched). */
cvis_status cvis_mvs_undistort_image(const char* image_path, const char* mask_path,
                                     const cvis_rect* keep_rect, int32_t camera_model,
                                     const double* camera_params, int32_t camera_width,
                                     int32_t camera_height, int32_t max_side,
                                     const char* out_image_path, const char* out_mask_path,
                                     cvis_mvs_view* out_view);

/* The views of one dense reconstruction, their files on disk and a bounded cache of them. */
typedef struct cvis_mvs_workspace cvis_mvs_workspace;

/* views, image_paths (undistorted PNGs) and mask_paths (NULL, or per view NULL for no mask) are
 * copied. cache_bytes bounds the decoded views and depth maps held in memory (default to pass:
 * 1 GiB). Files are read lazily; a missing or corrupt file fails the call that needs it. */
cvis_status cvis_mvs_workspace_create(int32_t num_views, const cvis_mvs_view* views,
                                      const char* const* image_paths,
                                      const char* const* mask_paths, uint64_t cache_bytes,
                                      cvis_mvs_workspace** out);
void cvis_mvs_workspace_destroy(cvis_mvs_workspace* workspace);
/* Bytes of decoded views and depth maps the workspace's cache holds now (never above
 * cache_bytes; an item larger than cache_bytes is used but not kept). For tests and tools. */
uint64_t cvis_mvs_workspace_cached_bytes(const cvis_mvs_workspace* workspace);

typedef struct cvis_patch_match_options {
  int32_t window_radius;          /* default 5: an 11 x 11 window */
  int32_t window_step;            /* default 2: every second row and column of the window */
  double sigma_spatial;           /* default 5: bilateral weight, pixels */
  double sigma_color;             /* default 0.05: bilateral weight, intensity in [0, 1] */
  int32_t num_iterations;         /* default 3: propagation + refinement sweeps per pass at one
                                     resolution (the geometric pass, which starts converged, runs
                                     max(1, n / 3)) */
  int32_t coarse_iterations;      /* default 2: when the view is large enough, the photometric
                                     pass runs these sweeps at half resolution instead, then one
                                     at full resolution */
  int32_t top_k_views;            /* default 4: source views whose costs are averaged per pixel
                                     (best k of the given sources whose image holds the point,
                                     chosen per pixel and hypothesis) */
  double min_triangulation_angle_deg; /* default 1: a source view seeing the point at a smaller
                                         angle does not vote */
  double geom_consistency_regularizer; /* default 0.3: weight of the forward-backward
                                          reprojection error (pixels) in the geometric pass */
  double geom_consistency_max_error;   /* default 3: pixels; the error is clamped here */
  double filter_max_cost;         /* default 0.5: pixels whose final cost (1 - NCC, plus the
                                     geometric term) exceeds this are set invalid (depth 0) */
  int32_t filter_min_views;       /* default 2: geometric pass only; pixels consistent (error <
                                     1 px, depth within 1%) with fewer source views are invalid */
  int32_t num_threads;            /* default 2 */
  uint64_t seed;                  /* default 0: random initialisation and refinement */
  int32_t fine_views;             /* default 5: the full-resolution sweep after half resolution
                                     scores a pixel's candidates with the sources of the lowest
                                     costs of its upsampled plane only (0: every source) */
  int32_t planar_prior;           /* default 0. 1: planar priors (ACMP, Xu & Tao 2020) are on:
                                     the planar-prior pass (CVIS_PATCH_MATCH_PLANAR_PRIOR) may run,
                                     and the geometric pass keeps its filled pixels where
                                     filter_min_views sources agree. The photometric pass ignores
                                     it: a prior is made after every photometric map exists,
                                     because each plane is checked against the sources' maps. */
} cvis_patch_match_options;

void cvis_patch_match_options_default(cvis_patch_match_options* options);

/* The passes over one reference view. Photometric: random and sparse initialisation, matching
 * cost alone. Geometric: starts from the reference's earlier map (previous_depth_path) and adds
 * forward-backward consistency with the sources' photometric maps (source_depth_paths, one per
 * source; a NULL entry skips that source's geometric term). Planar prior: keeps the reference's
 * photometric map (previous_depth_path) and fills the pixels it left undecided from the planes
 * of a triangulation of its confident pixels, each plane checked against the sources'
 * photometric maps (source_depth_paths) first; needs options.planar_prior. */
typedef enum cvis_patch_match_pass {
  CVIS_PATCH_MATCH_PHOTOMETRIC = 0,
  CVIS_PATCH_MATCH_GEOMETRIC = 1,
  CVIS_PATCH_MATCH_PLANAR_PRIOR = 2,
} cvis_patch_match_pass;

/* A plane in world coordinates: normal . X + offset = 0, normal a unit vector. */
typedef struct cvis_mvs_plane {
  double normal[3];
  double offset;
} cvis_mvs_plane;

/* What one depth map is computed from. */
typedef struct cvis_patch_match_problem {
  int32_t reference;              /* index of the reference view */
  int32_t num_sources;
  const int32_t* sources;         /* indices of source views, best first */
  double depth_min, depth_max;    /* search range along the reference's optical axis (z) */
  int32_t num_points;             /* sparse points seen by the reference, for initialisation */
  const double* points_in_world;  /* num_points x 3, may be NULL */
  /* Which pass this map is (cvis_patch_match_pass). */
  int32_t pass;
  const char* previous_depth_path;
  const char* const* source_depth_paths;
  /* Planar-prior pass: 0, or the planes of the room's envelope (cvis_mvs_room_envelope). They
   * then stand for the envelope the view would look for in its own pixels, and they fill what
   * the view's own surfaces leave, where the view's and its sources' maps do not contradict
   * them. */
  int32_t num_envelope_planes;
  const cvis_mvs_plane* envelope_planes;
} cvis_patch_match_problem;

#define CVIS_MVS_ROOM_ENVELOPE_MAX_PLANES 14

/* The envelope of a room seen from inside, its floor, ceiling and four walls, as 6 planes with
 * their normals into the room, found among the sure pixels (cost at most 0.25) of every view's
 * photometric depth map together (depth_paths: one per workspace view, NULL skips a view).
 * Alone, a view sees a bare ceiling only through its creases with one or two walls, which fix no
 * plane; together, the views hold every side's creases. Once two of the room's dominant planes
 * are within 5 degrees of square, each side is where the sure pixels stop along one of the three
 * directions: the middle of the side's own pixels (their normals along it), turned to fit them,
 * or, for a bare side, where the walls' pixels across it end. *out_count is 6, or 0 when there
 * is no such box or it is not the room's: a camera centre outside it, a dominant plane across it
 * not square with it (a sloping ceiling) or square and inside it (a partition), or a side that
 * views surely see beyond (where they stopped looking rather than where the room ends). The
 * rules and their measures are in room_envelope.cpp and planes.cpp.
 * A room that is not a box (an L, a corner walled off) has notches: rectangles of its floor plan
 * at corners of the box, full height, that no view matched anything in, bounded by the lines of
 * their walls' creases and by the edge where those meet (the views' mean up direction is the
 * box's vertical). Each notch adds its two faces, normals into the room; the notch is what lies
 * behind both. *out_count is then 6 plus 2 per notch, at most CVIS_MVS_ROOM_ENVELOPE_MAX_PLANES:
 * the box's sides first. A notch a view surely sees into is dropped. */
cvis_status cvis_mvs_room_envelope(cvis_mvs_workspace* workspace, const char* const* depth_paths, uint64_t seed,
                                   cvis_mvs_plane out_planes[CVIS_MVS_ROOM_ENVELOPE_MAX_PLANES],
                                   int32_t* out_count);

/* Runs PatchMatch for one reference view and writes its depth map to out_depth_path (written to
 * a temporary name and renamed). Pixels outside the reference's mask are left invalid. The
 * workspace may be shared by concurrent calls. */
cvis_status cvis_patch_match(cvis_mvs_workspace* workspace, const cvis_patch_match_problem* problem,
                             const cvis_patch_match_options* options, const char* out_depth_path);

/* A depth map as stored on disk: per pixel z-depth (0 = invalid), unit normal in the view's
 * camera frame (pointing towards the camera) and the matching cost. File layout
 * (little-endian): "CVISDM01", int32 width, int32 height, then width*height float32 depths,
 * width*height*3 float32 normals, width*height float32 costs, all row-major. */
typedef struct cvis_depth_map cvis_depth_map;

cvis_status cvis_depth_map_load(const char* path, cvis_depth_map** out);
/* A new depth map of the given size (all invalid), for tests and tools. */
cvis_status cvis_depth_map_create(int32_t width, int32_t height, cvis_depth_map** out);
cvis_status cvis_depth_map_save(const cvis_depth_map* map, const char* path);
void cvis_depth_map_destroy(cvis_depth_map* map);
int32_t cvis_depth_map_width(const cvis_depth_map* map);
int32_t cvis_depth_map_height(const cvis_depth_map* map);
float* cvis_depth_map_depths(cvis_depth_map* map);   /* width * height */
float* cvis_depth_map_normals(cvis_depth_map* map);  /* width * height * 3 */
float* cvis_depth_map_costs(cvis_depth_map* map);    /* width * height */

/* A phone's depth image (LiDAR or TrueDepth: z-depth in metres along the photo camera's axis,
 * registered to the photo, 0 or non-finite = none) brought into dense view view_index of the
 * workspace and written as a depth map (cvis_depth_map layout; cost 0) to out_depth_path
 * (temporary name, then rename). depth is depth_width x depth_height, row-major from the top-left,
 * covering the upright photo of camera_width x camera_height with the same aspect; camera_model
 * and camera_params describe that photo (cvis_bundle.h), so every view pixel is mapped through
 * the distortion as cvis_mvs_undistort_image maps it. confidence (may be NULL) is ARKit's level
 * per depth pixel (0 low, 1 medium, 2 high); pixels below min_confidence are dropped.
 *
 * Each depth pixel is first smoothed: the plane fitted to its 5 x 5 neighbours within 4 % of
 * their median, read at the pixel (a phone's per-pixel noise is independent, 1-2 %, while a
 * surface is smooth over the footprint; the limit keeps the two sides of an edge apart, and a
 * plane, unlike a mean, is not biased by a tilted surface or a window the border cuts). A view pixel then reads the
 * depth bilinearly when its four depth pixels agree within 4 %, else it has none (no depth is
 * invented between two surfaces); pixels the view's mask drops have none. Normals come from
 * the depth one depth pixel apart, towards the camera; a pixel whose neighbours there lack depth
 * (the rim of a hole) is dropped, as its normal cannot be told. *out_valid_pixels (may be NULL)
 * receives the pixels with depth. */
cvis_status cvis_mvs_sensor_depth_map(cvis_mvs_workspace* workspace, int32_t view_index,
                                      const float* depth, const uint8_t* confidence,
                                      int32_t depth_width, int32_t depth_height,
                                      int32_t min_confidence, int32_t camera_model,
                                      const double* camera_params, int32_t camera_width,
                                      int32_t camera_height, const char* out_depth_path,
                                      int64_t* out_valid_pixels);

/* How two depth maps of one view agree: over the pixels where both have depth, the median of
 * measured / sensor (*out_median_ratio; 0 without a common pixel), the median of
 * |ratio / median - 1| (*out_spread) and the count (*out_count). Reads both files. */
cvis_status cvis_depth_map_ratio(const char* measured_path, const char* sensor_path,
                                 double* out_median_ratio, double* out_spread, int64_t* out_count);

/* The masks' visual hull: out_outside[i] = 1 when at least min_views views see point i (float
 * x, y, z; in front of the view and inside its frame) on a pixel their mask (8-bit PNG of the
 * view's size, 0 = not the object) drops after it is dilated by dilation_px; else 0. A NULL
 * mask path leaves that view out. */
cvis_status cvis_visual_hull_outside(int64_t num_points, const float* points, int32_t num_views,
                                     const cvis_mvs_view* views, const char* const* mask_paths,
                                     double dilation_px, int32_t min_views, int32_t num_threads,
                                     uint8_t* out_outside);

/* Kernels exposed for tests. */

/* The homography that maps reference pixels to source pixels for the plane with unit normal n
 * (reference camera frame) at distance d from the reference centre (n . X + d = 0 for points X
 * on the plane, d > 0 for a plane in front of a camera looking down +z with n towards it).
 * H = K_src (R - t n^T / d) K_ref^-1 with R, t the source-from-reference pose. Row-major 3x3. */
cvis_status cvis_mvs_plane_homography(const cvis_mvs_view* reference, const cvis_mvs_view* source,
                                      const double normal[3], double distance, double H[9]);

/* Bilateral-weighted NCC between a window of the grey reference image (intensity in [0, 1],
 * row-major float, width x height) centred on pixel index (x, y), whose centre is at
 * (x + 0.5, y + 0.5), and the source window warped through H (each reference pixel centre is
 * mapped by H and the source is sampled bilinearly at the mapped point, the same convention;
 * samples beyond the source border read the border), with the options' window radius, step and
 * sigmas. Returns NCC in [-1, 1] in *ncc (-1 when a sample maps behind the source camera or
 * either window has no texture); CVIS_INVALID_ARGUMENT when the window leaves the reference
 * image. */
cvis_status cvis_mvs_bilateral_ncc(const float* reference, int32_t ref_width, int32_t ref_height,
                                   const float* source, int32_t src_width, int32_t src_height,
                                   int32_t x, int32_t y, const double H[9],
                                   const cvis_patch_match_options* options, double* ncc);

#ifdef __cplusplus
}
#endif
#endif
