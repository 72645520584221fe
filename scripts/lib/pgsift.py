"""COLMAP's SIFT (pycolmap, CPU, default options) on one grey image, for scripts that count or
match features the way COLMAP would. Needs numpy and pycolmap.

A script in scripts/DIR/ imports it with
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "lib"))
"""

import warnings

import numpy as np

_SIFT = None


def sift_features(grey):
    """COLMAP's SIFT (pycolmap, CPU, default options): keypoints (x, y, ...) and descriptors."""
    global _SIFT
    import pycolmap
    if _SIFT is None:
        options = pycolmap.FeatureExtractionOptions()
        options.use_gpu = False
        options.num_threads = 1
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            _SIFT = pycolmap.Sift(options, pycolmap.Device.cpu)
    return _SIFT.extract(np.ascontiguousarray(grey, dtype=np.uint8))
