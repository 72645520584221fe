/*
 * CVision: the C boundary of Photogrammetry's C++ core.
 *
 * Modelled on Ceres's c_api.h: opaque handles with create/destroy pairs, plain structs of
 * options with a *_default() initialiser, every fallible call returns a cvis_status and leaves a
 * thread-local message behind for cvis_last_error_message(). No C++ exception crosses this line,
 * and C never keeps a caller's pointer after a call returns.
 *
 * Conventions (as COLMAP): image coordinates in pixels with the top-left image corner at (0, 0),
 * so the centre of the first pixel is (0.5, 0.5). Poses are cam_from_world: x_cam = R x_world + t,
 * with R as an angle-axis 3-vector where a call says so. Matrices are row-major.
 */
#ifndef CVISION_H
#define CVISION_H

#include "cvis_core.h"
#include "cvis_io.h"
#include "cvis_video.h"
#include "cvis_feature.h"
#include "cvis_guided_matching.h"
#include "cvis_retrieval.h"
#include "cvis_two_view.h"
#include "cvis_geometry.h"
#include "cvis_markers.h"
#include "cvis_bundle.h"
#include "cvis_mvs.h"
#include "cvis_cloud.h"
#include "cvis_texture.h"
#include "cvis_render.h"
#include "cvis_segment.h"
#include "cvis_turn.h"

#endif
