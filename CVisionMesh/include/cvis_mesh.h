/*
 * CVisionMesh: the C boundary of the surface core (Poisson meshing, trimming, cleaning,
 * colours, decimation), over Open3D and meshoptimizer.
 *
 * A sibling of CVision rather than part of it: Debian's Open3D is built for baseline x86-64, so
 * every file that includes its headers must be compiled without -march=native (Eigen's
 * alignment would differ across the library boundary), while CVision's kernels want it.
 *
 * Same conventions as CVision.h (modelled on Ceres's c_api.h): opaque handles with
 * create/destroy pairs, option structs with a *_default() initialiser, every fallible call
 * returns a cvis_status and leaves a thread-local message for cvis_last_error_message() (the
 * same slot as CVision's: the mesh core uses CVision's error plumbing).
 * No C++ exception crosses this line; C never keeps a caller's pointer after a call returns.
 */
#ifndef CVIS_MESH_H
#define CVIS_MESH_H

#include "cvis_core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Versions of the linked libraries, e.g. "Open3D 0.16.1, meshoptimizer 0.18". Static storage. */
const char* cvis_mesh_version_string(void);

/* ---- Input cloud ------------------------------------------------------------------------- */

/* An oriented point cloud in a KD-tree: Poisson's input, and the reference for trimming by
 * distance and for vertex colours. */
typedef struct cvis_mesh_cloud cvis_mesh_cloud;

/* Copies num_points x 3 points and normals (required: Poisson needs oriented points) and
 * optional colours (NULL: grey), only those inside box (min x y z, then max x y z; NULL keeps
 * every point). CVIS_NOT_ENOUGH_DATA below 16 points kept; CVIS_INVALID_ARGUMENT for a
 * non-finite coordinate or a zero normal. */
cvis_status cvis_mesh_cloud_create(int64_t num_points, const float* points, const float* normals,
                                   const uint8_t* colors, const double* box, cvis_mesh_cloud** out);
void cvis_mesh_cloud_destroy(cvis_mesh_cloud* cloud);
int64_t cvis_mesh_cloud_num_points(const cvis_mesh_cloud* cloud);
/* The median distance from a point to its nearest neighbour (over a seeded sample of at most
 * 20000 points): the capture's own length scale. */
double cvis_mesh_cloud_median_spacing(const cvis_mesh_cloud* cloud);
/* Robust extent: per axis, the lo and hi quantiles of the coordinates (e.g. 0.01 and 0.99),
 * written to box_min[3] and box_max[3]. */
cvis_status cvis_mesh_cloud_quantile_box(const cvis_mesh_cloud* cloud, double lo, double hi,
                                         double box_min[3], double box_max[3]);
/* For each of num_queries points (x y z), the distance to the nearest cloud point. */
cvis_status cvis_mesh_cloud_nearest_distances(const cvis_mesh_cloud* cloud, int64_t num_queries,
                                              const float* queries, double* distances);

/* ---- Mesh -------------------------------------------------------------------------------- */

/* A triangle mesh: vertices with normals and colours (RGB), triangles. */
typedef struct cvis_mesh cvis_mesh;

/* A mesh made from memory (copied); normals and colors may be NULL (normals are then computed,
 * colours grey). CVIS_INVALID_ARGUMENT when a triangle refers to a missing vertex. */
cvis_status cvis_mesh_create(int64_t num_vertices, const float* positions, const float* normals,
                             const uint8_t* colors, int64_t num_triangles,
                             const int32_t* triangles, cvis_mesh** out);
void cvis_mesh_destroy(cvis_mesh* mesh);
int64_t cvis_mesh_num_vertices(const cvis_mesh* mesh);
int64_t cvis_mesh_num_triangles(const cvis_mesh* mesh);
/* Copies the vertices out: positions and normals num_vertices x 3 floats, colors x 3 bytes;
 * any of the three may be NULL. */
void cvis_mesh_copy_vertices(const cvis_mesh* mesh, float* positions, float* normals,
                             uint8_t* colors);
/* Copies the triangles out: num_triangles x 3 vertex indices. */
void cvis_mesh_copy_triangles(const cvis_mesh* mesh, int32_t* triangles);

/* Copies each triangle's centroid out: num_triangles x 3 floats. */
void cvis_mesh_copy_triangle_centroids(const cvis_mesh* mesh, float* centroids);
/* Removes the triangles whose flag is non-zero (num_triangles flags) and the vertices left
 * unreferenced. */
cvis_status cvis_mesh_remove_triangles(cvis_mesh* mesh, const uint8_t* remove);

typedef struct cvis_mesh_topology {
  int64_t boundary_edges;     /* edges with one triangle (0 for a closed surface) */
  int64_t non_manifold_edges; /* edges with three or more triangles */
  int64_t components;         /* clusters of edge-connected triangles */
  int32_t watertight;         /* 1: every edge has exactly two triangles (self-intersection
                                 is not checked) */
} cvis_mesh_topology;

cvis_status cvis_mesh_topology_of(const cvis_mesh* mesh, cvis_mesh_topology* out);

/* ---- Surface reconstruction -------------------------------------------------------------- */

typedef struct cvis_poisson_options {
  int32_t depth;       /* default 8: octree depth (grid of 2^depth cells on the longest side) */
  double scale;        /* default 1.1: the octree's cube over the points' bounding cube */
  int32_t linear_fit;  /* default 0: 1 places iso-vertices by linear interpolation */
  int32_t num_threads; /* default 2 */
} cvis_poisson_options;

void cvis_poisson_options_default(cvis_poisson_options* options);

/* Screened Poisson surface reconstruction (Kazhdan and Hoppe 2013, Open3D's implementation).
 * The mesh keeps each vertex's density (the octree depth of the samples that support it) for
 * cvis_mesh_trim. *cell_size receives the finest cell's side (scene units). */
cvis_status cvis_mesh_poisson(const cvis_mesh_cloud* cloud, const cvis_poisson_options* options,
                              cvis_mesh** out, double* cell_size);

typedef struct cvis_trim_options {
  double density_quantile;     /* default 0.05: vertices whose density is below this quantile
                                  of the mesh's own densities go (0: off) ... */
  double density_median_ratio; /* default 0.5: ... when also below this fraction of the median
                                  density, so that an evenly sampled surface loses nothing */
  double max_distance_spacings;/* default 2 (0: off): triangles whose centroid is farther from the
                                  nearest cloud point than this many times the reference
                                  length (the larger of the cloud's median spacing and the
                                  Poisson cell size) go */
  int32_t use_box;             /* default 0: 1 drops triangles with a vertex outside the box */
  double box_min[3];
  double box_max[3];
} cvis_trim_options;

void cvis_trim_options_default(cvis_trim_options* options);

typedef struct cvis_trim_stats {
  int64_t low_density_vertices; /* vertices dropped by density */
  int64_t far_triangles;        /* triangles dropped by distance */
  int64_t outside_triangles;    /* triangles dropped by the box */
  double density_threshold;     /* the density limit the two rules gave */
  double distance_threshold;    /* scene units (0 when off) */
} cvis_trim_stats;

/* Trims a Poisson mesh where the cloud does not support it. cell_size is the Poisson cell (0
 * when unknown). A mesh without densities skips the density rule. stats may be NULL. */
cvis_status cvis_mesh_trim(cvis_mesh* mesh, const cvis_mesh_cloud* cloud, double cell_size,
                           const cvis_trim_options* options, cvis_trim_stats* stats);

typedef struct cvis_clean_options {
  double min_component_fraction; /* default 0.02: clusters of connected triangles with fewer
                                    triangles than this fraction of the largest go */
} cvis_clean_options;

void cvis_clean_options_default(cvis_clean_options* options);

/* Repairs and tidies a mesh: degenerate and duplicated triangles, non-manifold edges (the
 * smallest-area triangles at an edge go until two remain), small components, unreferenced
 * vertices; then vertex normals are recomputed (area-weighted, oriented as before). */
cvis_status cvis_mesh_clean(cvis_mesh* mesh, const cvis_clean_options* options);

/* Gives each vertex the colour of its nearest cloud point. */
cvis_status cvis_mesh_transfer_colors(cvis_mesh* mesh, const cvis_mesh_cloud* cloud);

typedef struct cvis_simplify_options {
  double target_error; /* default 1 (no limit: the cap decides): largest deviation edge
                          collapse may introduce, relative to the mesh's extent, before it
                          stops short of the cap and clustering takes over */
} cvis_simplify_options;

void cvis_simplify_options_default(cvis_simplify_options* options);

/* A copy of mesh with fewer than max_triangles triangles (max_triangles >= 4): edge collapse
 * (meshopt_simplify), then, if that stopped short, clustering (meshopt_simplifySloppy) with a
 * shrinking target until the cap holds. A mesh already below the cap is copied. Unused vertices
 * are dropped, normals recomputed, colours kept. *used_sloppy (may be NULL) receives 1 when the
 * fallback ran. */
cvis_status cvis_mesh_simplify(const cvis_mesh* mesh, int64_t max_triangles,
                               const cvis_simplify_options* options, cvis_mesh** out,
                               int32_t* used_sloppy);


/* ---- Aligning points to a mesh ---- */

typedef struct cvis_align_options {
  int32_t num_samples;          /* default 200000: points sampled on the mesh, uniformly by area */
  double start_distance;        /* default 0.05: first correspondence distance, as a share of the
                                   mesh's bounding-box diagonal; halved each round */
  double end_distance;          /* default 0.005: last correspondence distance, same unit */
  int32_t with_scale;           /* default 1: estimate a similarity (else a rigid motion) */
  int32_t max_iterations;       /* default 50 per round */
} cvis_align_options;

void cvis_align_options_default(cvis_align_options* options);

typedef struct cvis_align_stats {
  double fitness;               /* share of the points within end_distance of the mesh at the end */
  double rmse;                  /* RMS distance of those points (scene units) */
  int32_t rounds;
} cvis_align_stats;

/* The similarity that brings num_points points (x y z doubles) onto the surface of mesh: ICP
 * (point to point, with scale when asked) from the identity, its correspondence distance halved
 * each round from start_distance down to end_distance, so points that lie off the mesh (the
 * ground, a background the mesh lacks) drop out as it tightens. similarity receives a 4x4
 * row-major matrix [sR t; 0 1]. CVIS_NOT_ENOUGH_DATA with fewer than 3 points or no triangles. */
cvis_status cvis_mesh_align_points(const cvis_mesh* mesh, int64_t num_points, const double* points,
                                   const cvis_align_options* options, double similarity[16],
                                   cvis_align_stats* stats);

#ifdef __cplusplus
}
#endif
#endif
