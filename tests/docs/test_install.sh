#!/bin/bash
# `make install` layout (cmake --install into a temporary PREFIX): the installed lampsim runs from
# PATH, finds its plotting script and the run report's template under PREFIX/share/lampsim, the Python package in PREFIX imports
# from elsewhere with PREFIX's liblampsim.so, the version is the same in CITATION.cff and the
# CHANGELOG, and the shipped cut-down tutorial workload stays the full preset with four keys changed.
#   test_install.sh BUILD REPO
set -eu
build=$1 repo=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
for f in bin/lampsim lib/liblampsim.so share/lampsim/plot_sweep.py share/lampsim/sweep_report.py \
         share/lampsim/templates/sweep_report.html.j2 share/lampsim/configs/lampattention.yaml \
         share/lampsim/workloads/qwen3_8b_like_1k.yaml; do
    [ -e "$tmp/prefix/$f" ] || fail "PREFIX/$f not installed"
done
# the Python package, imported from outside the tree, loads the installed library
site=$(echo "$tmp"/prefix/lib/python3*/site-packages)
[ -f "$site/lampsim/__init__.py" ] || fail "Python package not in PREFIX/lib/python3.*/site-packages"
got=$(cd "$tmp" && env -u LAMPSIM_LIB PYTHONPATH="$site" /usr/bin/python3 -c \
      'import lampsim, lampsim._lib as l; print(l._find_library(), lampsim.__version__)') ||
    fail "import lampsim from PREFIX"
[ "$got" = "$tmp/prefix/lib/liblampsim.so $("$build/lampsim" --version | awk '{print $2}')" ] ||
    fail "installed package: '$got' (expected PREFIX/lib/liblampsim.so and lampsim --version's release)"
# one version everywhere: CMakeLists.txt (lampsim --version, pip's metadata), CITATION.cff, CHANGELOG.md
release=$("$build/lampsim" --version | awk '{print $2}')
grep -q "^version: \"$release\"$" "$repo/CITATION.cff" || fail "CITATION.cff's version is not $release"
grep -q "^## \[$release\]" "$repo/CHANGELOG.md" || fail "CHANGELOG.md has no section for $release"
export PATH="$tmp/prefix/bin:$PATH"
[ "$(command -v lampsim)" = "$tmp/prefix/bin/lampsim" ] || fail "lampsim on PATH is not the installed one"
# the installed copies of the configs and workloads work on their own (no source tree needed)
cd "$tmp"
lampsim run prefix/share/lampsim/configs/lampattention.yaml --golden \
    --set workload.file=prefix/share/lampsim/workloads/qwen3_8b_like_1k.yaml --set workload.seq_q=128 \
    --set workload.seq_k=128 -o run --quiet >/dev/null || fail "installed lampsim cannot run the installed configs"
# `lampsim report` on a run directory works from the installed copy of scripts/report/ (Jinja2 template)
[ -f prefix/share/lampsim/report/templates/run.html.j2 ] || fail "PREFIX/share/lampsim/report/templates/run.html.j2 not installed"
if /usr/bin/python3 -c 'import jinja2, matplotlib' 2>/dev/null; then
    lampsim report run >/dev/null 2>&1 && grep -q 'id="headline"' run/report.html || fail "installed lampsim report on a run directory"
fi
cd "$repo"
full=$(lampsim config --dump configs/lampattention.yaml --set workload.file=workloads/qwen3_8b_like.yaml \
       --set workload.heads_q=4 --set workload.heads_kv=1 --set workload.seq_q=1024 --set workload.seq_k=1024 |
       grep -v -e '^# workload from' -e '^  name:' -e '^  description:')
cut=$(lampsim config --dump configs/lampattention.yaml --set workload.file=workloads/qwen3_8b_like_1k.yaml |
      grep -v -e '^# workload from' -e '^  name:' -e '^  description:')
[ "$full" = "$cut" ] || { diff <(echo "$full") <(echo "$cut"); fail "workloads/qwen3_8b_like_1k.yaml drifted from qwen3_8b_like.yaml"; }
echo "install layout and cut-down preset ok"
