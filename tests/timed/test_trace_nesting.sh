#!/bin/bash
# Writes real traces with `lampsim run --set timed.trace=true` and checks that every track nests
# (check_trace_nesting.py): the tutorial's cut-down Qwen3 run (in-flight memory loads, compact
# layout) and the FA2 validation preset on several cores with 8-cycle interleaved slices at a
# clock whose cycle is not a whole number of nanoseconds.
#   test_trace_nesting.sh LAMPSIM REPO
set -eu
lampsim=$1 repo=$2
check="/usr/bin/python3 $repo/tests/timed/check_trace_nesting.py"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$repo"

"$lampsim" run configs/lampattention.yaml --set timed.trace=true --set workload.file=workloads/qwen3_8b_like.yaml \
    --set workload.heads_q=4 --set workload.heads_kv=1 --set workload.seq_q=1024 --set workload.seq_k=1024 \
    -o "$tmp/qwen" >/dev/null
$check "$tmp/qwen/trace.json" --min-slices 1000 --min-tracks 5

"$lampsim" run configs/validation/fa2_h100.yaml --set timed.trace=true --set accelerator.cores=4 \
    --set workload.heads_q=4 --set workload.heads_kv=4 --set workload.seq_q=1024 --set workload.seq_k=1024 -o "$tmp/fa2" >/dev/null
$check "$tmp/fa2/trace.json" --min-slices 1000 --min-tracks 8
# several cores and both contexts of a core appear in the trace
/usr/bin/python3 - "$tmp/fa2/trace.json" <<'EOF'
import json, sys
ev = [e for e in json.load(open(sys.argv[1]))["traceEvents"] if e.get("ph") == "X"]
pids = {e["pid"] for e in ev}
items = {e["args"]["item"] for e in ev}
assert len(pids) >= 2 and len(items) >= 4, (pids, len(items))
EOF
