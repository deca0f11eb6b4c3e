#!/usr/bin/env bash
# lampsim run end to end: outputs written, deterministic (same config and seed give byte-identical
# reports), the resolved config reloads to the identical run, refusal of a non-empty directory,
# --force, bad configuration -> exit 2 with file:line:col and nothing written, CSV/JSON agree.
set -u
lampsim=$1
docs=$2
py=/usr/bin/python3
. "$(dirname "${BASH_SOURCE[0]}")/../check.sh"

small=(--set workload.seq_q=256 --set workload.seq_k=256)
"$lampsim" run "${small[@]}" -o "$tmp/a" --quiet; rc=$?
check "[ $rc -eq 0 ]" "run exits 0 (got $rc)"
for f in config.resolved.yaml report.json report.csv run_info.json; do
  check "[ -s '$tmp/a/$f' ]" "run writes $f"
done
check "! ls '$tmp/a' | grep -q tmp" "no temporary files left behind"
"$lampsim" run "${small[@]}" -o "$tmp/b" --quiet
check "cmp -s '$tmp/a/report.json' '$tmp/b/report.json'" "same config gives a byte-identical report.json"
check "cmp -s '$tmp/a/report.csv' '$tmp/b/report.csv'" "same config gives a byte-identical report.csv"
# any thread count: byte-identical reports (the thread count goes to run_info.json only)
"$lampsim" run "${small[@]}" --set algorithm.threads=3 -o "$tmp/t3" --quiet
check "cmp -s '$tmp/a/report.json' '$tmp/t3/report.json' && cmp -s '$tmp/a/report.csv' '$tmp/t3/report.csv'" "algorithm.threads=3 gives byte-identical report.json and report.csv"
check "grep -q '\"threads\": 3' '$tmp/t3/run_info.json'" "run_info.json records the thread count"
# the resolved configuration reloads to the identical run
"$lampsim" run "$tmp/a/config.resolved.yaml" -o "$tmp/c" --quiet
check "cmp -s '$tmp/a/report.json' '$tmp/c/report.json'" "config.resolved.yaml reproduces the run"
# a different seed changes the data and so the report
"$lampsim" run "${small[@]}" --set seed=2 -o "$tmp/d" --quiet
check "! cmp -s '$tmp/a/report.json' '$tmp/d/report.json'" "another seed gives another report"
# report contents: version, seed, config, statistics; CSV has the same fields
check "$py - '$tmp/a' <<'PY'
import json, csv, sys
d = sys.argv[1]
r = json.load(open(d + '/report.json'))
assert r['schema_version'] == 2 and r['seed'] == 1 and r['lampsim']['version']
assert r['config']['algorithm']['tau'] == 0.5 and r['config']['workload']['seq_q'] == 256
t = r['tiles']; assert t['executed'] > 0 and sum(t['hp_subblocks_hist']) == t['executed']
assert 0 <= t['disruptive_rate'] <= 1 and r['accuracy']['valid']
row = next(csv.DictReader(open(d + '/report.csv')))
assert float(row['tiles.disruptive_rate']) == t['disruptive_rate']
assert row['config.algorithm.mode'] == 'lamp' and int(row['tiles.executed']) == t['executed']
PY" "report.json and report.csv carry version, seed, config and statistics consistently"
# one definition per energy field, named in it (issue #39): dynamic_uj without leakage, layer_uj the
# total the page's chart draws = dynamic + leakage; no ambiguous total_uj
check "$py - '$tmp/a' <<'PY'
import json, sys
e = json.load(open(sys.argv[1] + '/report.json'))['energy']
assert 'total_uj' not in e, e
assert e['dynamic_uj'] > 0 and e['leakage_uj'] > 0
assert abs(e['layer_uj'] - (e['dynamic_uj'] + e['leakage_uj'])) <= 1e-9 * e['layer_uj'], e
PY" "energy.dynamic_uj + energy.leakage_uj = energy.layer_uj; no energy.total_uj"
# every report field (but the config echo) is documented in docs/reports.md
check "$py - '$tmp/a/report.json' '$docs/reports.md' <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); doc = open(sys.argv[2]).read()
def leaves(d, p=''):
    for k, v in d.items():
        if isinstance(v, dict):
            if p + k != 'config': yield from leaves(v, p + k + '.')
        else: yield p + k
import re
# documented names are the backticked ones; <placeholder> stands for one name component
names = [re.escape(n).replace(re.escape('<unit>'), '[a-z0-9_]+') for n in re.findall(r'\x60([a-z0-9_.<>]+)\x60', doc)]
pat = re.compile('^(' + '|'.join(names) + ')$')
missing = [k for k in leaves(r) if not pat.match(k)]
assert not missing, missing
PY" "every report field is documented in docs/reports.md"
# the timed model runs by default; --golden runs the engine only, with identical numerics
"$lampsim" run "${small[@]}" --golden -o "$tmp/h" --quiet --save-o
"$lampsim" run "${small[@]}" -o "$tmp/i" --quiet --save-o
check "$py - '$tmp/h' '$tmp/i' <<'PY'
import json, sys, numpy as np
g = json.load(open(sys.argv[1] + '/report.json')); t = json.load(open(sys.argv[2] + '/report.json'))
assert g['model'] == 'golden' and 'cycles' not in g
assert t['model'] == 'timed' and t['cycles'] > 0 and t['units']['tensor']['busy_cycles'] > 0
for sec in ('workload', 'tiles', 'recompute', 'accuracy', 'events'):
    assert g[sec] == t[sec], sec
assert (np.load(sys.argv[1] + '/O.npy').view(np.uint32) == np.load(sys.argv[2] + '/O.npy').view(np.uint32)).all()
PY" "timed and golden runs give identical numerics, statistics and O bits"
"$lampsim" run "${small[@]}" --set algorithm.mode=fa2_fp32 -o "$tmp/j" --quiet 2>"$tmp/err"; rc=$?
check "[ $rc -eq 0 ] && grep -q '\"model\": \"golden\"' '$tmp/j/report.json'" "a mode the timed model does not run falls back to the golden engine"
"$lampsim" run "${small[@]}" --set timed.trace=true -o "$tmp/k" --quiet
check "$py -c \"import json; d=json.load(open('$tmp/k/trace.json')); assert len(d['traceEvents'] if isinstance(d, dict) else d) > 0\"" "timed.trace writes a non-empty trace.json"
# refusal and --force
"$lampsim" run "${small[@]}" -o "$tmp/a" --quiet 2>"$tmp/err"; rc=$?
check "[ $rc -eq 2 ] && grep -q 'not empty' '$tmp/err'" "refuses a non-empty output directory (rc $rc)"
"$lampsim" run "${small[@]}" -o "$tmp/a" --force --quiet; rc=$?
check "[ $rc -eq 0 ]" "--force overwrites"
# bad configuration: exit 2, message with file:line:col and key, nothing written
printf 'algorithm:\n  tua: 0.5\n' > "$tmp/bad.yaml"
"$lampsim" run "$tmp/bad.yaml" -o "$tmp/e" 2>"$tmp/err"; rc=$?
check "[ $rc -eq 2 ]" "bad config exits 2 (got $rc)"
check "grep -q 'bad.yaml:2:3' '$tmp/err' && grep -q 'tua' '$tmp/err' && grep -q 'tau' '$tmp/err'" "error names file:line:col, the key and a suggestion: $(cat "$tmp/err")"
check "[ ! -e '$tmp/e' ]" "nothing written for a bad config"
"$lampsim" run --set algorithm.tau=2 -o "$tmp/f" 2>"$tmp/err"; rc=$?
check "[ $rc -eq 2 ] && grep -q 'algorithm.tau' '$tmp/err' && [ ! -e '$tmp/f' ]" "out-of-range --set exits 2, names the key, writes nothing"
"$lampsim" run --bogus 2>/dev/null; rc=$?
check "[ $rc -eq 2 ]" "unknown option exits 2"
# --save-o writes O.npy with the workload's shape
"$lampsim" run "${small[@]}" -o "$tmp/g" --save-o --quiet
check "$py -c \"import numpy as np; o=np.load('$tmp/g/O.npy'); r=np.load('$tmp/g/O_ref.npy'); assert o.shape==(1,2,256,128)==r.shape and o.dtype==np.float32\"" "--save-o writes O.npy and O_ref.npy"
# --save-records: records.npy agrees with the report's statistics, timed = golden; lamp_code also
# writes its per-logit selection mask, whose selected count is the report's logit rate
"$lampsim" run "${small[@]}" -o "$tmp/rt" --save-records --quiet
"$lampsim" run "${small[@]}" --golden -o "$tmp/rg" --save-records --quiet
"$lampsim" run "${small[@]}" --set algorithm.mode=lamp_code --set algorithm.lamp_code_tau=1.2 -o "$tmp/rc" --save-records --quiet
check "$py - '$tmp' <<'PY'
import json, sys, numpy as np
d = sys.argv[1]
for n in ('rt', 'rg', 'rc'):
    r = json.load(open(f'{d}/{n}/report.json')); a = np.load(f'{d}/{n}/records.npy')
    assert a.dtype == np.float32 and a.ndim == 2 and a.shape[1] == 4, a.shape
    run = (a[:, 3].astype(int) & 9) == 0
    s1 = sum(bin(int(m)).count('1') for m in a[run, 0]); s2 = sum(bin(int(m)).count('1') for m in a[run, 1])
    assert run.sum() == r['tiles']['executed'] and ((a[:, 3].astype(int) & 1) != 0).sum() == r['tiles']['masked_skipped'], n
    assert s1 == r['recompute']['stage1_subblocks'] and s2 == r['recompute']['stage2_subblocks'], (n, s1, s2)
    assert list(np.bincount(a[run, 2].astype(int), minlength=5)) == r['tiles']['hp_subblocks_hist'], n
assert np.array_equal(np.load(f'{d}/rt/records.npy'), np.load(f'{d}/rg/records.npy'))
m = np.load(f'{d}/rc/lamp_code_mask.npy'); r = json.load(open(f'{d}/rc/report.json'))
assert m.shape == (1, 2, 256, 256) and set(np.unique(m)) <= {0, 1, 2}
i, k = np.indices((256, 256)); assert not m[:, :, k > i].any() or (m[:, :, k > i] != 1).all()
assert abs((m == 1).sum() / (2 * 256 * 257 / 2) - r['recompute']['logit_rate']) < 1e-12 and (m == 1).sum() > 0
PY" "--save-records: records.npy matches the report (timed = golden), lamp_code_mask.npy matches logit_rate"
check "[ ! -e '$tmp/rt/lamp_code_mask.npy' ]" "no lamp_code_mask.npy outside mode lamp_code"
"$lampsim" run "${small[@]}" --save-records --quiet 2>"$tmp/err"; rc=$?
check "[ $rc -eq 2 ] && grep -q -- '-o DIR' '$tmp/err'" "--save-records without -o exits 2 with a message"
# number formats: a bad name or a LUT the hardware cannot index is refused at load time with
# file:line:col and the key; a good one runs, its resolved config repeats it exactly
printf 'algorithm:\n  lp_format: e4m24\n' > "$tmp/badfmt.yaml"
"$lampsim" run "$tmp/badfmt.yaml" -o "$tmp/bf" 2>"$tmp/err"; rc=$?
check "[ $rc -eq 2 ] && grep -q 'badfmt.yaml:2:14: algorithm.lp_format' '$tmp/err' && [ ! -e '$tmp/bf' ]" "bad lp_format: exit 2, file:line:col and key: $(cat "$tmp/err")"
"$lampsim" run "${small[@]}" --set algorithm.lp_format=e5m12 -o "$tmp/bf2" 2>"$tmp/err"; rc=$?
check "[ $rc -eq 2 ] && grep -q 'algorithm.lp_format' '$tmp/err' && grep -q 'at most 16 bits' '$tmp/err'" "an LP format whose LUT exceeds 2^16 entries is refused: $(cat "$tmp/err")"
"$lampsim" run "${small[@]}" --set algorithm.lp_format=e4m2 --set algorithm.hp_format=e5m9 -o "$tmp/f1" --quiet
"$lampsim" run "$tmp/f1/config.resolved.yaml" -o "$tmp/f2" --quiet
check "grep -q 'lp_format: .e4m2.' '$tmp/f1/config.resolved.yaml' && cmp -s '$tmp/f1/report.json' '$tmp/f2/report.json' && ! cmp -s '$tmp/f1/report.json' '$tmp/a/report.json'" "lp_format e4m2: runs, differs from e4m3, the resolved config repeats it"
# the register-file plan follows the LP width: a 4-bit e2m1 logit tile (64 x 32) packs 8 per register,
# 256 registers per warp fewer than e4m3's 4 per register
"$lampsim" run "${small[@]}" --set algorithm.lp_format=e2m1 -o "$tmp/f3" --quiet
check "$py -c \"import json; a, b = (json.load(open(d + '/report.json'))['occupancy']['regs_per_warp'] for d in ('$tmp/a', '$tmp/f3')); assert a - b == 256, (a, b)\"" "regs_per_warp follows the LP format's width"
# algorithm.compute_reference: false skips the fp64 reference: same O and statistics, accuracy not computed
"$lampsim" run "${small[@]}" --golden --set algorithm.compute_reference=false -o "$tmp/nr" --save-o > "$tmp/nr_out"
"$lampsim" run "${small[@]}" --set algorithm.compute_reference=false -o "$tmp/nrt" --quiet
check "grep -q 'accuracy  not computed (algorithm.compute_reference: false)' '$tmp/nr_out' && [ ! -e '$tmp/nr/O_ref.npy' ]" "compute_reference false: the summary says so, no O_ref.npy"
check "$py - '$tmp/h' '$tmp/nr' '$tmp/nrt' <<'PY'
import json, sys, numpy as np
h, nr, nrt = (json.load(open(d + '/report.json')) for d in sys.argv[1:])
assert np.array_equal(np.load(sys.argv[1] + '/O.npy'), np.load(sys.argv[2] + '/O.npy'))
for sec in ('tiles', 'recompute', 'events'):
    assert h[sec] == nr[sec] == nrt[sec], sec
assert h['accuracy']['valid'] and h['accuracy']['kl_mean'] > 0
for r in (nr, nrt):
    a = r['accuracy']
    assert a['valid'] is False and a['rows'] == 0 and a['kl_mean'] is None and a['o_rel_fro_err'] is None, a
PY" "compute_reference false: O and statistics unchanged, accuracy.valid false and metrics null (golden and timed)"
# far above the logit bound the paper arithmetic overflows fp32 in O: counted and warned about,
# identically by the timed model and the golden engine; the hardware arithmetic saturates instead
far=(--set algorithm.arithmetic=paper --set workload.qknorm.gain=12 --set workload.sharpness=1.5 --set workload.locality=1
     --set workload.sinks.count=0 --set workload.seq_q=256 --set workload.seq_k=256 --set workload.dim=256
     --set algorithm.b_q=16)
"$lampsim" run "${far[@]}" -o "$tmp/nf_t" --quiet --save-o 2>"$tmp/nf_err"
"$lampsim" run "${far[@]}" --golden -o "$tmp/nf_g" --quiet 2>/dev/null
"$lampsim" run "${far[@]}" --set algorithm.arithmetic=hardware -o "$tmp/nf_h" --quiet 2>"$tmp/nf_herr"
check "$py - '$tmp' <<'PY'
import json, sys, numpy as np
d = sys.argv[1]
t, g, h = (json.load(open(f'{d}/{n}/report.json'))['events']['o_nonfinite'] for n in ('nf_t', 'nf_g', 'nf_h'))
bad = int((~np.isfinite(np.load(f'{d}/nf_t/O.npy'))).sum())
assert t == bad > 0 and g == t and h == 0, (t, g, h, bad)
PY" "events.o_nonfinite counts the non-finite O elements (paper, far above the bound), timed = golden, hardware 0"
check "grep -q 'warning: [0-9]* output elements are NaN or infinite' '$tmp/nf_err' && [ ! -s '$tmp/nf_herr' ]" "a warning on stderr only when O is not finite"
finish_checks
