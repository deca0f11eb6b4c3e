#!/usr/bin/env bash
# scripts/rtl_synth.sh [BUILD_DIR [COUNT]] — synthesize the RTL units (rtl/) with Yosys to a generic
# two-input gate library (NAND2, NOR2, INV: `abc -g cmos2`, delay-oriented ABC script) and print,
# per unit: cells, transistors (Yosys `stat -tech cmos`), NAND2 equivalents (transistors / 4) and
# logic depth in gates (`ltp -noff`: the longest path's gate count). docs/rtl.md explains the method,
# the conversion to um2 and ps, and the error bars. Writes BUILD_DIR/rtl/synth/results.csv and one
# log per unit. Needs yosys and a configured build (the generator rtl_gen writes the table and the
# default-format wrappers from the C model). COUNT: the first COUNT units only; environment
# RTL_SYNTH_ONLY="top ...": those units only.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
command -v yosys >/dev/null || { echo "rtl_synth: yosys not found (scripts/install-deps.sh rtl)" >&2; exit 1; }
[ -f "$build/CMakeCache.txt" ] || { echo "rtl_synth: no configured build in $build (cmake -S . -B $build)" >&2; exit 1; }
cmake --build "$build" --target lamp_rtl_generated -j 2 >/dev/null
gen=$build/rtl/gen
out=$build/rtl/synth
mkdir -p "$out"
src="rtl/lamp_decode.sv rtl/lamp_round.sv rtl/lamp_lut_exp.sv rtl/lamp_acc_step.sv rtl/lamp_ypack_lane.sv"
src="$src rtl/lamp_sched.sv rtl/lamp_stage2.sv $gen/lamp_lut_rom.sv $gen/lamp_cfg_units.sv"
# unit : what it is
units=(
  "lamp_lut_rom:LP exponential table alone (256 x 8)"
  "lamp_lut_exp_lp:LUT exponential: e4m3 shift + RNE to ue5m3-S + table"
  "lamp_shift_hp:HP shift code: e4m11 difference + RNE to ue5m11-S (SFU table index)"
  "lamp_acc_step_lp:dot-product step bf16 x fp32 -> e4m3 (exact, one rounding)"
  "lamp_acc_step_lp_bf16q:dot-product step bf16 x bf16 -> e4m3"
  "lamp_acc_step_hp:dot-product step bf16 x fp32 -> e4m11"
  "lamp_ypack_lane:packed register lane merge + extract (8/16-bit in 32)"
  "lamp_stage1_test_lp:stage-1 margin test, one sub-block, b_q = 32"
  "lamp_sched_sort_nk4:threats + stable sort, n_k = 4, b_q = 32"
  "lamp_sched_sort_nk8:threats + stable sort, n_k = 8, b_q = 32"
  "lamp_sched_sort_nk4_q4:threats + stable sort, n_k = 4, 4 queries"
  "lamp_sched_sort_nk8_q4:threats + stable sort, n_k = 8, 4 queries"
  "lamp_f64_add_pos:float64 adder, non-negative operands (stage-2 costs)"
  "lamp_stage2_select_nk4_q1:stage-2 subset step (test + selection), one query lane, n_k = 4"
  "lamp_stage2_select_nk8_q1:stage-2 subset step (test + selection), one query lane, n_k = 8"
)
[ $# -ge 2 ] && units=("${units[@]:0:$2}")   # [COUNT]: only the first COUNT units (quick checks)
if [ -n "${RTL_SYNTH_ONLY:-}" ]; then           # RTL_SYNTH_ONLY="top1 top2": only these units
  sel=()
  for u in "${units[@]}"; do case " $RTL_SYNTH_ONLY " in *" ${u%%:*} "*) sel+=("$u") ;; esac; done
  units=("${sel[@]}")
fi
# Two mappings of the same synthesized logic: two-input gates only (NAND2, NOR2, INV; area and the
# upper depth), and Yosys's full simple-gate set (AND/OR/XOR/MUX/AOI/OAI, up to four inputs; the lower
# depth: a complex gate is slower than a NAND2, so the truth lies between, docs/rtl.md).
abc_script='+strash;balance;dch,-f;map,-D,1;topo'
echo "unit,cells,nand2,nor2,inv,transistors,nand2_eq,depth_cmos2,depth_rich,description" > "$out/results.csv"
for u in "${units[@]}"; do
  top=${u%%:*} desc=${u#*:}
  log=$out/$top.log
  rm -f "$out/$top".{stat,ltp,ltp_rich}
  # shellcheck disable=SC2086
  yosys -p "read_verilog -sv $src; synth -flatten -noshare -top $top; design -save syn;
            abc -g cmos2 -script $abc_script; opt_clean; tee -q -o $out/$top.stat stat -tech cmos; tee -q -o $out/$top.ltp ltp -noff;
            design -load syn; abc -g cmos,gates -script $abc_script; opt_clean; tee -q -o $out/$top.ltp_rich ltp -noff" \
    >"$log" 2>&1 || { echo "rtl_synth: yosys failed on $top (see $log)" >&2; exit 1; }
  stats=$(cat "$out/$top.stat")
  cells=$(echo "$stats" | awk '/Number of cells:/ {n=$4} END {print n}')
  nand=$(echo "$stats" | awk '/\$_NAND_/ {n=$2} END {print n+0}')
  nor=$(echo "$stats" | awk '/\$_NOR_/ {n=$2} END {print n+0}')
  inv=$(echo "$stats" | awk '/\$_NOT_/ {n=$2} END {print n+0}')
  tr=$(echo "$stats" | awk '/Estimated number of transistors/ {n=$5} END {print n}')
  depth=$(awk '/Longest topological path/ {gsub(/[^0-9]/, "", $NF); n=$NF} END {print n}' "$out/$top.ltp")
  depth_rich=$(awk '/Longest topological path/ {gsub(/[^0-9]/, "", $NF); n=$NF} END {print n}' "$out/$top.ltp_rich")
  eq=$(awk -v t="$tr" 'BEGIN {printf "%.0f", t / 4}')
  echo "$top,$cells,$nand,$nor,$inv,$tr,$eq,$depth,$depth_rich,$desc" >> "$out/results.csv"
  printf '%-24s cells %7s  NAND2-eq %7s  depth %4s (rich gates %4s)  %s\n' "$top" "$cells" "$eq" "$depth" "$depth_rich" "$desc"
done
# Derived figures (docs/rtl.md states the model): area at 0.063 um2 per NAND2 equivalent (7 nm class,
# range 0.044-0.101); path delay from both depths, 0.8-1.3 FO4 per two-input level and 1.2-2 FO4 per
# complex level, central 1.05 and 1.6, plus 3 FO4 of register overhead, at FO4 = 5-9 ps (central 7);
# cycles at the clock (1.83 GHz: 546 ps).
awk -F, -v clk_ghz=1.83 'NR == 1 { next }
  function ceil(x) { return x == int(x) ? x : int(x) + 1 }
  {
    eq = $7; d2 = $8; dr = $9
    lo = d2 * 0.8; if (dr * 1.2 < lo) lo = dr * 1.2
    hi = d2 * 1.3; if (dr * 2.0 > hi) hi = dr * 2.0
    mid = (d2 * 1.05 + dr * 1.6) / 2
    lo_ps = (lo + 3) * 5; mid_ps = (mid + 3) * 7; hi_ps = (hi + 3) * 9
    per = 1000 / clk_ghz
    printf "| `%s` | %s | %d | %d | %.0f (%.0f-%.0f) | %.0f (%.0f-%.0f) | %d (%d-%d) |\n", $1, eq, d2, dr, eq * 0.063, eq * 0.044,
           eq * 0.101, mid_ps, lo_ps, hi_ps, ceil(mid_ps / per), ceil(lo_ps / per), ceil(hi_ps / per)
  }' "$out/results.csv" > "$out/results.md"
{
  echo "| unit | NAND2-eq | depth (2-input) | depth (complex) | um2, 7 nm class | delay ps | cycles at 1.83 GHz |"
  echo "|---|---:|---:|---:|---:|---:|---:|"
  cat "$out/results.md"
} > "$out/results.md.tmp" && mv "$out/results.md.tmp" "$out/results.md"
cat "$out/results.md"
echo "rtl_synth: $out/results.csv, $out/results.md"
