#!/bin/sh
# Builds the scratch PatchMatch benchmark against the CVision sources and runs it:
#   scripts/bench/depth/run.sh /work/shared/datasets/synthetic-orbit 0 12 30
set -e
here=$(dirname "$0"); top=$here/../../..
out=${TMPDIR:-/tmp}/benchmark-depth
src="$top/CVision/src/mvs/*.cpp $top/CVision/src/cloud/*.cpp $top/CVision/src/feature/keep_mask.cpp $top/CVision/src/util/status.cpp $top/CVision/src/io/image_io.cpp $top/CVision/src/io/exif.cpp"
if [ ! -x "$out" ] || [ -n "$(find $top/CVision/src/mvs $here -newer "$out" -name '*.[ch]*')" ]; then
  g++ -std=c++17 -O3 -march=native -fno-math-errno -I/usr/include/opencv4 -I/usr/include/eigen3 \
    -o "$out" "$here/benchmark_depth.cpp" $src -lopencv_core -lopencv_imgproc -lopencv_imgcodecs \
    -lexif -lpthread
fi
exec "$out" "$@"
