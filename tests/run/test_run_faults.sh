#!/usr/bin/env bash
# lampsim run under faults and awkward output locations: a --force run that fails to write (a
# file size limit stands in for a full disk) leaves the old run directory untouched, a run that
# fails after starting leaves no -o directory, an output path over 1024 bytes is honoured (no
# truncation), a bad output location is refused before anything is computed.
set -u
lampsim=$1
. "$(dirname "${BASH_SOURCE[0]}")/../check.sh"
small=(--set workload.seq_q=128 --set workload.seq_k=128 --quiet)

"$lampsim" run "${small[@]}" -o "$tmp/a"
cp -r "$tmp/a" "$tmp/a.before"
# config.resolved.yaml (under 8 KiB) fits the limit, report.csv does not: the write fails midway
( trap '' XFSZ; ulimit -f 8; "$lampsim" run "${small[@]}" --set seed=2 -o "$tmp/a" --force ) 2> "$tmp/err"; rc=$?
check "[ $rc -eq 1 ] && grep -q 'File too large' '$tmp/err'" "a failing write exits 1 and names the error (rc $rc): $(cat "$tmp/err")"
check "diff -r '$tmp/a.before' '$tmp/a' >/dev/null" "the old run directory is untouched: $(diff -r "$tmp/a.before" "$tmp/a" 2>&1 | head -3)"
check "[ -z \"\$(ls -A '$tmp' | grep '^\.')\" ]" "no temporary directory left next to it: $(ls -A "$tmp")"
# a failing O.npy write names the error (strerror) and the destination, not the removed temporary
( trap '' XFSZ; ulimit -f 16; "$lampsim" run "${small[@]}" --golden --save-o -o "$tmp/b" ) 2> "$tmp/err"; rc=$?
check "[ $rc -eq 1 ] && grep -qF '$tmp/b/O.npy: write failed: File too large' '$tmp/err' && ! grep -q '\.b\.run\.' '$tmp/err'" \
  "--save-o on a full disk: errno text and the destination's path (rc $rc): $(cat "$tmp/err")"
# the same limit without the shell ignoring SIGXFSZ (as a batch system's ulimit -f): lampsim reports the
# error and cleans up, instead of dying of the signal with a temporary left and nothing said
( ulimit -f 8; "$lampsim" run "${small[@]}" --golden --save-o -o "$tmp/c" ) 2> "$tmp/err"; rc=$?
check "[ $rc -eq 1 ] && grep -q 'File too large' '$tmp/err' && [ -z \"\$(ls -A '$tmp' | grep '^\.')\" ]" "a file-size limit: exit 1, the error named, no temporary left (rc $rc): $(cat "$tmp/err"; ls -A "$tmp" | grep '^\.')"
# the same run without the limit replaces it whole
"$lampsim" run "${small[@]}" --set seed=2 -o "$tmp/a" --force
check "grep -q '^seed: 2' '$tmp/a/config.resolved.yaml' && grep -q '\"seed\": 2' '$tmp/a/report.json'" "--force replaces the run directory"

# SIGINT, SIGTERM, SIGHUP during a run: it dies of the signal (128 + n) and leaves no .NAME.run.XXXXXX
# temporary next to the destination (issue #25 D9). Job control, so a background job gets SIGINT.
set -m
mkdir "$tmp/sig"
for sig in INT TERM HUP; do
  "$lampsim" run --golden --set workload.seq_q=4096 --set workload.seq_k=4096 --quiet -o "$tmp/sig/r_$sig" 2>/dev/null &
  pid=$!
  for _ in $(seq 1 100); do ls -A "$tmp/sig" | grep -q "^\.r_$sig\.run\." && break; sleep 0.02; done
  sleep 0.3
  kill -$sig $pid
  { wait $pid; } 2>/dev/null; rc=$?
  check "[ $rc -ge 129 ] && [ -z \"\$(ls -A '$tmp/sig')\" ]" "SIG$sig mid-run: rc $rc, nothing left behind: $(ls -A "$tmp/sig")"
done
set +m
# a run that fails after starting (its trace file is missing) creates no -o directory
"$lampsim" run "${small[@]}" --set workload.generator=trace --set workload.trace.q=/nonexistent/q.npy \
  --set workload.trace.k=/nonexistent/k.npy --set workload.trace.v=/nonexistent/v.npy -o "$tmp/never/run" 2> "$tmp/err"; rc=$?
check "[ $rc -eq 2 ] && [ ! -e '$tmp/never/run' ] && [ -z \"\$(ls -A '$tmp/never' 2>/dev/null)\" ]" "a failed run leaves no output directory (rc $rc)"

# an output path of more than 1024 bytes: written where asked, not truncated elsewhere
long="$tmp"
for i in 1 2 3 4 5 6; do long="$long/$(printf 'd%.0s' $(seq 200))"; done
long="$long/run"
"$lampsim" run "${small[@]}" -o "$long"; rc=$?
check "[ $rc -eq 0 ] && [ \${#long} -gt 1024 ] && [ -s '$long/report.json' ] && [ -s '$long/config.resolved.yaml' ]" "a ${#long}-byte output path is honoured (rc $rc)"
# a configuration file behind such a path is refused with a clear error (its directory, against
# which includes resolve, would not fit the configuration's path fields), not truncated
printf 'seed: 3\n' > "$long/c.yaml"
"$lampsim" run "$long/c.yaml" "${small[@]}" 2> "$tmp/err"; rc=$?
check "[ $rc -eq 2 ] && grep -q 'path longer than 1023 bytes' '$tmp/err'" "a ${#long}-byte configuration path: exit 2, named as too long (rc $rc)"

# a bad output location is refused at once, before the workload is built
touch "$tmp/file"
start=$(date +%s%N)
"$lampsim" run --set workload.seq_q=4096 --set workload.seq_k=4096 -o "$tmp/file/run" 2> "$tmp/err"; rc=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
check "[ $rc -eq 2 ] && grep -q '$tmp/file' '$tmp/err'" "an output path under a regular file exits 2 and names it (rc $rc): $(cat "$tmp/err")"
check "[ $ms -lt 1500 ]" "refused before computing (${ms} ms)"
( cd "$tmp/a" && "$lampsim" run "${small[@]}" -o . --force ) 2> "$tmp/err"; rc=$?
check "[ $rc -eq 2 ] && grep -q 'current directory' '$tmp/err'" "the current directory is refused as -o (it would be swapped away from under the shell) (rc $rc)"
"$lampsim" run "${small[@]}" -o "$tmp/file" 2> "$tmp/err"; rc=$?
check "[ $rc -eq 2 ] && grep -q 'not a directory' '$tmp/err'" "an output path naming a file exits 2 (rc $rc)"

# a run with workload.max_elements raised above its default is told its size and a time estimate
est=(--set workload.seq_q=512 --set workload.seq_k=512 --golden)
"$lampsim" run "${est[@]}" --set workload.max_elements=2147483648 > /dev/null 2> "$tmp/err"; rc=$?
check "[ $rc -eq 0 ] && grep -q 'max_elements is raised to 2147483648 (max_work to 274877906944, max_steps to 67108864): Q has 131072 elements.*estimated run time ~[0-9]' '$tmp/err'" "raised max_elements: size and time estimate on stderr (rc $rc): $(cat "$tmp/err")"
# an enormous but legal run (65536^2 tokens, 8 heads: 2.2e12 multiply-adds) is refused at once above
# workload.max_work (it just ran); raised, it is told its size and estimated time first (issue #25)
start=$(date +%s%N)
"$lampsim" run --golden --set workload.seq_q=65536 --set workload.seq_k=65536 --set workload.heads_q=8 --set workload.heads_kv=8 -o "$tmp/huge" 2> "$tmp/err"; rc=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
check "[ $rc -eq 2 ] && grep -q 'multiply-adds of Q.K^T exceed workload.max_work = 274877906944' '$tmp/err' && [ $ms -lt 1500 ] && [ ! -e '$tmp/huge' ]" "a 2.2e12 multiply-add run: refused in ${ms} ms (rc $rc): $(cat "$tmp/err")"
"$lampsim" run "${est[@]}" --set workload.max_work=300000000000 > /dev/null 2> "$tmp/err"; rc=$?
check "[ $rc -eq 0 ] && grep -q 'max_work to 300000000000, max_steps to 67108864).*multiply-adds.*estimated run time ~[0-9]' '$tmp/err'" "raised max_work: size and time estimate on stderr (rc $rc): $(cat "$tmp/err")"
"$lampsim" run "${est[@]}" > /dev/null 2> "$tmp/err"
check "! grep -q 'estimated' '$tmp/err'" "no estimate at the default guard"

# a check that depends only on the configuration fails before any data is generated: the Gemma 3
# decode workload's warp needs 416 registers on the default preset (its data takes ~20 s)
start=$(date +%s%N)
"$lampsim" run --set workload.file="$(dirname "${BASH_SOURCE[0]}")/../../workloads/gemma3_like_decode.yaml" -o "$tmp/regs" 2> "$tmp/err"; rc=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
check "[ $rc -eq 2 ] && grep -q '416 registers' '$tmp/err' && [ $ms -lt 1500 ] && [ ! -e '$tmp/regs' ]" "a warp that does not fit: exit 2 in ${ms} ms, nothing written (rc $rc): $(cat "$tmp/err")"
"$lampsim" run "${small[@]}" --set timed.program="$tmp" 2> "$tmp/err"; rc=$?
check "[ $rc -eq 2 ] && grep -q 'is a directory, not a microprogram file' '$tmp/err'" "timed.program naming a directory says so, not 'empty program' (rc $rc): $(cat "$tmp/err")"
printf '  END\n' > "$tmp/end.lasm"
"$lampsim" run "${small[@]}" --set timed.program="$tmp/end.lasm" 2> "$tmp/err"; rc=$?
check "[ $rc -eq 2 ] && grep -q 'never stores O' '$tmp/err'" "a program of only END is refused, not 0 cycles (rc $rc)"
# a 4 MiB trace rewritten in place during the run (np.save truncates first): the run finishes on
# the data it read, not killed by SIGBUS (exit 135) as it was when the file was memory-mapped
if /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
  mkdir "$tmp/tr"
  /usr/bin/python3 -c "
import numpy as np
r = np.random.default_rng(0)
for n in 'qkv': np.save('$tmp/tr/' + n + '.npy', r.standard_normal((1, 8, 1024, 128)).astype(np.float32))
open('$tmp/tr/t.yaml', 'w').write('generator: trace\ncausal: true\ndtype: fp32\ntrace: {q: q.npy, k: k.npy, v: v.npy}\n')"
  "$lampsim" run --golden --quiet --set workload.file="$tmp/tr/t.yaml" -o "$tmp/tr/r" 2> "$tmp/err" &
  pid=$!
  for _ in $(seq 1 200); do ls -A "$tmp/tr" | grep -q '^\.r\.run\.' && break; sleep 0.01; done
  sleep 0.3
  /usr/bin/python3 -c "import numpy as np; np.save('$tmp/tr/q.npy', np.zeros((1, 8, 16, 128), np.float32))"
  wait $pid; rc=$?
  check "[ $rc -eq 0 ] && [ -s '$tmp/tr/r/report.json' ]" "a trace rewritten during the run: no SIGBUS, the run completes (rc $rc): $(cat "$tmp/err")"
fi
finish_checks
