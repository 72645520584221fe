#!/usr/bin/env python3
"""Where a sequence's pose error is: per frame and per stretch of frames, against ground truth.

usage: scripts/analysis/sequence-errors.py MODEL GT_SPARSE [--stretch 10] [--frames]
       (MODEL, GT_SPARSE: COLMAP text folders; images are matched by name, ordered by name)

The model is aligned to the ground truth by the similarity that best maps its camera centres onto
the true ones (Umeyama, least squares). Per frame: the rotation error (degrees, after the
alignment's rotation) and the centre error (as a share of the median step between consecutive
true centres, so captures of any scale compare). Per stretch of consecutive frames: their mean,
and the pair errors that pair AUC is made of (max of the relative rotation error and the angle
between relative translations, over every pair of frames with at least one in the stretch): the
share below 1 and 5 degrees. Prints a table; --frames prints every frame too.
"""

import argparse
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "lib"))
from pgscripts import read_images  # noqa: E402


def poses(folder):
    return {image.name: (np.array(image.R), np.array(image.t)) for image in read_images(folder)}


def umeyama(source, target):
    """scale, R, t with target ≈ scale * R @ source + t."""
    mu_s, mu_t = source.mean(0), target.mean(0)
    s, t = source - mu_s, target - mu_t
    u, d, vt = np.linalg.svd(t.T @ s / len(source))
    sign = np.eye(3)
    if np.linalg.det(u) * np.linalg.det(vt) < 0:
        sign[2, 2] = -1
    rotation = u @ sign @ vt
    scale = np.trace(np.diag(d) @ sign) / (s ** 2).sum(1).mean()
    return scale, rotation, mu_t - scale * rotation @ mu_s


def angle(R):
    return math.degrees(math.acos(max(-1.0, min(1.0, (np.trace(R) - 1) / 2))))


def vector_angle(a, b):
    na, nb = np.linalg.norm(a), np.linalg.norm(b)
    if na < 1e-12 or nb < 1e-12:
        return 0.0
    return math.degrees(math.acos(max(-1.0, min(1.0, float(a @ b / (na * nb))))))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("model")
    parser.add_argument("gt")
    parser.add_argument("--stretch", type=int, default=10)
    parser.add_argument("--frames", action="store_true")
    args = parser.parse_args()
    model, truth = poses(args.model), poses(args.gt)
    names = sorted(truth)
    registered = [n for n in names if n in model]
    centre = lambda pose: -pose[0].T @ pose[1]
    source = np.array([centre(model[n]) for n in registered])
    target = np.array([centre(truth[n]) for n in registered])
    scale, rotation, _ = umeyama(source, target)
    aligned = scale * (rotation @ source.T).T + (target.mean(0) - scale * rotation @ source.mean(0))
    true_centres = np.array([centre(truth[n]) for n in names])
    step = float(np.median(np.linalg.norm(np.diff(true_centres, axis=0), axis=1)))
    rotation_error, centre_error = {}, {}
    for n, position, true_position in zip(registered, aligned, target):
        # world_from_model rotation applied: the model's camFromWorld in the truth's frame is R rotation^T.
        rotation_error[n] = angle(model[n][0] @ rotation.T @ truth[n][0].T)
        centre_error[n] = float(np.linalg.norm(position - true_position)) / step
    # Pair errors as pair AUC counts them.
    pair_error = {}
    for a in range(len(registered)):
        for b in range(a + 1, len(registered)):
            na, nb = registered[a], registered[b]
            Ra, ta = model[na]; Rb, tb = model[nb]
            Ga, ga = truth[na]; Gb, gb = truth[nb]
            R_rel, G_rel = Rb @ Ra.T, Gb @ Ga.T
            t_rel, g_rel = tb - R_rel @ ta, gb - G_rel @ ga
            pair_error[(na, nb)] = max(angle(R_rel @ G_rel.T), vector_angle(t_rel, g_rel))
    print(f"{len(registered)}/{len(names)} registered; centre errors in median true steps ({step:.4g})")
    if args.frames:
        print("frame  rot_deg  centre_steps")
        for n in registered:
            print(f"{n}  {rotation_error[n]:7.3f}  {centre_error[n]:7.3f}")
    print("stretch        rot_deg(mean,max)  centre_steps(mean,max)  pairs<1deg  pairs<5deg")
    for first in range(0, len(names), args.stretch):
        stretch = names[first:first + args.stretch]
        inside = [n for n in stretch if n in model]
        if not inside:
            print(f"{stretch[0]}-{stretch[-1]}: none registered")
            continue
        r = [rotation_error[n] for n in inside]
        c = [centre_error[n] for n in inside]
        errors = [e for (a, b), e in pair_error.items() if a in stretch or b in stretch]
        below1 = 100 * sum(e < 1 for e in errors) / max(1, len(errors))
        below5 = 100 * sum(e < 5 for e in errors) / max(1, len(errors))
        print(f"{stretch[0][:-4]}-{stretch[-1][:-4]}  {np.mean(r):6.3f} {max(r):6.3f}        "
              f"{np.mean(c):6.3f} {max(c):6.3f}           {below1:5.1f}     {below5:5.1f}")
    all_errors = list(pair_error.values())
    print(f"all pairs: <1deg {100 * sum(e < 1 for e in all_errors) / len(all_errors):.1f} %, "
          f"<5deg {100 * sum(e < 5 for e in all_errors) / len(all_errors):.1f} %, median {np.median(all_errors):.3f} deg")


main()
