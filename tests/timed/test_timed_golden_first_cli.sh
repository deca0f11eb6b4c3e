#!/usr/bin/env bash
# The timed model's default path (the golden engine computes the numerics first, the units replay
# its per-tile records) writes the same report.json, report.csv and records.npy, byte for byte, as
# the units computing the numerics themselves (timed.unit_numerics true), on several
# configurations; run_info.json says which path each run took (numerics_path).
set -u
lampsim=$1
py=/usr/bin/python3
. "$(dirname "${BASH_SOURCE[0]}")/../check.sh"

# a trace workload: Q/K/V from .npy files (GQA, non-causal, ragged against the tiles)
"$py" - "$tmp" <<'PY'
import numpy as np, sys
rng = np.random.default_rng(5)
d = sys.argv[1]
np.save(d + '/q.npy', (rng.standard_normal((2, 150, 64)) * 2).astype(np.float32))
np.save(d + '/k.npy', (rng.standard_normal((1, 170, 64)) * 2).astype(np.float32))
np.save(d + '/v.npy', rng.standard_normal((1, 170, 64)).astype(np.float32))
PY
printf 'workload:\n  generator: trace\n  causal: false\n  dtype: fp32\n  trace: {q: q.npy, k: k.npy, v: v.npy}\n' \
  > "$tmp/trace.yaml"

small=(--set workload.seq_q=256 --set workload.seq_k=256)
# name | expected path of the default run | overrides
cases=(
  "default|engine|${small[*]}"
  "noncausal|engine|${small[*]} --set workload.causal=false"
  "full-layout|engine|${small[*]} --set accelerator.regfile.layout=full"
  "paper-arithmetic|engine|${small[*]} --set algorithm.arithmetic=paper"
  "fa2_16bit|engine|${small[*]} --set algorithm.mode=fa2_16bit"
  "pure_8bit|engine|${small[*]} --set algorithm.mode=pure_8bit"
  "state-fp64|engine|${small[*]} --set algorithm.state_precision=fp64 --set algorithm.disruptive_numerics=full_tile_hp"
  "no-reference|engine|${small[*]} --set algorithm.compute_reference=false --set algorithm.threads=2"
  "above-one-keep|engine|${small[*]} --set algorithm.above_one=keep --set algorithm.tau=0.125"
  "above-one-raise|units|${small[*]} --set algorithm.above_one=raise --set algorithm.tau=0.125"
  "trace|engine|$tmp/trace.yaml"
)
for c in "${cases[@]}"; do
  IFS='|' read -r name want args <<< "$c"
  cfg=()
  case "$args" in "$tmp"/*) cfg=("$args"); args="";; esac
  # shellcheck disable=SC2086  # args is a list of --set pairs
  "$lampsim" run "${cfg[@]}" $args --quiet --save-records -o "$tmp/$name.engine"; rc1=$?
  # shellcheck disable=SC2086
  "$lampsim" run "${cfg[@]}" $args --set timed.unit_numerics=true --quiet --save-records -o "$tmp/$name.units"; rc2=$?
  check "[ $rc1 -eq 0 ] && [ $rc2 -eq 0 ]" "$name: both runs exit 0 (got $rc1, $rc2)"
  for f in report.json report.csv records.npy; do
    check "cmp -s '$tmp/$name.engine/$f' '$tmp/$name.units/$f'" "$name: $f identical on both numerics paths"
  done
  check "grep -q '\"numerics_path\": \"$want\"' '$tmp/$name.engine/run_info.json'" \
    "$name: the default run's numerics_path is $want"
  check "grep -q '\"numerics_path\": \"units\"' '$tmp/$name.units/run_info.json'" \
    "$name: timed.unit_numerics true runs the units' numerics"
done
# the runs did model cycles and, where asked, accuracy (not two empty reports)
check "$py - '$tmp/default.engine/report.json' '$tmp/trace.engine/report.json' <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r['cycles'] > 0 and r['accuracy']['valid'] is True and r['tiles']['executed'] > 0
t = json.load(open(sys.argv[2]))
assert t['config']['workload']['generator'] == 'trace' and t['workload']['seq_k'] == 170 and t['cycles'] > 0
PY" "the reports have cycles, accuracy and executed tiles; the trace case ran the trace"
finish_checks
