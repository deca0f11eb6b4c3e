#!/bin/bash
# `lampsim compare` shows runs' cycle stacks side by side: the preset and FA2-16 on it, and a
# 4-core many-wave run; in the CSV every row's stack columns sum to its cycles, and the table
# prints the stack block, and the run report draws the stacks as bars (docs/reports.md, "Cycle stack").
set -euo pipefail
LAMPSIM=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$LAMPSIM" run --quiet -o "$T/lamp" >/dev/null
"$LAMPSIM" run --quiet --set algorithm.mode=fa2_16bit -o "$T/fa2" >/dev/null
"$LAMPSIM" run --quiet --set algorithm.mode=fa2_16bit --set accelerator.cores=4 --set timed.timing_only=true -o "$T/four" >/dev/null
"$LAMPSIM" compare --csv "$T/lamp" "$T/fa2" "$T/four" >"$T/c.csv"
# working-core stack columns (every stack_* but the chip's idle) sum to each row's cycles
/usr/bin/python3 - "$T/c.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 3, rows
for r in rows:
    cols = [k for k in r if k.startswith("stack_") and k != "stack_chip_idle_cycles"]
    s = sum(float(r[k]) for k in cols)
    assert len(cols) == 9 and s == float(r["cycles"]), (r["dir"], len(cols), s, r["cycles"])
PY
"$LAMPSIM" compare "$T/lamp" "$T/fa2" >"$T/c.txt"
grep -q '^cycle stack: ' "$T/c.txt" || { echo "no stack table"; cat "$T/c.txt"; exit 1; }
# the stack rows: the lamp row names the buffer port or the tensor unit as its bottleneck
grep -Eq '^lamp +(buffer|tensor) ' "$T/c.txt" || { echo "no lamp stack row"; cat "$T/c.txt"; exit 1; }
# a report's own fields agree: the chip-wide and working-core stacks each sum to cycles
for d in lamp fa2 four; do
  /usr/bin/python3 - "$T/$d/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
cs = r["cycle_stack"]
for part in ("chip", "working_cores"):
    s = sum(cs[part].values())
    assert s == r["cycles"], (sys.argv[1], part, s, r["cycles"])
PY
done
# the run report draws both stacks as bars, one segment per non-zero category
"$LAMPSIM" report "$T/lamp" >/dev/null 2>&1
if /usr/bin/python3 -c 'import jinja2' 2>/dev/null; then
  grep -q 'id="fig-cycle_stack"' "$T/lamp/report.html" || { echo "no cycle stack figure in report.html"; exit 1; }
  svg="$T/lamp/figures/cycle_stack.svg"
  grep -q '>cores with work (' "$svg" && grep -q '>all cores (' "$svg" || { echo "expected both stacks in $svg"; exit 1; }
fi
echo "stack compare: ok"
