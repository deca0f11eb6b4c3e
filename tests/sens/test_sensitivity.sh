#!/usr/bin/env bash
# lampsim sensitivity on a small workload (1 head, 128 tokens; well under a second a run): the
# one-at-a-time table has one row per parameter whose ends equal separate `lampsim run --set K=V`
# runs; a ratio equals the ratio of two separate runs; Morris's statistics are recomputed here
# from samples.csv; outputs are byte-identical on a rerun and with 2 engine threads, and a seed
# names one design; bad input exits 2 and writes nothing; `lampsim report` writes the HTML.
set -u
lampsim=$1
src=$2
. "$src/tests/check.sh"
py=/usr/bin/python3
cd "$tmp"
small=(--set seed=7 --set workload.heads_q=1 --set workload.heads_kv=1 --set workload.seq_q=128 --set workload.seq_k=128)
P=accelerator.tensor.latency,accelerator.memory.pipeline_stages,accelerator.energy.dram_read_64b
csvget() { # FILE COLUMN [ROW-MATCH-COLUMN VALUE]...: the column of the first matching row
  $py - "$@" <<'PY'
import csv, sys
f, col, conds = sys.argv[1], sys.argv[2], sys.argv[3:]
for r in csv.DictReader(open(f)):
    if all(r[conds[i]] == conds[i + 1] for i in range(0, len(conds), 2)):
        print(r[col]); break
PY
}
num_eq() { $py -c "import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); sys.exit(0 if abs(a - b) <= 1e-9 * max(1, abs(b)) else 1)" "$1" "$2"; }

# ---- one at a time, against separate runs ----
"$lampsim" sensitivity "${small[@]}" --params $P --method oat --metric cycles --metric energy.dynamic_uj -o oat --no-html > out 2> err; rc=$?
check "[ $rc -eq 0 ] && [ -f oat/sensitivity.csv ] && [ ! -e oat/morris.csv ]" "--method oat writes sensitivity.csv and no morris.csv (rc $rc): $(cat err)"
check "[ \$(grep -c '^cycles,' oat/sensitivity.csv) -eq 3 ] && [ \$(grep -c '^energy.dynamic_uj,' oat/sensitivity.csv) -eq 3 ] && [ \$(wc -l < oat/sensitivity.csv) -eq 7 ]" "one row per parameter and metric: $(cat oat/sensitivity.csv)"
check "head -1 oat/sensitivity.csv | grep -q '^metric,param,low,base,high,metric_low,metric_base,metric_high,swing,rank'" "the documented columns"
"$lampsim" run "${small[@]}" --quiet -o r_base
"$lampsim" run "${small[@]}" --set accelerator.tensor.latency=12 --quiet -o r_lo
"$lampsim" run "${small[@]}" --set accelerator.tensor.latency=128 --quiet -o r_hi
"$lampsim" run "${small[@]}" --set accelerator.energy.dram_read_64b=2600 --quiet -o r_e
for end in base lo hi; do
  col=metric_${end/lo/low}; col=${col/hi/high}
  want=$(csvget r_$end/report.csv cycles); got=$(csvget oat/sensitivity.csv $col metric cycles param accelerator.tensor.latency)
  check "[ -n '$want' ] && num_eq '$got' '$want'" "tensor.latency $col $got = lampsim run's cycles $want"
done
lo=$(csvget oat/sensitivity.csv low metric cycles param accelerator.tensor.latency)
hi=$(csvget oat/sensitivity.csv high metric cycles param accelerator.tensor.latency)
check "[ '$lo' = 12 ] && [ '$hi' = 128 ]" "low and high are the provenance table's range (12, 128): $lo, $hi"
want=$(csvget r_e/report.csv energy.dynamic_uj); got=$(csvget oat/sensitivity.csv metric_high metric energy.dynamic_uj param accelerator.energy.dram_read_64b)
check "num_eq '$got' '$want'" "dram_read_64b at high: energy $got = lampsim run's $want"
want=$(csvget r_base/report.csv cycles); got=$(csvget oat/sensitivity.csv metric_high metric cycles param accelerator.energy.dram_read_64b)
check "num_eq '$got' '$want'" "an energy estimate leaves cycles at the base ($got, $want)"
sw=$(csvget oat/sensitivity.csv swing metric cycles param accelerator.tensor.latency)
check "num_eq '$sw' \$($py -c \"print(max($(csvget r_lo/report.csv cycles), $(csvget r_hi/report.csv cycles), $(csvget r_base/report.csv cycles)) - min($(csvget r_lo/report.csv cycles), $(csvget r_hi/report.csv cycles), $(csvget r_base/report.csv cycles)))\")" "swing = max - min of low, base, high ($sw)"
check "grep -q '^cycles [0-9.k]*, [0-9.k]*\.\.[0-9.k]* over the estimates' oat/summary.txt && grep -q 'cycles .* over the estimates' out" "the answer as a range, in summary.txt and on stdout: $(head -3 out)"
check "grep -q '\"numerics_replayed\": 6' oat/run_info.json" "numerics computed once, replayed for the other 6 runs: $(cat oat/run_info.json)"

# ---- a ratio: both sides with the same parameter values ----
"$lampsim" sensitivity "${small[@]}" --params accelerator.tensor.latency --method oat --ratio full/compact -o rat --no-html > out 2> err; rc=$?
"$lampsim" run "${small[@]}" --set accelerator.regfile.layout=full --set accelerator.tensor.latency=128 --quiet -o rf
want=$($py -c "print($(csvget rf/report.csv cycles) / $(csvget r_hi/report.csv cycles))")
got=$(csvget rat/sensitivity.csv metric_high metric cycles:full/compact param accelerator.tensor.latency)
check "[ $rc -eq 0 ] && num_eq '$got' '$want'" "cycles full/compact at tensor.latency 128 = separate runs' ratio ($got, $want; rc $rc): $(cat err)"
fl=$(csvget rat/sensitivity.csv flips metric cycles:full/compact param accelerator.tensor.latency)
check "echo '$fl' | grep -qxE 'no|low|high|both' && grep -q 'full/compact (crosses 1)\|flips full/compact' rat/summary.txt" "ratios say whether the comparison flips ($fl): $(cat rat/summary.txt)"
"$lampsim" sensitivity "${small[@]}" --params accelerator.tensor.latency --method oat --ratio lamp/fa2_16bit -o rat2 --no-html > out 2> err; rc=$?
"$lampsim" run "${small[@]}" --set algorithm.mode=fa2_16bit --set accelerator.tensor.latency=12 --quiet -o rfa
want=$($py -c "print($(csvget r_lo/report.csv cycles) / $(csvget rfa/report.csv cycles))")
got=$(csvget rat2/sensitivity.csv metric_low metric cycles:lamp/fa2_16bit param accelerator.tensor.latency)
check "[ $rc -eq 0 ] && num_eq '$got' '$want'" "cycles lamp/fa2_16bit at tensor.latency 12 = separate runs' ratio ($got, $want; rc $rc): $(cat err)"

# ---- Morris: the statistics from the samples, determinism, seeds, thread counts ----
M=(--params $P --trajectories 4 --levels 4 --ratio full/compact)
"$lampsim" sensitivity "${small[@]}" "${M[@]}" -o m1 > out 2> err; rc=$?
check "[ $rc -eq 0 ] && [ -f m1/morris.csv ] && [ -f m1/sensitivity.html ] && [ -f m1/samples.csv ]" "Morris (the default method) writes morris.csv, samples.csv and sensitivity.html (rc $rc): $(cat err)"
$py - m1 > chk 2>&1 <<'PY'
import csv, math, sys
d = sys.argv[1]
S = list(csv.DictReader(open(d + "/samples.csv")))
M = list(csv.DictReader(open(d + "/morris.csv")))
params = ["accelerator.tensor.latency", "accelerator.memory.pipeline_stages", "accelerator.energy.dram_read_64b"]
lo = {"accelerator.tensor.latency": 12, "accelerator.memory.pipeline_stages": 1, "accelerator.energy.dram_read_64b": 450}
hi = {"accelerator.tensor.latency": 128, "accelerator.memory.pipeline_stages": 4, "accelerator.energy.dram_read_64b": 2600}
delta = 2 / 3
ok = True
mor = [r for r in S if r["design"] == "morris"]
trajs = sorted({int(r["trajectory"]) for r in mor})
if trajs != [0, 1, 2, 3] or len(mor) != 4 * 4:
    print("trajectories", trajs, len(mor)); ok = False
for metric, col in (("cycles", "cycles"), ("cycles:full/compact", None)):
    ee = {p: [] for p in params}
    for t in trajs:
        pts = [r for r in mor if int(r["trajectory"]) == t]
        for a, b in zip(pts, pts[1:]):
            moved = [p for p in params if a[p] != b[p]]
            if len(moved) != 1:
                print("a step moves one parameter", moved); ok = False; continue
            p = moved[0]
            step = (float(b[p]) - float(a[p])) / (hi[p] - lo[p])
            if abs(abs(step) - delta) > 0.02:  # integers rounded to the grid
                print("step", p, step); ok = False
            val = (lambda r: float(r["cycles"])) if col else (
                lambda r: float(r["cycles@accelerator.regfile.layout=full"]) / float(r["cycles"]))
            ee[p].append((val(b) - val(a)) / (math.copysign(delta, step)))
    for p in params:
        row = [r for r in M if r["metric"] == metric and r["param"] == p][0]
        e = ee[p]
        mu_star = sum(abs(x) for x in e) / len(e)
        mu = sum(e) / len(e)
        sigma = math.sqrt(sum((x - mu) ** 2 for x in e) / (len(e) - 1))
        if int(row["effects"]) != len(e) or abs(float(row["mu_star"]) - mu_star) > 1e-6 * max(1, mu_star) \
                or abs(float(row["sigma"]) - sigma) > 1e-6 * max(1, sigma):
            print("mismatch", metric, p, row, mu_star, sigma, len(e)); ok = False
print("ok" if ok else "FAILED")
PY
check "grep -qx ok chk" "morris.csv's effects, mu* and sigma recomputed from samples.csv: $(cat chk)"
"$lampsim" sensitivity "${small[@]}" "${M[@]}" -o m2 --quiet 2> err
"$lampsim" sensitivity "${small[@]}" "${M[@]}" --set algorithm.threads=2 -o m3 --quiet 2> err
same=1; same3=1
for f in sensitivity.csv morris.csv samples.csv summary.txt sensitivity.html; do
  cmp -s m1/$f m2/$f || same=0
  cmp -s m1/$f m3/$f || same3=0
done
check "[ $same -eq 1 ]" "a rerun is byte-identical (sensitivity.csv, morris.csv, samples.csv, summary.txt, sensitivity.html)"
check "[ $same3 -eq 1 ]" "2 engine threads give byte-identical files"
"$lampsim" sensitivity "${small[@]}" "${M[@]}" --seed 99 -o m4 --quiet --no-html 2> err
check "! cmp -s m1/samples.csv m4/samples.csv && cmp -s m1/sensitivity.csv m4/sensitivity.csv" "another seed, another Morris design; the one-at-a-time table stays"
"$lampsim" sensitivity "${small[@]}" "${M[@]}" --seed 7 -o m5 --quiet --no-html 2> err
check "cmp -s m1/samples.csv m5/samples.csv" "the seed defaults to the configuration's (seed 7)"

# ---- lampsim report on a sensitivity directory ----
rm -f m1/sensitivity.html
"$lampsim" report m1 > out 2> err; rc=$?
check "[ $rc -eq 0 ] && grep -q 'data:image/png;base64' m1/sensitivity.html && grep -q 'tornado' m1/sensitivity.html && cmp -s m1/sensitivity.html m2/sensitivity.html" "lampsim report DIR writes the same sensitivity.html (rc $rc): $(cat err)"

# ---- bad input: exit 2, a clear message, nothing written ----
bad() { # expected-text args...
  local want=$1; shift
  rm -rf bad
  "$lampsim" sensitivity "${small[@]}" "$@" -o bad --no-html > out 2> e; local rc=$?
  check "[ $rc -eq 2 ] && [ ! -e bad ] && grep -qF -- \"$want\" e" "$* : exit 2, nothing written, '$want' (rc $rc): $(cat e)"
}
bad "unknown metric 'cycels'; did you mean 'cycles'?" --metric cycels
bad "unknown key 'accelerator.tensor.latncy'; did you mean 'accelerator.tensor.latency'?" --params accelerator.tensor.latncy
bad "'accelerator.cores' is a source, not an estimate" --params accelerator.cores
bad "'workload.seq_q' is no estimate of the provenance table" --params workload.seq_q
bad "'accelerator.tensor.latency' is listed twice" --params accelerator.tensor.latency,accelerator.tensor.latency
bad "is not A/B" --ratio full
bad "compares a value with itself" --ratio full/full
bad "no configuration key takes both 'full' and 'lamp'" --ratio full/lamp
bad "unknown method 'sobol'" --method sobol
bad "--levels: 3 is not an even number" --levels 3
bad "--trajectories: expected a whole number" --trajectories 0
bad "unknown option '--metrc'; did you mean '--metric'?" --metrc cycles
bad "accelerator.tensor.latency" --set accelerator.tensor.latency=-5
rm -rf bad; "$lampsim" sensitivity "${small[@]}" --set timed.enabled=false --params accelerator.tensor.latency -o bad --no-html > out 2> e; rc=$?
check "[ $rc -eq 2 ] && [ ! -e bad ] && grep -q 'cycles is not in the report' e" "a timed metric of a golden run: exit 2, nothing written (rc $rc): $(cat e)"
"$lampsim" sensitivity "${small[@]}" > out 2> e; rc=$?
check "[ $rc -eq 2 ] && grep -q -- '-o DIR is required' e" "-o is required (rc $rc)"
mkdir full; echo x > full/f
"$lampsim" sensitivity "${small[@]}" --params accelerator.tensor.latency -o full --no-html > out 2> e; rc=$?
check "[ $rc -eq 2 ] && [ -f full/f ]" "a non-empty DIR is refused without --force (rc $rc): $(cat e)"
# a base value outside its estimate's range (issue #39): a listed key is refused before any run, naming
# the key, value and range; among all the estimates it is flagged on stderr
start=$(date +%s%N)
"$lampsim" sensitivity "${small[@]}" --set accelerator.tensor.latency=500 --params accelerator.tensor.latency -o outside --no-html > out 2> e; rc=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
check "[ $rc -eq 2 ] && grep -qF \"'accelerator.tensor.latency' is 500 in the configuration, outside its estimate's range [12, 128]\" e && [ ! -e outside ] && [ $ms -lt 2000 ]" \
  "a listed base outside its range: exit 2 in ${ms} ms, nothing written (rc $rc): $(cat e)"
"$lampsim" sensitivity "${small[@]}" --set accelerator.tensor.latency=500 --set algorithm.threads=1 --method oat -o outside_all --no-html > out 2> e; rc=$?
check "[ $rc -eq 0 ] && grep -q 'WARNING: accelerator.tensor.latency is 500 in the configuration, outside its estimate.s range \[12, 128\]' e" \
  "among all estimates, it is flagged on stderr (rc $rc): $(grep -i warn e)"
"$lampsim" help sensitivity > h; rc=$?
check "[ $rc -eq 0 ] && grep -q 'usage: lampsim sensitivity' h && grep -q 'Morris' h" "lampsim help sensitivity"
finish_checks
