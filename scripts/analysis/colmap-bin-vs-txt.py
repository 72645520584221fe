#!/usr/bin/env python3
"""Reads a model folder's COLMAP text files and its binary files separately with pycolmap
(COLMAP's own readers) and compares them: the same cameras (model, size, parameters), images
(name, camera, cam_from_world, 2D points and their 3D point ids) and points (xyz, colour, error,
track). Values must be equal to the bit: both files hold the same doubles. Prints one JSON
object; exits 1 on any difference, 2 when pycolmap is not installed.

usage: scripts/analysis/colmap-bin-vs-txt.py MODEL_DIR     (OUTPUT/sparse)
"""
import json
import shutil
import sys
import tempfile
from pathlib import Path

try:
    import pycolmap
except ImportError:
    print(json.dumps({"error": "pycolmap is not installed (python3 -m pip install pycolmap)"}))
    sys.exit(2)


def read(folder: Path, suffix: str, scratch: Path):
    """The model of `folder`'s three files ending in `suffix`, alone in a folder of their own
    (pycolmap prefers the binary files when both are there)."""
    only = scratch / suffix.lstrip(".")
    only.mkdir()
    for name in ("cameras", "images", "points3D"):
        shutil.copy(folder / (name + suffix), only / (name + suffix))
    return pycolmap.Reconstruction(str(only))


def compare(text, binary) -> list:
    differences = []

    def check(what, a, b):
        if a != b:
            differences.append(f"{what}: text {a!r}, binary {b!r}")

    check("camera ids", sorted(text.cameras), sorted(binary.cameras))
    for cid in sorted(set(text.cameras) & set(binary.cameras)):
        a, b = text.cameras[cid], binary.cameras[cid]
        check(f"camera {cid}", (a.model.name, a.width, a.height, list(a.params)),
              (b.model.name, b.width, b.height, list(b.params)))
    check("image ids", sorted(text.images), sorted(binary.images))
    for iid in sorted(set(text.images) & set(binary.images)):
        a, b = text.images[iid], binary.images[iid]
        check(f"image {iid} name and camera", (a.name, a.camera_id), (b.name, b.camera_id))
        pa, pb = a.cam_from_world(), b.cam_from_world()
        check(f"image {iid} pose", (list(pa.rotation.quat), list(pa.translation)),
              (list(pb.rotation.quat), list(pb.translation)))
        check(f"image {iid} points2D", [(tuple(p.xy), p.point3D_id) for p in a.points2D],
              [(tuple(p.xy), p.point3D_id) for p in b.points2D])
    check("point ids", sorted(text.points3D), sorted(binary.points3D))
    for pid in sorted(set(text.points3D) & set(binary.points3D)):
        a, b = text.points3D[pid], binary.points3D[pid]
        check(f"point {pid}", (list(a.xyz), list(a.color), a.error, [(e.image_id, e.point2D_idx) for e in a.track.elements]),
              (list(b.xyz), list(b.color), b.error, [(e.image_id, e.point2D_idx) for e in b.track.elements]))
    return differences


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.split("usage: ")[1])
    folder = Path(sys.argv[1])
    with tempfile.TemporaryDirectory() as scratch:
        text = read(folder, ".txt", Path(scratch))
        binary = read(folder, ".bin", Path(scratch))
    differences = compare(text, binary)
    print(json.dumps({"cameras": len(binary.cameras), "images": len(binary.images), "points3D": len(binary.points3D),
                      "observations": sum(len(p.track.elements) for p in binary.points3D.values()),
                      "equal": not differences, "differences": differences[:20]}, indent=1))
    sys.exit(0 if not differences else 1)


if __name__ == "__main__":
    main()
