# Shared by the tests/sweep scripts: check helper, temp dir, a tiny sweep.
set -u
lampsim=$1
src=$2
. "$(dirname "${BASH_SOURCE[0]}")/../check.sh"
finish() { finish_checks; }
# 4 tau x 2 layouts on a small workload: 8 points, 4 distinct arithmetic, well under a second each.
# The layout is a timing key: with timed.reuse_numerics the timed model replays the numerics of the
# point computed first. small_sweep FILE [golden|timed [SEQ]] (golden: timed.enabled false, the
# golden engine; SEQ: the sequence length, default 128).
small_sweep() {
  local timed="{reuse_numerics: true}" seq=${3:-128}
  [ "${2:-}" = golden ] && timed="{enabled: false}"
  cat > "$1" <<YAML
name: small
base:
  seed: 7
  timed: $timed
  workload:
    heads_q: 2
    heads_kv: 1
    seq_q: $seq
    seq_k: $seq
axes:
  algorithm.tau: {geom: [1, 0.125], points: 4}
  accelerator.regfile.layout: [compact, full]
YAML
}

# err FILE LINE:COL TEXT...: `sweep expand FILE` exits 2, prints nothing on stdout, and names
# FILE:LINE:COL and every TEXT on stderr.
err() { # file expect-location expect-text...
  local f=$1 loc=$2; shift 2
  "$lampsim" sweep expand "$f" > out 2> e; local rc=$?
  local ok=1
  [ $rc -eq 2 ] || ok=0
  [ -s out ] && ok=0
  grep -qF -- "$f:$loc:" e || ok=0
  for t in "$@"; do grep -qF -- "$t" e || ok=0; done
  check "[ $ok -eq 1 ]" "$f: exit 2 with '$f:$loc' and $* (rc $rc): $(cat e)"
}
