#!/bin/bash
# `make install` layout (cmake --install into a temporary PREFIX): the installed lampsim runs from
# PATH, finds its plotting script under PREFIX/share/lampsim, and the shipped cut-down tutorial
# workload stays the full preset with four keys changed.
#   test_install.sh BUILD REPO
set -eu
build=$1 repo=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
for f in bin/lampsim share/lampsim/plot_sweep.py share/lampsim/configs/lampattention.yaml \
         share/lampsim/workloads/qwen3_8b_like_1k.yaml; do
    [ -e "$tmp/prefix/$f" ] || fail "PREFIX/$f not installed"
done
export PATH="$tmp/prefix/bin:$PATH"
[ "$(command -v lampsim)" = "$tmp/prefix/bin/lampsim" ] || fail "lampsim on PATH is not the installed one"
# the installed copies of the configs and workloads work on their own (no source tree needed)
cd "$tmp"
lampsim run prefix/share/lampsim/configs/lampattention.yaml --golden \
    --set workload.file=prefix/share/lampsim/workloads/qwen3_8b_like_1k.yaml --set workload.seq_q=128 \
    --set workload.seq_k=128 -o run --quiet >/dev/null || fail "installed lampsim cannot run the installed configs"
cd "$repo"
full=$(lampsim config --dump configs/lampattention.yaml --set workload.file=workloads/qwen3_8b_like.yaml \
       --set workload.heads_q=4 --set workload.heads_kv=1 --set workload.seq_q=1024 --set workload.seq_k=1024 |
       grep -v -e '^# workload from' -e '^  name:' -e '^  description:')
cut=$(lampsim config --dump configs/lampattention.yaml --set workload.file=workloads/qwen3_8b_like_1k.yaml |
      grep -v -e '^# workload from' -e '^  name:' -e '^  description:')
[ "$full" = "$cut" ] || { diff <(echo "$full") <(echo "$cut"); fail "workloads/qwen3_8b_like_1k.yaml drifted from qwen3_8b_like.yaml"; }
echo "install layout and cut-down preset ok"
