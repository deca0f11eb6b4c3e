#!/usr/bin/env bash
# One configuration, one answer (issue 23): a 20-point sweep differing in cores, clock, layout,
# memory bandwidth and mode, run forward and in reverse order, with -j 1 and -j 2, with and without
# numerics reuse, killed (SIGKILL) and resumed; and every point again by `lampsim run` of its
# resolved configuration. Every report.json and report.csv must be byte-identical across all of
# them (run_info.json holds the host facts: wall time, threads, where the numerics came from).
# Before the fix a point's cycles depended on which point ran before it in the same process.
#   test_repro_matrix.sh LAMPSIM SRC
set -u
lampsim=$1
src=$2
. "$src/tests/check.sh"
cd "$tmp"
# 5 hardware points (cores, clock, bandwidth) x 2 layouts x 2 modes = 20 points; the layer is big
# enough to span many SystemC quanta and to keep memory requests of several cores in flight.
sweep() {   # sweep FILE ORDER: forward or reverse value lists (the same 20 points)
  local c="[16, 132, 32, 132, 64]" g="[1.83, 1.0, 2.0, 1.83, 1.5]" b="[3350, 1000, 2000, 800, 3350]"
  local l="[compact, full]" m="[lamp, fa2_16bit]"
  if [ "$2" = reverse ]; then
    c="[64, 132, 32, 132, 16]" g="[1.5, 1.83, 2.0, 1.0, 1.83]" b="[3350, 800, 2000, 1000, 3350]"
    l="[full, compact]" m="[fa2_16bit, lamp]"
  fi
  cat > "$1" <<YAML
name: repro
base:
  include: $src/configs/lampattention.yaml
  seed: 3
  timed: {reuse_numerics: true}
  algorithm: {tau: 0.125, b_k: 32}
  workload: {heads_q: 8, heads_kv: 2, seq_q: 512, seq_k: 512, dim: 64}
axes:
  algorithm.mode: $m
  zip_hw:
    accelerator.cores: $c
    accelerator.clock_ghz: $g
    accelerator.memory.bandwidth_gbps: $b
  accelerator.regfile.layout: $l
YAML
}
sweep fwd.yaml forward
sweep rev.yaml reverse
n_points() { ls -d "$1"/points/*/ 2>/dev/null | wc -l; }

"$lampsim" sweep run fwd.yaml -j 1 -o ref --quiet
check "[ \$(n_points ref) -eq 20 ]" "the reference sweep has 20 points ($(n_points ref))"
# the 20 points must not collapse to a few answers (the matrix would then prove little)
ncyc=$(for f in ref/points/*/report.json; do grep -m1 '"cycles":' "$f"; done | sort -u | wc -l)
check "[ $ncyc -ge 10 ]" "the points differ in cycles ($ncyc distinct values of 20)"

"$lampsim" sweep run rev.yaml -j 1 -o rev1 --quiet
"$lampsim" sweep run fwd.yaml -j 2 -o fwd2 --quiet
"$lampsim" sweep run rev.yaml -j 2 -o rev2 --quiet
"$lampsim" sweep run fwd.yaml -j 1 -o nr1 --no-reuse --quiet
"$lampsim" sweep run rev.yaml -j 2 -o nr2 --no-reuse --quiet
# killed (SIGKILL) once AFTER points are done, then resumed; with reuse the resumed worker starts
# on another point than an uninterrupted one would
kill_and_resume() {   # kill_and_resume DIR AFTER [sweep run options]
  local d=$1 after=$2; shift 2
  "$lampsim" sweep run fwd.yaml -j 1 -o "$d" --no-progress "$@" 2>/dev/null &
  local pid=$!
  for _ in $(seq 1 1500); do [ "$(ls "$d"/points/*/DONE 2>/dev/null | wc -l)" -ge "$after" ] && break; sleep 0.02; done
  kill -KILL $pid; { wait $pid; } 2>/dev/null
  local k=$(ls "$d"/points/*/DONE 2>/dev/null | wc -l)
  check "[ $k -ge 1 ] && [ $k -lt 20 ]" "$d: SIGKILL mid-way keeps part of the sweep ($k of 20 done)"
  "$lampsim" sweep run fwd.yaml -j 1 -o "$d" --quiet "$@"
}
kill_and_resume killed 7
kill_and_resume killed_nr 5 --no-reuse

# each point alone in a fresh process, from its resolved configuration, laid out as a sweep's points
for p in ref/points/*/; do
  "$lampsim" run "$p/config.resolved.yaml" -o "fresh/points/$(basename "$p")" --quiet >/dev/null 2>&1
done
for d in rev1 fwd2 rev2 nr1 nr2 killed killed_nr fresh; do
  bad=0
  for p in ref/points/*/; do
    name=$(basename "$p")
    for f in report.json report.csv; do
      cmp -s "$p/$f" "$d/points/$name/$f" || { bad=$((bad+1)); [ $bad -le 3 ] && echo "  $d/points/$name/$f differs"; }
    done
  done
  check "[ $bad -eq 0 ]" "$d: every point's report.json and report.csv equal the forward -j 1 sweep's ($bad files differ)"
done
finish_checks
