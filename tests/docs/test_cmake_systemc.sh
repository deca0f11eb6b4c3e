#!/usr/bin/env bash
# How CMakeLists.txt finds SystemC (configure only; tests/docs/test_plain_cmake.sh builds): through
# -DSYSTEMC_HOME or $SYSTEMC_HOME (an Accellera install tree, lib-linux64/), a SystemCLanguage CMake
# package on CMAKE_PREFIX_PATH, pkg-config; with none of them, one message saying what to set.
# The stand-in trees point at this machine's SystemC.
#   test_cmake_systemc.sh REPO
set -u
repo=$1
tmp=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
if ! pkg-config --exists systemc; then echo "SKIP: no SystemC through pkg-config to stand in for"; exit 77; fi
libdir=$(pkg-config --variable=libarchdir systemc)
[ -n "$libdir" ] || libdir=$(pkg-config --variable=libdir systemc)
incdir=$(pkg-config --variable=includedir systemc)
configure() {  # configure NAME [cmake args...]: the log in $tmp/NAME.log, the status in $rc
  local n=$1; shift
  cmake -S "$repo" -B "$tmp/$n" -DBUILD_TESTING=OFF "$@" > "$tmp/$n.log" 2>&1
  rc=$?
}

# an Accellera-style install tree
mkdir -p "$tmp/sc/include" "$tmp/sc/lib-linux64"
ln -s "$incdir/systemc.h" "$tmp/sc/include/systemc.h"
ln -s "$libdir/libsystemc.so" "$tmp/sc/lib-linux64/libsystemc.so"
configure home -DSYSTEMC_HOME="$tmp/sc"
[ $rc -eq 0 ] || fail "-DSYSTEMC_HOME: configure failed: $(tail -5 "$tmp/home.log")"
grep -q "SystemC: $tmp/sc/lib-linux64/libsystemc.so" "$tmp/home.log" || fail "-DSYSTEMC_HOME: not used: $(grep SystemC "$tmp/home.log")"
SYSTEMC_HOME="$tmp/sc" configure envhome
grep -q "SystemC: $tmp/sc/lib-linux64/libsystemc.so" "$tmp/envhome.log" || fail "\$SYSTEMC_HOME: not used: $(grep SystemC "$tmp/envhome.log")"
configure badhome -DSYSTEMC_HOME="$tmp/nowhere"
[ $rc -ne 0 ] || fail "a SYSTEMC_HOME without SystemC configured"
grep -q "SYSTEMC_HOME=$tmp/nowhere has no include/systemc.h" "$tmp/badhome.log" || fail "bad SYSTEMC_HOME: no clear message"

# a SystemCLanguage CMake package (what SystemC's own CMake build installs)
mkdir -p "$tmp/pfx/lib/cmake/SystemCLanguage"
cat > "$tmp/pfx/lib/cmake/SystemCLanguage/SystemCLanguageConfig.cmake" <<EOF
add_library(SystemC::systemc SHARED IMPORTED)
set_target_properties(SystemC::systemc PROPERTIES IMPORTED_LOCATION "$libdir/libsystemc.so"
  INTERFACE_INCLUDE_DIRECTORIES "$incdir")
EOF
configure prefix -DCMAKE_PREFIX_PATH="$tmp/pfx"
[ $rc -eq 0 ] || fail "CMAKE_PREFIX_PATH: configure failed: $(tail -5 "$tmp/prefix.log")"
grep -q "SystemC: CMake package $tmp/pfx/lib/cmake/SystemCLanguage" "$tmp/prefix.log" || fail "CMAKE_PREFIX_PATH: not used: $(grep SystemC "$tmp/prefix.log")"

# pkg-config (Debian's libsystemc-dev)
configure pc
grep -q "SystemC: pkg-config systemc" "$tmp/pc.log" || fail "pkg-config: not used: $(grep SystemC "$tmp/pc.log")"

# none: pkg-config sees libyaml only
mkdir "$tmp/pcdir"
cp "$(pkg-config --variable=pcfiledir yaml-0.1)/yaml-0.1.pc" "$tmp/pcdir/"
PKG_CONFIG_LIBDIR="$tmp/pcdir" PKG_CONFIG_PATH= configure none
[ $rc -ne 0 ] || fail "no SystemC anywhere: configure succeeded"
grep -q "SystemC not found: install it (Debian: libsystemc-dev" "$tmp/none.log" || fail "no SystemC: no clear message: $(tail -5 "$tmp/none.log")"

[ $fails -eq 0 ] && echo "SystemC found through SYSTEMC_HOME, CMAKE_PREFIX_PATH and pkg-config"
exit $((fails > 0))
