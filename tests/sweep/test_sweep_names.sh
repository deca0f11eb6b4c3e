#!/usr/bin/env bash
# Point directories named by their axis values: varying axes only, short keys (last component,
# longer when two keys end alike), unsafe characters replaced, names that collide after that or
# are too long get the point id; deterministic; merge and compare find them.
. "$(dirname "$0")/common.sh"
cd "$tmp"
cat > n.yaml <<'YAML'
base: {timed: {enabled: false}, workload: {heads_q: 2, heads_kv: 1, seq_q: 64, seq_k: 64}}
axes:
  seed: [1, 2]
  workload.seed: [3, 4]
  workload.name: ["a/b", "a_b"]
  algorithm.tau: 0.5
YAML
"$lampsim" sweep run n.yaml -j 2 -o n --quiet; rc=$?
ls n/points > names
"$lampsim" sweep expand n.yaml > man
check "[ $rc -eq 0 ] && [ \$(wc -l < names) -eq 8 ] && [ \$(ls n/points/*/DONE | wc -l) -eq 8 ]" "8 points, 8 directories (rc $rc): $(tr '\n' ' ' < names)"
check "grep -qx 'seed=1,workload.seed=3,name=a_b~[0-9a-f]\{16\}' names && grep -qx 'seed=2,workload.seed=4,name=a_b~[0-9a-f]\{16\}' names" "short keys: 'seed' and 'workload.seed' (both end in seed), 'name'; the one-value axis tau is left out: $(head -2 names | tr '\n' ' ')"
check "[ \$(grep -c 'name=a_b~' names) -eq 8 ] && [ \$(sed 's/.*~//' names | sort -u | wc -l) -eq 8 ]" "a/b and a_b collide once made safe: each gets its id, names stay unique"
id0=$(head -1 man | cut -f2)
check "[ -d \"n/points/seed=1,workload.seed=3,name=a_b~$id0\" ]" "the suffix is the point's own id"
"$lampsim" sweep run n.yaml -j 1 -o n2 --quiet
check "[ \"\$(ls n2/points)\" = \"\$(cat names)\" ]" "names are deterministic"
check "[ \$(\"$lampsim\" sweep merge n | wc -l) -eq 9 ] && [ \$(\"$lampsim\" compare n | grep -c '^seed=') -eq 8 ]" "merge and compare find every point"
# keys a point's mode does not read are left out of its name (tau, random_rate for pure_8bit), and
# compare shows them as '-' with the layout the mode ran ('*': not the configured one)
cat > m.yaml <<'YAML'
base: {workload: {heads_q: 2, heads_kv: 1, seq_q: 64, seq_k: 64}}
axes:
  zip:
    algorithm.mode: [lamp, lamp, random, pure_8bit]
    algorithm.tau: [0.5, 0.25, 0.5, 0.25]
    algorithm.random_rate: [0.1, 0.1, 0.3, 0.1]
  accelerator.regfile.layout: compact
YAML
"$lampsim" sweep run m.yaml -j 2 -o m --quiet; rc=$?
check "[ $rc -eq 0 ] && [ \"\$(ls m/points | tr '\n' ' ')\" = 'mode=lamp,tau=0.25 mode=lamp,tau=0.5 mode=pure_8bit mode=random,random_rate=0.3 ' ]" "names leave out the keys the mode does not read (rc $rc): $(ls m/points | tr '\n' ' ')"
"$lampsim" compare m > mc 2>&1
check "grep -q '^mode=pure_8bit  *-  *pure_8bit  *lp\\*  ' mc && grep -q '^mode=lamp,tau=0.25  *0.25  *lamp  *compact  ' mc && grep -q '^-: the row.s mode does not read this key' mc && grep -q '^\\*: the mode runs its own register layout' mc" "compare: '-' for keys the mode does not read, the layout that ran: $(cat mc)"
"$lampsim" config --explain algorithm.tau > ex
check "grep -q 'read in mode lamp only' ex" "config --explain says which mode reads a key"
# a single point shows all its axes; a name over 200 bytes is cut and gets the id
long=$(printf 'x%.0s' $(seq 300))
printf 'base: {timed: {enabled: false}, workload: {heads_q: 1, heads_kv: 1, seq_q: 32, seq_k: 32}}\naxes:\n  workload.description: "%s"\n' "$long" > l.yaml
"$lampsim" sweep run l.yaml -o l --quiet; rc=$?
lname=$(ls l/points)
check "[ $rc -eq 0 ] && [ \${#lname} -eq 200 ] && [[ \$lname == description=xxx*~\$(cut -f2 <(\"$lampsim\" sweep expand l.yaml)) ]]" "a long name is cut to 200 bytes ending in ~id (rc $rc, ${#lname} bytes)"
finish
