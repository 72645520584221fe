#!/usr/bin/env python3
"""Checks of pgscripts on small models and matrices written here, and on a real COLMAP model:

    python3 scripts/lib/test_pgscripts.py [-v]

The real model is $PGSCRIPTS_MODEL, else ../shared/datasets/templeRing/gt_sparse beside the
repository (skipped when neither exists). Standard library only.
"""

import math
import os
import random
import struct
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
import pgscripts  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
REAL_MODEL = Path(os.environ.get("PGSCRIPTS_MODEL",
                                 REPO.parent / "shared" / "datasets" / "templeRing" / "gt_sparse"))

CAMERAS = """# Camera list with one line of data per camera:
#   CAMERA_ID, MODEL, WIDTH, HEIGHT, PARAMS[]
2 SIMPLE_RADIAL 640 480 500 320 240 0.01
1 PINHOLE 800 600 700.5 701 400 300
"""
# Image 3 has no 2D points (an empty line); a blank line stands before image 7.
IMAGES = """# Image list with two lines of data per image:
#   IMAGE_ID, QW, QX, QY, QZ, TX, TY, TZ, CAMERA_ID, NAME
#   POINTS2D[] as (X, Y, POINT3D_ID)
5 1 0 0 0 1 2 3 1 a.png
10.5 20.5 -1 30 40 7
3 0 0 0 2 -1 0 0.5 2 b.png


7 0.5 0.5 0.5 0.5 0 0 4 1 c d.png
1 2 3
"""


def temporary_folder(test):
    folder = tempfile.TemporaryDirectory()
    test.addCleanup(folder.cleanup)
    return Path(folder.name)


def matmul(a, b):
    return [[sum(a[r][k] * b[k][c] for k in range(len(b))) for c in range(len(b[0]))] for r in range(len(a))]


def transpose(a):
    return [list(column) for column in zip(*a)]


def random_quaternion(rng):
    q = [rng.gauss(0, 1) for _ in range(4)]
    n = math.sqrt(sum(v * v for v in q))
    return [v / n for v in q]


class ModelTests(unittest.TestCase):
    def setUp(self):
        self.folder = temporary_folder(self)
        (self.folder / "cameras.txt").write_text(CAMERAS)
        (self.folder / "images.txt").write_text(IMAGES)

    def test_cameras_by_id_in_file_order(self):
        cameras = pgscripts.read_cameras(self.folder)
        self.assertEqual(list(cameras), [2, 1])
        self.assertEqual(cameras[1], ("PINHOLE", 800, 600, [700.5, 701.0, 400.0, 300.0]))
        self.assertEqual(cameras[2].model, "SIMPLE_RADIAL")
        self.assertEqual(cameras[2].params, [500.0, 320.0, 240.0, 0.01])

    def test_images_in_file_order_with_poses(self):
        images = pgscripts.read_images(self.folder)
        self.assertEqual([(i.id, i.name, i.camera_id) for i in images],
                         [(5, "a.png", 1), (3, "b.png", 2), (7, "c d.png", 1)])
        self.assertEqual(images[0].R, ((1, 0, 0), (0, 1, 0), (0, 0, 1)))
        self.assertEqual(images[0].t, (1.0, 2.0, 3.0))
        # (0, 0, 0, 2) normalises to a half turn about z.
        self.assertEqual(images[1].qvec, (0.0, 0.0, 0.0, 2.0))
        self.assertEqual(images[1].R, ((-1, 0, 0), (0, -1, 0), (0, 0, 1)))
        self.assertEqual(pgscripts.camera_centre(images[1].R, images[1].t), (-1.0, 0.0, -0.5))
        # (0.5, 0.5, 0.5, 0.5): a third of a turn about (1, 1, 1), x -> y -> z.
        self.assertEqual(images[2].R, ((0, 0, 1), (1, 0, 0), (0, 1, 0)))
        self.assertEqual(pgscripts.camera_centre(images[2].R, images[2].t), (0.0, -4.0, 0.0))

    def test_a_short_image_line_names_its_place(self):
        (self.folder / "images.txt").write_text("# comment\n1 1 0 0 0 0 0 0 1\n\n")
        with self.assertRaisesRegex(ValueError, r"images.txt:2: expected 10 fields, found 9"):
            pgscripts.read_images(self.folder)


class DepthMapTests(unittest.TestCase):
    def test_reads_the_depth_plane(self):
        path = temporary_folder(self) / "a.cvdm"
        depths = [0.0, 1.5, 2.25, 3.0, -1.0, 4.0]
        # Then three normal planes and a cost plane, which are not read.
        path.write_bytes(b"CVISDM01" + struct.pack("<ii", 3, 2) + struct.pack("<6f", *depths) + bytes(4 * 6 * 4))
        width, height, read = pgscripts.read_depth_map(path)
        self.assertEqual((width, height, list(read)), (3, 2, depths))

    def test_refuses_another_file(self):
        path = temporary_folder(self) / "b.cvdm"
        path.write_bytes(b"NOTADEPTHMAP" + b"\0" * 16)
        with self.assertRaisesRegex(ValueError, "not a CVISDM01 depth map"):
            pgscripts.read_depth_map(path)


class RotationTests(unittest.TestCase):
    def test_rotations_are_orthonormal_and_round_trip(self):
        rng = random.Random(3)
        for _ in range(500):
            q = random_quaternion(rng)
            R = pgscripts.quaternion_to_rotation(*q)
            product = matmul(R, transpose(R))
            for r in range(3):
                for c in range(3):
                    self.assertAlmostEqual(product[r][c], float(r == c), delta=1e-14)
            back = pgscripts.rotation_to_quaternion(R)
            self.assertGreaterEqual(back[0], 0)
            sign = 1 if q[0] >= 0 else -1
            for a, b in zip(back, q):
                self.assertAlmostEqual(a, sign * b, delta=1e-14)

    def test_scale_of_the_quaternion_does_not_matter(self):
        q = (0.3, -0.2, 0.9, 0.1)
        n = math.sqrt(sum(v * v for v in q))
        R = pgscripts.quaternion_to_rotation(*q)
        self.assertEqual(R, pgscripts.unit_quaternion_to_rotation(*(v / n for v in q)))
        for row, scaled_row in zip(R, pgscripts.quaternion_to_rotation(*(5 * v for v in q))):
            for a, b in zip(row, scaled_row):
                self.assertAlmostEqual(a, b, delta=1e-15)

    def test_shepperd_takes_each_branch(self):
        # Trace > 0, then the largest diagonal entry on x, y and z (half turns about each axis).
        for q in [(1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 1, 0), (0, 0, 0, 1), (0.1, 0.7, 0.7, 0.1)]:
            n = math.sqrt(sum(v * v for v in q))
            expected = [v / n for v in q]
            back = pgscripts.rotation_to_quaternion(pgscripts.quaternion_to_rotation(*q))
            for a, b in zip(back, expected):
                self.assertAlmostEqual(a, b, delta=1e-15)


class EigenTests(unittest.TestCase):
    def test_decomposes_symmetric_matrices(self):
        rng = random.Random(5)
        for n in (2, 3, 4):
            for _ in range(50):
                b = [[rng.uniform(-3, 3) for _ in range(n)] for _ in range(n)]
                a = [[b[r][c] + b[c][r] for c in range(n)] for r in range(n)]
                values, v = pgscripts.jacobi_eigen(a)
                self.assertEqual(a, [[b[r][c] + b[c][r] for c in range(n)] for r in range(n)], "input changed")
                diagonal = [[values[r] if r == c else 0.0 for c in range(n)] for r in range(n)]
                rebuilt = matmul(matmul(v, diagonal), transpose(v))
                for r in range(n):
                    for c in range(n):
                        self.assertAlmostEqual(rebuilt[r][c], a[r][c], delta=1e-12)
                        self.assertAlmostEqual(matmul(transpose(v), v)[r][c], float(r == c), delta=1e-13)

    def test_known_values(self):
        values, _ = pgscripts.jacobi_eigen([[2.0, 1.0, 0.0], [1.0, 2.0, 0.0], [0.0, 0.0, 5.0]])
        self.assertEqual(sorted(round(v, 12) for v in values), [1.0, 3.0, 5.0])
        values, v = pgscripts.jacobi_eigen([[4.0, 0.0], [0.0, -1.0]])
        self.assertEqual((values, v), ([4.0, -1.0], [[1.0, 0.0], [0.0, 1.0]]))


@unittest.skipUnless((REAL_MODEL / "images.txt").exists(), f"no {REAL_MODEL}/images.txt")
class RealModelTests(unittest.TestCase):
    def test_every_image_and_camera(self):
        text = (REAL_MODEL / "images.txt").read_text().splitlines()
        lines = [l for l in text if l.strip() and not l.startswith("#")]
        images = pgscripts.read_images(REAL_MODEL)
        cameras = pgscripts.read_cameras(REAL_MODEL)
        self.assertGreater(len(images), 2)
        self.assertLessEqual(len(images), len(lines))
        self.assertEqual(len({i.name for i in images}), len(images))
        for image in images:
            self.assertIn(image.camera_id, cameras)
            fields = next(l.split() for l in lines
                          if l.split()[0] == str(image.id) and l.split()[9:] == image.name.split())
            self.assertEqual(image.qvec, tuple(float(v) for v in fields[1:5]))
            self.assertEqual(image.t, tuple(float(v) for v in fields[5:8]))
            product = matmul(image.R, transpose(image.R))
            for r in range(3):
                for c in range(3):
                    self.assertAlmostEqual(product[r][c], float(r == c), delta=1e-12)
            # The centre maps back to the camera's origin.
            centre = pgscripts.camera_centre(image.R, image.t)
            for r in range(3):
                self.assertAlmostEqual(sum(image.R[r][k] * centre[k] for k in range(3)) + image.t[r], 0.0,
                                       delta=1e-9 * (1 + max(abs(v) for v in image.t)))


if __name__ == "__main__":
    unittest.main()
