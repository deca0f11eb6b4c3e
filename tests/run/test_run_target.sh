#!/usr/bin/env bash
# The -o DIR of run and sensitivity while the computation runs (issue #39 D2, D9, D10): a directory
# filled meanwhile (a file added, another run finishing first) is refused at the end as at the
# start and never deleted without --force, so two runs into one -o never both exit 0; the
# .DIR.run.XXXXXX temporaries of killed runs (kill -9) are removed by the next run into DIR while
# a live run's stays; a symbolic link to a directory is followed, a dangling one is refused before
# anything is computed.
set -u
lampsim=$1
. "$(dirname "${BASH_SOURCE[0]}")/../check.sh"
cd "$tmp"
slow=(--golden --set workload.seq_q=2048 --set workload.seq_k=2048 --quiet)  # about a second
small=(--set workload.seq_q=128 --set workload.seq_k=128 --quiet)
wait_tmp() { for _ in $(seq 1 1500); do ls -A . | grep -q "^\.$1\.run\." && return; sleep 0.02; done; }

# a file added to the (empty) destination during the run: refused at commit, the file kept
"$lampsim" run "${slow[@]}" -o add 2> err & pid=$!
wait_tmp add; mkdir -p add; echo mine > add/notes.txt
wait $pid; rc=$?
check "[ $rc -ne 0 ] && [ \"\$(cat add/notes.txt)\" = mine ] && [ ! -e add/report.json ] && grep -q 'add: output directory is not empty' err" \
  "run: a file added meanwhile is kept, the run refused (rc $rc): $(cat err; ls add)"
check "[ -z \"\$(ls -A | grep '^\.add\.run')\" ]" "run: no temporary left after the refusal: $(ls -A)"
# --force replaces it, as documented
"$lampsim" run "${small[@]}" -o add --force 2> err; rc=$?
check "[ $rc -eq 0 ] && [ -e add/report.json ] && [ ! -e add/notes.txt ]" "run --force replaces a filled directory (rc $rc)"

# two runs into one -o: exactly one exits 0, the directory holds its complete result
"$lampsim" run "${slow[@]}" --set seed=1 -o two 2> err1 & p1=$!
"$lampsim" run "${slow[@]}" --set seed=2 -o two 2> err2 & p2=$!
wait $p1; r1=$?; wait $p2; r2=$?
ok=$(( (r1 == 0) + (r2 == 0) ))
win=$([ $r1 -eq 0 ] && echo 1 || echo 2)
check "[ $ok -eq 1 ] && grep -q '^seed: $win' two/config.resolved.yaml && [ -e two/report.json ]" \
  "two runs into one -o: one succeeds, its result kept (rc $r1 $r2): $(cat err1 err2)"

# sensitivity: the same commit-time refusal
# (a layer big enough that the run lasts about two seconds: the temporary must be seen while it exists)
"$lampsim" sensitivity --set workload.seq_q=4096 --set workload.seq_k=4096 --quiet --set workload.heads_q=4 --set workload.heads_kv=1 \
  --params accelerator.tensor.latency,accelerator.memory.pipeline_stages --method oat -o sadd --no-html 2> err & pid=$!
wait_tmp sadd; mkdir -p sadd; echo mine > sadd/notes.txt
wait $pid; rc=$?
check "[ $rc -ne 0 ] && [ \"\$(cat sadd/notes.txt)\" = mine ] && [ \$(ls sadd | wc -l) -eq 1 ]" \
  "sensitivity: a file added meanwhile is kept, the run refused (rc $rc): $(cat err; ls sadd)"

# kill -9 leaves a temporary; the next run into the same DIR removes it; a live run's stays
"$lampsim" run "${slow[@]}" -o k9 2>/dev/null & pid=$!
wait_tmp k9; kill -9 $pid; wait $pid 2>/dev/null
check "[ -n \"\$(ls -A | grep '^\.k9\.run\.')\" ]" "kill -9 leaves a temporary (the situation the next run cleans): $(ls -A)"
mkdir .k9.run.live00; exec 9< .k9.run.live00; flock 9   # a live owner (this shell) holds the lock
mkdir .k9x.run.abcdef   # another destination's temporary: not ours to remove
"$lampsim" run "${small[@]}" -o k9 2> err; rc=$?
check "[ $rc -eq 0 ] && [ \"\$(ls -A | grep '^\.k9\.run\.')\" = .k9.run.live00 ] && [ -d .k9x.run.abcdef ]" \
  "the next run removes the dead run's temporary only (rc $rc): $(ls -A | grep '^\.')"
exec 9<&-

# -o naming a symbolic link to a directory: the run goes into the directory, the link stays
mkdir real; ln -s real lnk
"$lampsim" run "${small[@]}" -o lnk 2> err; rc=$?
check "[ $rc -eq 0 ] && [ -L lnk ] && [ -e real/report.json ]" "run -o LINK-TO-DIR writes into the directory (rc $rc): $(cat err)"
# a dangling link is refused at once (before a run that would take long)
ln -s nowhere dang
start=$(date +%s%N)
"$lampsim" run --golden --set workload.seq_q=8192 --set workload.seq_k=8192 --quiet -o dang 2> err; rc=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
check "[ $rc -eq 2 ] && [ $ms -lt 2000 ] && grep -q 'dang' err && [ -L dang ]" "run -o DANGLING-LINK refused before computing (rc $rc, $ms ms): $(cat err)"
finish_checks
