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
