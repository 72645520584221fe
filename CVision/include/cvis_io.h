/* Image metadata (EXIF), decode limits, thumbnails and safe archive extraction. */
#ifndef CVIS_IO_H
#define CVIS_IO_H

#include "cvis_core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What EXIF says about an image; zero or empty where a tag is absent. */
typedef struct cvis_exif_info {
  int32_t orientation;          /* 1..8 as in the EXIF standard; 0 = absent */
  double focal_length_mm;       /* FocalLength */
  double focal_length_35mm;     /* FocalLengthIn35mmFilm */
  double focal_plane_x_resolution;  /* FocalPlaneXResolution, pixels per unit */
  double focal_plane_unit_mm;   /* FocalPlaneResolutionUnit converted to millimetres */
  int32_t pixel_width;          /* PixelXDimension (as stored, before orientation) */
  int32_t pixel_height;         /* PixelYDimension */
  char make[64];
  char model[64];
} cvis_exif_info;

/* Reads EXIF from a JPEG, a HEIF file (its primary image's Exif item) or any file libexif
 * understands. A file without EXIF is not an error: the result is all zeros. Fails only when the
 * file cannot be read. For HEIF the orientation is reported as written, but HEIF's own irot/imir
 * are what decoding applies (the standard says to ignore EXIF's there). */
cvis_status cvis_read_exif(const char* path, cvis_exif_info* out);

/* Width and height of an image after its EXIF orientation is applied (HEIF: after its own
 * transformations), decoding the header only where the format allows. Fails with CVIS_DECODE_ERROR on a corrupt or unknown file, and on a
 * truncated JPEG, PNG or HEIF ("NAME: truncated JPEG: ..."): the file is walked, without decoding,
 * to its end-of-image marker (JPEG, through every scan), IEND chunk (PNG) or the end of its last
 * top-level box (HEIF; "corrupt HEIF: ..." when a box header is garbage). */
cvis_status cvis_probe_image(const char* path, int32_t* width, int32_t* height);

/* What the image decoders accept. Every decode in the process (photos, masks, depth images,
 * thumbnails, texturing's photos, textures inside model files, video frames) first reads the size
 * the file's header declares and refuses it, before a pixel is allocated, when it is above
 * max_pixels: CVIS_LIMIT_EXCEEDED, "NAME: declares 30000×30000 = 900 MP, above the 120 MP limit
 * (--max-megapixels)". Formats without a header probe here (TIFF, WebP, BMP...) are not decoded
 * at all (CVIS_DECODE_ERROR): their size could only be learnt by decoding them. */
typedef struct cvis_decode_limits {
  uint64_t max_pixels;  /* default 120,000,000 (see decode_limits.cpp for why) */
} cvis_decode_limits;

void cvis_decode_limits_default(cvis_decode_limits* limits);

/* Sets the limits of every later decode in this process, on any thread (a process-wide setting,
 * like cvis_set_num_threads: one run per process). CVIS_INVALID_ARGUMENT for max_pixels 0. */
cvis_status cvis_set_decode_limits(const cvis_decode_limits* limits);

/* The limits in force. */
void cvis_get_decode_limits(cvis_decode_limits* limits);

/* Whether the image at path would be decoded: of a kind the decoders read (JPEG, PNG, HEIF, PNM)
 * and within the limits, judged from its header alone; the decoders' own check, with their
 * message, for a caller that wants the answer before it decodes (ingest). */
cvis_status cvis_check_decodable(const char* path);

/* Bytes the core produced (an encoded image), owned by the handle until cvis_buffer_destroy. */
typedef struct cvis_buffer cvis_buffer;

const uint8_t* cvis_buffer_data(const cvis_buffer* buffer);
size_t cvis_buffer_size(const cvis_buffer* buffer);
void cvis_buffer_destroy(cvis_buffer* buffer);

/* What the floats of cvis_read_heic_depth hold. */
typedef enum cvis_depth_values {
  CVIS_DEPTH_NORMALIZED = 0, /* the samples scaled to 0...1: no (or a non-uniform) representation */
  CVIS_DEPTH_Z = 1,          /* distance along the optical axis, in the file's units (z_near, z_far) */
  CVIS_DEPTH_DISPARITY = 2   /* disparity, in the file's units (d_min, d_max) */
} cvis_depth_values;

/* A HEIF depth image and its depth_representation_info (HEVC SEI in the auxC property). */
typedef struct cvis_heic_depth_info {
  int32_t width, height;     /* after the depth item's own transformations (not the primary's);
                                0 when no depth image */
  int32_t bit_depth;         /* of the coded samples (8, 10, 16...) */
  int32_t representation;    /* heif_depth_representation_type: 0 uniform inverse Z, 1 uniform
                                disparity, 2 uniform Z, 3 non-uniform disparity; -1 when absent */
  int32_t has_z_near, has_z_far, has_d_min, has_d_max;
  double z_near, z_far, d_min, d_max;
  int32_t values;            /* cvis_depth_values: what the float samples are */
} cvis_heic_depth_info;

/* Reads the depth image of a HEIF file's primary image. On success with a depth image, *values is
 * a new buffer of width * height floats (row-major, top row first, native byte order) the caller
 * destroys: v = sample / (2^bit_depth - 1) mapped by the representation (H.265 depth
 * representation info): uniform Z (0 = z_near, 1 = z_far) and uniform inverse Z (1/z linear,
 * 0 = 1/z_far, 1 = 1/z_near) give CVIS_DEPTH_Z when both bounds are present, uniform disparity
 * gives CVIS_DEPTH_DISPARITY (0 = d_min, 1 = d_max) when both are present, anything else stays
 * normalised. A file without a depth image is not an error: info is zero (width 0) and *values
 * NULL. CVIS_IO_ERROR / CVIS_DECODE_ERROR name the file (not a HEIF file, corrupt, truncated). */
cvis_status cvis_read_heic_depth(const char* path, cvis_heic_depth_info* info, cvis_buffer** values);

/* Reads a single-channel 8- or 16-bit PNG depth image as stored (no orientation applied): *values
 * is a new buffer of width * height floats, the coded samples unscaled (a 16-bit depth PNG in
 * millimetres gives millimetres; 0 = no depth), row-major from the top row. CVIS_DECODE_ERROR
 * names the file when it cannot be decoded or has more than one channel. */
cvis_status cvis_read_depth_png(const char* path, int32_t* width, int32_t* height, int32_t* bit_depth,
                                cvis_buffer** values);

/* A JPEG preview of the image at image_path: upright (EXIF orientation applied), area-downscaled
 * so that its longer side is at most max_side (1..8192; never upscaled), encoded at jpeg_quality
 * (1..100). JPEG input is decoded at a reduced scale where that loses nothing. On success *out is
 * a new buffer the caller destroys; on failure it is NULL (CVIS_IO_ERROR / CVIS_DECODE_ERROR
 * name the file). */
cvis_status cvis_make_thumbnail(const char* image_path, int32_t max_side, int32_t jpeg_quality,
                                cvis_buffer** out);

typedef struct cvis_unzip_limits {
  uint64_t max_total_bytes;     /* default 8 GiB: sum of all extracted entries */
  uint64_t max_entry_bytes;     /* default 1 GiB: one entry */
  uint64_t max_entries;         /* default 100000 */
  double max_compression_ratio; /* default 200: inflated / compressed bytes of an entry of at
                                   least 1 MiB (JPEG and PNG barely deflate; zip bombs do
                                   1000:1); at least 1 */
} cvis_unzip_limits;

void cvis_unzip_limits_default(cvis_unzip_limits* limits);

/* One entry of a zip archive as its headers declare it. */
typedef struct cvis_zip_entry {
  const char* path;       /* as cvis_unzip_entries takes it (UTF-8 where the archive says so) */
  uint64_t size;          /* declared bytes once inflated; 0 when size_known is 0 */
  int32_t size_known;
  int32_t is_directory;
} cvis_zip_entry;

/* Called once per listed entry; entry and its path are valid during the call only. */
typedef void (*cvis_zip_visitor)(const cvis_zip_entry* entry, void* user_data);

/* Lists a zip archive's entries from their headers, extracting nothing, so that a caller can
 * choose what to unpack and judge the total first. Entries cvis_unzip skips (__MACOSX/, dot
 * components) are not listed. Refuses the archive as cvis_unzip does for a hostile entry
 * (CVIS_UNSAFE_ARCHIVE) or more than limits->max_entries entries (limits NULL: the defaults);
 * CVIS_DECODE_ERROR / CVIS_IO_ERROR name the archive when it cannot be read. */
cvis_status cvis_zip_list(const char* archive_path, const cvis_unzip_limits* limits, cvis_zip_visitor visit,
                          void* user_data);

/* Extracts a zip archive into dest_dir (which must exist), keeping its folder structure.
 * Skips __MACOSX/ and any entry whose path has a component starting with '.'.
 * Refuses the whole archive (CVIS_UNSAFE_ARCHIVE, the entry named in the message) when an entry
 * is absolute, contains "..", or is a symbolic/hard link or device; CVIS_LIMIT_EXCEEDED when a cap
 * is passed. The caps are checked before anything is written, on the sizes the central directory
 * declares (entry, total, ratio), and again while streaming, on what comes out (entry, total,
 * ratio, and no more than the entry's header declared); an entry refused while streaming is
 * removed. On failure, files written before stay in dest_dir (the caller owns its cleanup). */
cvis_status cvis_unzip(const char* archive_path, const char* dest_dir,
                       const cvis_unzip_limits* limits, int32_t* files_written);

/* cvis_unzip of only the `count` entries whose paths (as cvis_zip_list gives them) are in
 * `paths`: the others are neither written nor counted against the caps, which apply to the chosen
 * entries alone. A hostile entry still refuses the whole archive, chosen or not. */
cvis_status cvis_unzip_entries(const char* archive_path, const char* dest_dir, const cvis_unzip_limits* limits,
                               const char* const* paths, int32_t count, int32_t* files_written);

#ifdef __cplusplus
}
#endif
#endif
