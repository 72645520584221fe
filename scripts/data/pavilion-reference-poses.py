#!/usr/bin/env python3
"""pavilion-outer's reference poses, as a COLMAP text model, from the dataset's own 3x4 cameras.

The Barcelona Pavilion dataset (github rfabbri/pavilion-multiview-3d-dataset, CC-BY 2.0) gives each
frame of outer-sequence a 3x4 projection matrix (outer-sequence/cameras/NNN.projmatrix, three
rows of four numbers). Each is split as P = K [R | t] (RQ decomposition, K's diagonal made
positive): R and t are the frame's cam_from_world. The matrices' K has a focal length of 135 px,
not the 315-334 px the images show (COLMAP 4 and ours agree on those), so K is written but must
not be trusted; the poses agree with the images: the relative rotation between consecutive frames
matches our model's to a few hundredths of a degree and the direction of travel in the camera's
frame to 1.6 degrees (median), so `photogrammetry compare` may score models against them.

usage: scripts/data/pavilion-reference-poses.py PROJMATRIX_DIR OUT_DIR   (writes OUT_DIR/{cameras,images,points3D}.txt)
"""
import os
import sys

import numpy as np
from scipy.linalg import rq

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "lib"))
from pgscripts import rotation_to_quaternion  # noqa: E402


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    source, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    frames, focal = [], []
    for n in range(1, 101):
        P = np.loadtxt(os.path.join(source, "%03d.projmatrix" % n))
        K, R = rq(P[:, :3])
        signs = np.diag(np.sign(np.diag(K)))
        K, R = K @ signs, signs @ R
        t = np.linalg.solve(K, P[:, 3])
        if np.linalg.det(R) < 0:  # P given up to a negative factor
            R, t = -R, -t
        K = K / K[2, 2]
        focal.append((K[0, 0], K[1, 1], K[0, 2], K[1, 2]))
        frames.append((n, rotation_to_quaternion(R), t))
    fx, fy, cx, cy = np.mean(focal, axis=0)
    with open(os.path.join(out, "cameras.txt"), "w") as f:
        f.write("# The matrices' own intrinsics (not the images'; see scripts/data/pavilion-reference-poses.py)\n")
        f.write("1 PINHOLE 640 360 %.6f %.6f %.6f %.6f\n" % (fx, fy, cx, cy))
    with open(os.path.join(out, "images.txt"), "w") as f:
        f.write("# IMAGE_ID QW QX QY QZ TX TY TZ CAMERA_ID NAME, then an empty line of 2D points\n")
        for n, q, t in frames:
            f.write("%d %s %s 1 midday-640x-%04d.jpg\n\n" % (n, " ".join("%.12f" % x for x in q),
                                                            " ".join("%.9f" % x for x in t), n))
    open(os.path.join(out, "points3D.txt"), "w").close()
    print("%d frames -> %s" % (len(frames), out))


if __name__ == "__main__":
    main()
