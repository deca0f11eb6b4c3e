#!/usr/bin/env bash
# One denominator: every unit's utilisation is over the layer's cycles, per core over the cores
# that got work (units.<u>.utilisation) and over every core of the chip (units.<u>.utilisation_chip,
# idle cores count), chip-wide units (dram, l2) the same in both; the summary labels both and
# prints the version and the wall time once.
lampsim=$1
. "$(dirname "${BASH_SOURCE[0]}")/../check.sh"
py=/usr/bin/python3
cd "$tmp"
# the default layer has fewer work items than the preset's cores: some cores stay idle
"$lampsim" run -o r > sum.txt; rc=$?
check "[ $rc -eq 0 ] && [ -s r/report.json ]" "run exits 0 (rc $rc)"
check "$py - <<'PY'
import json, sys
r = json.load(open('r/report.json'))
u, o, cyc = r['units'], r['occupancy'], r['cycles']
used, cores = o['cores_used'], o['cores']
ok = 0 < used < cores
for name, x in u.items():
    per_core = name not in ('dram', 'l2')
    n_used, n_all = (used, cores) if per_core else (1, 1)
    ok &= abs(x['utilisation'] - x['busy_cycles'] / (cyc * n_used)) < 1e-12
    ok &= abs(x['utilisation_chip'] - x['busy_cycles'] / (cyc * n_all)) < 1e-12
    ok &= (x['utilisation_chip'] < x['utilisation']) if per_core and x['busy_cycles'] else x['utilisation_chip'] == x['utilisation']
sys.exit(0 if ok else 1)
PY" "units.<u>.utilisation over the cores with work, utilisation_chip over all cores, both over cycles; dram and l2 once"
check "grep -q \"units: utilisation over the layer's [0-9]* cycles, per core ([0-9]* with work / all [0-9]*)\" sum.txt && grep -q 'cores used  *all cores' sum.txt && grep -q '^    dram .*(one per chip)' sum.txt" "the summary labels both denominators: $(grep -A2 '^  units' sum.txt)"
check "[ \$(grep -c 'lampsim 0' sum.txt) -eq 1 ] && [ \$(grep -c 'wall' sum.txt) -eq 1 ]" "version and wall time printed once"
check "grep -q '\"utilisation_chip\"' r/report.json && head -1 r/report.csv | grep -q 'units.tensor.utilisation_chip' && head -1 r/report.csv | grep -q 'occupancy.cores,'" "report.json and report.csv carry the chip-level figures and occupancy.cores"
finish_checks
