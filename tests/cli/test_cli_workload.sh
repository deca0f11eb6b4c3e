#!/bin/bash
# lampsim workload stats / fit from the command line: CSV shape, a fit and its stats, bad input
# (exit 2, a message, no output file left behind).
L="$1"; R="$2"; T="$3"
rm -rf "$T"; mkdir -p "$T"
fail=0
check() { if [ "$2" != "$3" ]; then echo "FAIL: $1: got '$2', expected '$3'"; fail=1; else echo "ok: $1"; fi; }
"$L" workload stats "$R/workloads/gaussian_small.yaml" -o "$T/g.csv" 2> "$T/err"
check "stats exit" $? 0
check "stats header" "$(head -1 "$T/g.csv" | cut -d, -f1-8)" "layer,head,kv_head,rows,row_stride,engine_rows,entropy,top1"
check "stats rows" "$(wc -l < "$T/g.csv")" 3
grep -q "gaussian-small (layer 0): 2 head(s)" "$T/err"; check "stats summary" $? 0
# i.i.d. Gaussian logits at d 128: nearly uniform rows, no sink, no locality
check "gaussian entropy > 0.8" "$(awk -F, 'NR>1 && $7 > 0.8' "$T/g.csv" | wc -l)" 2
cat > "$T/gt.yaml" <<'Y'
name: gt
generator: heads
heads_q: 2
heads_kv: 1
seq_q: 256
seq_k: 256
dim: 64
dtype: fp32
heads:
  scale: "1 2"
  sink: "5 0"
  recency: "0 4"
  decay: "8"
Y
"$L" workload fit "$T/gt.yaml" -o "$T/fit.yaml" 2> "$T/err"
check "fit exit" $? 0
grep -q "^generator: heads" "$T/fit.yaml"; check "fit writes a heads workload" $? 0
"$L" workload stats "$T/fit.yaml" --no-lamp -o "$T/f.csv" 2> "$T/err"
check "stats of the fit" $? 0
# head 0: sink bonus 5 logits -> key 0 holds ~0.47 of the mass; head 1: recency -> over half on the last 16 keys
check "sink head" "$(awk -F, 'NR==2 && $9 > 0.4 && $10 < 0.3' "$T/f.csv" | wc -l)" 1
check "local head" "$(awk -F, 'NR==3 && $9 < 0.1 && $10 > 0.5' "$T/f.csv" | wc -l)" 1
"$L" workload stats "$T/missing.yaml" -o "$T/x.csv" 2> "$T/err"
check "missing input exit" $? 2
check "missing input: no output" "$(ls "$T" | grep -c '^x.csv')" 0
printf 'generator: heads\nheads_q: 4\nheads_kv: 2\nheads:\n  sink: "1 2 3"\n' > "$T/bad.yaml"
"$L" workload stats "$T/bad.yaml" -o "$T/x.csv" 2> "$T/err"
check "bad knob list exit" $? 2
grep -q "workload.heads.sink: 3 values for 4 query heads" "$T/err"; check "bad knob list message" $? 0
check "bad knob list: no output" "$(ls "$T" | grep -c '^x.csv')" 0
"$L" workload stats --sink 0 "$T/gt.yaml" > /dev/null 2> "$T/err"
check "--sink 0 exit" $? 2
"$L" workload fit "$T/gt.yaml" 2> "$T/err"
check "fit without -o" $? 2
"$L" workload frobnicate 2> "$T/err"
check "unknown subcommand" $? 2
# a model description without traces: nothing to measure is an error, not an empty CSV (issue #39 D11)
"$L" workload stats "$R/workloads/models/qwen3_8b_like.yaml" -o "$T/nt.csv" 2> "$T/err"
check "model without traces exit" $? 2
grep -q "qwen3_8b_like.yaml: no layer of the model has a trace" "$T/err"; check "model without traces: named" $? 0
check "model without traces: no output" "$(ls "$T" | grep -c '^nt.csv')" 0
# 0 heads, engine rows or multiply-adds would measure nothing
for o in --heads --row-budget --engine-rows; do
  "$L" workload stats "$R/workloads/gaussian_small.yaml" $o 0 -o "$T/z.csv" 2> "$T/err"
  check "$o 0 refused" $? 2
  grep -q -- "$o: expected" "$T/err"; check "$o 0: named" $? 0
done
# --name is written as a quoted YAML scalar: "x: y" round-trips, a newline injects no key (issue #39 D7)
"$L" workload fit "$R/workloads/gaussian_small.yaml" --name 'x: y' -o "$T/n1.yaml" 2> "$T/err"
check "fit --name 'x: y'" $? 0
"$L" workload stats "$T/n1.yaml" --no-lamp -o "$T/n1.csv" 2> "$T/err"
check "stats of the fit named 'x: y'" $? 0
grep -q "^x: y (layer 0)" "$T/err"; check "the name 'x: y' round-trips" $? 0
"$L" workload fit "$R/workloads/gaussian_small.yaml" --name $'a\nseed: 5' -o "$T/n2.yaml" 2> "$T/err"
check "fit --name with a newline" $? 0
check "no key injected" "$(grep -c '^seed:' "$T/n2.yaml")" 0
"$L" workload stats "$T/n2.yaml" --no-lamp -o "$T/n2.csv" 2> "$T/err"
check "stats of the fit named with a newline" $? 0
# a sliding window: stats measure each row's window (the sink leaves it), fit refuses what it cannot read
sed 's/^causal: false/causal: true/' "$R/workloads/gaussian_small.yaml" > "$T/causal.yaml"
{ cat "$T/causal.yaml"; printf '\nwindow: 128\n'; } > "$T/win.yaml"
"$L" workload fit "$T/win.yaml" -o "$T/w.yaml" 2> "$T/err"
check "fit of a windowed workload refused" $? 2
grep -q "workload.window 128 < 512 keys" "$T/err"; check "fit window refusal: named" $? 0
check "fit window refusal: no output" "$(ls "$T" | grep -c '^w.yaml')" 0
"$L" workload stats "$T/win.yaml" --no-lamp -o "$T/w.csv" 2> /dev/null
check "stats of a windowed workload" $? 0
"$L" workload stats "$T/causal.yaml" --no-lamp -o "$T/nw.csv" 2> /dev/null
check "windowed statistics differ from the full rows'" "$(cmp -s "$T/w.csv" "$T/nw.csv"; echo $?)" 1
exit $fail
