#!/usr/bin/env bash
# Makes a HEIC capture with depth images from a capture with ground-truth depth (images/NNNN.jpg
# and depth/NNNN.png, 16-bit millimetres, as /work/shared/datasets/synthetic-orbit holds them):
# OUT/images/NNNN.heic, each the colour frame (HEVC quality 90) with a depth image at 1/4 of its
# size per side, uniform Z (10-bit, lossless) between Z_NEAR and Z_FAR metres, with noise: times
# (1 + NOISE * N(0, 1)) per depth pixel and a fraction OUTLIERS of depth pixels uniform in the
# range (see heic-depth/encode_depth_frame.cpp). libheif 1.15 cannot write depth images:
# heic-samples/assemble_heif.py composes each file.
#
# Usage: scripts/data/make-heic-depth-capture.sh SRC OUT [NOISE=0.015] [OUTLIERS=0.03] [SEED=1] [Z_NEAR=0.5] [Z_FAR=40]
# Needs g++, libheif-dev, libopencv-dev and python3.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
src="$1" out="$2" noise="${3:-0.015}" outliers="${4:-0.03}" seed="${5:-1}" z_near="${6:-0.5}" z_far="${7:-40}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
g++ -O2 -std=c++17 -I/usr/include/opencv4 -o "$work/encode_depth_frame" "$here/heic-depth/encode_depth_frame.cpp" \
    -lheif -lopencv_core -lopencv_imgcodecs
mkdir -p "$out/images"
n=0
for colour in "$src"/images/*.jpg; do
    stem="$(basename "$colour" .jpg)"
    "$work/encode_depth_frame" "$colour" "$src/depth/$stem.png" 4 "$noise" "$outliers" "$((seed * 100003 + n))" \
        "$z_near" "$z_far" "$work/colour.heic" "$work/depth.heic"
    python3 "$here/heic-samples/assemble_heif.py" depth "$out/images/$stem.heic" "$work/colour.heic" "$work/depth.heic" \
        "$z_near" "$z_far" > /dev/null
    n=$((n + 1))
done
echo "wrote $n HEIC frames with depth to $out/images (noise $noise, outliers $outliers, seed $seed)"
