#!/usr/bin/env bash
# Sweep runners sharing a directory and failing filesystems: 4 concurrent runners on one sweep
# directory compute each point once, with no FAILED marker; a write error (file size limit) and a
# full disk (a small tmpfs, where the kernel allows an unprivileged mount namespace) stop the
# runner with the errno text, and the runner and `sweep merge` agree on failed vs missing.
. "$(dirname "$0")/common.sh"
cd "$tmp"
cat > g.yaml <<'YAML'
name: g
base:
  seed: 7
  timed: {enabled: false}
  workload: {heads_q: 2, heads_kv: 1, seq_q: 256, seq_k: 256}
axes:
  algorithm.tau: {geom: [1, 2^-11], points: 12}
YAML
# runner summary "F failed, M not run" and merge's "F failed, M missing" must agree
agree() { # agree RUNNER_LOG MERGE_LOG
  local r m
  r=$(sed -n 's/.* \([0-9]*\) failed, \([0-9]*\) not run, .*/\1 \2/p' "$1" | tail -1)
  m=$(sed -n 's/^merge: .* \([0-9]*\) failed, \([0-9]*\) missing$/\1 \2/p' "$2")
  [ -n "$r" ] && [ "$r" = "$m" ]
}

# 4 runners, one directory
pids=()
for r in 1 2 3 4; do "$lampsim" sweep run g.yaml -j 2 -o conc --no-reuse --no-progress 2> conc$r.log & pids+=($!); done
rc=0; for p in "${pids[@]}"; do wait "$p" || rc=1; done
computed=$(cat conc?.log | grep -c '^\[[0-9]*/12\] point [0-9]* [0-9a-f]* done in ')
dups=$(cat conc?.log | sed -n 's/^\[[0-9]*\/12\] point \([0-9]*\) .* done in .*/\1/p' | sort | uniq -d | wc -l)
check "[ $rc -eq 0 ]" "4 concurrent runners all exit 0: $(tail -qn1 conc?.log)"
check "[ $computed -eq 12 ] && [ $dups -eq 0 ]" "each of the 12 points computed exactly once across the 4 runners ($computed computations, $dups duplicated)"
check "[ \$(ls conc/points/*/DONE | wc -l) -eq 12 ] && ! ls conc/points/*/FAILED >/dev/null 2>&1" "12 DONE markers, no FAILED marker"
check "grep -q 'by other runners' conc1.log && [ -z \"\$(ls -A conc/points | grep '^\.')\" ]" "the runners report the points done by the others; no temporaries left"
"$lampsim" sweep merge conc > conc.csv 2> conc_merge.log
"$lampsim" sweep run g.yaml -j 2 -o solo --no-reuse --quiet
check "\"$lampsim\" sweep merge solo | cmp -s - conc.csv" "the shared directory merges to the same CSV as one runner alone"

# a runner killed (SIGKILL) mid-way: its claims die with it, the other runner takes its points over
"$lampsim" sweep run g.yaml -j 1 -o k9 --no-reuse --no-progress 2> k9a.log & a=$!
"$lampsim" sweep run g.yaml -j 1 -o k9 --no-reuse --no-progress 2> k9b.log & b=$!
sleep 0.5; kill -9 $a; wait $b; rc=$?
check "[ $rc -eq 0 ] && [ \$(ls k9/points/*/DONE | wc -l) -eq 12 ] && ! ls k9/points/*/FAILED >/dev/null 2>&1" "the survivor of a killed runner finishes every point, no FAILED marker (rc $rc): $(tail -1 k9b.log)"
"$lampsim" sweep run g.yaml -j 1 -o k9 --no-reuse --no-progress 2> k9c.log; rc=$?
check "[ $rc -eq 0 ] && grep -q '12 before' k9c.log && [ -z \"\$(ls -A k9/points | grep '^\.')\" ]" "then nothing is left to run and no temporary is left (rc $rc): $(ls -A k9/points | grep '^\.')"

# a write error (a file size limit: report.csv does not fit) is a filesystem error: the FAILED
# marker names it, nothing further is launched, runner and merge agree
( trap '' XFSZ; ulimit -f 4; "$lampsim" sweep run g.yaml -j 1 -o fsz --no-reuse --no-progress ) 2> fsz.log; rc=$?
"$lampsim" sweep merge fsz > /dev/null 2> fsz_merge.log
check "[ $rc -eq 1 ] && [ \$(grep -c 'FAILED: .*File too large' fsz.log) -eq 1 ] && grep -q 'filesystem error, no further points launched' fsz.log" "a write error stops the runner after one point, naming the error (rc $rc): $(cat fsz.log)"
check "agree fsz.log fsz_merge.log" "runner and merge agree on failed vs missing: $(tail -1 fsz.log) / $(tail -1 fsz_merge.log)"

# a full disk (ENOSPC) on a 64 KiB tmpfs
if unshare -rm true 2>/dev/null; then
  mkdir full
  unshare -rm bash -c "mount -t tmpfs -o size=64k tmpfs '$tmp/full' || exit 9
    '$lampsim' sweep run g.yaml -j 1 -o full/sw --no-reuse --no-progress 2> full.log; echo \$? > full.rc
    '$lampsim' sweep merge full/sw > /dev/null 2> full_merge.log"
  rc=$(cat full.rc 2>/dev/null || echo none)
  check "[ \"$rc\" = 1 ] && grep -q 'No space left on device' full.log && grep -q 'no further points launched' full.log && [ \$(grep -c 'FAILED' full.log) -le 2 ]" "a full disk: exit 1, ENOSPC named, no further launches (rc $rc): $(cat full.log)"
  check "! grep -q 'worker exited (status 0)' full.log && agree full.log full_merge.log" "runner and merge agree on failed vs missing: $(tail -1 full.log) / $(tail -1 full_merge.log)"
else
  echo "note: no unprivileged mount namespace here; the tmpfs full-disk case is skipped (the size-limit case ran)"
fi

# a sweep directory path of more than 1024 bytes: run, merge and compare use it whole
long="$tmp"
for i in 1 2 3 4 5 6; do long="$long/$(printf 's%.0s' $(seq 200))"; done
cat > two.yaml <<'YAML'
base: {timed: {enabled: false}, workload: {heads_q: 2, heads_kv: 1, seq_q: 64, seq_k: 64}}
axes: {algorithm.tau: [1, 0.5]}
YAML
"$lampsim" sweep run two.yaml -o "$long/sw" --quiet; rc=$?
check "[ $rc -eq 0 ] && [ \${#long} -gt 1024 ] && [ \$(ls \"$long\"/sw/points/*/DONE | wc -l) -eq 2 ]" "a ${#long}-byte sweep directory is used whole (rc $rc)"
check "[ \$(\"$lampsim\" sweep merge \"$long/sw\" | wc -l) -eq 3 ] && [ \$(\"$lampsim\" compare \"$long/sw\" | grep -c '^tau=') -eq 2 ]" "merge and compare read it"

# a point whose run would be refused before generating data refuses the sweep, writing nothing
cat > regs.yaml <<'YAML'
base:
  workload: {heads_q: 2, heads_kv: 1, seq_q: 128, seq_k: 128}
axes:
  workload.dim: [64, 512]
YAML
"$lampsim" sweep run regs.yaml -o regs 2> regs.log; rc=$?
check "[ $rc -eq 2 ] && [ ! -e regs ] && grep -q 'point 1 (workload.dim=512): accelerator.regfile: one warp needs' regs.log" "a sweep point that does not fit the registers: exit 2, nothing written (rc $rc): $(cat regs.log)"
finish
