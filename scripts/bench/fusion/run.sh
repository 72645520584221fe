#!/bin/sh
# Builds the fusion benchmark against the CVision sources and runs it (GT depth -> fusion ->
# accuracy/completeness/F1 against the GT mesh):
#   scripts/bench/fusion/run.sh /work/shared/datasets/synthetic-orbit [NEIGHBOURS] [MIN_NUM_VIEWS]
set -e
here=$(dirname "$0"); top=$here/../../..
out=${TMPDIR:-/tmp}/benchmark-fusion-bin
src="$top/CVision/src/mvs/depth_map.cpp $top/CVision/src/mvs/workspace.cpp $top/CVision/src/mvs/fusion.cpp
     $top/CVision/src/cloud/*.cpp $top/CVision/src/util/status.cpp $top/CVision/src/io/image_io.cpp
     $top/CVision/src/io/exif.cpp"
if [ ! -x "$out" ] || [ -n "$(find $top/CVision/src/mvs $top/CVision/src/cloud $here -newer "$out" -name '*.[ch]*')" ]; then
  g++ -std=c++17 -O3 -march=native -fno-math-errno -I/usr/include/opencv4 -I/usr/include/eigen3 \
    -o "$out" "$here/benchmark_fusion.cpp" $src -lopencv_core -lopencv_imgproc -lopencv_imgcodecs \
    -lexif -lpthread
fi
exec "$out" "$@"
