#!/usr/bin/env bash
# The shipped LP-datapath sweep (configs/sweeps/lp_datapath.yaml), run in full (label long, ~30 s on
# 2 cores): 16 points; without recompute (pure_8bit) the fused datapath's error falls as k grows
# (fewer roundings per dot product: 2 > 4 > 8 > 16) and every fused variant beats its sequential
# counterpart; the seq_bf16_fp32 lamp point is the plain default run.
set -u
lampsim=$1
root=$2
py=/usr/bin/python3
. "$(dirname "${BASH_SOURCE[0]}")/../check.sh"

sweep="$root/configs/sweeps/lp_datapath.yaml"
n=$("$lampsim" sweep expand "$sweep" | wc -l)
check "[ $n -eq 16 ]" "16 points (got $n)"
"$lampsim" sweep run "$sweep" -j 2 -o "$tmp/out" --quiet; rc=$?
check "[ $rc -eq 0 ]" "the sweep runs (rc $rc)"
"$lampsim" sweep merge "$tmp/out" > "$tmp/dp.csv"
"$lampsim" run --golden -o "$tmp/plain" --quiet
check "$py - '$tmp/dp.csv' '$tmp/plain/report.json' <<'PY'
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 16, len(rows)
def pick(mode, dp, sp, k=None):
    r = [r for r in rows if r['config.algorithm.mode'] == mode and r['config.algorithm.lp_datapath'] == dp
         and r['config.algorithm.scale_point'] == sp and (k is None or r['config.algorithm.lp_fused_k'] == k)]
    assert len(r) == 1, (mode, dp, sp, k, len(r))
    return float(r[0]['accuracy.kl_mean']), float(r[0]['accuracy.o_rel_fro_err']), r[0]
kl = [pick('pure_8bit', 'fused', 'post', k)[0] for k in ('2', '4', '8', '16')]
assert kl == sorted(kl, reverse=True) and len(set(kl)) == 4, kl
for sp in ('post', 'pre_fp32'):
    for mode in ('lamp', 'pure_8bit'):
        f, s = pick(mode, 'fused', sp, '4'), pick(mode, 'sequential', sp)
        assert f[0] < s[0] and f[1] < s[1], (sp, mode, f[:2], s[:2])
rep = json.load(open(sys.argv[2]))
d = pick('lamp', 'sequential', 'pre_fp32')[2]
assert float(d['accuracy.kl_mean']) == rep['accuracy']['kl_mean'], (d['accuracy.kl_mean'], rep['accuracy']['kl_mean'])
assert float(d['recompute.logit_rate']) == rep['recompute']['logit_rate']
PY" "fused error falls with k and beats sequential; the default point is the plain run"
finish_checks
