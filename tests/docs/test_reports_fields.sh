#!/usr/bin/env bash
# docs/reports.md's schema table is `lampsim report --fields --markdown` (sim/report/field_docs.c,
# the one place a field's unit and meaning are written), and every field of a timed run's
# report.json is described there.
#   test_reports_fields.sh LAMPSIM REPO
set -eu
lampsim=$1 repo=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$lampsim" report --fields --markdown > "$tmp/table.md"
/usr/bin/python3 - "$repo/docs/reports.md" "$tmp/table.md" <<'PY'
import sys
doc, table = open(sys.argv[1]).read(), open(sys.argv[2]).read()
if table not in doc:
    print("docs/reports.md: the schema table differs from `lampsim report --fields --markdown`;"
          " regenerate it (edit sim/report/field_docs.c)")
    sys.exit(1)
PY
cd "$tmp"
"$lampsim" run --set workload.seq_q=128 --set workload.seq_k=128 --set accelerator.issue.per_cycle=4 -o r --quiet
"$lampsim" report --fields > fields.tsv
/usr/bin/python3 - "$repo/scripts" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[1])
from report.fields import FieldDocs, flatten
docs = FieldDocs("fields.tsv")
r = flatten(json.load(open("r/report.json")))
missing = [k for k in r if docs.lookup(k) is None]
if missing:
    print("report fields without an entry in sim/report/field_docs.c:", missing)
    sys.exit(1)
print(len(r), "fields, all described")
PY
