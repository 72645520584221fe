"""What several scripts read and compute alike: COLMAP text models, our depth maps, rotations
and a symmetric eigensolver. Standard library only, so that a script that needs nothing else
still needs nothing else; numpy callers wrap the tuples.

A script in scripts/DIR/ imports it with
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "lib"))
Its checks: python3 scripts/lib/test_pgscripts.py
"""

import array
import math
import struct
import sys
from pathlib import Path
from typing import NamedTuple

# ---------------------------------------------------------------------------------------------
# COLMAP text models


class Camera(NamedTuple):
    """One line of cameras.txt (after its id)."""
    model: str
    width: int
    height: int
    params: list


class Image(NamedTuple):
    """One image of images.txt. R (rows) and t are its cam_from_world pose, X_cam = R X_world + t;
    R comes from qvec, normalised."""
    id: int
    qvec: tuple  # (w, x, y, z) as written
    R: tuple
    t: tuple
    camera_id: int
    name: str


def read_cameras(folder) -> dict:
    """{camera id: Camera} of FOLDER/cameras.txt, in file order."""
    cameras = {}
    for line in (Path(folder) / "cameras.txt").read_text(encoding="utf-8").splitlines():
        fields = line.split()
        if fields and not fields[0].startswith("#"):
            cameras[int(fields[0])] = Camera(fields[1], int(fields[2]), int(fields[3]),
                                             [float(v) for v in fields[4:]])
    return cameras


def read_images(folder) -> list:
    """The Images of FOLDER/images.txt in file order. Each image takes two lines: its own, then its
    2D points (a line that may be empty); comments and blank lines before an image are skipped."""
    path = Path(folder) / "images.txt"
    lines = path.read_text(encoding="utf-8").splitlines()
    images = []
    i = 0
    while i < len(lines):
        line = lines[i].strip()
        i += 1
        if not line or line.startswith("#"):
            continue
        fields = line.split()
        if len(fields) < 10:
            raise ValueError(f"{path}:{i}: expected 10 fields, found {len(fields)}")
        qvec = tuple(float(v) for v in fields[1:5])
        images.append(Image(int(fields[0]), qvec, quaternion_to_rotation(*qvec),
                            tuple(float(v) for v in fields[5:8]), int(fields[8]), " ".join(fields[9:])))
        i += 1  # the 2D points
    return images


# ---------------------------------------------------------------------------------------------
# Our depth maps


def read_depth_map(path):
    """(width, height, depths) of our depth map file ("CVISDM01", int32 w, h, then float32 planes:
    depth first, row-major; the normal and cost planes after it are not read)."""
    with open(path, "rb") as f:
        magic = f.read(8)
        if magic != b"CVISDM01":
            raise ValueError(f"{path}: not a CVISDM01 depth map")
        width, height = struct.unpack("<ii", f.read(8))
        depths = array.array("f")
        depths.frombytes(f.read(4 * width * height))
    if sys.byteorder != "little":
        depths.byteswap()
    return width, height, depths


# ---------------------------------------------------------------------------------------------
# Rotations


def quaternion_to_rotation(w, x, y, z):
    """Rows of the rotation of the Hamilton quaternion (w, x, y, z), normalised first."""
    n = math.sqrt(w * w + x * x + y * y + z * z)
    return unit_quaternion_to_rotation(w / n, x / n, y / n, z / n)


def unit_quaternion_to_rotation(w, x, y, z):
    """Rows of the rotation of a unit Hamilton quaternion, taken as it is: a caller that normalises
    its own way (numpy's norm rounds differently from a plain sum) keeps its own last bits."""
    return ((1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)),
            (2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)),
            (2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)))


def rotation_to_quaternion(m):
    """(w, x, y, z), w >= 0, of a rotation matrix m[row][column], by Shepperd's method: it starts
    from the largest of the trace and the diagonal, so it never divides by a small number. Not
    normalised: a rotation gives a unit quaternion up to rounding."""
    trace = m[0][0] + m[1][1] + m[2][2]
    if trace > 0:
        s = 2 * math.sqrt(trace + 1)
        q = [s / 4, (m[2][1] - m[1][2]) / s, (m[0][2] - m[2][0]) / s, (m[1][0] - m[0][1]) / s]
    else:
        i = max(range(3), key=lambda k: m[k][k])
        j, k = (i + 1) % 3, (i + 2) % 3
        s = 2 * math.sqrt(1 + m[i][i] - m[j][j] - m[k][k])
        q = [0.0] * 4
        q[0] = (m[k][j] - m[j][k]) / s
        q[1 + i] = s / 4
        q[1 + j] = (m[j][i] + m[i][j]) / s
        q[1 + k] = (m[k][i] + m[i][k]) / s
    return tuple(q) if q[0] >= 0 else tuple(-v for v in q)


def camera_centre(R, t):
    """The centre -R^T t of a camera with cam_from_world pose R (rows), t."""
    return tuple(-(R[0][c] * t[0] + R[1][c] * t[1] + R[2][c] * t[2]) for c in range(3))


# ---------------------------------------------------------------------------------------------
# Symmetric eigenproblem


def jacobi_eigen(a):
    """Eigenvalues and eigenvectors (the columns of the second result) of a small symmetric matrix,
    by cyclic Jacobi rotations until no off-diagonal entry reaches 1e-15 (at most 100 sweeps)."""
    n = len(a)
    a = [list(row) for row in a]
    v = [[float(i == j) for j in range(n)] for i in range(n)]
    for _ in range(100):
        off = max(abs(a[i][j]) for i in range(n) for j in range(n) if i != j)
        if off < 1e-15:
            break
        for p in range(n):
            for q in range(p + 1, n):
                if abs(a[p][q]) < 1e-300:
                    continue
                theta = (a[q][q] - a[p][p]) / (2 * a[p][q])
                t = (1 if theta >= 0 else -1) / (abs(theta) + math.sqrt(theta * theta + 1))
                c = 1 / math.sqrt(t * t + 1)
                s = t * c
                for k in range(n):  # A <- A J
                    akp, akq = a[k][p], a[k][q]
                    a[k][p], a[k][q] = c * akp - s * akq, s * akp + c * akq
                for k in range(n):  # A <- J^T A
                    apk, aqk = a[p][k], a[q][k]
                    a[p][k], a[q][k] = c * apk - s * aqk, s * apk + c * aqk
                for k in range(n):  # V <- V J
                    vkp, vkq = v[k][p], v[k][q]
                    v[k][p], v[k][q] = c * vkp - s * vkq, s * vkp + c * vkq
    return [a[i][i] for i in range(n)], v
