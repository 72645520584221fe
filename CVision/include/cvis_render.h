/* Offscreen rendering of a triangle mesh on the CPU: a z-buffer rasteriser with ambient (flat,
 * unlit) shading, so every pixel shows the surface's own colour and never a shadow; and the
 * image decoding and PNG writing the renderer's callers need. */
#ifndef CVIS_RENDER_H
#define CVIS_RENDER_H

#include "cvis_core.h"
#include "cvis_io.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A mesh to render. Nothing is kept after a call returns. */
typedef struct cvis_render_mesh {
  int64_t num_vertices;
  const float* positions;     /* num_vertices x 3, world frame */
  const uint8_t* colors;      /* num_vertices x 3 RGB (sRGB), or NULL: grey 180 */
  const float* uvs;           /* num_vertices x 2, u right and v up (OpenGL): (0, 0) is the
                                 bottom-left corner of the texture, or NULL */
  int64_t num_faces;
  const int32_t* faces;       /* num_faces x 3 vertex indices; both sides are drawn */
  const uint8_t* texture;     /* texture_height rows of texture_width RGB texels, top row first,
                                 or NULL; with uvs it replaces the vertex colours */
  int32_t texture_width;
  int32_t texture_height;
} cvis_render_mesh;

/* A pinhole camera (no distortion): pixel = (fx x / z + cx, fy y / z + cy) for
 * x_cam = R x_world + t, with the top-left image corner at (0, 0). */
typedef struct cvis_render_camera {
  int32_t width;              /* 1..16384 */
  int32_t height;             /* 1..16384 */
  double fx, fy, cx, cy;
  double rotation[9];         /* cam_from_world R, row-major */
  double translation[3];      /* cam_from_world t */
  double near_depth;          /* > 0: geometry nearer than this depth is clipped away */
} cvis_render_camera;

/* Renders mesh from camera into rgba (height rows of width RGBA pixels, top row first, which the
 * caller allocates): a pixel whose centre a triangle covers (top-left fill rule, so shared edges
 * are drawn once) shows the nearest triangle's colour, with alpha 255; uncovered pixels are
 * (0, 0, 0, 0). Colours are sampled bilinearly from the texture (clamped at its border) at the
 * perspective-correct UV, or interpolated (perspective-correct) from the vertex colours. No
 * anti-aliasing, no lighting. Fails with CVIS_INVALID_ARGUMENT on sizes, indices or a camera out
 * of range. */
cvis_status cvis_render(const cvis_render_mesh* mesh, const cvis_render_camera* camera, uint8_t* rgba);

/* As cvis_render, for num_meshes >= 1 meshes drawn into one frame with one depth buffer: a
 * model of several materials (texture pages) is one mesh per page, sharing its vertex arrays. */
cvis_status cvis_render_meshes(const cvis_render_mesh* meshes, int32_t num_meshes,
                               const cvis_render_camera* camera, uint8_t* rgba);

/* A decoded 8-bit image, owned by the handle. */
typedef struct cvis_image cvis_image;

/* Decodes an encoded image (PNG, JPEG, whatever OpenCV reads) in memory to 8-bit RGB
 * (channels 3) or RGBA (channels 4; opaque when the image has no alpha), as stored (no EXIF
 * rotation). CVIS_DECODE_ERROR when the bytes are not a decodable image. */
cvis_status cvis_image_decode(const uint8_t* data, size_t size, int32_t channels, cvis_image** out);
/* Decodes the image file at path (JPEG, PNG, HEIC...) as the pipeline does: upright (EXIF
 * orientation, or HEIF's own transformations, applied), to 8-bit RGB (channels 3) or RGBA
 * (channels 4; opaque when the file has no alpha). CVIS_IO_ERROR / CVIS_DECODE_ERROR name the
 * file. */
cvis_status cvis_image_read(const char* path, int32_t channels, cvis_image** out);
void cvis_image_destroy(cvis_image* image);
int32_t cvis_image_width(const cvis_image* image);
int32_t cvis_image_height(const cvis_image* image);
int32_t cvis_image_channels(const cvis_image* image);
/* height rows of width * channels bytes, top row first. */
const uint8_t* cvis_image_pixels(const cvis_image* image);

/* Encodes an 8-bit image (channels 1, 3 = RGB or 4 = RGBA) as PNG in memory; *out is a new
 * buffer (cvis_io.h). */
cvis_status cvis_image_encode_png(int32_t width, int32_t height, int32_t channels,
                                  const uint8_t* pixels, cvis_buffer** out);
/* Writes an 8-bit image (channels 1, 3 = RGB or 4 = RGBA) as PNG to path, through a temporary
 * name in the same folder and a rename, so the file is whole or absent. */
cvis_status cvis_image_write_png(const char* path, int32_t width, int32_t height, int32_t channels,
                                 const uint8_t* pixels);

#ifdef __cplusplus
}
#endif
#endif
