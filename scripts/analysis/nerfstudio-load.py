#!/usr/bin/env python3
"""Loads a transforms.json the way nerfstudio's own data parser does, without nerfstudio (which
needs torch): every frame's image and the ply_file_path cloud, found from where nerfstudio
looks. Prints one JSON object; exits 1 when an image or the cloud is not found or not readable.

Follows nerfstudio/data/dataparsers/nerfstudio_dataparser.py (nerfstudio-project/nerfstudio),
`Nerfstudio._generate_dataparser_outputs`, step by step:
  1. `data`: a file ending in .json is read and its folder is `data_dir`; a folder has its
     `transforms.json` read and is `data_dir` itself (`load_from_json`).
  2. each frame's `file_path` becomes `self._get_fname(Path(file_path), data_dir)`: with no
     downscale factor given, the first image is opened with PIL to pick one (halving while the
     longer side is at least MAX_AUTO_RESOLUTION = 1600 and `images_{2**(df+1)}/NAME` exists);
     the name is then `data_dir / file_path`, or `data_dir / images_{df} / NAME` for df > 1.
  3. intrinsics per frame where the top level lacks them (`fl_x` ... `h`, `w`).
  4. `ply_file_path` becomes `data_dir / meta["ply_file_path"]`, read with open3d's
     `read_point_cloud` (here: a PLY reader for the vertex element, x y z and red green blue).
and, from nerfstudio/data/datasets/base_dataset.py `InputDataset.get_numpy_image`, each image is
opened with `PIL.Image.open` (no EXIF transposition) and must give (h, w), (h, w, 3) or
(h, w, 4) 8-bit samples; its size is checked against the frame's `w` and `h`.

usage: scripts/analysis/nerfstudio-load.py DATA     (OUTPUT folder or its transforms.json)
"""
import json
import struct
import sys
from pathlib import Path

from PIL import Image

MAX_AUTO_RESOLUTION = 1600


def load(data: Path) -> dict:
    assert data.exists(), f"Data directory {data} does not exist."
    if data.suffix == ".json":
        meta = json.loads(data.read_text())
        data_dir = data.parent
    else:
        meta = json.loads((data / "transforms.json").read_text())
        data_dir = data

    downscale = None

    def get_fname(filepath: Path, prefix="images_") -> Path:
        nonlocal downscale
        if downscale is None:
            with Image.open(data_dir / filepath) as test_img:
                h, w = test_img.size
            max_res, df = max(h, w), 0
            while True:
                if (max_res / 2 ** df) < MAX_AUTO_RESOLUTION:
                    break
                if not (data_dir / f"{prefix}{2 ** (df + 1)}" / filepath.name).exists():
                    break
                df += 1
            downscale = 2 ** df
        if downscale > 1:
            return data_dir / f"{prefix}{downscale}" / filepath.name
        return data_dir / filepath

    report = {"frames": len(meta["frames"]), "found": 0, "missing": [], "unreadable": [], "size_mismatch": []}
    for frame in meta["frames"]:
        try:
            fname = get_fname(Path(frame["file_path"]))
        except (FileNotFoundError, OSError):
            report["missing"].append(frame["file_path"])
            continue
        if not fname.is_file():
            report["missing"].append(frame["file_path"])
            continue
        report["found"] += 1
        width = int(frame.get("w", meta.get("w", 0)))
        height = int(frame.get("h", meta.get("h", 0)))
        try:
            with Image.open(fname) as image:
                mode, size = image.mode, image.size
        except OSError as error:
            report["unreadable"].append(f"{frame['file_path']}: {error}")
            continue
        if mode not in ("L", "RGB", "RGBA"):
            report["unreadable"].append(f"{frame['file_path']}: mode {mode} is not 8-bit grey, RGB or RGBA")
        if size != (width, height):
            report["size_mismatch"].append(f"{frame['file_path']}: {size[0]}x{size[1]}, transforms.json says {width}x{height}")
    report["downscale_factor"] = downscale
    if "ply_file_path" in meta:
        ply = data_dir / meta["ply_file_path"]
        report["ply_file"] = str(ply)
        report["ply_points"], report["ply_has_colours"] = read_ply_vertices(ply)
    return report


PLY_TYPES = {"char": "b", "int8": "b", "uchar": "B", "uint8": "B", "short": "h", "int16": "h", "ushort": "H",
             "uint16": "H", "int": "i", "int32": "i", "uint": "I", "uint32": "I", "float": "f", "float32": "f",
             "double": "d", "float64": "d"}


def read_ply_vertices(path: Path):
    """(vertex count, whether red green blue are there) of a PLY whose first element is
    `vertex` with scalar properties, every vertex read (a short file raises)."""
    raw = path.read_bytes()
    end = raw.index(b"end_header\n") + len(b"end_header\n")
    lines = raw[:end].decode("ascii").splitlines()
    assert lines[0] == "ply", f"{path}: not a PLY file"
    fmt = lines[1].split()[1]
    count, properties, element = 0, [], None
    for line in lines[2:]:
        words = line.split()
        if words[0] == "element":
            element = words[1]
            if element == "vertex":
                count = int(words[2])
        elif words[0] == "property" and element == "vertex":
            assert words[1] != "list", f"{path}: list property in vertex"
            properties.append((words[2], PLY_TYPES[words[1]]))
    names = [name for name, _ in properties]
    assert names[:3] == ["x", "y", "z"], f"{path}: vertex properties {names}"
    if fmt == "ascii":
        rows = raw[end:].decode("ascii").split("\n")[:count]
        points = [tuple(float(v) for v in row.split()[:len(names)]) for row in rows]
        assert len(points) == count and all(len(p) == len(names) for p in points), f"{path}: short"
    else:
        order = "<" if fmt == "binary_little_endian" else ">"
        record = struct.Struct(order + "".join(code for _, code in properties))
        assert len(raw) - end >= record.size * count, f"{path}: truncated"
        points = [record.unpack_from(raw, end + k * record.size) for k in range(count)]
    assert all(all(v == v for v in p[:3]) for p in points), f"{path}: NaN coordinates"
    return count, all(c in names for c in ("red", "green", "blue"))


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.split("usage: ")[1])
    report = load(Path(sys.argv[1]))
    print(json.dumps(report, indent=1))
    ok = report["found"] == report["frames"] and not report["unreadable"] and not report["size_mismatch"]
    ok = ok and report.get("ply_points", 0) > 0
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
