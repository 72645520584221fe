#!/usr/bin/env bash
# Every detail level of one capture, one after the other in one output folder (so features,
# matching and the sparse model are computed once and resumed; dense, surface and model rerun
# per level, as their keys hold the level), then a table from each level's report.json:
# triangles, texture size and pages, seconds of dense / surface / model, and peak memory.
#
# usage: [LEVELS="preview reduced"] scripts/bench/levels.sh CAPTURE OUT_DIR [reconstruct options...]
#        e.g. scripts/bench/levels.sh ../shared/datasets/templeRing out/levels-templeRing
# LEVELS: the levels to run, lowest first (default all five).
set -euo pipefail
capture=$1; out=$2; shift 2
bin=${PHOTOGRAMMETRY:-.build/release/photogrammetry}
mkdir -p "$out"
levels=${LEVELS:-preview reduced medium full raw}
for level in $levels; do
  "$bin" reconstruct "$capture" "$out/run" --detail "$level" --progress none "$@" > "$out/$level.log" 2>&1
  cp "$out/run/report.json" "$out/$level.json"
done
python3 - "$out" $levels <<'PY'
import json, os, sys
out, levels = sys.argv[1], sys.argv[2:]
print(f"{'level':<9}{'triangles':>10}{'texture':>9}{'pages':>6}{'dense pts':>11}{'sparse s':>9}{'dense s':>9}{'surface s':>10}{'model s':>9}{'total s':>9}{'peak MB':>9}")
for level in levels:
    r = json.load(open(os.path.join(out, level + '.json')))
    st = {s['name']: s for s in r['stages']}
    sec = lambda n: st[n]['seconds'] if n in st and not st[n].get('resumed') else 0.0
    sparse = sum(sec(n) for n in ['ingest', 'features', 'matching', 'sparse', 'diagnostics', 'export'])
    total = sum(s['seconds'] for s in r['stages'])
    peak = max(s.get('peak_memory_mb') or 0 for s in r['stages'])
    print(f"{level:<9}{r['triangles']:>10}{r['texture_size']:>9}{r['texture_pages']:>6}{r['dense_points']:>11}"
          f"{sparse:>9.1f}{sec('dense'):>9.1f}{sec('surface'):>10.1f}{sec('model'):>9.1f}{total:>9.1f}{peak:>9.0f}")
PY
