#!/usr/bin/env bash
# Installs what the benchmarks (scripts/bench/) and the shared instruments (../shared/tools)
# need beyond scripts/setup: COLMAP 4 on the CPU (pycolmap, the sparse peer), trimesh's mesh
# slicing (shapely), SSIM (scikit-image), offscreen rendering on the CPU (pyrender on OSMesa).
# Pinned where pip would otherwise choose broken versions: with PyOpenGL 3.1.7 it falls back to
# pyrender 0.1.18, which lacks IntrinsicsCamera and pins networkx 2.2 (does not import on Python
# 3.11), and that networkx drags scikit-image back to a release that fails on numpy 2.
# Idempotent; tests never need it.
set -euo pipefail

SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
if ! dpkg-query -W -f='${Status}' libosmesa6 2>/dev/null | grep -q "install ok installed"; then
  echo "bench/setup: installing libosmesa6"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends libosmesa6 >/dev/null
fi

pip_install() {
  python3 -m pip install --quiet "$@" 2>/dev/null || python3 -m pip install --quiet --break-system-packages "$@"
}
pip_install pycolmap==4.2.1 trimesh pillow scipy opencv-python-headless shapely "scikit-image>=0.22" \
  networkx==3.2.1 imageio pyglet==1.4.0b1 freetype-py six
pip_install --no-deps pyrender==0.1.45
pip_install --no-deps --force-reinstall PyOpenGL==3.1.7

PYOPENGL_PLATFORM=osmesa python3 - <<'PY'
import pycolmap, trimesh, shapely, skimage, cv2, pyrender
from OpenGL import GL
assert hasattr(pyrender, "IntrinsicsCamera"), "pyrender too old"
r = pyrender.OffscreenRenderer(8, 8)
r.delete()
print("bench/setup: pycolmap", pycolmap.__version__, "pyrender", pyrender.__version__, "OSMesa renders")
PY
