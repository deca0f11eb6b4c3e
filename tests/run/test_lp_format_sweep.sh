#!/usr/bin/env bash
# The shipped LP-format sweep (configs/sweeps/lp_format.yaml), run in full (label long, ~30 s on
# 2 cores): 28 points; in each family (e3, e4, e5 hardware; PS paper) the KL divergence and the O
# error fall with every added mantissa bit, the default e4m3 point equals a plain hardware run,
# and the hardware e4mM points agree with PS(M) to within a few per cent (no exponent-range effect
# on this workload).
set -u
lampsim=$1
root=$2
py=/usr/bin/python3
. "$(dirname "${BASH_SOURCE[0]}")/../check.sh"

sweep="$root/configs/sweeps/lp_format.yaml"
n=$("$lampsim" sweep expand "$sweep" | wc -l)
check "[ $n -eq 28 ]" "28 points (got $n)"
"$lampsim" sweep run "$sweep" -j 2 -o "$tmp/out" --quiet; rc=$?
check "[ $rc -eq 0 ]" "the sweep runs (rc $rc)"
"$lampsim" sweep merge "$tmp/out" > "$tmp/lp.csv"
check "$py - '$tmp/lp.csv' <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 28, len(rows)
fam = {}
for r in rows:
    f = r['config.algorithm.lp_format']
    key = f[:2] if f.startswith('e') else 'ps'
    fam.setdefault(key, []).append((int(f.split('m')[-1]) if key != 'ps' else int(f[2:]), float(r['accuracy.kl_mean']),
                                    float(r['accuracy.o_rel_fro_err']), f))
for key, pts in fam.items():
    pts.sort()
    assert [p[0] for p in pts] == list(range(2, 9)), (key, pts)
    for a, b in zip(pts, pts[1:]):
        assert b[1] < a[1] and b[2] < a[2], (key, a, b)
e4 = {p[0]: p for p in fam['e4']}; ps = {p[0]: p for p in fam['ps']}
for m in range(2, 9):
    assert abs(e4[m][1] / ps[m][1] - 1) < 0.05, (m, e4[m], ps[m])
PY" "KL and O error fall with the mantissa in every family; e4mM tracks PS(M)"
"$lampsim" run "$root/configs/lampattention.yaml" --golden --set algorithm.tau=0.5 --set workload.file="$root/workloads/qwen3_8b_like.yaml" \
  --set workload.heads_q=4 --set workload.heads_kv=1 --set workload.seq_q=1024 --set workload.seq_k=1024 -o "$tmp/plain" --quiet
check "$py - '$tmp/lp.csv' '$tmp/plain/report.json' <<'PY'
import csv, json, sys
row = [r for r in csv.DictReader(open(sys.argv[1])) if r['config.algorithm.lp_format'] == 'e4m3'][0]
rep = json.load(open(sys.argv[2]))
assert float(row['accuracy.kl_mean']) == rep['accuracy']['kl_mean'], (row['accuracy.kl_mean'], rep['accuracy']['kl_mean'])
assert float(row['recompute.logit_rate']) == rep['recompute']['logit_rate']
PY" "the e4m3 point is the default hardware run"
finish_checks
