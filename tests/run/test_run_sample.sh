#!/usr/bin/env bash
# Sampled numerics against the full run at 8k tokens (issue 38 part 4): the Qwen3-like workload,
# 8 query heads, causal prefill; algorithm.sample_query_blocks 8 of 64 blocks per head. The sampled
# HP sub-block and disruptive rates must lie within 3 standard errors (+ half a point) of the full
# run's, the replayed tile counts must equal the full run's exactly, the cycles before the tail within
# 2 % and all cycles within 6 % (the tail of a two-wave layer moves with which items end last). Also:
# --save-o and timed.timing_only are refused with sampling, and the report states the sample.
set -u
lampsim=$1
root=$2
. "$(dirname "${BASH_SOURCE[0]}")/../check.sh"
cd "$tmp"
common=(--set "workload.file=$root/workloads/qwen3_8b_like.yaml" --set workload.seq_q=8192 --set workload.seq_k=8192
        --set workload.heads_q=8 --set workload.heads_kv=2 --set algorithm.threads=2 --quiet)
"$lampsim" run "$root/configs/lampattention.yaml" "${common[@]}" -o full 2> err; rc=$?
check "[ $rc -eq 0 ]" "full run (rc $rc): $(cat err)"
"$lampsim" run "$root/configs/lampattention.yaml" "${common[@]}" --set algorithm.sample_query_blocks=8 -o smp 2> err; rc=$?
check "[ $rc -eq 0 ]" "sampled run (rc $rc): $(cat err)"
out=$(/usr/bin/python3 - full/report.json smp/report.json <<'PY'
import json, math, sys
def flat(d, pre=""):
    out = {}
    for k, v in d.items():
        if isinstance(v, dict): out.update(flat(v, pre + k + "."))
        else: out[pre + k] = v
    return out
f = flat(json.load(open(sys.argv[1]))); s = flat(json.load(open(sys.argv[2])))
bad = []
se_sb, se_dis = s["numerics.sample.subblock_rate_se"], s["numerics.sample.disruptive_rate_se"]
d_sb = abs(s["recompute.subblock_rate"] - f["recompute.subblock_rate"])
d_dis = abs(s["tiles.disruptive_rate"] - f["tiles.disruptive_rate"])
d_cyc = abs(s["cycles"] / f["cycles"] - 1)
# the tail (cores waiting for the slowest) hangs on which items end last, at two waves a few per cent
# either way; the cycles before it measure the work the sample stands for
work = lambda r: r["cycles"] - r["cycle_stack.chip.tail"]
d_work = abs(work(s) / work(f) - 1)
print(f"sub-blocks full {f['recompute.subblock_rate']:.4f} sampled {s['recompute.subblock_rate']:.4f} (se {se_sb:.4f}); "
      f"disruptive {f['tiles.disruptive_rate']:.4f} / {s['tiles.disruptive_rate']:.4f} (se {se_dis:.4f}); "
      f"cycles {f['cycles']} / {s['cycles']} ({100 * d_cyc:.2f} %; without the tail {100 * d_work:.2f} %); share {s['numerics.sample.share']:.4f}")
if not (se_sb > 0 and math.isfinite(se_sb) and se_dis > 0): bad.append("standard errors")
if d_sb > 3 * se_sb + 0.005: bad.append("sub-block rate")
if d_dis > 3 * se_dis + 0.005: bad.append("disruptive rate")
if d_work > 0.02: bad.append("cycles without the tail")
if d_cyc > 0.06: bad.append("cycles")
if s["tiles.executed"] != f["tiles.executed"] or s["tiles.masked_skipped"] != f["tiles.masked_skipped"]: bad.append("tile counts")
if abs(s["numerics.sample.share"] - 0.125) > 1e-9: bad.append("share")
if "numerics.sample.query_blocks" in f: bad.append("full run reports a sample")
print("BAD " + ", ".join(bad) if bad else "OK")
PY
)
echo "$out"
check "echo \"\$out\" | grep -q '^OK'" "sampled vs full at 8k: $out"

# refusals: O is incomplete; timing-only computes no sample
"$lampsim" run "$root/configs/lampattention.yaml" "${common[@]}" --set algorithm.sample_query_blocks=8 --save-o -o so 2> err; rc=$?
check "[ $rc -ne 0 ] && grep -q 'sampled' err && [ ! -e so ]" "--save-o refused with sampling (rc $rc): $(cat err)"
"$lampsim" run "$root/configs/lampattention.yaml" "${common[@]}" --set algorithm.mode=fa2_16bit --set timed.timing_only=true \
  --set algorithm.sample_query_blocks=8 2> err; rc=$?
check "[ $rc -ne 0 ] && grep -q 'algorithm.sample_query_blocks' err" "timing-only refused with sampling (rc $rc): $(cat err)"
finish_checks
