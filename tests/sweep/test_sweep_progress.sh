#!/usr/bin/env bash
# Progress on stderr: a sweep with stderr not a terminal prints plain status lines with done/total
# counts that only grow and never shows fewer running workers than it has while points remain (the
# status is printed after relaunching, not between a reap and its relaunch); a single run prints
# work-item lines; a live line redraws in place; results are byte-identical with and without
# progress; a bad --progress-every is refused.
. "$(dirname "$0")/common.sh"
cd "$tmp"
small_sweep p.yaml timed 1024 # 8 points, a fraction of a second each
"$lampsim" sweep run p.yaml -j 2 -o a --no-reuse --no-progress --progress-every 0.05 2> log; rc=$?
grep '^sweep small: [0-9]*/8 points (' log > status
check "[ $rc -eq 0 ] && [ \$(wc -l < status) -ge 2 ]" "plain status lines at a short period (rc $rc, $(wc -l < status) lines): $(head -3 log)"
check "grep -q 'ETA [0-9]*:[0-9][0-9]' status && grep -q 'work [0-9]*%' status && grep -q 'points/s' status" "status lines carry rate, ETA and the share of work: $(head -1 status)"
sed 's|^sweep small: \([0-9]*\)/8 points.*; \([0-9]*\) running.*|\1 \2|' status > counts
check "awk 'BEGIN{ok=1} {if (\$1 < last) ok=0; last=\$1} END{exit !ok}' counts" "done counts never decrease: $(tr '\n' ' ' < counts)"
check "awk 'BEGIN{ok=1} {left=8-\$1; want=left<2?left:2; if (\$2 != want) ok=0} END{exit !ok}' counts" "running = min(workers, points left) in every status line: $(tr '\n' ' ' < counts)"
check "[ \$(grep -c '^\[[0-9]*/8\] point' log) -eq 8 ]" "one line per finished point"
# results do not depend on progress
"$lampsim" sweep run p.yaml -j 2 -o b --no-reuse --quiet 2> qlog; rc=$?
same=1
for d in a/points/*/; do
  p=${d#a/}
  for f in report.json report.csv config.resolved.yaml DONE; do cmp -s "a/$p$f" "b/$p$f" || same=0; done
done
check "[ $rc -eq 0 ] && [ $same -eq 1 ] && ! grep -q 'sweep\|point\|ETA' qlog" "reports identical with and without progress, --quiet prints no progress (rc $rc)"
# a live line: carriage return and erase, redrawn in place
"$lampsim" sweep run p.yaml -j 2 -o c --progress --progress-every 0.05 2> live; rc=$?
n_all=$(grep -o 'sweep small: [0-9]*/8 points (' live | wc -l)
n_live=$(grep -o $'\r\033\[Ksweep small: [0-9]*/8 points (' live | wc -l)
check "[ $rc -eq 0 ] && [ $n_live -ge 1 ] && [ $n_live -eq $n_all ]" "--progress redraws one live line in place: every status after carriage return + erase (rc $rc, $n_live of $n_all)"
# a single run: work items
"$lampsim" run --set workload.seq_q=2048 --set workload.seq_k=2048 --no-progress --progress-every 0.02 -o r1 > out1 2> rlog; rc=$?
grep '^run: [0-9]*/[0-9]* query blocks' rlog > rstatus
check "[ $rc -eq 0 ] && [ \$(wc -l < rstatus) -ge 1 ]" "a single run prints progress lines (rc $rc): $(cat rlog)"
check "[ \$(sed 's|^run: [0-9]*/\([0-9]*\) .*|\1|' rstatus | sort -u | wc -l) -eq 1 ] && sed 's|^run: \([0-9]*\)/.*|\1|' rstatus | awk 'BEGIN{ok=1} {if (\$1 < last) ok=0; last=\$1} END{exit !ok}'" "one total, done counts grow: $(tr '\n' '|' < rstatus)"
"$lampsim" run --set workload.seq_q=2048 --set workload.seq_k=2048 --quiet -o r2 2> rq; rc=$?
check "[ $rc -eq 0 ] && cmp -s r1/report.json r2/report.json && cmp -s r1/report.csv r2/report.csv && ! grep -q 'query blocks' rq" "run reports identical with and without progress, none with --quiet (rc $rc)"
check "! grep -q 'query blocks' out1" "progress goes to stderr, not stdout"
# bad values
"$lampsim" run --progress-every 0 2> e1; rc1=$?
"$lampsim" sweep run p.yaml -o d --progress-every x 2> e2; rc2=$?
check "[ $rc1 -eq 2 ] && [ $rc2 -eq 2 ] && grep -q 'progress-every' e1 && grep -q 'progress-every' e2 && [ ! -e d ]" "a bad --progress-every is refused with exit 2 ($rc1, $rc2)"
finish
