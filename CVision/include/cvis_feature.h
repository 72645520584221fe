/* SIFT features of one image and descriptor matching between two. */
#ifndef CVIS_FEATURE_H
#define CVIS_FEATURE_H

#include "cvis_core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cvis_sift_options {
  int32_t max_features;          /* default 8192: keep the strongest by response */
  int32_t max_image_size;        /* default 1600: longer side above this is downscaled first
                                    (OpenCV's SIFT doubles its input, so this samples scale
                                    space like COLMAP's 3200; a 6 MP image takes < 1 s) */
  double contrast_threshold;     /* default 0.04 (OpenCV's; lower finds more in weak texture) */
  double edge_threshold;         /* default 10 */
  int32_t root_sift;             /* default 1: L1-normalise then square-root (Arandjelovic 2012) */
  int32_t apply_exif_orientation;/* default 1: keypoints are in the upright image */
  int32_t min_features;          /* default 500 (0: no adaptation; why 500: Swift's
                                    SIFTOptions.workingFeatureCount): when fewer features than this pass
                                    the masks at contrast_threshold, the threshold is halved
                                    (down to min_contrast_threshold) until this many do */
  double min_contrast_threshold; /* default 0.005: the lowest threshold adaptation goes to */
  double alpha_margin;           /* default 10.6: with an alpha channel, a keypoint is kept only
                                    when the nearest transparent pixel is more than this many
                                    times its scale (sigma) away: SIFT's descriptor window, 4 x 4
                                    cells of 3 sigma turned to any angle, reaches
                                    3 sigma * sqrt(2) * (4 + 1) / 2 = 10.6 sigma */
  int32_t affine_max_tilt;       /* default 0 (off): when still below min_features at
                                    min_contrast_threshold, detect with affine simulations
                                    (OpenCV's AffineFeature, tilts up to this index) */
} cvis_sift_options;

void cvis_sift_options_default(cvis_sift_options* options);

/* An axis-aligned keep-rectangle in upright image pixels (x, y = top-left corner). */
typedef struct cvis_rect {
  double x, y, width, height;
} cvis_rect;

/* Keypoints, descriptors and colours of one image. */
typedef struct cvis_features cvis_features;

/* Decodes the image at image_path and extracts SIFT. Optional masks, both in upright pixels:
 * mask_path, an 8-bit PNG of the same size (255 = keep, resized if the size differs), and
 * keep_rect; a keypoint survives only where every given mask keeps it. An image with an alpha
 * channel (PNG) is masked by it too (alpha >= 128 keeps, AND with the others), and no keypoint
 * whose descriptor window reaches a transparent pixel survives (see alpha_margin): the cut-out's
 * silhouette against its transparent background moves with the view.
 * When options->min_features is set and fewer features pass at options->contrast_threshold, the
 * threshold is halved until that many pass or min_contrast_threshold is reached: the features
 * of a threshold t are then those of one detection at min_contrast_threshold whose contrast
 * (OpenCV's response times its 3 octave layers) reaches t, a deterministic subset.
 * CVIS_DECODE_ERROR when the image cannot be decoded (the message says why). */
cvis_status cvis_extract_features(const char* image_path, const char* mask_path,
                                  const cvis_rect* keep_rect, const cvis_sift_options* options,
                                  cvis_features** out);

/* Finer features for an image whose features from cvis_extract_features (base, same image, mask
 * and options) were too coarse to link it to its neighbours: SIFT on a working image twice the
 * size base was detected at (a 640 px video frame is upsampled), at options->contrast_threshold,
 * keeping only the keypoints finer than any base can hold (one octave further down), appended
 * after base's keypoints, which keep their indices, up to options->max_features in all. */
cvis_status cvis_extract_finer_features(const char* image_path, const char* mask_path,
                                        const cvis_rect* keep_rect, const cvis_sift_options* options,
                                        const cvis_features* base, cvis_features** out);

/* Loads features written by cvis_features_save (a checkpoint). */
cvis_status cvis_features_load(const char* path, cvis_features** out);
cvis_status cvis_features_save(const cvis_features* features, const char* path);

void cvis_features_destroy(cvis_features* features);

int32_t cvis_features_count(const cvis_features* features);
int32_t cvis_features_image_width(const cvis_features* features);   /* upright, full size */
int32_t cvis_features_image_height(const cvis_features* features);
/* count x 4 floats: x, y (pixels in the full-size upright image), scale (pixels), orientation
 * (radians). Owned by the handle. */
const float* cvis_features_keypoints(const cvis_features* features);
/* count x 128 floats: the descriptors, unit length. Owned by the handle. */
const float* cvis_features_descriptors(const cvis_features* features);
/* count x 3 bytes: RGB sampled at each keypoint. Owned by the handle. */
const uint8_t* cvis_features_colors(const cvis_features* features);
/* Sharpness of the image the features came from: mean squared gradient magnitude (intensity in
 * [0, 1], per pixel) of the grey image at a working size of at most 640 px, inside the keep mask
 * when one was given. Blurred frames score far below their neighbours. */
double cvis_features_blur_score(const cvis_features* features);
/* How much the grey levels of that image vary: their standard deviation (intensity in [0, 1]) at
 * the same working size and inside the same keep mask as the blur score. Near 0 for a blank frame
 * (a lens cap, a black frame), which has no sharpness to judge. */
double cvis_features_contrast(const cvis_features* features);
/* The contrast threshold the features were detected at (options->contrast_threshold, or lower
 * where adaptation lowered it). */
double cvis_features_contrast_threshold(const cvis_features* features);
/* Features that passed the masks at options->contrast_threshold (before adaptation and before
 * the max_features cut): the image's texture, as SIFT's default threshold sees it. */
int32_t cvis_features_count_at_base_threshold(const cvis_features* features);
/* 1 when the image's alpha channel masked it (it had transparent pixels), else 0. */
int32_t cvis_features_mask_from_alpha(const cvis_features* features);

/* The same score for an 8-bit grey image in memory (row stride in bytes). */
cvis_status cvis_blur_score_gray(const uint8_t* pixels, int32_t width, int32_t height,
                                 int32_t stride, double* out);

/* How much the background changes between two frames of one capture: the median absolute grey
 * difference (intensity in [0, 1]) over background pixels with texture (grey gradient of at
 * least 0.02 per pixel in frame a), on copies whose longer side is 160 px. The background is
 * what the masks drop: pixels outside mask_a / mask_b (8-bit PNGs, 255 = keep; may be NULL) and
 * outside keep_rect (may be NULL); with no mask at all, the whole frame. *textured_fraction is
 * the share of the frame those pixels make up; when it is small the change says little. A fixed
 * camera gives a change near 0, a moving one a few per cent. */
cvis_status cvis_background_change(const char* image_a, const char* mask_a, const char* image_b,
                                   const char* mask_b, const cvis_rect* keep_rect, double* change,
                                   double* textured_fraction);

typedef struct cvis_match_options {
  float max_ratio;       /* default 0.8: best / second-best distance (Lowe's ratio test) */
  float max_distance;    /* default 0.7: on unit-length descriptors */
  int32_t cross_check;   /* default 1: keep only mutual nearest neighbours */
} cvis_match_options;

void cvis_match_options_default(cvis_match_options* options);

/* Matches the descriptors of a against b. Writes up to min(count(a), count(b)) pairs of indices
 * (index in a, index in b) into matches, which must hold 2 * min(count(a), count(b)) int32s.
 * Thread-safe: may be called concurrently on the same handles. */
cvis_status cvis_match_features(const cvis_features* a, const cvis_features* b,
                                const cvis_match_options* options, int32_t* matches,
                                int32_t* num_matches);

#ifdef __cplusplus
}
#endif
#endif
