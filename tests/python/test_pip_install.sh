#!/usr/bin/env bash
# `pip install .` (pyproject.toml, setup.py) from a copy of the source, without network (the
# interpreter's own setuptools and wheel, --no-build-isolation), the library taken from this build
# ($LAMPSIM_LIB): the package carries its own liblampsim.so, imports from another directory and
# loads that copy, and pip's metadata has lampsim --version's release; the `lampsim` console script runs
# the bundled CLI, which finds the shipped presets by name from any directory (issue 39). (Building the library
# itself, without LAMPSIM_LIB, in a venv: tests/docs/test_plain_cmake.sh, label long.)
# Skips (77) without pip, setuptools or wheel for /usr/bin/python3.
#   test_pip_install.sh LAMPSIM_BINARY LIBLAMPSIM REPO
set -u
lampsim=$1 lib=$2 repo=$3
py=/usr/bin/python3
if ! $py -c 'import setuptools, wheel, pip' 2>/dev/null; then
  echo "SKIP: /usr/bin/python3 lacks pip, setuptools or wheel (Debian: python3-pip python3-setuptools python3-wheel)"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
mkdir "$tmp/src" "$tmp/elsewhere"
cp -r "$repo/pyproject.toml" "$repo/setup.py" "$repo/README.md" "$repo/LICENSE" "$repo/CMakeLists.txt" "$repo/python" "$tmp/src/"
rm -rf "$tmp/src/python/lampsim/__pycache__"
# the CLI and its presets from an install tree of this build (the build directory holds the binary)
cmake --install "$(dirname "$lampsim")" --prefix "$tmp/prefix" > "$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; fail "cmake --install"; }
(cd "$tmp/src" && LAMPSIM_LIB="$lib" LAMPSIM_PREFIX="$tmp/prefix" $py -m pip install --no-build-isolation --no-deps --no-index \
    --disable-pip-version-check --target "$tmp/pip" . > "$tmp/pip.log" 2>&1) || { cat "$tmp/pip.log"; fail "pip install ."; }
[ -f "$tmp/pip/lampsim/liblampsim.so" ] || fail "pip install . did not put liblampsim.so in the package"
cmp -s "$tmp/pip/lampsim/liblampsim.so" "$lib" || fail "the package's liblampsim.so is not \$LAMPSIM_LIB's"
got=$(cd "$tmp/elsewhere" && env -u LAMPSIM_LIB PYTHONPATH="$tmp/pip" $py -c '
import numpy as np, lampsim, lampsim._lib as l
q = np.random.default_rng(1).standard_normal((1, 1, 64, 32)).astype(np.float32)
o, stats = lampsim.attention(q, q, q, causal=True, mode="lamp")
print(l._find_library(), lampsim.__version__, o.shape)') || fail "import lampsim after pip install"
release=$("$lampsim" --version | awk '{print $2}')
[ "$got" = "$tmp/pip/lampsim/liblampsim.so $release (1, 1, 64, 32)" ] ||
  fail "pip-installed package: '$got' (expected its own library, version $release, O of shape (1, 1, 64, 32))"
[ -d "$tmp/pip/lampsim-$release.dist-info" ] || fail "pip's metadata is not version $release: $(ls "$tmp/pip")"
grep -q "^Tag: py3-none-linux" "$tmp/pip/lampsim-$release.dist-info/WHEEL" || fail "the wheel is not tagged py3-none-<platform>"
# the `lampsim` command: pip's console script runs the bundled binary, which finds its presets by
# name (lampsim run lampattention) from any directory, as after make install
[ -x "$tmp/pip/bin/lampsim" ] || fail "pip install . did not install the lampsim command: $(ls "$tmp/pip/bin" 2>&1)"
[ -x "$tmp/pip/lampsim/_prefix/bin/lampsim" ] || fail "the package has no executable CLI binary"
out=$(cd "$tmp/elsewhere" && env -u LAMPSIM_LIB PYTHONPATH="$tmp/pip" "$tmp/pip/bin/lampsim" --version) ||
  fail "lampsim --version through the console script"
[ "$(echo "$out" | awk '{print $2}')" = "$release" ] || fail "console script version: $out"
(cd "$tmp/elsewhere" && env -u LAMPSIM_LIB PYTHONPATH="$tmp/pip" "$tmp/pip/bin/lampsim" run lampattention \
   --set workload.seq_q=128 --set workload.seq_k=128 --quiet -o r) > "$tmp/run.log" 2>&1 ||
  { cat "$tmp/run.log"; fail "lampsim run lampattention through the pip-installed command"; }
grep -q '"cycles"' "$tmp/elsewhere/r/report.json" || fail "the pip-installed run wrote no report"
grep -q "^# source: $tmp/pip/lampsim/_prefix/share/lampsim/configs/lampattention.yaml" "$tmp/elsewhere/r/config.resolved.yaml" ||
  fail "the preset was not the package's lampattention: $(sed -n 3p "$tmp/elsewhere/r/config.resolved.yaml")"
echo "pip install . gives an importable package with its own liblampsim.so and the lampsim command with its presets"
