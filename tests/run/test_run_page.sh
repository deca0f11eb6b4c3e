#!/usr/bin/env bash
# The run report page (`lampsim report RUN_DIR`, scripts/report/): its headline figures are
# report.json's values (exactly, in data-value, and as shown); it is rendered from
# scripts/report/templates/run.html.j2 (a marker added to a copy of the template shows up); every
# report field has its unit and meaning from the field reference (sim/report/field_docs.c); the
# figures are embedded (self-contained); a run with a trace states the trace's window.
#   test_run_page.sh LAMPSIM REPO
# Skips (77) when /usr/bin/python3 lacks numpy, matplotlib or jinja2.
lampsim=$1 repo=$2
. "$(dirname "${BASH_SOURCE[0]}")/../check.sh"
py=/usr/bin/python3
if ! $py -c 'import numpy, matplotlib, jinja2' 2>/dev/null; then
  echo "SKIP: /usr/bin/python3 with numpy, matplotlib and jinja2 needed (Debian python3-numpy python3-matplotlib python3-jinja2)"
  exit 77
fi
cd "$tmp"
"$lampsim" run --set workload.seq_q=256 --set workload.seq_k=256 --set timed.trace=true -o r --quiet
"$lampsim" report r > out 2> log; rc=$?
check "[ $rc -eq 0 ] && [ -s r/report.html ] && [ ! -s log ]" "lampsim report on a run directory writes report.html, quietly (rc $rc): $(cat log)"
check "$py - <<'PY'
import html, json, math, re, sys
sys.path.insert(0, '$repo/scripts')
from report.fields import flatten
r = flatten(json.load(open('r/report.json')))
h = open('r/report.html').read()
cards = re.findall(r'<div class=\"card\" data-field=\"([^\"]+)\" data-value=\"([^\"]*)\">\s*<div class=\"label\">[^<]*</div>\s*'
                   r'<div class=\"value\">([^<]*)<span', h)
got = {f: (json.loads(html.unescape(v)), s.strip()) for f, v, s in cards}
want = ['cycles', 'time_us', 'tflops_effective', 'cycle_stack.bottleneck', 'tiles.disruptive_rate', 'recompute.subblock_rate',
        'accuracy.kl_mean', 'accuracy.o_rel_fro_err', 'area.total_mm2', 'power.average_w']
bad = [f for f in want if f not in got or got[f][0] != r[f]]
# what is shown is the value rounded: percentages for rates, the integer for cycles
def shown_ok(f, v, s):
    if isinstance(v, str):
        return s == v
    x = float(s.replace(',', ''))
    if f in ('tiles.disruptive_rate', 'recompute.subblock_rate'):
        return abs(x - 100 * v) <= 0.005 + 1e-12
    return math.isclose(x, v, rel_tol=5e-4)
bad += [f for f in want if f in got and not shown_ok(f, *got[f])]
# the headline comes before the figures and the field tables
bad += [] if h.index('id=\"headline\"') < h.index('id=\"fig-cycle_stack\"') < h.index('id=\"fields\"') else ['order']
print(bad or 'ok', {f: got.get(f) for f in want})
sys.exit(1 if bad else 0)
PY" "the headline shows cycles, time, TFLOP/s, bottleneck, disruptive and recompute rates, KL, O error, area and power equal to report.json's, first on the page"
# the wave fill and the stack's tail say what each measures (slots vs time), not "fills X % of its
# waves" beside "tail Y %" unexplained (issue #39)
check "grep -q 'fill [0-9.]*% of the slots of their waves (counting items, not time' r/report.html && ! grep -q 'fills [0-9.]*% of its waves' r/report.html" \
  "the page says the wave fill counts slots and the tail is time: $(grep -o 'fill[^.]*waves[^)]*)' r/report.html | head -1)"
check "$py - <<'PY'
import re, sys
h = open('r/report.html').read()
rows = re.findall(r'<tr><td class=\"n\">([^<]+)</td><td class=\"v\">([^<]*)</td><td>([^<]*)</td><td class=\"m[^\"]*\"[^>]*>(.*?)</td></tr>', h)
by = {n: (v, u, m) for n, v, u, m in rows}
missing = [n for n, (v, u, m) in by.items() if not m and not n.startswith('config.')]
ok = not missing and len(by) > 150
ok &= by['energy.dynamic_uj'][1] == 'µJ' and by['stalls.memory'][1] == 'context-cycles' and by['tiles.disruptive_rate'][1] == '%'
ok &= 'exposed' not in by['cycles'][2] and 'simulated cycles of the layer' in by['cycles'][2]
ok &= by['units.tensor.utilisation'][1] == '%' and 'cores that received work' in by['units.tensor.utilisation'][2]
print(missing[:10], len(by))
sys.exit(0 if ok else 1)
PY" "every field has its unit and its meaning from the field reference (sim/report/field_docs.c)"
check "$py - <<'PY'
import base64, re, sys
h = open('r/report.html').read()
srcs = re.findall(r'<img alt=\"[^\"]*\" src=\"data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)\"', h)
ok = len(srcs) >= 4 and all(base64.b64decode(s).lstrip().startswith(b'<?xml') for s in srcs)
ok &= not re.search(r'(src|href)=\"(https?:|//)', h) and '<script' not in h
names = re.findall(r'<figure id=\"fig-([a-z_]+)\"', h)
ok &= names[:4] == ['cycle_stack', 'utilisation', 'stalls', 'energy']
ok &= 'per core used (over the' in base64.b64decode(srcs[1]).decode() and 'per chip (over all' in base64.b64decode(srcs[1]).decode()
sys.exit(0 if ok else 1)
PY" "the cycle stack, utilisation (both denominators labelled), stalls and energy figures are embedded SVGs, nothing external"
check "[ -s r/figures/cycle_stack.svg ] && [ -s r/figures/utilisation.png ] && grep -q 'Trace: <code>trace.json</code>' r/report.html && grep -q 'holds key tiles 0 to 3 of every context' r/report.html" "figures/ keeps each figure; the page states the trace's window"
# the page comes from the template: a marker in a copy of it shows up
cp -r "$repo/scripts" s
sed -i 's#<body>#<body><!-- marker: template used -->#' s/report/templates/run.html.j2
LAMPSIM_PLOT_SCRIPT=$PWD/s/plot_sweep.py "$lampsim" report r > /dev/null 2>&1
check "grep -q 'marker: template used' r/report.html" "report.html is rendered from scripts/report/templates/run.html.j2"
# without the field reference (plot_sweep.py run by hand) the page says its meanings are missing
$py s/plot_sweep.py r/report.csv --run --html r/bare.html --out r/fig2 > /dev/null 2> log2
check "grep -q 'No field reference was given' r/bare.html && grep -q 'no field reference' log2" "plot_sweep.py without --fields says the meanings are missing"
finish_checks
