#!/bin/bash
# Area and power as sweep objectives (docs/sweeps.md): minimise area.total_mm2 over the core count
# picks the smallest chip in each layout group; maximise efficiency.tflops_per_w is accepted and
# marks one winner per group; results.csv carries the area and power columns.
set -euo pipefail
LAMPSIM=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$T"
for obj in "minimise: area.total_mm2" "maximise: efficiency.tflops_per_w"; do
cat > s.yaml <<YAML
name: area_obj
base:
  workload: {heads_q: 2, heads_kv: 1, seq_q: 256, seq_k: 256}
axes:
  accelerator.cores: [4, 2]
  accelerator.regfile.layout: [compact, full]
best: {$obj, over: [accelerator.cores], per: [accelerator.regfile.layout]}
YAML
rm -rf out
"$LAMPSIM" sweep run s.yaml -j 1 -o out --quiet
"$LAMPSIM" sweep merge out > r.csv 2>/dev/null
/usr/bin/python3 - r.csv "$obj" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 4, len(rows)
key = sys.argv[2].split(": ")[1]
hi = sys.argv[2].startswith("maximise")
for lay in ("compact", "full"):
    g = [r for r in rows if r["config.accelerator.regfile.layout"] == lay]
    win = [r for r in g if r["best.winner"] == "1"]
    assert len(win) == 1, (lay, [r["best.winner"] for r in g])
    vals = [float(r[key]) for r in g]
    assert float(win[0][key]) == (max(vals) if hi else min(vals)), (lay, key, vals)
    if key == "area.total_mm2":
        assert win[0]["config.accelerator.cores"] == "2", win[0]["config.accelerator.cores"]
    for r in g:
        assert float(r["power.average_w"]) > 0 and float(r["area.total_mm2"]) > 0
PY
done
echo "area sweep objectives: ok"
