#!/usr/bin/env bash
# sweep merge refuses a damaged or foreign manifest.tsv naming the file and the line (issue #39),
# instead of reading it as a sweep of 0 points and writing an empty CSV with exit 0.
. "$(dirname "$0")/common.sh"
cd "$tmp"
small_sweep s.yaml golden
"$lampsim" sweep run s.yaml -o sw --quiet > /dev/null 2>&1
check "\"$lampsim\" sweep merge sw -o good.csv && [ \$(wc -l < good.csv) -eq 9 ]" "the intact sweep merges (8 points)"
cp sw/manifest.tsv orig.tsv
bad() {   # bad NAME EXPECTED-MESSAGE: merge of sw with manifest.tsv as written by the caller
  "$lampsim" sweep merge sw -o "$1.csv" > out 2> err; local rc=$?
  check "[ $rc -eq 2 ] && grep -qF \"sw/manifest.tsv: $2\" err && [ ! -e '$1.csv' ]" "$1: exit 2 naming file and line, no CSV (rc $rc): $(cat err)"
  cp orig.tsv sw/manifest.tsv
}
: > sw/manifest.tsv;                                    bad empty "empty"
printf '# comment\n' > sw/manifest.tsv;                 bad comment "line 1: a comment line"
head -c 300 /dev/urandom | tr '\n' x > sw/manifest.tsv; printf '\0' >> sw/manifest.tsv; bad binary "line 1:"
printf '\0\0\0\0' > sw/manifest.tsv;                    bad nul "line 1: a NUL byte"
{ head -2 orig.tsv; echo; tail -n +3 orig.tsv; } > sw/manifest.tsv; bad blank "line 3: an empty line"
sed 's/$/\r/' orig.tsv > sw/manifest.tsv;               bad crlf "line 1: a carriage return"
sed '2s/^1\t/7\t/' orig.tsv > sw/manifest.tsv;          bad index "line 2: the index is not the line's"
sed '3s/\t[0-9a-f]*\t/\tXYZ\t/' orig.tsv > sw/manifest.tsv; bad id "line 3: the point id is not 16 lowercase hex digits"
sed '4s/\t[^\t]*$//' orig.tsv > sw/manifest.tsv;       bad axes "line 4: a different number of axes from line 1"
sed '5s/\t[^\t]*$/\tnoequals/' orig.tsv > sw/manifest.tsv; bad override "line 5: an override is not key=value"
echo "hello world" > sw/manifest.tsv;                   bad words "line 1: expected '<index> TAB <id> ...'"
# restored, it merges as before
check "\"$lampsim\" sweep merge sw | cmp -s - good.csv" "the restored manifest merges to the same CSV"
# compare of a report.csv with none of the columns it shows (not a lampsim report): exit 2 naming the
# file, not a row of blanks taken as the ratios' baseline (issue #39)
mkdir foreign && printf 'a,b\n1,2\n' > foreign/report.csv
first=$(ls -d sw/points/* | head -1)
"$lampsim" compare foreign "$first" > out 2> err; rc=$?
check "[ $rc -eq 2 ] && grep -qF 'foreign/report.csv: none of the columns compare shows' err && [ ! -s out ]" "compare of a foreign report.csv: exit 2 naming it (rc $rc): $(cat err out)"
"$lampsim" compare "$first" --baseline foreign > out 2> err; rc=$?
check "[ $rc -eq 2 ] && grep -qF 'foreign/report.csv: none of the columns' err" "nor as --baseline (rc $rc): $(cat err)"
cp foreign/report.csv "$first/report.csv"
"$lampsim" compare sw > out 2> err; rc=$?
check "[ $rc -eq 2 ] && grep -qF \"$first/report.csv: none of the columns\" err" "nor as a finished sweep point's report (rc $rc): $(cat err)"
finish
