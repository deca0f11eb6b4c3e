#!/usr/bin/env bash
# A sweep's name is one path component (its default output is out/NAME): '.', '..' and 'a/b' are
# refused, from name: or from the file name; `sweep run` refuses an output directory that holds
# anything but a sweep's own files (it once overwrote a user's sweep.yaml there), and still
# resumes its own directory, report outputs included (issue #39 D3).
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$tmp"
for n in . .. a/b; do
  small_sweep s.yaml golden
  sed -i "s|^name: small|name: \"$n\"|" s.yaml
  mkdir -p w && cd w
  "$lampsim" sweep run ../s.yaml --quiet > out 2> e; rc=$?
  check "[ $rc -eq 2 ] && grep -q 's.yaml:1:' e && [ -z \"\$(ls -A | grep -v '^out\$\|^e\$')\" ]" \
    "name '$n' refused with the file's line, nothing written (rc $rc): $(cat e; ls -A)"
  cd ..; rm -rf w
done
# a name from the file name: "..yaml" gives "."
small_sweep ..yaml golden; sed -i '/^name:/d' ..yaml
"$lampsim" sweep expand ..yaml > out 2> e; rc=$?
check "[ $rc -eq 2 ] && grep -q 'not one path component' e" "'..yaml' without name: refused (rc $rc): $(cat e)"

# a user's directory: refused, their files untouched
small_sweep s.yaml golden
mkdir user; echo "mine" > user/sweep.yaml; echo "notes" > user/notes.txt
"$lampsim" sweep run s.yaml -o user --quiet 2> e; rc=$?
check "[ $rc -eq 2 ] && [ \"\$(cat user/sweep.yaml)\" = mine ] && [ \$(ls -A user | wc -l) -eq 2 ] && grep -q \"user: not a sweep directory: it holds '\" e" \
  "sweep run -o a user's directory: refused, nothing touched (rc $rc): $(cat e; ls -A user)"
# only a sweep.yaml (no manifest): still someone else's
mkdir user2; echo "mine" > user2/sweep.yaml
"$lampsim" sweep run s.yaml -o user2 --quiet 2> e; rc=$?
check "[ $rc -eq 2 ] && [ \"\$(cat user2/sweep.yaml)\" = mine ]" "a lone sweep.yaml (no manifest.tsv) is not a sweep's: refused (rc $rc): $(cat e)"
# its own directory resumes, with report outputs and a leftover temporary of an atomic write
"$lampsim" sweep run s.yaml -o own --quiet 2> e; rc=$?
check "[ $rc -eq 0 ]" "sweep run into a new directory (rc $rc): $(cat e)"
"$lampsim" sweep merge own -o own/results.csv 2> e
mkdir -p own/figures; : > own/report.html; : > own/.results.csv.AbC123
"$lampsim" sweep run s.yaml -o own --quiet 2> e; rc=$?
check "[ $rc -eq 0 ]" "sweep run resumes its own directory with report files in it (rc $rc): $(cat e)"
: > own/stray.txt
"$lampsim" sweep run s.yaml -o own --quiet 2> e; rc=$?
check "[ $rc -eq 2 ] && grep -q \"stray.txt\" e && [ -e own/stray.txt ]" "a stray file in a sweep directory: refused, named (rc $rc): $(cat e)"
finish
