#!/usr/bin/env python3
"""Pose priors for a capture from its ground truth, perturbed as ARKit's are.

    scripts/data/make-priors.py CAPTURE OUT.json [--noise-m 0.02] [--noise-deg 1] [--scale-drift 0.02]
                        [--drift-from-start] [--seed 0]

Reads CAPTURE/gt_sparse (COLMAP text: cameras.txt, images.txt) and writes nerfstudio's
transforms.json (fl_x, fl_y, cx, cy, w, h; frames with file_path images/NAME and a 4x4
camera-to-world transform_matrix in OpenGL axes: x right, y up, z back) in the ground truth's
frame, perturbed:

- scale drift: the walk (images by name) is rebuilt step by step, step k scaled by
  1 - d/2 + d k/(n-1) (d = --scale-drift), so the scale drifts by d from the first frame to the
  last and is right on average; with --drift-from-start it goes from 1 to 1 + d instead (the
  priors then are d/2 too large on average, which no image can tell);
- position noise: every centre moves by a Gaussian of --noise-m per axis (not accumulated);
- rotation noise: every rotation turns by a rotation vector of --noise-deg per axis.
"""
import argparse, json, os, sys
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "lib"))
from pgscripts import read_cameras, read_images  # noqa: E402


def rotation_vector_to_matrix(v):
    angle = np.linalg.norm(v)
    if angle < 1e-15:
        return np.eye(3)
    k = v / angle
    K = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + np.sin(angle) * K + (1 - np.cos(angle)) * K @ K


def read_model(folder):
    """cameras {id: Camera} and images [(name, camera id, R, t)] by name, R and t numpy."""
    images = [(image.name, image.camera_id, np.array(image.R), np.array(image.t))
              for image in read_images(folder)]
    images.sort(key=lambda image: image[0])
    return read_cameras(folder), images


def intrinsics(camera):
    model, w, h, p = camera
    if model == "PINHOLE":
        return {"fl_x": p[0], "fl_y": p[1], "cx": p[2], "cy": p[3], "w": w, "h": h}
    if model in ("SIMPLE_PINHOLE", "SIMPLE_RADIAL", "RADIAL"):
        out = {"fl_x": p[0], "fl_y": p[0], "cx": p[1], "cy": p[2], "w": w, "h": h}
        if model != "SIMPLE_PINHOLE":
            out["k1"] = p[3]
            out["k2"] = p[4] if model == "RADIAL" else 0.0
        return out
    sys.exit(f"make-priors: camera model {model} not supported")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("capture")
    parser.add_argument("out")
    parser.add_argument("--noise-m", type=float, default=0.02)
    parser.add_argument("--noise-deg", type=float, default=1.0)
    parser.add_argument("--scale-drift", type=float, default=0.02)
    parser.add_argument("--drift-from-start", action="store_true")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    cameras, images = read_model(os.path.join(args.capture, "gt_sparse"))
    rng = np.random.default_rng(args.seed)
    n = len(images)
    centres = [-(R.T @ t) for _, _, R, t in images]
    drifted = [centres[0].copy()]
    for k in range(1, n):
        fraction = k / max(n - 1, 1)
        step = (1 + args.scale_drift * fraction) if args.drift_from_start else (1 - args.scale_drift / 2 + args.scale_drift * fraction)
        drifted.append(drifted[-1] + step * (centres[k] - centres[k - 1]))
    image_folder = "images/" if os.path.isdir(os.path.join(args.capture, "images")) else ""
    shared = len({camera for _, camera, _, _ in images}) == 1
    frames = []
    for k, (name, camera, R, _) in enumerate(images):
        centre = drifted[k] + rng.normal(0, args.noise_m, 3)
        turn = rotation_vector_to_matrix(np.radians(rng.normal(0, args.noise_deg, 3)))
        cam_to_world = (turn @ R).T
        m = np.eye(4)
        m[:3, 0] = cam_to_world[:, 0]
        m[:3, 1] = -cam_to_world[:, 1]
        m[:3, 2] = -cam_to_world[:, 2]
        m[:3, 3] = centre
        frame = {"file_path": image_folder + name, "transform_matrix": m.tolist()}
        if not shared:
            frame.update(intrinsics(cameras[camera]))
        frames.append(frame)
    out = {"camera_model": "OPENCV", "frames": frames}
    if shared:
        out.update(intrinsics(cameras[images[0][1]]))
    with open(args.out, "w") as f:
        json.dump(out, f, indent=1)
    print(f"{args.out}: {n} frames, noise {args.noise_m} m and {args.noise_deg} deg per axis, "
          f"scale drift {args.scale_drift}{' from the start' if args.drift_from_start else ' (centred)'}, seed {args.seed}")


if __name__ == "__main__":
    main()
