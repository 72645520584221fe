/* Depth-map fusion into a coloured point cloud, and clouds and meshes compared with a reference
 * surface (accuracy, completeness, F1 at a distance threshold, as ETH3D and Tanks and Temples). */
#ifndef CVIS_CLOUD_H
#define CVIS_CLOUD_H

#include "cvis_core.h"
#include "cvis_mvs.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cvis_fusion_options {
  int32_t min_num_views;          /* default 2: views (the reference included) that must agree
                                     for a point to be kept */
  double max_reprojection_error;  /* default 2: pixels, reference pixel vs its re-projection
                                     through a source depth map */
  double max_depth_error;         /* default 0.01: relative depth difference */
  double max_normal_error_deg;    /* default 30: degrees between the two views' normals */
  int32_t num_threads;            /* default 2 */
  double max_sensor_depth_error;  /* default 0.03: relative depth difference between two sensor
                                     depths (a phone's LiDAR is good to 1-2 % per pixel, the
                                     photographs to a fraction of that); the re-projection limit
                                     grows in the same proportion */
  int32_t min_num_sensor_views;   /* default 2: views that must agree for a sensor point. The
                                     sensor measures each frame on its own, metric and with no
                                     baseline to triangulate, so two frames agreeing within
                                     max_sensor_depth_error are two independent measurements;
                                     a room's surface seen from two places only is kept */
  int32_t num_sensor_neighbours;  /* default 8: the sensor pass checks a view against the views
                                     whose sensor depth shares the most surface with its own
                                     (as well as its neighbours[] ones): photometric sources
                                     are ranked by sparse points and triangulation angle, and
                                     a plain wall has few of the one and needs none of the
                                     other */
} cvis_fusion_options;

/* Sensor depth joining fusion: per view, a depth map made by cvis_mvs_sensor_depth_map (NULL:
 * none) and the factor that takes its depths (metres) into the model's units. After the
 * photometric maps are fused, the sensor maps are fused the same way over the pixels no point
 * took, within max_sensor_depth_error, by min_num_sensor_views views each checked against its
 * neighbours[] and its num_sensor_neighbours views of most shared sensor surface: the
 * photographs' points are exactly those without sensor depth, and the sensor fills what they
 * could not agree on. */
typedef struct cvis_fusion_sensor_depths {
  const char* const* depth_paths;
  const double* scales;
} cvis_fusion_sensor_depths;

void cvis_fusion_options_default(cvis_fusion_options* options);

/* Fuses depth maps into one point cloud and writes it as a binary little-endian PLY (float x, y,
 * z, nx, ny, nz, uchar red, green, blue) to out_ply_path (temporary name, then rename).
 * depth_paths holds one depth map per workspace view (NULL: the view has none). For each view,
 * neighbours[neighbour_offsets[i] .. neighbour_offsets[i+1]-1] are the views it is checked
 * against. A pixel becomes a point when at least min_num_views - 1 neighbours agree on it
 * (re-projection, depth and normal within the limits); the point is the mean of the agreeing
 * observations, its colour the mean colour and its normal the normalised mean, in world
 * coordinates. Every pixel used by a point is not used again. Depth maps are read on demand
 * through the workspace cache, so memory is bounded by its cache_bytes. header_comment, unless
 * NULL or empty, is written as one more `comment` line of the header (one line: no line breaks;
 * e.g. the cloud's unit, "lengthUnit metres"). *num_points receives the point count. */
cvis_status cvis_fuse_depth_maps(cvis_mvs_workspace* workspace, const char* const* depth_paths,
                                 const int32_t* neighbour_offsets, const int32_t* neighbours,
                                 const cvis_fusion_options* options, const char* out_ply_path,
                                 const char* header_comment, int64_t* num_points);

/* The same with sensor depth (may be NULL: as cvis_fuse_depth_maps). A view may have sensor
 * depth without a photometric map. *num_sensor_points (may be NULL) receives the points made
 * from sensor depth. */
cvis_status cvis_fuse_depth_maps_with_sensor(cvis_mvs_workspace* workspace,
                                             const char* const* depth_paths,
                                             const cvis_fusion_sensor_depths* sensor,
                                             const int32_t* neighbour_offsets,
                                             const int32_t* neighbours,
                                             const cvis_fusion_options* options,
                                             const char* out_ply_path, const char* header_comment,
                                             int64_t* num_points, int64_t* num_sensor_points);

/* Points read from a PLY file: a point cloud, or a mesh's vertices and triangles. */
typedef struct cvis_cloud cvis_cloud;

/* Reads ascii or binary (little- or big-endian) PLY: vertex x, y, z (float or double), optional
 * nx, ny, nz and red, green, blue (uchar), optional faces (list of vertex indices, triangulated
 * as fans). CVIS_DECODE_ERROR names the file and what is wrong. */
cvis_status cvis_cloud_load_ply(const char* path, cvis_cloud** out);
void cvis_cloud_destroy(cvis_cloud* cloud);
int64_t cvis_cloud_num_points(const cvis_cloud* cloud);
int64_t cvis_cloud_num_triangles(const cvis_cloud* cloud);
const float* cvis_cloud_points(const cvis_cloud* cloud);      /* num_points x 3 */
const int32_t* cvis_cloud_triangles(const cvis_cloud* cloud); /* num_triangles x 3 */
const float* cvis_cloud_normals(const cvis_cloud* cloud);     /* num_points x 3, NULL if none */
const uint8_t* cvis_cloud_colors(const cvis_cloud* cloud);    /* num_points x 3 (RGB), NULL if none */
/* Texture coordinates a loaded PLY gives per vertex (s t, u v or texture_u texture_v), num_points
 * x 2, and the texture page of each triangle (a face's texnumber), num_triangles; NULL if none. */
const float* cvis_cloud_uvs(const cvis_cloud* cloud);
const int32_t* cvis_cloud_triangle_textures(const cvis_cloud* cloud);

/* A cloud made from memory (copied): points num_points x 3; normals and colors may be NULL;
 * triangles num_triangles x 3 vertex indices (may be NULL when num_triangles is 0). */
cvis_status cvis_cloud_create(int64_t num_points, const float* points, const float* normals,
                              const uint8_t* colors, int64_t num_triangles,
                              const int32_t* triangles, cvis_cloud** out);
/* Writes binary little-endian PLY: float x, y, z, nx, ny, nz, uchar red, green, blue (zero
 * normals and grey for a cloud without them), and for a mesh its faces (uchar count, int
 * indices). Temporary name, then rename. */
cvis_status cvis_cloud_save_ply(const cvis_cloud* cloud, const char* path);

/* A new cloud of first's points, then second's (point clouds, no triangles). A normal or colour
 * one of them lacks becomes a zero normal or grey when the other has it. */
cvis_status cvis_cloud_concat(const cvis_cloud* first, const cvis_cloud* second, cvis_cloud** out);

/* Points closing a room's envelope (cvis_mvs_room_envelope's planes, its box's six sides first,
 * then two faces per notch) where the cloud has none and no view sees through: on each face,
 * within the room, a pixel's footprint at the views' median depth apart (sparser past 2e7 of
 * them), wherever the cloud has no point within two footprints (about) and no view's sure depth
 * (depth_paths: one per workspace view, NULL skips a view) lies 5 % or more beyond them: the floor
 * under the furniture and across the middle of the room, the ceiling overhead, the walls behind
 * the cupboards; not a doorway or a window that a view saw through. Each point has its face's
 * normal into the room and its face's colour, the median of the cloud's points on that face (mid
 * grey when it has none). The cloud (with normals and colours) is read, not changed; *out is a
 * new cloud, perhaps empty, and *out_area the area its points stand for (a footprint squared
 * each). The rules and their reasons are in envelope_closing.cpp. */
cvis_status cvis_mvs_close_envelope(cvis_mvs_workspace* workspace, const char* const* depth_paths,
                                    const cvis_mvs_plane* planes, int32_t num_planes,
                                    const cvis_cloud* cloud, int32_t num_threads, cvis_cloud** out,
                                    double* out_area);

typedef struct cvis_cloud_comparison {
  double accuracy;          /* share of reconstructed points within tau of the reference */
  double completeness;      /* share of reference surface samples within tau of ours */
  double f1;                /* harmonic mean of the two (0 when both are 0) */
  int64_t evaluated_points; /* reconstructed points counted for accuracy */
  int64_t reference_samples;/* reference surface samples counted for completeness */
} cvis_cloud_comparison;

/* Compares ours (a cloud, or a mesh whose surface is sampled) with a reference mesh after
 * mapping ours by the similarity x' = scale * R x + t (R row-major 3x3). Surfaces are sampled
 * uniformly by area at a spacing of sample_spacing (e.g. tau / 5). With a region mesh (may be
 * NULL): accuracy counts only our points inside the region's axis-aligned bounding box, and
 * completeness samples the region's surface instead of the reference's. Distances are exact
 * nearest-neighbour distances up to tau (a uniform grid of cell size tau; point-to-triangle for
 * accuracy against a mesh). Sampling is seeded, so results are repeatable; two threads.
 * CVIS_LIMIT_EXCEEDED when a surface would need over 2.5e8 samples (give a region or a larger
 * spacing). */
cvis_status cvis_compare_clouds(const cvis_cloud* ours, const cvis_cloud* reference,
                                const cvis_cloud* region, double scale, const double rotation[9],
                                const double translation[3], double tau, double sample_spacing,
                                cvis_cloud_comparison* out);

#ifdef __cplusplus
}
#endif
#endif
