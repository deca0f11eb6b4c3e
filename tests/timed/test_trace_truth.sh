#!/bin/bash
# A trace that tells the truth (check_trace_structure.py): on the tutorial's cut-down Qwen3 layer on
# 4 cores (two resident contexts per core), tracks carry the report's unit names and none is empty,
# slices carry their context and work, flows chain each tile's K/V load -> QK -> EXP -> P.V, every
# context the window cuts short has its `trace window ends` mark; traced whole, each unit's slices
# add up to the report's busy cycles (dram and l2 on the chip's tracks too). A trace that cannot be
# what was asked says so on stderr: slices dropped at timed.trace_max_events, timed.trace without
# -o, with --golden, in a mode the timed model does not run; a trace cut by its window notes it.
#   test_trace_truth.sh LAMPSIM REPO
set -u
lampsim=$1 repo=$2
. "$repo/tests/check.sh"
chk="/usr/bin/python3 $repo/tests/timed/check_trace_structure.py"
cd "$tmp"
base=("$repo/configs/lampattention.yaml" --set timed.trace=true --set "workload.file=$repo/workloads/qwen3_8b_like_1k.yaml"
      --set accelerator.cores=4)
"$lampsim" run "${base[@]}" -o win > /dev/null 2> win.err
$chk win/trace.json win/report.json --two-contexts > out 2>&1; rc=$?
check "[ $rc -eq 0 ]" "the default window's trace: $(cat out)"
check "grep -q 'window ends' out && ! grep -q ' 0 window ends' out" "contexts cut by the default window are marked: $(cat out)"
check "grep -q \"^note: trace.json draws key tiles 0-3 of each context (of up to 16)\" win.err" "the run notes the window on stderr: $(cat win.err)"
"$lampsim" run "${base[@]}" --set timed.trace_tiles=16 -o whole --quiet > /dev/null 2> whole.err
$chk whole/trace.json whole/report.json --two-contexts --whole > out2 2>&1; rc=$?
check "[ $rc -eq 0 ] && [ ! -s whole.err ]" "traced whole: every unit's slices add up to its busy cycles, no note: $(cat out2 whole.err)"
check "/usr/bin/python3 $repo/tests/timed/check_trace_nesting.py whole/trace.json > /dev/null" "every track nests"
"$lampsim" run "${base[@]}" --set timed.trace_max_events=200 -o capped --quiet > /dev/null 2> capped.err
check "grep -q 'warning: trace.json: [0-9]* slices dropped past timed.trace_max_events = 200' capped.err" "dropped slices warned: $(cat capped.err)"
"$lampsim" run --set timed.trace=true --set workload.seq_q=128 --set workload.seq_k=128 --quiet > /dev/null 2> noout.err
check "grep -q 'warning: timed.trace: true writes trace.json into the run directory: no trace without -o DIR' noout.err" "a trace without -o warned: $(cat noout.err)"
"$lampsim" run --golden --set timed.trace=true --set workload.seq_q=128 --set workload.seq_k=128 -o g --quiet > /dev/null 2> golden.err
check "grep -q 'warning: timed.trace: true, but the golden engine runs' golden.err && [ ! -e g/trace.json ]" "a trace with --golden warned: $(cat golden.err)"
"$lampsim" run --set algorithm.mode=fa2_fp32 --set timed.trace=true --set workload.seq_q=128 --set workload.seq_k=128 -o m --quiet > /dev/null 2> mode.err
check "grep -q 'warning: timed.trace: true, but this mode runs on the golden engine' mode.err" "a trace in a golden-only mode warned: $(cat mode.err)"
"$lampsim" run --set workload.seq_q=128 --set workload.seq_k=128 -o plain --quiet > /dev/null 2> plain.err
check "[ ! -s plain.err ]" "no trace asked, no warning: $(cat plain.err)"
finish_checks
