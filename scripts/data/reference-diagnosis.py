#!/usr/bin/env python3
"""Reference capture diagnostics from a COLMAP text model (cross-check for CaptureGeometry).

Usage: scripts/data/reference-diagnosis.py GT_SPARSE_DIR [--names-first N]

Reads GT_SPARSE_DIR/images.txt (one line `IMAGE_ID QW QX QY QZ TX TY TZ CAMERA_ID NAME` per image,
the world-to-camera rotation as a Hamilton quaternion, then one POINTS2D line), optionally keeps
only the first N images by name, and prints one JSON object:

    {"azimuth_coverage_deg": ..., "elevation_spread_deg": ..., "up_source": ..., "cameras": N}

The measures are the reference definitions of /work/shared/DESIGN.md ("Capture diagnostics"),
written from the text and not from the Swift code, so that the two can check each other:
  - object centre: the point closest, in least squares, to all optical axes, i.e. the solution of
    sum(I - d d^T) x = sum(I - d d^T) c over cameras (d: unit viewing direction, c: centre);
  - up: the mean of the cameras' up vectors (-y of the OpenCV camera) when that mean has length
    >= 0.5, else the normal of the best-fit plane through the camera centres (the eigenvector of
    the smallest eigenvalue of their scatter, found with Jacobi rotations);
  - azimuth and elevation of (centre - object centre) about up; the azimuth coverage is 360 minus
    the largest gap between angularly consecutive azimuths; the spread is max - min elevation.
The sign of "up" and the azimuth's zero direction change neither coverage nor spread, so this
script uses simple choices (sign: agree with the mean up vector; zero: the world axis least aligned
with up) that differ on purpose from the Swift ones. The Swift CaptureGeometry refines "up" in two
documented ways (level camera x axes instead of the pitch-biased mean up vector; the ring plane over
an in-plane mean up), so the two agree wherever those do not apply and differ, by design, on
partial arcs of pitched cameras such as DTU. Python 3 standard library only.
"""

import argparse
import json
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "lib"))
from pgscripts import camera_centre, jacobi_eigen, read_images  # noqa: E402


def dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def sub(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def scale(s, a):
    return (s * a[0], s * a[1], s * a[2])


def norm(a):
    return math.sqrt(dot(a, a))


def cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def solve3(a, b):
    """Solves the 3x3 system a x = b by Gaussian elimination with partial pivoting."""
    m = [list(a[r]) + [b[r]] for r in range(3)]
    for col in range(3):
        pivot = max(range(col, 3), key=lambda r: abs(m[r][col]))
        if abs(m[pivot][col]) < 1e-12:
            raise SystemExit("degenerate layout: the optical axes do not determine a centre")
        m[col], m[pivot] = m[pivot], m[col]
        for r in range(3):
            if r != col:
                f = m[r][col] / m[col][col]
                m[r] = [m[r][k] - f * m[col][k] for k in range(4)]
    return tuple(m[r][3] / m[r][r] for r in range(3))


def diagnose(images):
    centres, views, ups = [], [], []
    for image in images:
        # The rows of R are the camera axes in world coordinates.
        centres.append(camera_centre(image.R, image.t))
        views.append(image.R[2])
        ups.append(scale(-1, image.R[1]))
    n = len(centres)

    a = [[0.0] * 3 for _ in range(3)]
    b = [0.0] * 3
    for c, d in zip(centres, views):
        d = scale(1 / norm(d), d)
        p = [[(1.0 if r == k else 0.0) - d[r] * d[k] for k in range(3)] for r in range(3)]
        for r in range(3):
            for k in range(3):
                a[r][k] += p[r][k]
            b[r] += dot(p[r], c)
    centre = solve3(a, b)

    mean_up = scale(1 / n, tuple(sum(u[k] for u in ups) for k in range(3)))
    if norm(mean_up) >= 0.5:
        up, source = scale(1 / norm(mean_up), mean_up), "camera up vectors"
    else:
        mean_c = scale(1 / n, tuple(sum(c[k] for c in centres) for k in range(3)))
        scatter = [[sum((c[r] - mean_c[r]) * (c[k] - mean_c[k]) for c in centres) for k in range(3)] for r in range(3)]
        values, vectors = jacobi_eigen(scatter)
        smallest = min(range(3), key=lambda k: values[k])
        up = tuple(vectors[r][smallest] for r in range(3))
        if dot(up, mean_up) < 0:
            up = scale(-1, up)
        source = "camera-centre plane"

    axis = min(((1, 0, 0), (0, 1, 0), (0, 0, 1)), key=lambda e: abs(dot(e, up)))
    e1 = sub(axis, scale(dot(axis, up), up))
    e1 = scale(1 / norm(e1), e1)
    e2 = cross(up, e1)
    azimuths, elevations = [], []
    for c in centres:
        v = sub(c, centre)
        azimuths.append(math.degrees(math.atan2(dot(v, e2), dot(v, e1))) % 360.0)
        elevations.append(math.degrees(math.asin(max(-1.0, min(1.0, dot(v, up) / norm(v))))))

    ordered = sorted(azimuths)
    gaps = [b_ - a_ for a_, b_ in zip(ordered, ordered[1:])] + [ordered[0] + 360.0 - ordered[-1]]
    coverage = 360.0 - max(gaps) if n > 1 else 0.0
    return {
        "azimuth_coverage_deg": round(coverage, 3),
        "elevation_spread_deg": round(max(elevations) - min(elevations), 3),
        "up_source": source,
        "cameras": n,
    }


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("model", help="COLMAP text model directory (with images.txt)")
    parser.add_argument("--names-first", type=int, metavar="N", help="keep only the first N images by name")
    args = parser.parse_args(argv)
    try:
        images = read_images(args.model)
    except ValueError as error:
        raise SystemExit(str(error))
    images.sort(key=lambda image: image.name)
    if args.names_first is not None:
        images = images[: args.names_first]
    if len(images) < 3:
        raise SystemExit(f"need at least 3 images, found {len(images)}")
    print(json.dumps(diagnose(images)))


if __name__ == "__main__":
    main(sys.argv[1:])
