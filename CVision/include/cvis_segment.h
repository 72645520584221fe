/* Segmenting a fixed camera's frames from their own background: a per-pixel temporal model of
 * what stays put, and per-frame masks of what does not (the object, and what turns with it). */
#ifndef CVIS_SEGMENT_H
#define CVIS_SEGMENT_H

#include "cvis_core.h"
#include "cvis_io.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cvis_background_options {
  int32_t working_side;        /* default 480: longer side (px) the model works at; never upscaled */
  int32_t max_model_frames;    /* default 64: frames (evenly spaced) the background is estimated from */
  double change_threshold;     /* default 4: a pixel changed when its colour is this many noise
                                  units from its background */
  double min_noise;            /* default 1.5: the smallest noise (colour levels of 255) a pixel is
                                  credited with (JPEG, sensor noise) */
  double shadow_min_ratio;     /* default 0.5: a pixel darker than its background by a lightness
                                  ratio in [this, 0.95] with the background's chroma is a shadow,
                                  not a change (0 = no shadow test) */
  double min_region_share;     /* default 0.002: changed regions smaller than this share of the
                                  frame are noise */
  int32_t num_threads;         /* default 1 */
} cvis_background_options;

void cvis_background_options_default(cvis_background_options* options);

typedef struct cvis_background_model cvis_background_model;

/* Reads the frames (upright, at options->working_side), estimates each pixel's background colour
 * as the densest cluster of its colours over the frames (the mode; a second mode is kept for
 * pixels the object covers more often than not), its noise from that cluster's spread, and each
 * frame's changed pixels. The frames must share one upright size (a fixed camera's do): others
 * fail with CVIS_INVALID_ARGUMENT naming the first that differs. At least 3 frames. */
cvis_status cvis_background_model_create(const char* const* image_paths, int32_t count,
                                         const cvis_background_options* options,
                                         cvis_background_model** model);
void cvis_background_model_destroy(cvis_background_model* model);

typedef struct cvis_background_stats {
  int32_t frames;           /* frames in the model */
  int32_t width, height;    /* working size */
  double stable_share;      /* share of textured pixels whose colour stays within noise (capped
                               at 4 x min_noise) of their background in 80 % of the frames: most
                               of the frame for a fixed camera, almost none for a moving one */
  double textured_share;    /* share of pixels with texture in their background (a colour step of
                               3 levels of 255 per pixel: what a moving camera would shift) */
  double still_share;       /* share of all pixels stable as above, textured or not */
  double still_structure_share; /* share of the frame that is textured, stable and never changed:
                               the still structure a fixed camera keeps (a backdrop's edges, a
                               plate's rim); a moving camera changes every textured pixel */
  double core_share;        /* share of the frame the object covers in every frame without ever
                               changing there: enclosed by what changed, or grown from it over
                               pixels of the object's colour (not the backdrop's) */
  double envelope_share;    /* share of the frame that changed in some frame, core included */
} cvis_background_stats;

void cvis_background_model_stats(const cvis_background_model* model, cvis_background_stats* stats);

/* Writes frame `index`'s mask to `output_path` as an 8-bit PNG (255 = object: what moved, its
 * enclosed core and its holes), at the frame's full upright size: the working-size mask is
 * upsampled and its edges snapped to the full-size image with a guided filter. Atomic write.
 * *object_share (may be NULL) receives the share of the frame the mask keeps. Thread-safe. */
cvis_status cvis_background_model_write_mask(const cvis_background_model* model, int32_t index,
                                             const char* output_path, double* object_share);

/* The working-size mask of frame `index` (width x height bytes, 255 = object) into `mask`. */
cvis_status cvis_background_model_working_mask(const cvis_background_model* model, int32_t index,
                                               uint8_t* mask);

/* A JPEG preview (longer side at most max_side, 1...8192; quality 1...100) of an image with its
 * mask shown: the background (mask 0) dimmed and tinted blue, the mask's outline drawn. The mask
 * is scaled to the image. *out is freed with cvis_buffer_destroy. */
cvis_status cvis_make_masked_thumbnail(const char* image_path, const char* mask_path, int32_t max_side,
                                       int32_t jpeg_quality, cvis_buffer** out);

#ifdef __cplusplus
}
#endif
#endif
