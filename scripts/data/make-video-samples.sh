#!/usr/bin/env bash
# Writes the video test files in Datasets/video/ (see its SOURCE.md) from Datasets/templeRing-12's
# photos: each photo held for 3 frames, as a video of a camera stopping at each view.
#
# Usage: scripts/data/make-video-samples.sh [OUT_DIR]   (default Datasets/video)
#
# templeRing-12.mp4: H.264 (avc1), 10 fps, 36 frames of 640x480; frame 10 (the second of view 3's
#   three) and frames 21-23 (all of view 7) Gaussian-blurred with sigma 4 px.
# templeRing-rot90.mov: HEVC (hvc1) in QuickTime, 10 fps, the first 4 photos held 2 frames each,
#   coded 640x480 with the display matrix of an upright phone (90° clockwise: shown 480x640).
# Needs g++, OpenCV 4 with FFmpeg (libx264, libx265 encoders: Debian 12's libavcodec59) and python3.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here/../../Datasets/video}"
mkdir -p "$out"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
g++ -O1 -std=c++17 -o "$work/encode_video" "$here/../video/encode_video.cpp" -I/usr/include/opencv4 \
  -lopencv_core -lopencv_imgproc -lopencv_imgcodecs -lopencv_videoio
images=("$here/../../Datasets/templeRing-12/images/"*.png)
"$work/encode_video" "$out/templeRing-12.mp4" avc1 10 --repeat 3 --blur 10,21,22,23 --sigma 4 "${images[@]}"
"$work/encode_video" "$out/templeRing-rot90.mov" hvc1 10 --repeat 2 "${images[@]:0:4}"
python3 "$here/../video/set_rotation.py" "$out/templeRing-rot90.mov" 90
ls -l "$out"
