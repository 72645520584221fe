// A room's planes in a sample of matched points: its dominant surfaces and its envelope. The
// planar-prior pass looks for them in one view's pixels (camera frame); the room's envelope is
// looked for once in every view's (world frame), where all of the room's creases are together.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include <opencv2/core.hpp>

#include "workspace.h"

namespace cvis {
namespace mvs {
namespace internal {

// Sure: mean 1 - NCC of the best views at most this (NCC 0.75). Photometry accepts pixels up to
// the filter's cost (0.5), but a bare ceiling's faint shading matches somewhere along any
// horizontal crease or gradient: in one view of the rendered bare room, 95 % of the ceiling's
// 10,129 accepted pixels above this cost were more than 2 % off their depth, and over the whole
// view 94 % of the pixels below it were within 2 %, 61 % of those between. So planes are found
// among sure pixels.
constexpr float kSureCost = 0.25f;

// Two planes this close to perpendicular are two walls, or a wall and the floor, of a room built
// square; this close to parallel, they face the same way.
constexpr double kSquareDeg = 5;

// A point within kPlaneTolerance of its depth lies on a plane: PatchMatch's depths on a
// textured plane scatter by about half of that.
constexpr double kPlaneTolerance = 0.01;

// A view sees beyond a surface (through a doorway, a window, past where a wall ends) where its
// sure depth there is farther than the surface by more than this share: five times
// kPlaneTolerance, so that a view's own matching noise on the surface is not read as seeing
// through it.
constexpr double kSeenBeyond = 0.05;

// A point whose normal is within 45 degrees of a side's axis faces along it: it lies on the side
// (or on its crease) rather than on a wall across it.
inline const double kFacingCosine = std::cos(M_PI / 4);

// A side's own points (facing along its axis) are at least this share of the band on it: on the
// rendered bare room's ceiling, a third (its creases, the rest the walls' points by them); where a
// rendered room's walls fade out below a ceiling its views barely see, 3 % (the walls' points with
// noisy normals).
constexpr double kOwnShare = 0.1;

struct Plane {
  double n[3];  // unit, towards the viewpoint
  double d;     // n . X + d = 0; n . viewpoint + d > 0
  bool valid;
};

// A matched point and its depth in the view that matched it: a match's error, and so every
// tolerance, scales with that depth. Its normal is that of the plane it was matched on, where the
// search uses it (EnvelopeSearch::oriented).
struct SamplePoint {
  cv::Vec3d X;
  double depth;
  cv::Vec3d normal = cv::Vec3d(0, 0, 0);
};

// The distance of the point X from the plane, along its normal.
double PlaneDistance(const Plane& p, const double* X);

// The signed distance of `viewpoint` from the plane: positive on the side its normal faces.
double ViewpointDistance(const Plane& p, const cv::Vec3d& viewpoint);

// A world-frame plane in `view`'s camera frame: n . X_w + d = 0 with X_w = R^T (X - t) is
// (R n) . X + d - (R n) . t = 0.
Plane CameraPlane(const Plane& world, const View& view);

// Which of the first `count` of `sides` (normals into a box the camera stands in) the
// camera-frame ray leaves the box through, and the z-depth where it does (the ray's z is 1);
// count when it leaves through none.
size_t ExitSide(const std::vector<Plane>& sides, size_t count, const double* ray, double* depth);

// The room's envelope as planes: the box's six sides (normals into it), then for each of its
// corners cut off by a notch (room_envelope.cpp) the notch's two faces, their normals into the
// room: the notch is what lies behind both. Which of them the camera-frame ray leaves the room
// through, box side or the notch face it enters by first, and its z-depth there (the ray's z is
// 1); envelope.size() when it leaves through none. The camera stands in the room.
constexpr size_t kBoxSides = 6;
// Whether `count` planes can be a room's envelope: the box's sides, and two per notch, at most
// CVIS_MVS_ROOM_ENVELOPE_MAX_PLANES.
constexpr bool IsEnvelopeCount(int64_t count) {
  return count >= int64_t(kBoxSides) && count <= CVIS_MVS_ROOM_ENVELOPE_MAX_PLANES && count % 2 == 0;
}
size_t RoomExit(const std::vector<Plane>& envelope, const double* ray, double* depth);

// Whether the point lies on the plane: within kPlaneTolerance of its depth.
bool OnPlane(const Plane& p, const SamplePoint& point);

// Up to eight planes through `points`, most supported first, each refitted to its inliers by
// least squares; the normals face `viewpoint` (the camera, or the middle of the cameras).
std::vector<Plane> DominantPlanes(std::vector<SamplePoint> points, const cv::Vec3d& viewpoint, uint64_t seed);

// How envelope planes are looked for: in one view's sure pixels or in every view's.
struct EnvelopeSearch {
  double min_share;  // of the sample that must lie on a plane
  bool oriented;     // the points' normals tell a side's own points from the walls' across it,
                     // and each plane's normal is refitted to its own points
};
// A view sees a crease or two of a side: the share of a line, not of a surface; and they lie on
// a line, which fixes no normal.
constexpr EnvelopeSearch kViewEnvelope{0.01, false};
// Every view together holds the creases of every side, which span it; but each side's share is
// diluted by the walls most views face (in the rendered bare room, the ceiling's creases held
// 1 % of the sure pixels).
constexpr EnvelopeSearch kSceneEnvelope{0.005, true};

// The room's envelope planes around `viewpoint`, one per side of its three square directions
// that the points reach (at most six), once two of `found` are square to each other (see
// planes.cpp).
std::vector<Plane> EnvelopePlanes(const std::vector<Plane>& found, const std::vector<SamplePoint>& points,
                                  const cv::Vec3d& viewpoint, const EnvelopeSearch& search);

// Whether one of `found` is `plane`: within kSquareDeg of parallel, and as far from the viewpoint
// within twice kPlaneTolerance.
bool HoldsPlane(const std::vector<Plane>& found, const Plane& plane, const cv::Vec3d& viewpoint);

}  // namespace internal
}  // namespace mvs
}  // namespace cvis
