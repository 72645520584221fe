#!/usr/bin/env python3
"""Checks of room_benchmark's measures on meshes with known answers (a few seconds):

    python3 scripts/bench/test_room_benchmark.py [-v]

Reads nothing outside the repository. Needs numpy, scipy and trimesh.
"""

import os
import sys
import unittest
from pathlib import Path

import numpy as np
import trimesh

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
import room_benchmark  # noqa: E402

SMALL = {"samples": 20_000, "reference_samples": 20_000}


def floor_and_wall():
    """A 4 x 4 m floor (z = 0) and a 4 x 2 m wall (x = 2) beside it, both facing the room: 24 m² in
    all, 16 on the floor."""
    floor = trimesh.Trimesh([[-2, -2, 0], [2, -2, 0], [2, 2, 0], [-2, 2, 0]], [[0, 1, 2], [0, 2, 3]], process=False)
    wall = trimesh.Trimesh([[2, -2, 0], [2, 2, 0], [2, 2, 2], [2, -2, 2]], [[0, 2, 1], [0, 3, 2]], process=False)
    return trimesh.util.concatenate([floor, wall]), floor


class DistanceTests(unittest.TestCase):
    def test_distances_are_exact_despite_coarse_reference_samples(self):
        truth, _ = floor_and_wall()
        points = np.array([[0.3, -0.7, 0.03], [1.0, 1.0, 0.5], [2.07, 0.0, 1.0], [0.0, 0.0, -0.1]])
        # 200 samples on 24 m²: about 35 cm apart, so the nearest sample alone would be far off.
        distances = room_benchmark.distances_to_surface(points, truth, 5, reference_samples=200, k=6, farthest=2.0)
        np.testing.assert_allclose(distances, [0.03, 0.5, 0.07, 0.1], atol=1e-9)

    def test_points_beyond_the_farthest_distance_are_infinitely_far(self):
        truth, _ = floor_and_wall()
        points = np.array([[0.0, 0.0, 0.05], [0.0, 0.0, 1.5]])
        distances = room_benchmark.distances_to_surface(points, truth, 5, reference_samples=20_000, farthest=0.3)
        self.assertAlmostEqual(distances[0], 0.05, places=9)
        self.assertEqual(distances[1], np.inf)


class MeasureTests(unittest.TestCase):
    def test_a_floor_lifted_3_cm_covers_two_thirds_of_the_room_at_5_cm(self):
        truth, floor = floor_and_wall()
        lifted = floor.copy()
        lifted.apply_translation([0, 0, 0.03])  # 3 cm above the true floor
        accuracy, completeness, envelope, seen, share, pieces, missed = room_benchmark.accuracy_and_completeness(
            lifted, truth, **SMALL)
        self.assertIsNone(seen, "no truth folder: nothing to say what cameras see")
        self.assertIsNone(pieces)
        # Within 2 cm of the truth: only the lifted floor's 2 cm strip beside the wall (0.08 of 16 m²).
        self.assertAlmostEqual(accuracy[0.02], 100 * 0.08 / 16, delta=0.2)
        self.assertEqual(accuracy[0.05], 100.0)
        # The wall from height h is |h - 3 cm| from the lifted floor's edge; the true floor 3 cm.
        self.assertAlmostEqual(completeness[0.02], 100 * 4 * 0.04 / 24, delta=0.3)
        self.assertAlmostEqual(completeness[0.05], 100 * (16 + 4 * 0.08) / 24, delta=1.0)
        self.assertAlmostEqual(completeness[0.10], 100 * (16 + 4 * 0.13) / 24, delta=1.0)
        # Both the floor and the wall lie on the planes of the truth's bounding box.
        self.assertEqual(envelope, completeness)

    def test_a_box_missing_from_our_mesh_is_a_missed_piece_and_one_kept_is_not(self):
        room, _ = floor_and_wall()
        # Two 40 cm boxes on the floor, inside the room: pieces off the envelope.
        boxes = [trimesh.creation.box(extents=[0.4, 0.4, 0.4]) for _ in range(2)]
        boxes[0].apply_translation([-1, -1, 0.2])
        boxes[1].apply_translation([1, 1, 0.2])
        truth = trimesh.util.concatenate([room, *boxes])
        ours = trimesh.util.concatenate([room, boxes[1]])  # the first box missing
        points, faces = trimesh.sample.sample_surface(truth, 20_000, seed=3)
        to_ours = room_benchmark.distances_to_surface(points, ours, 4, reference_samples=20_000)
        on_envelope = room_benchmark.envelope_faces(truth)[faces]
        seen = np.ones(len(points), dtype=bool)
        self.assertEqual(room_benchmark.missed_pieces(truth, faces, to_ours, seen, on_envelope), (2, 1))
        # A piece the cameras do not see enough of is not scored.
        unseen_first = seen & ~((faces >= len(room.faces)) & (faces < len(room.faces) + len(boxes[0].faces)))
        self.assertEqual(room_benchmark.missed_pieces(truth, faces, to_ours, unseen_first, on_envelope), (1, 0))

    def test_seen_points_are_in_a_true_camera_s_frame_and_not_behind_its_depth(self):
        # One camera 2 m above the floor looking straight down (x right, y down in the image:
        # world y flipped), 100 x 100 px, f 50: it sees the floor within 2 m of the centre.
        import tempfile
        from PIL import Image as PILImage
        with tempfile.TemporaryDirectory() as folder:
            folder = Path(folder)
            (folder / "gt_sparse").mkdir()
            (folder / "depth").mkdir()
            (folder / "gt_sparse" / "cameras.txt").write_text("1 PINHOLE 100 100 50 50 50 50\n")
            # R = diag(1, -1, -1): camera z = 2 - world z; t puts the centre at (0, 0, 2).
            (folder / "gt_sparse" / "images.txt").write_text("1 0 1 0 0 0 0 2 1 down.png\n\n")
            PILImage.fromarray(np.full((100, 100), 2000, dtype=np.uint16)).save(folder / "depth" / "down.png")
            points = np.array([[0.5, 0.5, 0.0],    # on the floor in view
                               [0.5, 0.5, -0.3],   # below the floor: hidden by it
                               [3.0, 0.0, 0.0],    # on the floor out of frame
                               [0.0, 0.0, 3.0]])   # behind the camera
            seen = room_benchmark.seen_by_cameras(points, folder)
            self.assertEqual(seen.tolist(), [True, False, False, False])
            self.assertIsNone(room_benchmark.seen_by_cameras(points, folder / "gt_sparse"))

    def test_the_envelope_is_the_faces_on_the_bounding_box_facing_the_room(self):
        truth, _ = floor_and_wall()
        table = trimesh.creation.box((0.5, 0.5, 0.5))
        table.apply_translation([0, 0, 0.75])
        # A rug 4 mm thick on the floor: its top faces the room, its bottom the floor.
        rug = trimesh.creation.box((1.0, 1.0, 0.004))
        rug.apply_translation([0, 0, 0.002])
        room = trimesh.util.concatenate([truth, table, rug])
        rug_up = (rug.face_normals[:, 2] > 0.9).tolist()
        self.assertEqual(room_benchmark.envelope_faces(room).tolist(), [True] * 4 + [False] * 12 + rug_up)


class SimilarityTests(unittest.TestCase):
    def test_recovers_a_known_similarity(self):
        rng = np.random.default_rng(3)
        source = rng.normal(size=(20, 3))
        angle = 0.7
        R = np.array([[np.cos(angle), -np.sin(angle), 0], [np.sin(angle), np.cos(angle), 0], [0, 0, 1]])
        target = 2.5 * source @ R.T + [1, -2, 0.5]
        s, R_found, t = room_benchmark.similarity(source, target)
        self.assertAlmostEqual(s, 2.5, places=9)
        np.testing.assert_allclose(R_found, R, atol=1e-9)
        np.testing.assert_allclose(t, [1, -2, 0.5], atol=1e-9)


if __name__ == "__main__":
    unittest.main()
