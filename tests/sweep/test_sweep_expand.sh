#!/usr/bin/env bash
# lampsim sweep expand: grid, zip, lin/geom ranges and explicit lists; stable ids (twice, from
# another directory, from a copied file, pinned values); shards partition the manifest; every
# error names file:line:col and the key, exits 2 and writes nothing.
. "$(dirname "$0")/common.sh"
cd "$tmp"
small_sweep small.yaml
"$lampsim" sweep expand small.yaml > m1; rc=$?
check "[ $rc -eq 0 ] && [ \$(wc -l < m1) -eq 8 ]" "grid of 4 x 2 gives 8 manifest lines (rc $rc)"
check "[ \"\$(cut -f1 m1 | tr '\n' ' ')\" = '0 1 2 3 4 5 6 7 ' ]" "lines are numbered 0..7 in order"
check "[ \"\$(cut -f3 m1 | tr '\n' ' ')\" = 'algorithm.tau=1 algorithm.tau=1 algorithm.tau=0.5 algorithm.tau=0.5 algorithm.tau=0.25 algorithm.tau=0.25 algorithm.tau=0.125 algorithm.tau=0.125 ' ]" "first axis varies slowest, geom values exact: $(cut -f3 m1 | tr '\n' ' ')"
check "[ \"\$(cut -f4 m1 | sort | uniq -c | awk '{print \$1\$2}' | tr '\n' ' ')\" = '4accelerator.regfile.layout=compact 4accelerator.regfile.layout=full ' ]" "second axis alternates"
check "[ \$(cut -f2 m1 | sort -u | wc -l) -eq 8 ] && ! cut -f2 m1 | grep -qv '^[0-9a-f]\{16\}$'" "8 distinct 16-hex-digit ids"
# stable ids: again, from another directory, from a copy elsewhere
"$lampsim" sweep expand small.yaml > m2
mkdir -p sub/deeper && cp small.yaml sub/deeper/copy.yaml
(cd sub && "$lampsim" sweep expand deeper/copy.yaml > ../m3)
"$lampsim" sweep expand "$tmp/small.yaml" > m4
check "cmp -s m1 m2 && cmp -s m1 m3 && cmp -s m1 m4" "ids identical across runs, directories and file locations"
# Pinned ids: they change when the resolved configuration text changes (a schema key added, a
# default changed, the schema's key order changed) or with the release version (LAMPSIM_VERSION); never with the git revision.
# To regenerate after such a change: build, run `lampsim sweep expand` on the small sweep of
# tests/sweep/common.sh and paste the ids of points 0, 3 and 7 here.
pin0=7995451992232765 pin3=b4e0e8e3d75fcbe8 pin7=9d8b4438128aed7c
check "[ \"\$(sed -n 1p m1 | cut -f2)\" = $pin0 ] && [ \"\$(sed -n 4p m1 | cut -f2)\" = $pin3 ] && [ \"\$(sed -n 8p m1 | cut -f2)\" = $pin7 ]" "pinned ids (see the comment to regenerate): $(cut -f2 m1 | sed -n '1p;4p;8p' | tr '\n' ' ')"
# a base given as a file, a value equal to the base: same id as the inline form when the config is the same
printf 'seed: 7\ntimed:\n  reuse_numerics: true\nworkload:\n  heads_q: 2\n  heads_kv: 1\n  seq_q: 128\n  seq_k: 128\n' > base.yaml
printf 'base: base.yaml\naxes:\n  algorithm.tau: [1, 0.5, 0.25, 0.125]\n  accelerator.regfile.layout: [compact, full]\n' > fromfile.yaml
"$lampsim" sweep expand fromfile.yaml > m5
check "[ \"\$(cut -f2 m5)\" = \"\$(cut -f2 m1)\" ]" "base file + explicit lists give the same ids as the inline base + geom range"
# ranges, zip, scalar
cat > r.yaml <<'YAML'
base: {workload: {seq_q: 64, seq_k: 64}}
axes:
  algorithm.tau: {geom: [1, 2^-5], points: 6}
  zip:
    algorithm.b_k: {lin: [8, 32], points: 3}
    algorithm.n_k: [8, 4, 2]
  seed: 5
YAML
"$lampsim" sweep expand r.yaml > mr; rc=$?
check "[ $rc -eq 0 ] && [ \$(wc -l < mr) -eq 18 ]" "6 x zip(3) x 1 = 18 points (rc $rc, $(wc -l < mr))"
check "[ \"\$(cut -f3 mr | sort -u -t= -k2 -g | tr '\n' ' ')\" = 'algorithm.tau=0.03125 algorithm.tau=0.0625 algorithm.tau=0.125 algorithm.tau=0.25 algorithm.tau=0.5 algorithm.tau=1 ' ]" "geom [1, 2^-5] x 6 = 1 ... 1/32 exactly"
check "[ \"\$(sed -n '1,3p' mr | cut -f4,5 | tr '\t\n' ' |')\" = 'algorithm.b_k=8 algorithm.n_k=8|algorithm.b_k=20 algorithm.n_k=4|algorithm.b_k=32 algorithm.n_k=2|' ]" "zip advances lists together, lin [8, 32] x 3 = 8 20 32: $(sed -n '1,3p' mr | cut -f4,5 | tr '\t\n' ' |')"
check "[ \$(cut -f6 mr | sort -u) = seed=5 ]" "a scalar is a one-value axis"
check "[ \"\$("$lampsim" sweep expand r.yaml --count)\" = 18 ]" "--count"
# shards partition the manifest
: > shards
for i in 0 1 2 3 4; do "$lampsim" sweep expand r.yaml --shard $i/5 >> shards; done
check "[ \"\$(sort shards)\" = \"\$(sort mr)\" ]" "shards 0..4 of 5 cover the manifest exactly once"
check "[ \"\$("$lampsim" sweep expand r.yaml --shard 1/5 | cut -f1 | tr '\n' ' ')\" = '1 6 11 16 ' ]" "shard i/N takes indices = i mod N"
# errors: exit 2, file:line:col, the key, nothing written (err in common.sh)
printf 'axes:\n  algorithm.tua: [1, 2]\n' > e1.yaml;                                   err e1.yaml 2:3 algorithm.tua "did you mean 'algorithm.tau'"
printf 'axes:\n  algorithm.tau: [0.5, 2]\n' > e2.yaml;                                 err e2.yaml 2:24 algorithm.tau "[0, 1]"
printf 'axes:\n  algorithm.tau: {geom: [1, 0], points: 3}\n' > e3.yaml;                err e3.yaml 2:25 algorithm.tau "geometric"
printf 'axes:\n  algorithm.tau: {lin: [0, 1], points: 0}\n' > e4.yaml;                 err e4.yaml 2:40 algorithm.tau "points"
# duplicate keys are refused, never the last one silently winning (issue #25 D2)
printf 'axes:\n  algorithm.tau: [0.5]\naxes:\n  algorithm.b_k: [16]\n' > d1.yaml
err d1.yaml 3:1 "axes: duplicate key (first defined at line 1, column 1)"
printf 'name: a\nname: b\naxes:\n  algorithm.tau: [0.5]\n' > d2.yaml
err d2.yaml 2:1 "name: duplicate key (first defined at line 1, column 1)"
printf 'axes:\n  algorithm.tau: [0.5, 0.25]\nbest: {minimise: cycles, over: [algorithm.tau]}\nbest: {maximise: cycles, over: [algorithm.tau]}\n' > d3.yaml
err d3.yaml 4:1 "best: duplicate key (first defined at line 3, column 1)"
# a metric written as a list names what was wrong, not "unknown metric 'sequence'"
printf 'axes:\n  algorithm.tau: [0.5, 0.25]\nbest: {minimise: [cycles], over: [algorithm.tau]}\n' > d4.yaml
err d4.yaml 3:18 "best.minimise: expected one metric name (such as cycles), got a sequence"
printf 'axes:\n  algorithm.tau: {lin: [0, 1], points: 3, points: 4}\n' > d5.yaml
err d5.yaml 2:43 "axes.algorithm.tau.points: duplicate key (first defined at line 2, column 32)"
printf 'axes:\n  algorithm.tau: {lin: [0, x], points: 2}\n' > e5.yaml;                 err e5.yaml 2:28 algorithm.tau "expected a number"
printf 'axes:\n  zip:\n    algorithm.b_k: [8, 16]\n    algorithm.n_k: [4]\n' > e6.yaml; err e6.yaml 4:20 algorithm.n_k "same length"
printf 'base:\n  algorithm:\n    tua: 1\naxes:\n  seed: [1, 2]\n' > e7.yaml;           err e7.yaml 3:5 algorithm.tua "did you mean"
printf 'bsae: x.yaml\naxes:\n  seed: [1]\n' > e8.yaml;                                 err e8.yaml 1:1 bsae "unknown sweep key"
printf 'axes: [\n' > e9.yaml;                                                           err e9.yaml 2:1 "YAML syntax error"
printf 'base: missing.yaml\naxes:\n  seed: [1]\n' > e10.yaml;                           err e10.yaml 1:7 base "cannot read"
printf 'axes:\n  algorithm.b_k: [1024]\n' > e11.yaml;                                   err e11.yaml 2:19 "b_k * n_k"
printf 'axes:\n  seed: [1, 1]\n' > e12.yaml;                                            err e12.yaml 2:13 "same configuration"
printf 'axes:\n  algorithm.mode: [lamp, fa2]\n' > e13.yaml;                             err e13.yaml 2:26 algorithm.mode "one of"
"$lampsim" sweep run e2.yaml -o never 2> e; rc=$?
check "[ $rc -eq 2 ] && [ ! -e never ] && grep -q 'e2.yaml:2:24' e" "sweep run on a bad file exits 2 and creates nothing"
"$lampsim" sweep expand 2>/dev/null; rc=$?
check "[ $rc -eq 2 ]" "usage error exits 2"
finish
