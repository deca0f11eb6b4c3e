#!/usr/bin/env bash
# (long) The compact vs full study as docs/studies.md states it: runs the two shipped study sweeps,
# then scripts/compact_vs_full.py, whose output must equal the tables and answers pasted in
# docs/studies.md (between the <!-- study: NAME --> and <!-- /study --> markers). About 25 minutes
# with -j 2 on 2 cores; LAMPSIM_STUDY_DIR reuses (and resumes) a directory of earlier runs.
. "$(dirname "$0")/common.sh"
py=/usr/bin/python3
out=${LAMPSIM_STUDY_DIR:-$tmp}
for w in qwen3 gemma3; do
  "$lampsim" sweep run "$src/configs/sweeps/compact_vs_full_$w.yaml" -j 2 -o "$out/cvf_$w" --quiet; rc=$?
  check "[ $rc -eq 0 ]" "study sweep $w ran (rc $rc)"
  "$lampsim" sweep merge "$out/cvf_$w" -o "$out/cvf_$w/results.csv" 2>/dev/null
  $py "$src/scripts/compact_vs_full.py" "$out/cvf_$w" > "$tmp/got_$w"
  sed -n "/<!-- study: $w -->/,/<!-- \/study -->/p" "$src/docs/studies.md" | sed '1d;$d' > "$tmp/want_$w"
  check "[ -s \"$tmp/want_$w\" ] && diff \"$tmp/want_$w\" \"$tmp/got_$w\"" "docs/studies.md states the $w study as it runs now"
done
finish
