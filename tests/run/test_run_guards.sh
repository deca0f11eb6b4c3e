#!/usr/bin/env bash
# The guards against accidental huge runs bound the work the run will do (issue #39): a timing-only
# run computes no multiply-adds, so workload.max_work does not refuse it (the FlashAttention-3 H100
# benchmark shape, batch 16, 16 heads, 8192 tokens, was refused at 1.1e12 / 2.2e12 multiply-adds);
# the timed model's tile steps (workload.max_steps) bound every timed run, timing-only ones
# included. Integers accept exact decimal exponents (2e12).
set -u
lampsim=$1
. "$(dirname "${BASH_SOURCE[0]}")/../check.sh"
root="$(dirname "${BASH_SOURCE[0]}")/../.."
fa3="$root/configs/validation/fa3_h100.yaml"
bench=(--set workload.batch=16 --set workload.seq_q=8192 --set workload.seq_k=8192)

for causal in false true; do
  "$lampsim" validate "$fa3" "${bench[@]}" --set workload.causal=$causal > "$tmp/out" 2>&1; rc=$?
  check "[ $rc -eq 0 ]" "the FA3 H100 timing-only benchmark shape (causal $causal) is accepted (rc $rc): $(cat "$tmp/out")"
done
# the same shape computing its numerics is still refused by max_work, naming the key
"$lampsim" validate "$fa3" "${bench[@]}" --set timed.timing_only=false > "$tmp/out" 2>&1; rc=$?
check "[ $rc -eq 2 ] && grep -q 'multiply-adds of Q.K^T exceed workload.max_work = 274877906944 (raise workload.max_work' '$tmp/out'" \
  "computing the numerics of that shape is refused by max_work (rc $rc): $(cat "$tmp/out")"
# a timing-only run far beyond the benchmark (1M tokens: 9.8e7 tile steps) is refused by max_steps at once
start=$(date +%s%N)
"$lampsim" run "$fa3" --set workload.heads_q=1 --set workload.heads_kv=1 --set workload.seq_q=1048576 \
  --set workload.seq_k=1048576 -o "$tmp/huge" > "$tmp/out" 2>&1; rc=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
check "[ $rc -eq 2 ] && grep -q 'tile steps of the timed model .* exceed workload.max_steps = 67108864 (raise workload.max_steps' '$tmp/out' && [ ! -e '$tmp/huge' ] && [ $ms -lt 1500 ]" \
  "a 1M-token timing-only run is refused by max_steps in ${ms} ms (rc $rc): $(cat "$tmp/out")"
# a timing-only run that does run is not held to max_work (it computes nothing) ...
small=(--set workload.seq_q=512 --set workload.seq_k=512 --set workload.batch=1 --set workload.heads_q=2 --set workload.heads_kv=2 --quiet)
"$lampsim" run "$fa3" "${small[@]}" --set workload.max_work=1000 > "$tmp/out" 2>&1; rc=$?
check "[ $rc -eq 0 ]" "a timing-only run above max_work = 1000 runs (it does no arithmetic) (rc $rc): $(cat "$tmp/out")"
# ... a computing one is, and a run is held to max_steps whether it computes or not
"$lampsim" run "$fa3" "${small[@]}" --set timed.timing_only=false --set workload.max_work=1000 > "$tmp/out" 2>&1; rc=$?
check "[ $rc -eq 2 ] && grep -q 'exceed workload.max_work = 1000' '$tmp/out'" "the same run computing numerics is refused (rc $rc): $(cat "$tmp/out")"
"$lampsim" run "$fa3" "${small[@]}" --set workload.max_steps=47 > "$tmp/out" 2>&1; rc=$?
check "[ $rc -eq 2 ] && grep -q 'workload.seq_[qk]: 48 tile steps of the timed model .* exceed workload.max_steps = 47' '$tmp/out'" \
  "max_steps = 47 refuses a timing-only run of 48 steps (2 heads x 8 query blocks x 3 key tiles) (rc $rc): $(cat "$tmp/out")"
"$lampsim" run "$fa3" "${small[@]}" --set workload.max_steps=48 > "$tmp/out" 2>&1; rc=$?
check "[ $rc -eq 0 ]" "max_steps = 48 runs it (rc $rc): $(cat "$tmp/out")"
# the golden engine runs no timed model: no step guard
"$lampsim" run "${small[@]}" --golden --set workload.max_steps=1 > "$tmp/out" 2>&1; rc=$?
check "[ $rc -eq 0 ]" "a golden run is not held to max_steps (rc $rc): $(cat "$tmp/out")"
# raised, the guard's run prints its size with both counts first
"$lampsim" run "$fa3" "${small[@]:0:10}" --set workload.max_steps=1e8 > /dev/null 2> "$tmp/err"; rc=$?
check "[ $rc -eq 0 ] && grep -q 'max_steps to 100000000).*multiply-adds of Q.K^T (not computed: timing only), 48 tile steps.*estimated run time ~[0-9]' '$tmp/err'" \
  "raised max_steps (written 1e8): size, both counts and a time estimate on stderr (rc $rc): $(cat "$tmp/err")"
# sampled numerics: the estimate times the numerics of S of each head's blocks and the timed model on all of them
"$lampsim" run --set workload.seq_q=2048 --set workload.seq_k=2048 --set algorithm.sample_query_blocks=2 \
  --set workload.max_work=1e13 -o "$tmp/smp" > /dev/null 2> "$tmp/err"; rc=$?
check "[ $rc -eq 0 ] && grep -q 'estimated run time ~[0-9].*numerics on 2 of 16 blocks per head' '$tmp/err'" \
  "a sampled run's estimate says it computes 2 of 16 blocks per head (rc $rc): $(cat "$tmp/err")"
# exponents: exact ones are integers, inexact ones are refused naming file, line and key
printf 'include: %s\nworkload:\n  max_work: 2.5e11\n  max_steps: 1.5e0\n' "$(cd "$root" && pwd)/configs/validation/fa3_h100.yaml" > "$tmp/exp.yaml"
"$lampsim" validate "$tmp/exp.yaml" > "$tmp/out" 2>&1; rc=$?
check "[ $rc -eq 2 ] && grep -qF '$tmp/exp.yaml:4:14: workload.max_steps: expected an integer in [1, 1000000000000000], got 1.5e0 (not a whole number)' '$tmp/out'" \
  "an inexact exponent is refused with file:line:col and key (rc $rc): $(cat "$tmp/out")"
"$lampsim" config --dump "$fa3" --set workload.max_work=2e12 > "$tmp/out" 2>&1; rc=$?
check "[ $rc -eq 0 ] && grep -q '^  max_work: 2000000000000$' '$tmp/out'" "--set max_work=2e12 reads as 2000000000000 (rc $rc): $(grep max_work "$tmp/out")"
finish_checks
