#!/usr/bin/env bash
# timed.timing_only on the command line: the report says numerics.computed false, carries the timed
# fields (equal to a full run's) and no accuracy or events, and no tensor data was generated for it
# (workload.data_generated false); data-dependent modes and --save-o exit 2.
set -u
lampsim=$1
py=/usr/bin/python3
. "$(dirname "${BASH_SOURCE[0]}")/../check.sh"

small=(--set algorithm.mode=fa2_16bit --set workload.seq_q=300 --set workload.seq_k=300 --set accelerator.cores=3)
"$lampsim" run "${small[@]}" -o "$tmp/full" --quiet; rc=$?
check "[ $rc -eq 0 ]" "full run exits 0 (got $rc)"
"$lampsim" run "${small[@]}" --set timed.timing_only=true -o "$tmp/to" --quiet; rc=$?
check "[ $rc -eq 0 ]" "timing-only run exits 0 (got $rc)"
check "$py - '$tmp/full' '$tmp/to' <<'PY'
import json, csv, sys
full = json.load(open(sys.argv[1] + '/report.json'))
to = json.load(open(sys.argv[2] + '/report.json'))
assert full['numerics']['computed'] is True and to['numerics']['computed'] is False
assert 'accuracy' in full and 'events' in full
assert 'accuracy' not in to and 'events' not in to, sorted(to)
for k in ('cycles', 'time_us', 'tflops_effective', 'units', 'stalls', 'occupancy', 'slow_path', 'energy', 'tiles', 'recompute'):
    assert full[k] == to[k], k
assert to['cycles'] > 0 and to['config']['timed']['timing_only'] is True
row = next(csv.DictReader(open(sys.argv[2] + '/report.csv')))
assert row['numerics.computed'] in ('false', '0') and not any(k.startswith('accuracy.') for k in row), row.get('numerics.computed')
info = json.load(open(sys.argv[2] + '/run_info.json'))
assert info['timing_only'] is True
# no tensor data generated for it: the data facts are absent, the shape is the full run's
fw, tw = full['workload'], to['workload']
assert fw['data_generated'] is True and len(fw['hash']) == 16 and fw['max_abs_logit'] > 0, fw
assert tw['data_generated'] is False and tw['hash'] == '' and tw['max_abs_logit'] is None, tw
for k in ('batch', 'heads_q', 'heads_kv', 'seq_q', 'seq_k', 'dim', 'causal', 'dtype', 'generator', 'seed'):
    assert fw[k] == tw[k], k
PY" "timing-only report: numerics.computed false, no accuracy/events, timed fields equal the full run's, no data generated"
"$lampsim" run "${small[@]}" --set timed.timing_only=true > "$tmp/to_out"
check "grep -q 'data not generated' '$tmp/to_out' || ! grep -q 'max |logit|' '$tmp/to_out'" "the summary does not report data facts it did not compute"

"$lampsim" run --set timed.timing_only=true -o "$tmp/lamp" --quiet 2> "$tmp/err"; rc=$?
check "[ $rc -eq 2 ]" "mode lamp with timing_only exits 2 (got $rc)"
check "grep -q 'timed.timing_only' '$tmp/err' && grep -q 'mode lamp' '$tmp/err'" "the message names the key and the mode: $(cat "$tmp/err")"
check "[ ! -e '$tmp/lamp' ]" "nothing written for a refused configuration"
"$lampsim" run "${small[@]}" --set timed.timing_only=true --save-o -o "$tmp/save" --quiet 2> "$tmp/err"; rc=$?
check "[ $rc -eq 2 ]" "--save-o with timing_only exits 2 (got $rc)"
check "grep -q 'save-o' '$tmp/err' && grep -q 'timed.timing_only' '$tmp/err'" "the message names --save-o and the key: $(cat "$tmp/err")"
check "[ ! -e '$tmp/save' ]" "nothing written with --save-o"

finish_checks
