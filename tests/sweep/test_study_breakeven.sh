#!/usr/bin/env bash
# (long) The break-even study as docs/studies.md states it: reruns scripts/breakeven_study.py (its
# three sweeps, every point fresh or a replay of numerics computed in the same run), then requires
#  1. the rerun's summary.json to equal the committed docs/figures/breakeven_qwen3.json byte for
#     byte (every winner, cycle count, rate, area, energy, break-even rate and estimate range), and
#  2. the page's generated blocks (<!-- breakeven: NAME --> ... <!-- /breakeven -->) to equal what
#     `breakeven_study.py page` renders from the committed summary,
# so a change to the timed model, a preset or the driver that moves any number on the page fails
# here until the study is rerun and the page regenerated. About 15 minutes with -j 2 on 2 cores;
# LAMPSIM_STUDY_DIR keeps (and resumes) the run directory.
. "$(dirname "$0")/common.sh"
py=/usr/bin/python3
out=${LAMPSIM_STUDY_DIR:-$tmp/study}
want=$src/docs/figures/breakeven_qwen3.json
$py "$src/scripts/breakeven_study.py" run -o "$out" -j 2 --lampsim "$lampsim" > "$tmp/run.log" 2>&1; rc=$?
check "[ $rc -eq 0 ]" "the study ran (rc $rc; $(tail -n 3 "$tmp/run.log" | tr '\n' ' '))"
check "[ -s \"$want\" ] && diff \"$want\" \"$out/summary.json\"" "the rerun's summary equals docs/figures/breakeven_qwen3.json"
cp "$src/docs/studies.md" "$tmp/page.md"
$py "$src/scripts/breakeven_study.py" page "$want" --write "$tmp/page.md"; rc=$?
check "[ $rc -eq 0 ] && diff \"$src/docs/studies.md\" \"$tmp/page.md\"" "docs/studies.md states the committed summary"
finish
