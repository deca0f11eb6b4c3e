#!/usr/bin/env bash
# A fresh copy of the source built the way README's "Building with plain CMake" says, without
# scripts/install-deps.sh or make, in a clean environment (PATH=/usr/bin:/bin, no ccache, no
# CMAKE_PREFIX_PATH) and, when this test runs as root, as the unprivileged user nobody:
#   cmake -S . -B build -DBUILD_TESTING=OFF && cmake --build build   -> build/lampsim run works
#   cmake --install build --prefix P      -> `import lampsim` from elsewhere finds P's liblampsim.so
#   pip install --no-build-isolation .    -> (in a venv) builds liblampsim.so itself, imports anywhere
# Labelled long: two builds of the simulator's libraries take minutes on two cores.
#   test_plain_cmake.sh REPO [JOBS]
set -u
repo=$1 jobs=${2:-2}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# the tracked files and the new untracked ones (what a commit of this tree would hold)
mkdir -p "$tmp/src" "$tmp/home" "$tmp/elsewhere"
if git -C "$repo" rev-parse --git-dir >/dev/null 2>&1; then
  (cd "$repo" && git ls-files -z --cached --others --exclude-standard | tar --null -T - -cf -) | tar -C "$tmp/src" -xf - ||
    fail "cannot copy the source"
else  # an unpacked release: everything but build trees
  tar -C "$repo" --exclude='./build*' --exclude='./out' -cf - . | tar -C "$tmp/src" -xf - || fail "cannot copy the source"
fi
as_user=()
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
  chown -R nobody "$tmp"
  chmod 755 "$tmp"
  as_user=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
fi
clean() { "${as_user[@]}" env -i PATH=/usr/bin:/bin HOME="$tmp/home" "$@"; }
cd "$tmp/src"

t0=$(date +%s)
clean cmake -S . -B build -DBUILD_TESTING=OFF > "$tmp/configure.log" 2>&1 || { cat "$tmp/configure.log"; fail "cmake configure"; }
grep -q "SystemC: pkg-config systemc" "$tmp/configure.log" || fail "SystemC not found through pkg-config"
clean cmake --build build -j "$jobs" > "$tmp/build.log" 2>&1 || { tail -30 "$tmp/build.log"; fail "cmake --build"; }
t1=$(date +%s)
echo "plain CMake build (tool and library): $((t1 - t0)) s"
[ -x build/lampsim ] && [ -f build/liblampsim.so ] || fail "build/lampsim or build/liblampsim.so missing"
clean build/lampsim run --golden --quiet || fail "build/lampsim run --golden"

clean cmake --install build --prefix "$tmp/prefix" >/dev/null || fail "cmake --install"
site=$(echo "$tmp"/prefix/lib/python3*/site-packages)
[ -f "$site/lampsim/__init__.py" ] || fail "Python package not installed under PREFIX/lib/python3.*/site-packages"
cd "$tmp/elsewhere"
got=$(clean PYTHONPATH="$site" /usr/bin/python3 -c 'import lampsim, lampsim._lib as l; print(l._find_library(), lampsim.__version__)') ||
  fail "import lampsim from the make-install prefix"
[ "${got% *}" = "$tmp/prefix/lib/liblampsim.so" ] || fail "installed package loads ${got% *}, not PREFIX/lib/liblampsim.so"
want=$("$tmp/src/build/lampsim" --version | awk '{print $2}')
[ "${got#* }" = "$want" ] || fail "lampsim.__version__ ${got#* } != lampsim --version $want"

cd "$tmp/src"
clean /usr/bin/python3 -m venv --system-site-packages "$tmp/venv" || fail "python3 -m venv"
clean "$tmp/venv/bin/python" -m pip install --no-build-isolation --no-index --disable-pip-version-check . \
  > "$tmp/pip.log" 2>&1 || { tail -30 "$tmp/pip.log"; fail "pip install ."; }
t2=$(date +%s)
echo "pip install . (builds liblampsim.so): $((t2 - t1)) s"
cd "$tmp/elsewhere"
got=$(clean "$tmp/venv/bin/python" -c '
import numpy as np, lampsim, lampsim._lib as l
q = np.random.default_rng(1).standard_normal((1, 1, 64, 32)).astype(np.float32)
o, stats = lampsim.attention(q, q, q, causal=True, mode="lamp")
print(l._find_library(), o.shape)') || fail "import lampsim from the pip-installed venv"
case "$got" in
  "$tmp"/venv/lib/python3*/site-packages/lampsim/liblampsim.so" (1, 1, 64, 32)") ;;
  *) fail "pip-installed package: $got (expected its own liblampsim.so and O of shape (1, 1, 64, 32))" ;;
esac
echo "plain CMake build, make-install prefix and pip install . all work outside the tree"
