/* Video input: a video file decoded through OpenCV's video I/O (FFmpeg), measured frame by frame
 * for keyframe selection, and chosen frames written as JPEG. */
#ifndef CVIS_VIDEO_H
#define CVIS_VIDEO_H

#include "cvis_core.h"
#include "cvis_io.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a video's container says, read without decoding a frame. */
typedef struct cvis_video_info {
  int32_t width, height;   /* of the frames as displayed: rotation applied */
  double fps;              /* average frame rate; 0 when the container gives none */
  int64_t frame_count;     /* the container's estimate (cvis_video_measure counts them) */
  int32_t rotation_deg;    /* display rotation, clockwise: 0, 90, 180 or 270 */
  char codec[8];           /* FourCC of the video stream ("avc1", "hvc1", ...), NUL-terminated */
} cvis_video_info;

/* Opens the video and reads its info. CVIS_DECODE_ERROR names the file when it cannot be opened
 * as a video (not one, corrupt, an unknown codec). Rotation comes from the stream's display
 * matrix: OpenCV's own auto-rotation is switched off, because OpenCV 4.6 turns 90° and 270°
 * videos the wrong way (opencv/opencv#22088), and the frames this API returns are turned here. */
cvis_status cvis_video_probe(const char* path, cvis_video_info* info);

/* How frames are measured. */
typedef struct cvis_video_measure_options {
  int32_t sharpness_side;  /* default 640: longer side of the grey copy sharpness is measured on */
  int32_t flow_side;       /* default 320: longer side of the grey copy points are tracked on */
  int32_t max_points;      /* default 300: corners tracked */
  double reseed_tracked;   /* default 0.5: new corners once fewer of those found last remain */
  double renew_distance;   /* default 0.02 of the longer side: a new reference frame once the
                              picture moved this far from it (shake below it cancels out) */
} cvis_video_measure_options;

void cvis_video_measure_options_default(cvis_video_measure_options* options);

/* One decoded frame's measures. */
typedef struct cvis_video_frame_measure {
  double sharpness;  /* variance of the Laplacian of the grey copy (levels², 0..255 grey) */
  double motion;     /* change, since the previous frame, of the tracked points' median distance
                        from where they were in the reference frame, as a fraction of the
                        frame's longer side (tracks that do not come back to within a pixel when
                        followed backwards left out); negative when the camera moves back. The
                        sum over frames is how far the picture travelled, in steps of at least
                        renew_distance, so that shake does not add up */
  double tracked;    /* fraction of the points found at the last reseed still tracked */
  double time_s;     /* presentation time, seconds */
  int32_t lost;      /* 1 when tracking from the previous frame failed (a cut, a jump too large
                        to follow): motion is then 0 and new corners are found in this frame */
} cvis_video_frame_measure;

/* Called after every decoded frame with the count so far; a nonzero return cancels the call
 * (CVIS_INVALID_ARGUMENT "cancelled"). */
typedef int32_t (*cvis_video_progress)(int64_t frames_done, void* user_data);

/* Decodes every frame of the video in order (no seeking) and measures it. On success *measures
 * is a new buffer of *frames cvis_video_frame_measure structs the caller destroys. Decoding stops
 * at the first frame that cannot be decoded (a truncated tail); no frame at all is
 * CVIS_DECODE_ERROR naming the file. progress may be NULL. */
cvis_status cvis_video_measure(const char* path, const cvis_video_measure_options* options,
                               cvis_video_progress progress, void* user_data,
                               cvis_buffer** measures, int64_t* frames);

/* Decodes the video again in order and writes the frames with the given indices (ascending,
 * from 0) as upright JPEG files (rotation applied) at jpeg_quality (1..100), frame indices[k] to
 * paths[k]. CVIS_DECODE_ERROR when the video ends before the last index; CVIS_IO_ERROR names a
 * file that cannot be written. */
cvis_status cvis_video_write_frames(const char* path, const int64_t* indices, const char* const* paths,
                                    int32_t count, int32_t jpeg_quality, cvis_video_progress progress,
                                    void* user_data);

#ifdef __cplusplus
}
#endif
#endif
