#!/bin/bash
# Model descriptions, sweep files and workload inputs stop reading at the 1 MiB limit of a YAML
# input (issue #39 D4: /dev/zero once reached 2.1 GB in 7 s): /dev/zero and a 3 MiB file are
# refused at once (exit 2), the message naming the file.
lampsim=$1
. "$(dirname "$0")/../check.sh"
cd "$tmp"
head -c 3145728 /dev/zero | tr '\0' '#' > big.yaml   # one comment line of 3 MiB
# the memory bound: 1 GB of address space, or under AddressSanitizer (whose shadow memory needs terabytes
# of address space) 1 GB of resident memory, which ASan enforces itself
asan=0
ldd "$lampsim" 2>/dev/null | grep -q libasan && asan=1
for f in /dev/zero big.yaml; do
  for c in "sweep expand" "model" "workload stats"; do
    s=$(date +%s%N)
    if [ $asan -eq 1 ]; then
      ( export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}hard_rss_limit_mb=1000"; timeout 30 "$lampsim" $c "$f" > out 2> e ); rc=$?
    else
      ( ulimit -v 1000000; timeout 30 "$lampsim" $c "$f" > out 2> e ); rc=$?
    fi
    ms=$(( ($(date +%s%N) - s) / 1000000 ))
    check "[ $rc -eq 2 ] && [ $ms -lt 5000 ] && grep -qF -- '$f' e && ! grep -q 'Cannot allocate' e" "$c $f: exit 2 within 5 s naming the file (rc $rc, $ms ms): $(head -c 300 e)"
  done
done
finish_checks
