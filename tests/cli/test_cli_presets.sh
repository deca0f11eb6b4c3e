#!/usr/bin/env bash
# Shipped presets are found by name after `make install` (issue #39): the installed binary, run from
# another directory, finds configs/NAME.yaml, configs/sweeps/NAME.yaml and workloads/models/NAME.yaml
# by NAME and configs/... or workloads/... paths in PREFIX/share/lampsim; a name that matches nothing
# gets a hint saying where shipped files are looked for. The build-directory binary finds them in
# the tree too.
set -u
lampsim=$1
build=$2
. "$(dirname "${BASH_SOURCE[0]}")/../check.sh"
cmake --install "$build" --prefix "$tmp/prefix" > "$tmp/install.log" 2>&1; rc=$?
check "[ $rc -eq 0 ]" "cmake --install into a temporary prefix (rc $rc): $(tail -3 "$tmp/install.log")"
inst="$tmp/prefix/bin/lampsim"
share="$tmp/prefix/share/lampsim"
mkdir -p "$tmp/elsewhere" && cd "$tmp/elsewhere"
"$inst" validate lampattention h100 configs/gpu/h200.yaml > out 2>&1; rc=$?
check "[ $rc -eq 0 ] && grep -qxF '$share/configs/lampattention.yaml: ok' out && grep -qxF '$share/configs/h100.yaml: ok' out && grep -qxF '$share/configs/gpu/h200.yaml: ok' out" \
  "validate by name and by configs/ path from another directory, from the installed share/ (rc $rc): $(cat out)"
"$inst" run lampattention --set workload.seq_q=64 --set workload.seq_k=64 -o r --quiet > out 2>&1; rc=$?
check "[ $rc -eq 0 ] && grep -qF 'source: $share/configs/lampattention.yaml' r/config.resolved.yaml" "lampsim run lampattention runs the installed preset (rc $rc): $(cat out)"
"$inst" config --dump configs/validation/fa3_h100.yaml > out 2>&1; rc=$?
check "[ $rc -eq 0 ] && grep -q '^  timing_only: true' out" "config --dump configs/validation/... from another directory (rc $rc): $(head -3 out)"
"$inst" sweep expand tau_layout --count > out 2>&1; rc=$?
check "[ $rc -eq 0 ] && [ \"\$(cat out)\" = 12 ]" "sweep expand tau_layout: the shipped sweep by name (rc $rc): $(cat out)"
"$inst" run lampatention > out 2>&1; rc=$?
check "[ $rc -eq 2 ] && grep -q \"lampatention: cannot open\" out && grep -qF \"hint: 'lampatention' is not a file here, nor a shipped one\" out && grep -qF 'in $share' out" \
  "a misspelled name: exit 2 and a hint naming the data directory (rc $rc): $(cat out)"
# a file in the current directory wins over a shipped one of the same name
printf 'algorithm:\n  tau: 0.125\n' > lampattention
"$inst" config --dump lampattention > out 2>&1; rc=$?
check "[ $rc -eq 0 ] && grep -q '^  tau: 0.125' out" "a local file named like a preset is the one read (rc $rc)"
# the build-directory binary finds the tree's presets the same way
rm lampattention; "$lampsim" validate lampattention > out 2>&1; rc=$?
check "[ $rc -eq 0 ] && grep -q 'configs/lampattention.yaml: ok' out" "the build-directory binary too (rc $rc): $(cat out)"
finish_checks
