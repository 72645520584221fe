#!/bin/bash
# The batch demo: seven captures made from Datasets/ run as 3 shards in 3 parallel processes
# (--sparse-only), then the same command again, then batch-summary; prints each step's output
# and wall time.
#
#   scripts/cluster/demo-batch.sh [WORK]      (default out/demo-batch; it is emptied first)
#
# Captures: templeRing-12 (a folder), templeRing-12.zip (the same as a zip), cutout-temple-12 and
# turntable-temple-12 (other bundled captures), subset-8 (8 of templeRing's images), broken-2 (a
# folder of 2 images: too few) and corrupt.zip (random bytes). PHOTOGRAMMETRY names the binary
# (default .build/release/photogrammetry). The same run is a test: BatchEndToEndTests.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
bin=${PHOTOGRAMMETRY:-$repo/.build/release/photogrammetry}
work=${1:-$repo/out/demo-batch}
captures=$work/captures
out=$work/out
rm -rf "$work"
mkdir -p "$captures"
datasets=$repo/Datasets
for name in templeRing-12 cutout-temple-12 turntable-temple-12; do cp -r "$datasets/$name" "$captures/"; done
(cd "$datasets" && python3 -c '
import os, sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
    for name in sorted(os.listdir("templeRing-12/images")):
        z.write("templeRing-12/images/" + name)
' "$captures/templeRing-12.zip")
mkdir -p "$captures/subset-8" "$captures/broken-2"
ls "$datasets/templeRing-12/images" | sort | head -8 | while read -r f; do cp "$datasets/templeRing-12/images/$f" "$captures/subset-8/"; done
ls "$datasets/templeRing-12/images" | sort | head -2 | while read -r f; do cp "$datasets/templeRing-12/images/$f" "$captures/broken-2/"; done
head -c 5000 /dev/urandom > "$captures/corrupt.zip"
# Outside any cluster: no inherited array variable may pick a shard.
unset SLURM_ARRAY_TASK_ID SLURM_ARRAY_TASK_MIN SLURM_ARRAY_TASK_MAX SLURM_ARRAY_TASK_COUNT SLURM_ARRAY_TASK_STEP JOB_COMPLETION_INDEX

# Runs the three shards at once; $1 names the logs.
shards() {
    local start=$(date +%s.%N)
    for i in 0 1 2; do
        "$bin" batch "$captures" "$out" --shard "$i/3" --sparse-only --threads 1 > "$work/$1-$i.log" 2>&1 &
        pids[$i]=$!
    done
    for i in 0 1 2; do wait "${pids[$i]}"; status[$i]=$?; done
    local end=$(date +%s.%N)
    for i in 0 1 2; do
        echo "--- $ photogrammetry batch captures out --shard $i/3 --sparse-only --threads 1   (exit ${status[$i]})"
        cat "$work/$1-$i.log"
    done
    printf '=== %s: 3 shards in parallel, %.1f s wall\n\n' "$1" "$(echo "$end - $start" | bc)"
}

echo "captures in $captures:"; ls "$captures"; echo
shards first
shards rerun
echo "--- $ photogrammetry batch-summary out"
"$bin" batch-summary "$out" 2>&1
echo "(exit $?)"
