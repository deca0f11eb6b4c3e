#!/bin/sh
# CLI tests of `lampsim validate` / `lampsim config` through tests/config/lscli_driver.
# usage: test_cli.sh DRIVER SOURCE_ROOT TMPDIR
D=$1; R=$2; T=$3
fail=0
rm -rf "$T" && mkdir -p "$T" || exit 1
check() { # check NAME EXPECTED_RC ACTUAL_RC
  if [ "$2" != "$3" ]; then echo "FAIL: $1: exit code $3, expected $2"; fail=1; fi
}
grepf() { # grepf NAME PATTERN FILE
  if ! grep -qF -- "$2" "$3"; then echo "FAIL: $1: '$2' not in $3:"; cat "$3"; fail=1; fi
}

"$D" validate "$R/configs/default.yaml" "$R/configs/lampattention.yaml" "$R/configs/h100.yaml" \
  "$R/configs/h200.yaml" "$R/configs/h100_pcie.yaml" "$R/configs/examples/sweep_tau.yaml" "$R/configs/examples/decode_gemma3.yaml" > "$T/out" 2> "$T/err"
check "validate presets" 0 $?
grepf "validate presets" "configs/h100.yaml: ok" "$T/out"

printf 'algorithm:\n  tua: 0.3\n' > "$T/bad.yaml"
"$D" validate "$R/configs/default.yaml" "$T/bad.yaml" > "$T/out" 2> "$T/err"
check "validate bad" 2 $?
grepf "validate bad" "$T/bad.yaml:2:3: algorithm.tua: unknown key; did you mean 'algorithm.tau'?" "$T/err"

# a 16-bit lane priced as a tensor core's bf16 dot product on a run whose numerics compute e4m11 logits:
# refused, naming the file, line and key; timing only, it is accepted
printf 'accelerator:\n  tensor:\n    lane_16bit: tc_bf16\n' > "$T/lane.yaml"
"$D" validate "$R/configs/default.yaml" "$T/lane.yaml" > "$T/out" 2> "$T/err"
check "lane_16bit tc_bf16 with numerics" 2 $?
grepf "lane_16bit tc_bf16 with numerics" "$T/lane.yaml:3:17: accelerator.tensor.lane_16bit: tc_bf16 prices a bf16 x bf16 -> fp32 lane" "$T/err"
"$D" validate "$R/configs/default.yaml" "$T/lane.yaml" --set algorithm.mode=fa2_16bit --set timed.timing_only=true > "$T/out" 2> "$T/err"
check "lane_16bit tc_bf16 timing only" 0 $?

# every problem in one pass: three bad keys in one file (two of them in an included file's
# parent after a bad include), a bad --set, each as file:line:col, then the count
printf 'algorithm:\n  tua: 0.25\n  b_q: abc\nworkload:\n  seq_qq: 128\n  dim: 64\n' > "$T/bad3.yaml"
"$D" validate "$T/bad3.yaml" > "$T/out" 2> "$T/err"
check "validate three bad keys" 2 $?
grepf "validate three bad keys" "$T/bad3.yaml:2:3: algorithm.tua: unknown key; did you mean 'algorithm.tau'?" "$T/err"
grepf "validate three bad keys" "$T/bad3.yaml:3:8: algorithm.b_q: expected an integer in [1, 1024], got abc" "$T/err"
grepf "validate three bad keys" "$T/bad3.yaml:5:3: workload.seq_qq: unknown key; did you mean 'workload.seq_q'?" "$T/err"
grepf "validate three bad keys" "$T/bad3.yaml: 3 problems" "$T/err"
[ "$(wc -l < "$T/err")" -eq 4 ] || { echo "FAIL: validate three bad keys: $(wc -l < "$T/err") lines, expected 4"; cat "$T/err"; fail=1; }
printf 'include: [missing.yaml, bad3.yaml]\nseed: x\n' > "$T/inc.yaml"
"$D" validate "$T/inc.yaml" --set algorithm.tau=7 > "$T/out" 2> "$T/err"
check "validate includes and --set" 2 $?
grepf "validate includes and --set" "$T/inc.yaml:1:11: include: cannot open included file" "$T/err"
grepf "validate includes and --set" "$T/bad3.yaml:5:3: workload.seq_qq: unknown key" "$T/err"
grepf "validate includes and --set" "$T/inc.yaml:2:7: seed: expected an integer" "$T/err"
grepf "validate includes and --set" "--set algorithm.tau=7: algorithm.tau: expected a finite number in [0, 1], got 7 (out of range)" "$T/err"
grepf "validate includes and --set" "$T/inc.yaml: 6 problems" "$T/err"
printf 'include: [{a: 1}, bad3.yaml]\n' > "$T/incmap.yaml"
"$D" validate "$T/incmap.yaml" > "$T/out" 2> "$T/err"
check "validate a mapping among includes" 2 $?
grepf "validate a mapping among includes" "$T/incmap.yaml:1:11: include: expected a file name, got a mapping" "$T/err"
grepf "validate a mapping among includes" "$T/incmap.yaml: 4 problems" "$T/err"
# the checks between keys, all of them, once the values are valid
"$D" validate "$R/configs/default.yaml" --set algorithm.b_q=64 --set algorithm.n_q=32 --set workload.heads_kv=3 > "$T/out" 2> "$T/err"
check "validate cross-field checks" 2 $?
grepf "validate cross-field checks" "exceeds the limit of 1024 queries" "$T/err"
grepf "validate cross-field checks" "heads_kv = 3 does not divide heads_q" "$T/err"
"$D" validate "$R/configs/default.yaml" --set algorithm.tau=7 > "$T/out" 2> "$T/err"
check "validate --set" 2 $?
grepf "validate --set" "--set algorithm.tau=7: algorithm.tau: expected a finite number in [0, 1], got 7 (out of range)" "$T/err"

"$D" validate --build "$R/configs/default.yaml" > "$T/out" 2> "$T/err"
check "validate --build" 0 $?
grepf "validate --build" "vs D.5 bound 6.293: respected" "$T/out"

"$D" validate --build "$R/configs/default.yaml" --set workload.qknorm.gain=7 --set workload.qknorm.enforce_bound=true > "$T/out" 2> "$T/err"
check "validate --build bound" 2 $?
grepf "validate --build bound" "exceeds the D.5 bound" "$T/err"

"$D" validate > "$T/out" 2> "$T/err"
check "validate no args" 2 $?

"$D" config --explain algorithm.delta > "$T/out" 2> "$T/err"
check "explain" 0 $?
grepf "explain" "default: 0.00390625" "$T/out"

"$D" config --explain algorithm > "$T/out" 2> "$T/err"
check "explain section" 0 $?
grepf "explain section" "algorithm.knapsack_tiebreak" "$T/out"

"$D" config --explain algorithm.detla > "$T/out" 2> "$T/err"
check "explain unknown" 2 $?
grepf "explain unknown" "did you mean 'algorithm.delta'?" "$T/err"
if [ -s "$T/out" ]; then echo "FAIL: explain unknown: the error went to stdout:"; cat "$T/out"; fail=1; fi

# what a run would refuse before generating data, validate refuses too (exit 2)
"$D" validate "$R/configs/default.yaml" --set workload.file="$R/workloads/gemma3_like_decode.yaml" > "$T/out" 2> "$T/err"
check "validate register fit" 2 $?
grepf "validate register fit" "accelerator.regfile: one warp needs 416 registers per thread (> regfile.max_regs_per_thread = 255)" "$T/err"
"$D" validate "$R/configs/default.yaml" --set timed.program="$T/none.lasm" > "$T/out" 2> "$T/err"
check "validate missing program" 2 $?
grepf "validate missing program" "timed.program: $T/none.lasm: cannot open microprogram" "$T/err"
printf '  END\n' > "$T/end.lasm"
"$D" validate "$R/configs/default.yaml" --set timed.program="$T/end.lasm" > "$T/out" 2> "$T/err"
check "validate END-only program" 2 $?
grepf "validate END-only program" "never stores O (no STO instruction)" "$T/err"
"$D" validate "$R/configs/default.yaml" --set timed.enabled=false --set timed.program="$T/end.lasm" > "$T/out" 2> "$T/err"
check "validate program of a golden run" 0 $?

# an empty configuration is valid, with a warning that everything is at its default
: > "$T/empty.yaml"
"$D" validate "$T/empty.yaml" > "$T/out" 2> "$T/err"
check "validate empty" 0 $?
grepf "validate empty" "has no configuration keys: everything is at its default" "$T/err"

# a sweep file or a workload file where a configuration is expected: say what it is
"$D" validate "$R/configs/sweeps/tau_layout.yaml" > "$T/out" 2> "$T/err"
check "validate sweep file" 2 $?
grepf "validate sweep file" "this is a sweep file, not a configuration: run it with \`lampsim sweep run $R/configs/sweeps/tau_layout.yaml\`" "$T/err"
"$D" validate "$R/workloads/gemma3_like.yaml" > "$T/out" 2> "$T/err"
check "validate workload file" 2 $?
grepf "validate workload file" "this looks like a workload file, not a configuration; use it with \`lampsim run --set workload.file=$R/workloads/gemma3_like.yaml\`" "$T/err"
if grep -q "did you mean" "$T/err"; then echo "FAIL: validate workload file: still a did-you-mean"; fail=1; fi

# dump -> file -> validate -> dump again: identical apart from the source comment
"$D" config --dump "$R/configs/examples/sweep_tau.yaml" --set algorithm.delta=0.0625 > "$T/resolved.yaml" 2> "$T/err"
check "dump" 0 $?
grepf "dump" "delta: 0.0625" "$T/resolved.yaml"
"$D" config --dump "$T/resolved.yaml" -o "$T/resolved2.yaml" 2> "$T/err"
check "dump -o" 0 $?
grep -v '^# source\|^# workload from' "$T/resolved.yaml" > "$T/a"
grep -v '^# source\|^# workload from' "$T/resolved2.yaml" > "$T/b"
if ! cmp -s "$T/a" "$T/b"; then echo "FAIL: resolved dump does not reload identically"; diff "$T/a" "$T/b"; fail=1; fi

"$D" config --dump "$T/bad.yaml" -o "$T/never.yaml" > "$T/out" 2> "$T/err"
check "dump bad" 2 $?
if [ -e "$T/never.yaml" ]; then echo "FAIL: a failed dump wrote its output"; fail=1; fi
if ls -a "$T" | grep -q '^\.never'; then echo "FAIL: temporary file left behind"; fail=1; fi

"$D" config --docs > "$T/config.md" 2> "$T/err"
check "docs" 0 $?
if ! cmp -s "$T/config.md" "$R/docs/config.md"; then echo "FAIL: docs/config.md is stale (lampsim config --docs docs/config.md)"; fail=1; fi

# provenance of the preset's values: explain, and the machine-readable lists a sensitivity analysis reads
"$D" config --explain accelerator.sfu.latency > "$T/out" 2> "$T/err"
check "explain estimate" 0 $?
grepf "explain estimate" "  estimate: 20 in [14, 40] (LampAttention preset): " "$T/out"
"$D" config --explain accelerator.tensor > "$T/out" 2> "$T/err"
grepf "explain section provenance" "default 32  (estimate 12 .. 128)" "$T/out"
grepf "explain section provenance" "default 2048  (source)" "$T/out"
"$D" config --explain accelerator.energy.sram_read_64b > "$T/out" 2> "$T/err"
grepf "explain energy node" "  node:    45 nm" "$T/out"
"$D" config --estimates "$R/configs/h100.yaml" --set accelerator.tensor.latency=64 > "$T/est.tsv" 2> "$T/err"
check "estimates" 0 $?
grepf "estimates header" "$(printf 'key\tvalue\tpreset\tlow\thigh\tnode\treasoning')" "$T/est.tsv"
grepf "estimates value of FILE" "$(printf 'accelerator.tensor.latency\t64\t32\t12\t128\t\t')" "$T/est.tsv"
grepf "estimates h100 LUT" "$(printf 'accelerator.lut.lanes\t0\t128\t16\t256\t')" "$T/est.tsv"
grepf "estimates energy" "$(printf 'accelerator.energy.dram_read_64b\t1300\t1300\t450\t2600\t45 nm')" "$T/est.tsv"
if awk -F'\t' 'NF != 7 { bad = 1 } END { exit !bad }' "$T/est.tsv"; then echo "FAIL: estimates: a line without 7 fields"; fail=1; fi
"$D" config --sources > "$T/src.tsv" 2> "$T/err"
check "sources" 0 $?
grepf "sources layout" "$(printf 'accelerator.regfile.layout\tsource\tcompact\tcompact\t\t\t\t')" "$T/src.tsv"
grepf "sources estimate" "$(printf 'accelerator.tensor.latency\testimate\t32\t32\t12\t128\t\t')" "$T/src.tsv"
# the LUT's latency is the ASAP7 depth of its lane (rtl/synth/asap7_units.csv), ranged one stage either way
d=$(awk -F, '$1 == "lamp_lut_exp_lp" { print $8 }' "$R/rtl/synth/asap7_units.csv")
grepf "sources synthesized" "$(printf 'accelerator.lut.latency\tsynthesized\t%d\t%d\t%d\t%d\t\t' "$d" "$d" $((d - 1)) $((d + 1)))" "$T/src.tsv"
if awk -F'\t' 'NF != 8 { bad = 1 } END { exit !bad }' "$T/src.tsv"; then echo "FAIL: sources: a line without 8 fields"; fail=1; fi
# a GPU preset's own sources replace the LampAttention preset's for the values it sets (issue 28)
"$D" config --sources "$R/configs/h200.yaml" > "$T/src200.tsv" 2> "$T/err"
check "sources h200" 0 $?
grepf "sources h200 bandwidth" "$(printf 'accelerator.memory.bandwidth_gbps\tsource\t4800\t3350\t\t\t\tH200 SXM: 141 GB HBM3e')" "$T/src200.tsv"
grepf "sources h200 clock" "$(printf 'accelerator.clock_ghz\testimate\t1.83\t1.83\t1.635\t1.98\t')" "$T/src200.tsv"
"$D" config --sources "$R/configs/h100_pcie.yaml" > "$T/srcpcie.tsv" 2> "$T/err"
grepf "sources h100 pcie clock" "$(printf 'accelerator.clock_ghz\tsource\t1.62\t1.83\t\t\t\tThe clock the datasheet')" "$T/srcpcie.tsv"
grepf "sources h100 pcie cores" "$(printf 'accelerator.cores\tsource\t114\t132\t\t\t\tH100 PCIe: 114 SMs')" "$T/srcpcie.tsv"
n_est=$(awk -F'\t' '$2 == "estimate" || $2 == "synthesized"' "$T/src.tsv" | wc -l); n_rows=$(($(wc -l < "$T/est.tsv") - 1))
if [ "$n_est" -lt 20 ] || [ "$n_est" != "$n_rows" ]; then echo "FAIL: --estimates lists $n_rows rows, --sources $n_est estimates"; fail=1; fi
# every end of every range is a configuration a run accepts (one at a time, as a sensitivity analysis sets them)
tab=$(printf '\t')
tail -n +2 "$T/est.tsv" | while IFS="$tab" read -r k v p lo hi rest; do
  for x in "$lo" "$hi"; do
    "$D" validate -q "$R/configs/lampattention.yaml" --set "$k=$x" > /dev/null 2> "$T/err_range" ||
      { echo "FAIL: $k=$x (an end of its estimate) is refused:"; cat "$T/err_range"; echo x >> "$T/range_failed"; }
  done
done
if [ -e "$T/range_failed" ]; then fail=1; fi
"$D" config --estimates "$T/bad.yaml" > "$T/out" 2> "$T/err"
check "estimates bad file" 2 $?
if [ -s "$T/out" ]; then echo "FAIL: estimates of a bad file wrote output"; fail=1; fi

"$D" config --bogus > "$T/out" 2> "$T/err"
check "unknown option" 2 $?
"$D" config > "$T/out" 2> "$T/err"
check "no action" 2 $?

[ $fail = 0 ] && echo "CLI tests passed"
exit $fail
