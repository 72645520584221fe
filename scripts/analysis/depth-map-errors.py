#!/usr/bin/env python3
"""How far a run's depth maps are from a rendered capture's true depth, per pass.

usage: scripts/analysis/depth-map-errors.py OUT CAPTURE [--pass planar] [--tol 0.02]
       OUT: a `reconstruct` output folder (work/dense/depth/NAME.photometric.cvdm and, with planar
       priors or the geometric pass, NAME.planar.cvdm / NAME.geometric.cvdm)
       CAPTURE: a rendered capture with depth/STEM.png (uint16 millimetres along the optical axis,
       0 = no surface) at the images' size, as scripts/data/render-room-capture.py writes

Our maps are in the model's units; they are scaled to the truth by the median ratio of true to
photometric depth over every pixel both hold (a reconstruction without metric scale is right up
to that factor). Then, over all views, of the pixels that see a surface in the truth: how many
the photometric maps hold and the share within TOL (relative) of the true depth, and the same for
the pixels the chosen pass holds beyond them (what planar priors fill, or what the geometric pass
keeps and adds), with how many of the wrong ones lie in front of the truth and how many behind.
Prints a table; nothing is written.
"""
import argparse
import os
import sys

import numpy as np
from PIL import Image

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, '..', 'lib'))
from pgscripts import read_depth_map  # noqa: E402


def depth_plane(path):
    """Our .cvdm's depth plane as a height x width array."""
    w, h, depths = read_depth_map(path)
    return np.frombuffer(depths, np.float32).reshape(h, w)


def true_depth(path, shape):
    """The capture's depth image in metres, sampled at the pixel centres of a map of `shape`."""
    truth = np.asarray(Image.open(path)).astype(np.float32) / 1000
    h, w = shape
    if truth.shape != shape:
        ys = ((np.arange(h) + 0.5) * truth.shape[0] / h).astype(int)
        xs = ((np.arange(w) + 0.5) * truth.shape[1] / w).astype(int)
        truth = truth[ys][:, xs]
    return truth


def main():
    p = argparse.ArgumentParser()
    p.add_argument('out')
    p.add_argument('capture')
    p.add_argument('--pass', dest='pass_name', default='planar', choices=['planar', 'geometric'])
    p.add_argument('--tol', type=float, default=0.02)
    a = p.parse_args()
    folder = os.path.join(a.out, 'work', 'dense', 'depth')
    views = []
    for name in sorted(os.listdir(folder)):
        if not name.endswith('.photometric.cvdm'):
            continue
        stem = os.path.splitext(name[:-len('.photometric.cvdm')])[0]
        truth_path = os.path.join(a.capture, 'depth', stem + '.png')
        other = os.path.join(folder, name.replace('.photometric.', '.%s.' % a.pass_name))
        if os.path.exists(truth_path) and os.path.exists(other):
            views.append((os.path.join(folder, name), other, truth_path))
    if not views:
        sys.exit('%s: no view has a photometric and a %s map and a true depth image' % (folder, a.pass_name))

    ratios = []
    for photometric, _, truth_path in views:
        ours = depth_plane(photometric)
        truth = true_depth(truth_path, ours.shape)
        both = (ours > 0) & (truth > 0)
        if both.any():
            ratios.append(np.median(truth[both] / ours[both]))
    scale = float(np.median(ratios))

    seen = held = held_ok = added = added_ok = added_near = added_far = 0
    for photometric, other, truth_path in views:
        base = depth_plane(photometric) * scale
        later = depth_plane(other) * scale
        truth = true_depth(truth_path, base.shape)
        surface = truth > 0
        within = lambda d: np.abs(d - truth) <= a.tol * truth  # noqa: E731
        mine = surface & (base > 0)
        extra = surface & (later > 0) & ~(base > 0)
        wrong = extra & ~within(later)
        seen += int(surface.sum())
        held += int(mine.sum())
        held_ok += int((mine & within(base)).sum())
        added += int(extra.sum())
        added_ok += int((extra & within(later)).sum())
        added_near += int((wrong & (later < truth)).sum())
        added_far += int((wrong & (later >= truth)).sum())

    def share(n, d):
        return '%.1f %%' % (100.0 * n / d) if d else '-'
    print('%d views, model scaled by %.6f to the truth (spread of the views\' ratios %.2g)'
          % (len(views), scale, float(np.std(ratios))))
    print('| maps | pixels held | of the seen pixels | within %g %% | wrong: in front / behind |' % (100 * a.tol))
    print('|---|---|---|---|---|')
    print('| photometric | %d | %s | %s | |' % (held, share(held, seen), share(held_ok, held)))
    print('| %s, beyond photometric | %d | %s | %s | %d / %d |'
          % (a.pass_name, added, share(added, seen), share(added_ok, added), added_near, added_far))


if __name__ == '__main__':
    main()
