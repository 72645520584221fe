#!/usr/bin/env bash
# Writes the HEIC test images in Datasets/heic/ (see its SOURCE.md), from formulas: a run gives
# the same pictures (libheif 1.15.1 with x265 3.5 gives the same bytes).
#
# Usage: scripts/data/make-heic-samples.sh [OUT_DIR]   (default Datasets/heic)
#
# libheif's encoder writes plain, irot (then repaired: see assemble_heif.py fix-irot), tenbit and
# alpha; assemble_heif.py composes grid and depth from single images libheif wrote, since
# libheif 1.15 can write neither a grid nor a depth image. describe_heif prints what libheif
# reads back from each file, as a check. Needs g++, libheif-dev, libexif-dev and python3.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here/../../Datasets/heic}"
mkdir -p "$out"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/parts"
g++ -O1 -std=c++17 -o "$work/encode_samples" "$here/heic-samples/encode_samples.cpp" -lheif -lexif
g++ -O1 -std=c++17 -o "$work/describe_heif" "$here/heic-samples/describe_heif.cpp" -lheif
"$work/encode_samples" "$out" "$work/parts"
assemble="$here/heic-samples/assemble_heif.py"
python3 "$assemble" fix-irot "$out/irot.heic"
python3 "$assemble" grid "$out/grid.heic" "$work"/parts/tile{0,1,2,3}.heic
python3 "$assemble" depth "$out/depth.heic" "$work/parts/depth_colour.heic" "$work/parts/depth_plane.heic"
"$work/describe_heif" "$out"/{plain,irot,grid,tenbit,depth,alpha}.heic
