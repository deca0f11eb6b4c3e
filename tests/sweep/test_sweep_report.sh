#!/usr/bin/env bash
# The sweep report answers the sweep's question (scripts/sweep_report.py): an interrupted sweep's
# report says INCOMPLETE with the missing points before anything else; the headline's per-axis
# sentence ("layout=full is faster than compact at every tau by a-b %") is recomputed here from
# results.csv; points are named by their axis values as the sweep file wrote them (no float reprs),
# without the keys their mode does not read; one Mode column; a cycle stack per point; the
# script's table of which mode reads which key agrees with `lampsim config --explain` (the C table,
# sim/config/modes.c). Skips (77) without numpy, matplotlib and jinja2 for /usr/bin/python3.
. "$(dirname "$0")/common.sh"
py=/usr/bin/python3
if ! $py -c 'import numpy, matplotlib, jinja2' 2>/dev/null; then
  echo "SKIP: /usr/bin/python3 with numpy, matplotlib and jinja2 needed (Debian python3-numpy python3-matplotlib python3-jinja2)"
  exit 77
fi
cd "$tmp"
small_sweep s.yaml timed
"$lampsim" sweep run s.yaml -j 2 -o full --quiet
"$lampsim" report full > /dev/null 2> log; rc=$?
check "[ $rc -eq 0 ] && ! grep -q INCOMPLETE full/report.html" "a finished sweep's report is not marked incomplete (rc $rc)"
# the headline's layout sentence, recomputed: per tau the faster layout, the gaps' range
cat > layout.py <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
h = open(sys.argv[2]).read()
by = {}
for r in rows:
    by.setdefault(r["algorithm.tau"], {})[r["accelerator.regfile.layout"]] = float(r["cycles"])
wins = {min(d, key=d.get) for d in by.values()}
assert len(wins) == 1, ("the layout winner changes with tau in this sweep", by)
w = wins.pop()
lo = min(100 * (d[v] / d[w] - 1) for d in by.values() for v in d if v != w)
hi = max(100 * (d[v] / d[w] - 1) for d in by.values() for v in d if v != w)
other = "compact" if w == "full" else "full"
gap = "%.0f %%" % lo if round(lo) == round(hi) else "%.0f-%.0f %%" % (lo, hi)
want = "layout=%s is faster than %s at every tau by %s (%d of %d settings)." % (w, other, gap, len(by), len(by))
assert want in h, (want, [l for l in h.splitlines() if "layout=" in l][:5])
i = h.index("class='headline'")
assert h.index(want) > i and h.index(want) < h.index("</div>", i), "in the headline box"
print(want)
PY
$py layout.py full/results.csv full/report.html > lw 2>&1; pyrc=$?
check "[ $pyrc -eq 0 ]" "the headline answers the layout axis with the range recomputed from results.csv: $(cat lw)"
check "grep -q 'alt=.cycle_stack.' full/report.html && [ -s full/figures/cycle_stack.png ]" "a cycle-stack bar per point"
# an interrupted sweep: 3 of 8 points not finished
cp -r full part
rm -f part/report.html part/results.csv 'part/points/tau=0.25,layout=compact/DONE' 'part/points/tau=0.125,layout=full/DONE'
touch 'part/points/tau=0.5,layout=full/FAILED'; rm -f 'part/points/tau=0.5,layout=full/DONE'
"$lampsim" report part > /dev/null 2> log; rc=$?
cat > incomplete.py <<'PY'
import re, sys
h = open(sys.argv[1]).read()
i = h.index("INCOMPLETE: 5 of 8 points.")
assert i < h.index("class='headline'") and i < h.index("<h2>"), "the banner comes first"
box = h[i:h.index("</div>", i)]
missing = re.findall(r"<li>([^<]*)</li>", box)
assert missing == ["tau=0.5, layout=full", "tau=0.25, layout=compact", "tau=0.125, layout=full"], missing
print(missing)
PY
$py incomplete.py part/report.html > iw 2>&1; pyrc=$?
check "[ $rc -eq 0 ] && [ $pyrc -eq 0 ]" "an interrupted sweep's report opens with INCOMPLETE: 5 of 8 points and the 3 missing ones (rc $rc): $(cat iw)"
# labels: a value the report writes with 17 digits (0.1 -> 0.10000000000000001) reads as the sweep
# file wrote it; tau is not part of a pure_8bit point's name; one Mode column
cat > m.yaml <<'YAML'
base: {timed: {enabled: false}, workload: {heads_q: 2, heads_kv: 1, seq_q: 64, seq_k: 64}}
axes:
  zip:
    algorithm.mode: [lamp, random, random, pure_8bit]
    algorithm.tau: [0.5, 0.5, 0.5, 0.25]
    algorithm.random_rate: [0.1, 0.1, 0.7, 0.1]
YAML
"$lampsim" sweep run m.yaml -j 2 -o m --quiet
"$lampsim" report m > /dev/null 2> log; rc=$?
check "[ $rc -eq 0 ] && grep -q '0.10000000000000001' m/results.csv && ! grep -q '0.10000000000000001' m/report.html" "no float reprs in the report (results.csv keeps the report's digits) (rc $rc)"
check "grep -q 'random_rate=0.7' m/report.html && ! grep -q 'mode=pure_8bit, tau' m/report.html && [ \$(grep -o '<th>Mode</th>' m/report.html | head -50 | wc -l) -ge 1 ] && ! grep -q '<th>Mode</th><th>Mode</th>' m/report.html && ! grep -q '<th>Mode</th>.*<th>Mode</th>' m/report.html" "labels: 0.7 as written, no tau for pure_8bit, one Mode column per table"
# the script's key table is the C one
$py - "$src/scripts" "$lampsim" > kw 2>&1 <<'PY'
import subprocess, sys
sys.path.insert(0, sys.argv[1])
import sweep_report
import plot_sweep
for key in ["algorithm.tau", "algorithm.delta", "algorithm.stage1", "algorithm.stage2", "algorithm.knapsack_tiebreak",
            "algorithm.lamp_code_tau", "algorithm.random_rate", "algorithm.b_k", "algorithm.mode",
            "accelerator.regfile.layout", "algorithm.delta", "algorithm.rounding"]:
    out = subprocess.run([sys.argv[2], "config", "--explain", key], capture_output=True, text=True, check=True).stdout
    line = [l for l in out.splitlines() if l.strip().startswith("modes:")]
    c = tuple(line[0].split("read in mode ")[1].split(" only")[0].split()) if line else None
    assert plot_sweep.KEY_MODES.get(key) == c, (key, plot_sweep.KEY_MODES.get(key), c)
assert set(plot_sweep.KEY_MODES) <= {"algorithm.tau", "algorithm.delta", "algorithm.stage1", "algorithm.stage2",
                                       "algorithm.knapsack_tiebreak", "algorithm.lamp_code_tau", "algorithm.random_rate"}
assert sweep_report.value_text("0.10000000000000001") == "0.1" and sweep_report.value_text("16") == "16"
assert sweep_report.value_text("compact") == "compact" and sweep_report.value_text("1.0") == "1"
assert sweep_report.applies is plot_sweep.applies  # one key-mode table
# ratios in findings: three significant figures, no exponent (was "518-3.01e+04x")
assert [sweep_report.times(x) for x in (1.234, 518, 999.6, 30123)] == ["1.23", "518", "1,000", "30,100"]
keys = plot_sweep.lamp_series_key(["algorithm.mode", "algorithm.tau", "algorithm.random_rate", "algorithm.b_k"])
assert keys == [plot_sweep.LAYOUT, "config.algorithm.b_k"], keys
print("ok")
PY
check "[ \"\$(cat kw)\" = ok ]" "scripts/plot_sweep.py's key-mode table matches lampsim config --explain: $(cat kw)"
finish
