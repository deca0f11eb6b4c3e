#!/usr/bin/env bash
# scripts/rtl_synth.sh [BUILD_DIR [OUT_CSV]] — map the RTL units (rtl/) onto the ASAP7 7 nm standard cells
# (../shared/pdk/asap7, RVT, TT corner) with Yosys and ABC, and read their cost from the library:
# cell area (um2), flip-flops (Yosys 0.23 cannot map onto ASAP7's QN-only flip-flops: counted and priced
# at DFFHQNx1), placed area (cell area / UTIL), critical-path delay (ABC `stime -p` on the mapped,
# buffered and sized netlist), pipeline depth at 1.83 GHz, leakage; and the SRAM banks the register file
# and the buffer are built from (area, read/write energy, access time). Writes OUT_CSV (default
# rtl/synth/asap7_units.csv, the committed table the C cost model is generated from) and one log per
# unit under BUILD_DIR/rtl/synth. docs/rtl.md states the method. RTL_SYNTH_JOBS=N: N units at once (default: the
# CPUs; the SFU lane's ABC alone takes most of an hour). RTL_SYNTH_ONLY="top ...": those units
# only (the CSV then holds only them; each unit is its own Yosys run over the same sources, so a unit's row
# equals a full run's).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
csv=${2:-rtl/synth/asap7_units.csv}
pdk=${LAMPSIM_PDK:-../shared/pdk/asap7}
CLOCK_PS=546    # 1.83 GHz (the preset's clock)
UTIL=0.7        # placement utilisation: placed area = cell area / UTIL (the one place it is applied)
command -v yosys >/dev/null || { echo "rtl_synth: yosys not found (scripts/install-deps.sh rtl)" >&2; exit 1; }
[ -f "$build/CMakeCache.txt" ] || { echo "rtl_synth: no configured build in $build (cmake -S . -B $build)" >&2; exit 1; }
[ -f "$pdk/asap7_rvt_tt.lib.gz" ] || { echo "rtl_synth: no ASAP7 library at $pdk (set LAMPSIM_PDK)" >&2; exit 1; }
py=/usr/bin/python3; [ -x "$py" ] || py=python3
# RTL_SYNTH_JOBS units at once (default: the CPUs): each is its own Yosys run, so a row does not depend on it.
njobs=${RTL_SYNTH_JOBS:-$(nproc 2>/dev/null || echo 1)}
case $njobs in ''|*[!0-9]*|0) echo "rtl_synth: RTL_SYNTH_JOBS=$njobs: give a whole number >= 1" >&2; exit 2 ;; esac
cmake --build "$build" --target lamp_rtl_generated -j 2 >/dev/null
gen=$build/rtl/gen
out=$build/rtl/synth
mkdir -p "$out"
lib=$out/asap7_rvt_tt.lib
zcat "$pdk/asap7_rvt_tt.lib.gz" > "$lib"
src="rtl/lamp_decode.sv rtl/lamp_round.sv rtl/lamp_lut_exp.sv rtl/lamp_acc_step.sv rtl/lamp_ypack_lane.sv"
src="$src rtl/lamp_sched.sv rtl/lamp_stage2.sv rtl/lamp_tc_dot.sv $gen/lamp_lut_rom.sv $gen/lamp_cfg_units.sv"
# New sources go last: Yosys numbers what it reads in order and ABC's mapping follows that numbering, so a file
# read earlier would move the committed figures of the units before it. Appending one moved them too (measured:
# the numbering runs on across everything read): after any change to this list or to a
# source, rerun every unit and commit the rows that moved (rtl_synth_drift; docs/rtl.md).
src="$src rtl/lamp_dot_fused.sv"
src="$src $gen/lamp_sfu_exp2_rom.sv rtl/lamp_sfu_exp.sv"
# unit : what it is (no commas or semicolons: CSV, CMake lists). Not here: the threat sorts at b_q = 32 (lamp_sched_sort_nk4/8; 80k-160k gates before
# mapping, far beyond this script's minutes on a 2-core machine); the q4 forms stand in for them.
units=(
  "lamp_lut_rom:LP exponential table alone (256 x 8)"
  "lamp_lut_exp_lp:LUT exponential: e4m3 shift + RNE to ue5m3-S + table"
  "lamp_shift_hp:HP shift code: e4m11 difference + RNE to ue5m11-S (SFU table index)"
  "lamp_acc_step_lp:dot-product step bf16 x fp32 -> e4m3 (exact - one rounding)"
  "lamp_acc_step_lp_bf16q:dot-product step bf16 x bf16 -> e4m3"
  "lamp_acc_step_hp:dot-product step bf16 x fp32 -> e4m11"
  "lamp_fused_step_lp:fused LP step: 4 bf16 x bf16 products + e4m3 accumulator (one alignment - one rounding)"
  "lamp_tc_dot_bf16_k4:baseline: 4-term bf16 x bf16 dot product + fp32 accumulator (one alignment - RNE)"
  "lamp_tc_dot_e4m3_k4:baseline: 4-term e4m3 x e4m3 dot product + fp32 accumulator (FP8)"
  "lamp_ypack_lane:packed register lane merge + extract (8/16-bit in 32)"
  "lamp_stage1_test_lp:stage-1 margin test - one sub-block - b_q = 32"
  "lamp_sched_sort_nk4_q4:threats + stable sort - n_k = 4 - 4 queries"
  "lamp_sched_sort_nk8_q4:threats + stable sort - n_k = 8 - 4 queries"
  "lamp_f64_add_pos:float64 adder - non-negative operands (stage-2 costs)"
  "lamp_stage2_select_nk4_q1:stage-2 subset step (test + selection) - one query lane - n_k = 4"
  "lamp_stage2_select_nk8_q1:stage-2 subset step (test + selection) - one query lane - n_k = 8"
  "lamp_sfu_exp:SFU HP exponential lane: ue5m11-S shift -> exp(-s) RNE to ue5m11-X (exp2: 64-entry table + cubic)"
)
# Units added after the rows above were fixed read only their own sources (the list after '|'), so adding one
# moves no committed row (Yosys's numbering runs on across everything it reads).
own_units=(
  "lamp_pv_step_lp|rtl/lamp_pv_step.sv:P.V step: ue5m3 (LUT exponential) x bf16 + fp32 output (RNE per multiply and per add)"
  "lamp_pv_step_hp|rtl/lamp_pv_step.sv:P.V step: ue5m11 (SFU exponential) x bf16 + fp32 output (RNE per multiply and per add)"
  "lamp_vec_lane|rtl/lamp_vec_lane.sv:FP32 vector lane: add - subtract - multiply (one RNE rounding each) and the running maximum"
  "lamp_buf_port_b64|rtl/lamp_buf_port.sv:buffer port 64 B/clock: 8 word columns x 4 banks - row select - two 8-word rotators"
  "lamp_buf_port_b128|rtl/lamp_buf_port.sv:buffer port 128 B/clock: 16 word columns x 2 banks - row select - two 16-word rotators"
  "lamp_buf_port_b256|rtl/lamp_buf_port.sv:buffer port 256 B/clock: 32 word columns x 1 bank - row select - two 32-word rotators"
  "lamp_buf_port_b512|rtl/lamp_buf_port.sv:buffer port 512 B/clock: 64 word columns x 1 bank - row select - two 64-word rotators"
)
# SRAM banks (asap7_sram_banks.tar.gz): bank : what it is built into, and why this bank
banks=(
  "srambank_64x4x32_6t122:register-file bank: 32-bit word = one lane register - the smallest and fastest bank - a warp operand (1024 bits) is 32 banks in parallel and 256 banks per core give 8 such accesses per clock"
  "srambank_256x4x64_6t122:buffer bank: the densest bank (0.036 um2/bit) - a 128 B/clock port is 16 banks in parallel and 228 KiB holds 29"
)
if [ -n "${RTL_SYNTH_ONLY:-}" ]; then           # RTL_SYNTH_ONLY="top1 top2": only these units
  sel=()
  for u in "${units[@]}"; do case " $RTL_SYNTH_ONLY " in *" ${u%%:*} "*) sel+=("$u") ;; esac; done
  units=("${sel[@]}")
  sel=()
  for u in "${own_units[@]}"; do case " $RTL_SYNTH_ONLY " in *" ${u%%|*} "*) sel+=("$u") ;; esac; done
  own_units=("${sel[@]}")
  banks=()
fi
# ABC: Yosys 0.23's own -liberty script (area recovery, &nf mapping at the delay target), then buffering
# and sizing at the target and ABC's static timing (stime -p: the library's NLDM tables, no wires).
abc_script="+strash;&get,-n;&fraig,-x;&put;scorr;dc2;dretime;strash;&get,-n;&dch,-f;&nf,-D,$CLOCK_PS;&put;"
abc_script="${abc_script}buffer,-p;upsize,-D,$CLOCK_PS;dnsize,-D,$CLOCK_PS;topo;stime,-p"
regs=$("$py" scripts/asap7_cost.py regs "$lib" "$CLOCK_PS")
tmp=$(mktemp "$csv.XXXXXX")
trap 'rm -f "$tmp"' EXIT
{
  echo "# ASAP7 RVT TT (0.7 V, 25 C) costs of the rtl/ units, written by scripts/rtl_synth.sh (do not edit)."
  echo "# clock_ps=$CLOCK_PS utilisation=$UTIL register_overhead_ps=${regs%%,*} logic_budget_ps=${regs##*,}"
  echo "# logic: cells (flip-flops included), cell_area_um2 (flip-flops at DFFHQNx1), area_um2 = cell_area_um2 / utilisation,"
  echo "#   delay_ps (ABC stime), depth_cycles = ceil(delay_ps / logic_budget_ps), leakage_nw (state-averaged)."
  echo "# sram: area_um2 = the bank's (layout - no utilisation), bits, word_bits, read/write pJ per access, delay_ps = clk->dataout;"
  echo "#   the library gives no leakage (0): the cost model keeps an estimate."
  echo "unit,kind,cells,cell_area_um2,flops,area_um2,delay_ps,depth_cycles,leakage_nw,bits,word_bits,read_pj,write_pj,description"
} > "$tmp"
# One unit: its Yosys run, its row in $out/$top.row and its summary line in $out/$top.line (the CSV takes the rows
# in the list's order whatever order the units finish in).
synth_unit() {
  local top=$1 desc=$2 usrc=$3 log=$out/$1.log f cells carea flops area delay depth leak
  rm -f "$out/$top.row" "$out/$top.line"
  # shellcheck disable=SC2086
  yosys -p "read_verilog -sv $usrc; synth -flatten -noshare -top $top; abc -liberty $lib -script $abc_script; opt_clean;
            tee -q -o $out/$top.stat stat -liberty $lib" >"$log" 2>&1 ||
    { echo "rtl_synth: yosys failed on $top (see $log)" >&2; return 1; }
  f=$("$py" scripts/asap7_cost.py unit "$lib" "$out/$top.stat" "$log" "$CLOCK_PS" "$UTIL") || return 1
  IFS=, read -r cells carea flops area delay depth leak <<< "$f"
  echo "$top,logic,$cells,$carea,$flops,$area,$delay,$depth,$leak,0,0,0,0,$desc" > "$out/$top.row"
  printf '%-26s %6s cells %9s um2 (placed %9s) %4s flops %7s ps %2s cycles %9s nW\n' "$top" "$cells" "$carea" "$area" \
    "$flops" "$delay" "$depth" "$leak" > "$out/$top.line"
}
tops=() slow=() rest=()
for u in "${units[@]}" "${own_units[@]}"; do
  top=${u%%:*}; top=${top%%|*}
  tops+=("$top")
  case $top in lamp_sfu_exp) slow+=("$u") ;; *) rest+=("$u") ;; esac   # its ABC alone takes most of an hour: first
done
for u in "${slow[@]}" "${rest[@]}"; do
  top=${u%%:*} desc=${u#*:} usrc=$src
  case $top in *"|"*) usrc=${top#*|} top=${top%%|*} ;; esac
  while [ "$(jobs -rp | wc -l)" -ge "$njobs" ]; do wait -n || true; done
  synth_unit "$top" "$desc" "$usrc" &
done
wait
for top in "${tops[@]}"; do
  [ -f "$out/$top.row" ] || { echo "rtl_synth: no row for $top (see $out/$top.log)" >&2; exit 1; }
  cat "$out/$top.row" >> "$tmp"
  cat "$out/$top.line"
done
for b in "${banks[@]}"; do
  bank=${b%%:*} desc=${b#*:}
  f=$("$py" scripts/asap7_cost.py sram "$pdk/asap7_sram_banks.tar.gz" "$bank")
  IFS=, read -r area bits word rd wr acc <<< "$f"
  echo "$bank,sram,0,$area,0,$area,$acc,1,0,$bits,$word,$rd,$wr,$desc" >> "$tmp"
  printf '%-26s %9s um2 %6s bits (%s-bit word) read %s pJ write %s pJ access %s ps\n' "$bank" "$area" "$bits" "$word" "$rd" "$wr" "$acc"
done
mv "$tmp" "$csv"
trap - EXIT
echo "rtl_synth: $csv"
