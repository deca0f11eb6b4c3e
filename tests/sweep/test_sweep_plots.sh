#!/usr/bin/env bash
# scripts/plot_sweep.py and `lampsim report`: from a small sweep (golden fields only) the tau and
# trade-off figures render as non-empty PNG (signature checked) and SVG, the timing figures are
# skipped with a note; timed sweeps (with and without the baseline modes) render all five, and
# report.html opens with the fastest point and lists the cycles-KL Pareto front, both recomputed
# here from results.csv; titles name what the figures draw, coinciding lines are noted, tables have
# human headers; a synthetic merged CSV with cycles, units.*.utilisation and occupancy.* columns
# renders every figure; report.html is self-contained (embedded PNGs) for a sweep and a run.
# Skips (77) when /usr/bin/python3 lacks numpy or matplotlib.
. "$(dirname "$0")/common.sh"
py=/usr/bin/python3
if ! $py -c 'import numpy, matplotlib' 2>/dev/null; then
  echo "SKIP: /usr/bin/python3 with numpy and matplotlib needed (Debian python3-numpy python3-matplotlib)"
  exit 77
fi
cd "$tmp"
plot=$src/scripts/plot_sweep.py
png_ok() { [ -s "$1" ] && [ "$(stat -c %s "$1")" -gt 2000 ] && [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; }
svg_ok() { [ -s "$1" ] && [ "$(stat -c %s "$1")" -gt 2000 ] && head -c 300 "$1" | grep -q '<svg\|<?xml' && tail -c 100 "$1" | grep -q '</svg>'; }
# a small sweep with two modes so the trade-off plot has a LampAttention and a random curve, on
# the golden engine (no timing fields)
cat > s.yaml <<'YAML'
base:
  timed: {enabled: false}
  workload: {heads_q: 2, heads_kv: 1, seq_q: 128, seq_k: 128}
axes:
  zip:
    algorithm.mode: [lamp, lamp, lamp, random, random, fa2_16bit, pure_8bit]
    algorithm.tau: [1, 0.25, 0.0625, 0.5, 0.5, 0.5, 0.5]
    algorithm.random_rate: [0.1, 0.1, 0.1, 0.3, 0.6, 0.1, 0.1]
  accelerator.regfile.layout: [compact, full]
YAML
"$lampsim" sweep run s.yaml -j 2 -o sw --quiet
"$lampsim" report sw > out 2> log; rc=$?
check "[ $rc -eq 0 ] && [ -s sw/report.html ] && [ -s sw/results.csv ]" "lampsim report on a sweep writes report.html and results.csv (rc $rc): $(cat log)"
for f in tau_layout tradeoff; do
  check "png_ok sw/figures/$f.png" "$f.png is a non-empty PNG"
  check "svg_ok sw/figures/$f.svg" "$f.svg is a non-empty SVG"
done
check "[ ! -e sw/figures/utilisation.png ] && [ ! -e sw/figures/occupancy.png ] && [ ! -e sw/figures/pareto.png ] && grep -q 'utilisation skipped' log && grep -q 'pareto skipped' log && grep -q 'no cycles column' log" "timing figures skipped with a note while the report has no timing fields"
check "grep -q 'Accuracy vs recompute rate (LampAttention, random recompute, fa2_16bit, pure_8bit)' sw/report.html" "the trade-off figure's title names the curves it draws"
check "grep -q 'overlapping lines.*layout=compact.* and layout=full.*coincide' log" "the layouts' identical disruptive-rate lines (the layout changes timing only) are noted: $(grep overlapping log)"
check "$py -c \"import sys; h=open('sw/report.html').read(); i=h.index(\\\"class='headline'\\\"); sys.exit('Most accurate' not in h[i:h.index('</div>', i)])\"" "a golden sweep's headline names the most accurate point"
check "[ \$(grep -o 'data:image/png;base64,' sw/report.html | wc -l) -eq 2 ] && grep -q 'occupancy skipped' sw/report.html && ! grep -q '<img[^>]*src=.http' sw/report.html" "report.html embeds both figures and the notes, no external references"
check "$py -c \"import base64,re,sys; h=open('sw/report.html').read(); [base64.b64decode(m)[:8]==b'\\x89PNG\\r\\n\\x1a\\n' or sys.exit(1) for m in re.findall(r'base64,([A-Za-z0-9+/=]+)', h)]\"" "embedded images decode to PNG"
# a small timed sweep (tau x key tile x layout): every figure from real timing fields
cat > t.yaml <<'YAML'
base:
  timed: {reuse_numerics: true}
  workload: {heads_q: 2, heads_kv: 1, seq_q: 128, seq_k: 128}
axes:
  algorithm.tau: [1, 0.25, 0.0625]
  zip_tile:
    algorithm.b_k: [8, 16]
    algorithm.n_k: [4, 4]
  accelerator.regfile.layout: [compact, full]
YAML
"$lampsim" sweep run t.yaml -j 2 -o tw --quiet
"$lampsim" report tw > out 2> log; rc=$?
check "[ $rc -eq 0 ] && head -1 tw/results.csv | grep -q ',cycles,' && head -1 tw/results.csv | grep -q 'units.tensor.utilisation'" "a timed sweep's merged CSV has cycles and utilisation (rc $rc)"
for f in tau_layout tradeoff pareto utilisation cycle_stack occupancy; do
  check "png_ok tw/figures/$f.png && svg_ok tw/figures/$f.svg" "$f rendered from a timed sweep"
done
check "! grep -q 'skipped' log && [ \$(grep -o 'data:image/png;base64,' tw/report.html | wc -l) -eq 6 ]" "nothing skipped, 6 figures embedded: $(cat log)"
check "grep -q 'Accuracy vs recompute rate (LampAttention)' tw/report.html && ! grep -q 'random recompute' tw/report.html" "a LampAttention-only sweep's trade-off title says so"
check "grep -q '<th>Disruptive tiles (%)</th>' tw/report.html && grep -q '<th>KL mean (nats)</th>' tw/report.html && grep -q '<th>tensor utilisation (%)</th>' tw/report.html" "tables have human headers with units"
# the headline and the Pareto front, recomputed here from results.csv by brute force: on the tau x
# tile x layout sweep, and on one with the baselines (modes fa2_16bit and pure_8bit) among the points
cat > front.py <<'PY'
import csv, re, sys
rows = list(csv.DictReader(open(sys.argv[1])))
h = open(sys.argv[2]).read()
axes = list(rows[0])[:list(rows[0]).index("point.index")]
c = [float(r["cycles"]) for r in rows]
k = [float(r["accuracy.kl_mean"]) for r in rows]
front = sorted(int(rows[i]["point.index"]) for i in range(len(rows))
               if not any(c[j] <= c[i] and k[j] <= k[i] and (c[j] < c[i] or k[j] < k[i]) for j in range(len(rows))))
sec = h.split("Pareto front: cycles vs KL mean (nats)")[1].split("</table>")[0]
got = sorted(int(x) for x in re.findall(r"<tr><td>(\d+)</td>", sec))
assert got == front, (got, front)
assert ("<th>Mode</th>" in sec) and sec.count("<th>Mode</th>") == 1, "one Mode column"
f = min(range(len(rows)), key=lambda i: c[i])
vary = [a for a in axes if len({rows[i][a] for i in range(len(rows))}) > 1]
reads = lambda a, m: not (a in ("algorithm.tau",) and m != "lamp")
want = "Fastest: %s, %d cycles" % (", ".join("%s=%s" % (a.split(".")[-1], rows[f][a]) for a in vary if reads(a, rows[f]["mode"])), int(c[f]))
assert want in h, want
assert h.index("class='headline'") < h.index("<h2>Figures</h2>"), "headline first"
assert "workload" in h and "Sweep file" in h
print("front", front)
PY
$py front.py tw/results.csv tw/report.html > pw 2>&1; pyrc=$?
check "[ $pyrc -eq 0 ]" "report.html opens with the fastest point and lists exactly the cycles-KL Pareto front of results.csv: $(cat pw)"
cat > b.yaml <<'YAML'
base:
  timed: {reuse_numerics: true}
  workload: {heads_q: 2, heads_kv: 1, seq_q: 128, seq_k: 128}
axes:
  zip:
    algorithm.mode: [lamp, lamp, lamp, fa2_16bit, pure_8bit]
    algorithm.tau: [1, 0.25, 0.0625, 0.5, 0.5]
  accelerator.regfile.layout: [compact, full]
YAML
"$lampsim" sweep run b.yaml -j 2 -o bw --quiet && "$lampsim" report bw > out 2> log
$py front.py bw/results.csv bw/report.html > pw 2>&1; pyrc=$?
check "[ $pyrc -eq 0 ] && png_ok bw/figures/pareto.png && grep -q 'Accuracy vs recompute rate (LampAttention, fa2_16bit, pure_8bit)' bw/report.html" "with baselines among the points: the same front, a Mode column, the baselines named: $(cat pw)"
# synthetic merged CSV with the timing columns (independent of the timed model's output)
$py - "$tmp/syn.csv" <<'PY'
import csv, sys
cols = ["config.algorithm.tau", "config.accelerator.regfile.layout", "point.index", "point.id", "schema_version", "mode",
        "config.algorithm.b_k", "config.algorithm.n_k", "cycles", "units.tensor.utilisation", "units.lut.utilisation",
        "units.sfu.utilisation", "occupancy.warps_per_core", "tiles.disruptive_rate", "recompute.subblock_rate",
        "accuracy.kl_mean", "accuracy.o_rel_fro_err"]
w = csv.writer(open(sys.argv[1], "w", newline=""))
w.writerow(cols)
i = 0
for tau in (1, 0.5, 0.25, 0.125):
    for lay in ("compact", "full"):
        for bk, nk in ((16, 4), (32, 4)):
            r = 0.3 + 0.5 * (1 - tau)
            w.writerow([tau, lay, i, "%016x" % i, 1, "lamp", bk, nk, int(1e6 * (1 + r) * (1.1 if lay == "full" else 1)),
                        0.5 + 0.1 * tau, 0.8, 0.1, 8 if bk == 16 else 4 if lay == "full" else 6, r / 2, r, 0.05 * tau, 0.1 * tau])
            i += 1
PY
$py "$plot" syn.csv --out synfig --html syn.html > out 2> log; rc=$?
check "[ $rc -eq 0 ]" "plot_sweep.py on a CSV with timing columns (rc $rc): $(cat log)"
for f in tau_layout tradeoff pareto utilisation occupancy; do
  check "png_ok synfig/$f.png && svg_ok synfig/$f.svg" "$f rendered from the timing columns"
done
check "[ ! -s log ] || ! grep -v 'cycle_stack skipped' log | grep -q skipped" "nothing skipped when the columns exist (this CSV has no cycle stack)"
# a run directory's page: tests/run/test_run_page.sh
"$lampsim" report nowhere > /dev/null 2>&1; rc=$?
check "[ $rc -eq 2 ]" "report of a directory that is neither a run nor a sweep exits 2"
check "[ -z \"\$(find . -name '.*.tmp')\" ]" "no temporary files left"
finish
