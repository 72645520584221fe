#!/usr/bin/env bash
# One `reconstruct` from the images alone, timed, then judged by the shared instruments (not
# ours): poses (eval_poses.py), the dense cloud and the mesh at 1 and 2 cm (eval_dense.py), the
# texture rendered into every view inside the capture's masks (eval_texture.py, pyrender/OSMesa).
# The defaults are the setting of the comparison with OpenMVS: synthetic-orbit at full, no masks,
# and its true depth/ used for the metric scale alone (--sensor-depth off): the images alone.
#
# usage: scripts/bench/end-to-end.sh [CAPTURE] [OUT] [reconstruct options...]
#        default: ../shared/datasets/synthetic-orbit out/end-to-end --detail full --mask none --sensor-depth off
# The capture must have gt_sparse/, masks/ and gt_mesh.ply (+ gt_mesh_object.ply when present).
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
capture=${1:-$here/../shared/datasets/synthetic-orbit}; out=${2:-$here/out/end-to-end}
shift $(( $# > 2 ? 2 : $# ))
args=("$@"); [ ${#args[@]} -eq 0 ] && args=(--detail full --mask none --sensor-depth off)
bin=${PHOTOGRAMMETRY:-$here/.build/release/photogrammetry}
tools=$here/../shared/tools
object=$capture/gt_mesh_object.ply; [ -e "$object" ] || object=$capture/gt_mesh.ply
rm -rf "$out"; mkdir -p "$(dirname "$out")"
/usr/bin/time -v "$bin" reconstruct "$capture" "$out" "${args[@]}" --progress json > "$out.log" 2> "$out.time"
python3 - "$out/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print(' '.join(f"{s['name']}={s['seconds']:.1f}" for s in r['stages']),
      'total=%.1f s' % sum(s['seconds'] for s in r['stages']),
      'points3D', r['points3D'], 'dense', r['dense_points'], 'triangles', r['triangles'])
PY
grep -E "Elapsed|Maximum resident" "$out.time"
python3 "$tools/eval_poses.py" "$capture/gt_sparse" "$out/sparse" 2>&1 | tail -1
echo "cloud 1 cm: $(python3 "$tools/eval_dense.py" "$out/dense.ply" "$out/sparse" "$capture/gt_sparse" "$capture/gt_mesh.ply" "$object" 0.01 2>&1 | tail -1)"
echo "mesh 1 cm:  $(python3 "$tools/eval_dense.py" "$out/model.glb" "$out/sparse" "$capture/gt_sparse" "$capture/gt_mesh.ply" "$object" 0.01 2>&1 | tail -1)"
echo "mesh 2 cm:  $(python3 "$tools/eval_dense.py" "$out/model.glb" "$out/sparse" "$capture/gt_sparse" "$capture/gt_mesh.ply" "$object" 0.02 2>&1 | tail -1)"
python3 "$tools/eval_texture.py" "$out/model.glb" "$out/sparse" "$capture/images" --masks "$capture/masks" 2>&1 | tail -1
