/* Status codes, the thread-local error message and global settings. */
#ifndef CVIS_CORE_H
#define CVIS_CORE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cvis_status {
  CVIS_OK = 0,
  CVIS_INVALID_ARGUMENT = 1,  /* a size, index or option is out of range */
  CVIS_IO_ERROR = 2,          /* a file could not be opened, read or written */
  CVIS_DECODE_ERROR = 3,      /* an image or archive is corrupt or of an unknown format */
  CVIS_NOT_ENOUGH_DATA = 4,   /* too few points or matches for a reliable estimate */
  CVIS_NO_CONVERGENCE = 5,    /* an estimator or solver found no acceptable answer */
  CVIS_UNSAFE_ARCHIVE = 6,    /* an archive entry would escape the destination (.., /, link) */
  CVIS_LIMIT_EXCEEDED = 7,    /* an archive or image is larger than the configured cap */
  CVIS_NO_SPACE = 8,          /* a write failed for want of disk space or quota */
  CVIS_OUT_OF_MEMORY = 9,     /* an allocation, or a thread's start, failed */
  CVIS_INTERNAL_ERROR = 99    /* an unexpected exception inside the core */
} cvis_status;

/* The message of the last failed call on this thread ("" when there is none). Valid until the
 * next CVision call on the same thread. */
const char* cvis_last_error_message(void);

/* Threads OpenCV may use inside one call (0 = library default). Our own parallel loops take an
 * explicit count in their options. */
void cvis_set_num_threads(int32_t num_threads);

/* Versions of the linked libraries, e.g. "OpenCV 4.6.0, Ceres 2.1.0". Static storage. */
const char* cvis_version_string(void);

#ifdef __cplusplus
}
#endif
#endif
