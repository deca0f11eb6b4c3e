#!/usr/bin/env bash
# scripts/rtl_synth.sh [BUILD_DIR [COUNT]] — synthesize the RTL units (rtl/) with Yosys to a generic
# two-input gate library (NAND2, NOR2, INV: `abc -g cmos2`, delay-oriented ABC script) and print,
# per unit: cells, transistors (Yosys `stat -tech cmos`), NAND2 equivalents (transistors / 4) and
# logic depth in gates (`ltp -noff`: the longest path's gate count). docs/rtl.md explains the method,
# the conversion to um2 and ps, and the error bars. Writes BUILD_DIR/rtl/synth/results.csv and one
# log per unit. Needs yosys and a configured build (the generator rtl_gen writes the table and the
# default-format wrappers from the C model).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
command -v yosys >/dev/null || { echo "rtl_synth: yosys not found (scripts/install-deps.sh --rtl)" >&2; exit 1; }
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
  "lamp_f64_add_pos:float64 adder, non-negative operands (stage-2 costs)"
  "lamp_subset_eval_nk4_q1:stage-2 subset test, one query lane, n_k = 4"
  "lamp_subset_eval_nk8_q1:stage-2 subset test, one query lane, n_k = 8"
)
[ $# -ge 2 ] && units=("${units[@]:0:$2}")   # [COUNT]: only the first COUNT units (quick checks)
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
echo "rtl_synth: $out/results.csv"
