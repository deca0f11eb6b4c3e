#!/bin/bash
# -o FILE of sweep merge, workload stats, workload fit and config --dump (issue #39 D1): a FIFO or
# a device is written in place (never renamed over: as root, -o /dev/null once turned the machine's
# /dev/null into a regular file); a symbolic link is followed and its target replaced atomically,
# the link staying a link; a dangling link and a directory are refused (non-zero exit, nothing written).
lampsim=$1; src=$2
. "$(dirname "$0")/../check.sh"
cd "$tmp"
cat > sw.yaml <<'Y'
name: tiny
base:
  timed: {enabled: false}
  workload: {heads_q: 1, heads_kv: 1, seq_q: 32, seq_k: 32}
axes:
  algorithm.tau: [1, 0.5]
Y
"$lampsim" sweep run sw.yaml -o sw --quiet 2> e || echo "setup: sweep run failed: $(cat e)"
wl="$src/workloads/gaussian_small.yaml"

# writer NAME ARGS...: the command, with -o appended by each case
declare -A cmd=(
  [merge]="sweep merge sw"
  [stats]="workload stats $wl"
  [fit]="workload fit $wl"
  [dump]="config --dump $src/configs/lampattention.yaml"
)
for w in merge stats fit dump; do
  # a FIFO: the data arrives through it, and it is still a FIFO afterwards
  rm -f f.$w got.$w; mkfifo f.$w
  timeout 20 cat f.$w > got.$w & reader=$!   # a renamed-over FIFO is never opened: do not wait forever
  timeout 60 "$lampsim" ${cmd[$w]} -o f.$w > /dev/null 2> e; rc=$?
  wait $reader
  check "[ $rc -eq 0 ] && [ -p f.$w ] && [ -s got.$w ]" "$w -o FIFO: rc $rc, still a FIFO, data read through it: $(cat e)"
  check "[ -z \"\$(ls -A | grep '^\.f\.$w')\" ]" "$w -o FIFO: no temporary left: $(ls -A)"
  # a symbolic link to a regular file: the target gets the new content, the link stays
  echo old > target.$w; rm -f link.$w; ln -s target.$w link.$w
  "$lampsim" ${cmd[$w]} -o link.$w > /dev/null 2> e; rc=$?
  check "[ $rc -eq 0 ] && [ -L link.$w ] && [ \"\$(readlink link.$w)\" = target.$w ] && [ -s target.$w ] && ! grep -qx old target.$w" \
    "$w -o symlink: rc $rc, the link kept, its target rewritten: $(cat e)"
  # the same content as a plain file gets
  "$lampsim" ${cmd[$w]} -o plain.$w > /dev/null 2>&1
  check "cmp -s plain.$w target.$w" "$w -o symlink: the target holds what a plain -o writes"
  # a dangling symbolic link is refused, and nothing is created
  rm -f dang.$w; ln -s nowhere.$w dang.$w
  "$lampsim" ${cmd[$w]} -o dang.$w > /dev/null 2> e; rc=$?
  check "[ $rc -ne 0 ] && [ -L dang.$w ] && [ ! -e nowhere.$w ] && grep -q 'dang.$w' e" "$w -o dangling link: refused naming it (rc $rc): $(cat e)"
  # a directory is refused
  mkdir -p dir.$w
  "$lampsim" ${cmd[$w]} -o dir.$w > /dev/null 2> e; rc=$?
  check "[ $rc -ne 0 ] && [ -d dir.$w ] && grep -q 'dir.$w' e" "$w -o directory: refused naming it (rc $rc): $(cat e)"
done
# a character device: a private copy of the null device (as root only: mknod); the real /dev/null is
# never named, as a broken build would replace it for the whole machine
if mknod nulldev c 1 3 2> /dev/null; then
  "$lampsim" config --dump "$src/configs/lampattention.yaml" -o nulldev 2> e; rc=$?
  check "[ $rc -eq 0 ] && [ -c nulldev ] && [ ! -s nulldev ]" "config --dump -o DEVICE: rc $rc, still a character device: $(cat e)"
  "$lampsim" workload stats "$wl" -o nulldev 2> e; rc=$?
  check "[ $rc -eq 0 ] && [ -c nulldev ]" "workload stats -o DEVICE: rc $rc, still a character device: $(cat e)"
else
  echo "skip: not root, no device node (the FIFO cases cover the in-place path)"
fi
finish_checks
