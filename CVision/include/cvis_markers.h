/* Square fiducial markers (ArUco, AprilTag) of OpenCV's predefined dictionaries: names, detection
 * with sub-pixel corners, and drawing one marker (for tests and printed targets). */
#ifndef CVIS_MARKERS_H
#define CVIS_MARKERS_H

#include "cvis_core.h"
#include "cvis_io.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The number of predefined dictionaries; index i in 0 ..< count names one. */
int32_t cvis_marker_dictionary_count(void);

/* The name of dictionary index i as OpenCV spells it ("DICT_4X4_50", "DICT_APRILTAG_36h11"),
 * static storage; NULL when i is out of range. */
const char* cvis_marker_dictionary_name(int32_t index);

/* The dictionary index a name means: OpenCV's name, case-insensitive, with or without "DICT_".
 * CVIS_INVALID_ARGUMENT (naming the name) when no dictionary is called that. */
cvis_status cvis_marker_dictionary_find(const char* name, int32_t* index);

/* How many markers (ids 0 ..< count) dictionary index i holds; 0 when i is out of range. */
int32_t cvis_marker_dictionary_size(int32_t index);

typedef struct cvis_marker_detection_options {
  int32_t subpixel_window;   /* default 5: half-size of the corner refinement window, pixels */
  double min_perimeter_rate; /* default 0.01: smallest marker perimeter, as a fraction of the
                                image's longer side (OpenCV's minMarkerPerimeterRate; 0.01 finds
                                markers of 25 px per side in a 10000 px wide image) */
} cvis_marker_detection_options;

void cvis_marker_detection_options_default(cvis_marker_detection_options* options);

/* One detected marker: its id and its four corners in image pixels (top-left image corner at
 * 0, 0: a pixel's centre at +0.5), in the marker's own order: top-left, top-right,
 * bottom-right, bottom-left as printed, whatever the view. */
typedef struct cvis_marker {
  int32_t id;
  double corners[8];         /* x0, y0, x1, y1, x2, y2, x3, y3 */
} cvis_marker;

/* Detects the markers of dictionary index `dictionary` in the image at image_path, decoded upright
 * (EXIF orientation applied, as features are), at full resolution, corners refined to sub-pixel
 * precision. *out is a new buffer of *count cvis_marker structs (possibly 0) the caller destroys.
 * An id seen more than once is returned each time. CVIS_IO_ERROR / CVIS_DECODE_ERROR name the
 * file; CVIS_INVALID_ARGUMENT for an unknown dictionary. */
cvis_status cvis_detect_markers(const char* image_path, int32_t dictionary,
                                const cvis_marker_detection_options* options, cvis_buffer** out,
                                int32_t* count);

/* The same on an 8-bit grey image in memory (row stride in bytes). */
cvis_status cvis_detect_markers_gray(const uint8_t* pixels, int32_t width, int32_t height, int32_t stride,
                                     int32_t dictionary, const cvis_marker_detection_options* options,
                                     cvis_buffer** out, int32_t* count);

/* Draws marker `id` of dictionary index `dictionary` as a side x side 8-bit grey image (black
 * cells 0, white 255, a one-cell black border; no white margin) into pixels (side * side bytes).
 * CVIS_INVALID_ARGUMENT for an id outside the dictionary or a side smaller than the marker's cells. */
cvis_status cvis_draw_marker(int32_t dictionary, int32_t id, int32_t side, uint8_t* pixels);

#ifdef __cplusplus
}
#endif
#endif
