/* Texture atlas of a triangle mesh from calibrated photos (Waechter, Moehrle and Goesele 2014,
 * "Let There Be Color!", simplified): per-face view selection weighing resolution, viewing angle
 * and occlusion, smoothed so neighbouring faces share a view; charts of same-view faces with UVs
 * from that view's projection, packed into atlas pages; exposure and shading differences
 * between charts levelled across their seams. */
#ifndef CVIS_TEXTURE_H
#define CVIS_TEXTURE_H

#include "cvis_core.h"
#include "cvis_io.h"
#include "cvis_mvs.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cvis_texture_options {
  int32_t page_size;            /* default 4096: side of a square atlas page, 64..16384 */
  int32_t max_pages;            /* default 1: charts are scaled down until they fit this many */
  int32_t padding_px;           /* default 4: texels of the view's own image around each chart,
                                   so mip-maps and bilinear lookups never reach another chart */
  double max_texel_per_pixel;   /* default 2: never sample a view finer than twice its own pixels */
  double min_view_cos;          /* default 0.1: a face is not textured from a view that sees it
                                   more obliquely than acos(0.1) = 84 degrees */
  double smoothness;            /* default 1: cost of each edge-neighbour textured from another
                                   view, against a data cost in [0, 1] (1 - quality / best) */
  int32_t smoothing_iterations; /* default 10: rounds of iterated conditional modes */
  int32_t max_views_per_face;   /* default 8: the best views by quality a face may choose from */
  int32_t level_seams;          /* default 2: global, then local; 1: global, one colour offset
                                   per view so that the seams agree; 2 also moves each chart,
                                   vertex by vertex, to the colour its faces' candidate views
                                   agree on, keeping its own view's detail within faces; 0: off */
  double seam_regularization;   /* default 0.1, global levelling: pull of each view's offset
                                   towards 0, per seam edge's weight 1 (keeps the brightness) */
  double local_seam_sigma_px;   /* default 1, local levelling: the correction is smoothed over a
                                   chart at this scale, in pixels of its view (0: not smoothed) */
  int32_t num_threads;          /* default 2 */
} cvis_texture_options;

void cvis_texture_options_default(cvis_texture_options* options);

/* The result: atlas pages (RGB, 8 bits, row-major, page_size x page_size), per face the page and
 * three (u, v) corners in [0, 1] with (0, 0) the top-left corner of the page's first texel, and
 * the view each face was textured from (-1: no view saw it; it then carries the mean of its
 * vertex colours in a small cell of its own). */
typedef struct cvis_texture_atlas cvis_texture_atlas;

/* Textures the mesh (vertices num_vertices x 3, faces num_faces x 3 vertex indices) from
 * num_views pinhole views (cvis_mvs.h: poses cam_from_world, intrinsics at the size of the image
 * file) whose undistorted colour images are image_paths; mask_paths may be NULL or hold NULL per
 * view (255 = the object: a face is textured from a view only where its centroid and its corners,
 * pulled a quarter of the way towards the centroid, are kept).
 * vertex_colors (RGB per vertex, may be NULL: grey) colour faces no view sees. Occlusion is
 * tested by ray casting (Embree) from each view centre to each face centroid. */
cvis_status cvis_texture_mesh(int64_t num_vertices, const float* vertices, int64_t num_faces,
                              const int32_t* faces, const uint8_t* vertex_colors,
                              int32_t num_views, const cvis_mvs_view* views,
                              const char* const* image_paths, const char* const* mask_paths,
                              const cvis_texture_options* options, cvis_texture_atlas** out);
void cvis_texture_atlas_destroy(cvis_texture_atlas* atlas);

int32_t cvis_texture_atlas_num_pages(const cvis_texture_atlas* atlas);
int32_t cvis_texture_atlas_page_size(const cvis_texture_atlas* atlas);
/* Page i's pixels, RGB, page_size^2 x 3 bytes. */
const uint8_t* cvis_texture_atlas_page(const cvis_texture_atlas* atlas, int32_t page);
int64_t cvis_texture_atlas_num_faces(const cvis_texture_atlas* atlas);
const float* cvis_texture_atlas_uvs(const cvis_texture_atlas* atlas);        /* faces x 6 */
const int32_t* cvis_texture_atlas_face_pages(const cvis_texture_atlas* atlas);/* faces */
const int32_t* cvis_texture_atlas_face_views(const cvis_texture_atlas* atlas);/* faces */
/* Charts (connected faces of one view) the atlas holds, and the texels per source pixel they
 * were sampled at (below max_texel_per_pixel when the pages would overflow). */
int64_t cvis_texture_atlas_num_charts(const cvis_texture_atlas* atlas);
double cvis_texture_atlas_scale(const cvis_texture_atlas* atlas);
/* Page i encoded as JPEG (jpeg_quality 1..100) or, with jpeg_quality 0, as PNG; *out is a new
 * buffer (cvis_io.h) the caller destroys. */
cvis_status cvis_texture_atlas_encode_page(const cvis_texture_atlas* atlas, int32_t page,
                                           int32_t jpeg_quality, cvis_buffer** out);
/* Writes page i as PNG or JPEG (by path's extension), temporary name then rename. */
cvis_status cvis_texture_atlas_save_page(const cvis_texture_atlas* atlas, int32_t page,
                                         const char* path);

#ifdef __cplusplus
}
#endif
#endif
