#!/usr/bin/env bash
# scripts/parallel_sweep.sh end to end with GNU parallel (Debian `parallel`): the small sweep run
# as one parallel job per manifest line gives the same merged CSV as `lampsim sweep run`; a second
# invocation resumes (nothing to redo); a bad sweep file stops before anything is written.
# Skips (77) when GNU parallel is not installed.
. "$(dirname "$0")/common.sh"
if ! command -v parallel >/dev/null || ! parallel --version 2>/dev/null | grep -q 'GNU parallel'; then
  echo "SKIP: GNU parallel not installed (Debian package: parallel)"
  exit 77
fi
cd "$tmp"
small_sweep small.yaml
script=$src/scripts/parallel_sweep.sh
LAMPSIM=$lampsim bash "$script" small.yaml -o par -j 2 > out 2> log; rc=$?
check "[ $rc -eq 0 ] && [ -s par/results.csv ] && [ -s par/parallel.joblog ]" "parallel_sweep.sh exits 0 and writes results.csv and the job log (rc $rc): $(tail -3 log)"
check "[ \$(ls par/points/*/DONE | wc -l) -eq 8 ] && [ \$(grep -c . par/parallel.joblog) -eq 9 ]" "8 points done by 8 parallel jobs"
"$lampsim" sweep run small.yaml -j 2 -o ref --quiet
"$lampsim" sweep merge ref > ref.csv
check "cmp -s par/results.csv ref.csv" "GNU parallel and lampsim sweep run give the same merged CSV"
check "[ \$(awk -F'\t' 'NR > 1 && \$7 != 0' par/parallel.joblog | wc -l) -eq 0 ]" "every parallel job exited 0"
touch -d '2000-01-01' par/points/*/DONE
LAMPSIM=$lampsim bash "$script" small.yaml -o par -j 2 > out 2> log; rc=$?
check "[ $rc -eq 0 ] && [ -z \"\$(find par/points -name DONE -newer small.yaml)\" ] && cmp -s par/results.csv ref.csv" "re-running resumes: finished points untouched (rc $rc)"
printf 'axes:\n  algorithm.tua: [1]\n' > bad.yaml
LAMPSIM=$lampsim bash "$script" bad.yaml -o badout > out 2> log; rc=$?
check "[ $rc -eq 2 ] && [ ! -e badout ] && grep -q 'bad.yaml:2:3' log" "a bad sweep file: exit 2, its location, nothing written (rc $rc)"
finish
