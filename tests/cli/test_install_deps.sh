#!/usr/bin/env bash
# scripts/install-deps.sh on machines it cannot change: with the dependencies present it succeeds
# without root and without calling apt-get; a missing one is named with its Debian package and
# the script exits 1 without root or without apt-get/dpkg (another distribution); --optional goes
# on (exit 0); as root with apt-get it asks apt-get for exactly what is missing. apt-get, dpkg-query,
# sudo and id are stand-ins on a PATH made of this machine's commands less the ones a case hides.
#   test_install_deps.sh REPO
set -u
script=$1/scripts/install-deps.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# machine NAME [hidden command...]: a bin dir with every command of /usr/bin and /bin but the hidden
# ones, apt-get, dpkg-query, sudo and id; prints its path.
machine() {
  local d=$tmp/$1; shift
  if [ ! -d "$tmp/base" ]; then
    mkdir -p "$tmp/base"
    local f
    for f in /usr/local/bin/* /usr/bin/* /bin/*; do
      [ -e "$tmp/base/${f##*/}" ] || ln -s "$f" "$tmp/base/${f##*/}"
    done
    rm -f "$tmp/base/apt-get" "$tmp/base/dpkg-query" "$tmp/base/sudo" "$tmp/base/id"
  fi
  cp -a "$tmp/base" "$d"
  local n
  for n in "$@"; do rm -f "$d/$n"; done
  echo "$d"
}
# stand-ins: apt-get records its arguments; id -u prints $FAKE_UID
add_apt() { printf '#!/bin/sh\necho "$*" >> %s/apt.log\n' "$tmp" > "$1/apt-get"; printf '#!/bin/sh\nexit 0\n' > "$1/dpkg-query"; chmod +x "$1/apt-get" "$1/dpkg-query"; }
add_id() { printf '#!/bin/sh\n[ "$1" = -u ] && { echo %s; exit 0; }\nexec /usr/bin/id "$@"\n' "$2" > "$1/id"; chmod +x "$1/id"; }
run() {  # run PATHDIR args...: stdout+stderr in $tmp/out, exit status in $rc
  local p=$1; shift
  rm -f "$tmp/apt.log"
  PATH=$p bash "$script" "$@" > "$tmp/out" 2>&1
  rc=$?
}

# 1. everything present, an ordinary user, no sudo, apt-get there: nothing to do, apt-get untouched
if ! bash "$script" --check build >/dev/null 2>&1; then
  echo "SKIP: this machine lacks a build dependency"; exit 77
fi
full=$(machine full); add_apt "$full"; add_id "$full" 1000
run "$full" build
[ $rc -eq 0 ] || fail "deps present, non-root: exit $rc: $(cat "$tmp/out")"
[ -e "$tmp/apt.log" ] && fail "deps present: apt-get was called: $(cat "$tmp/apt.log")"

# 2. CMake missing, no apt-get or dpkg (RHEL-like): one clear list, exit 1, before any build
rhel=$(machine rhel cmake); add_id "$rhel" 1000
run "$rhel" build
[ $rc -eq 1 ] || fail "no dpkg, cmake missing: exit $rc, expected 1"
grep -q "missing for 'build':" "$tmp/out" || fail "no dpkg: no list of what is missing: $(cat "$tmp/out")"
grep -q "CMake >= 3.16  (Debian: cmake)" "$tmp/out" || fail "no dpkg: CMake not named: $(cat "$tmp/out")"
grep -q "this machine has no apt-get" "$tmp/out" || fail "no dpkg: does not say apt-get is missing: $(cat "$tmp/out")"
grep -q "Debian: libsystemc-dev\|Debian: libyaml-dev" "$tmp/out" && fail "no dpkg: lists what is present: $(cat "$tmp/out")"

# 3. CMake missing, apt-get present, ordinary user, no sudo: names the command, apt-get not called
user=$(machine user cmake); add_apt "$user"; add_id "$user" 1000
run "$user" build
[ $rc -eq 1 ] || fail "non-root without sudo: exit $rc, expected 1"
grep -q "needs root or sudo: sudo apt-get install cmake" "$tmp/out" || fail "non-root: no hint: $(cat "$tmp/out")"
[ -e "$tmp/apt.log" ] && fail "non-root: apt-get was called"

# 4. the same user, GNU parallel missing, --optional test: listed, goes on (exit 0)
nopar=$(machine nopar parallel); add_apt "$nopar"; add_id "$nopar" 1000
run "$nopar" --optional build test
[ $rc -eq 0 ] || fail "--optional: exit $rc, expected 0: $(cat "$tmp/out")"
grep -q "GNU parallel (scripts/parallel_sweep.sh)  (Debian: parallel)" "$tmp/out" || fail "--optional: parallel not named: $(cat "$tmp/out")"
grep -q "going on without them" "$tmp/out" || fail "--optional: does not say it goes on"
# ... and strictly (make test-long's groups): exit 1
run "$nopar" test
[ $rc -eq 1 ] || fail "parallel missing, strict: exit $rc, expected 1"

# 5. root with apt-get: installs exactly what is missing
root=$(machine root cmake parallel); add_apt "$root"; add_id "$root" 0
run "$root" build test
[ $rc -eq 0 ] || fail "root: exit $rc: $(cat "$tmp/out")"
grep -q "^install -y -qq --no-install-recommends cmake parallel$" "$tmp/apt.log" 2>/dev/null ||
  fail "root: apt-get not asked for cmake parallel: $(cat "$tmp/apt.log" 2>/dev/null)"

# 6. no pkg-config, and neither SYSTEMC_HOME nor CMAKE_PREFIX_PATH set (a fresh machine): the SystemC
#    probe falls through to its last source without tripping `set -u`, and SystemC is named missing
nopc=$(machine nopc pkg-config); add_id "$nopc" 1000
rm -f "$tmp/apt.log"
env -u SYSTEMC_HOME -u CMAKE_PREFIX_PATH PATH="$nopc" bash "$script" build > "$tmp/out" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "no pkg-config, prefixes unset: exit $rc, expected 1: $(cat "$tmp/out")"
grep -q "unbound variable" "$tmp/out" && fail "no pkg-config, prefixes unset: $(cat "$tmp/out")"
grep -q "Debian: libsystemc-dev" "$tmp/out" || fail "no pkg-config: SystemC not named: $(cat "$tmp/out")"

# 7. bad usage: exit 2
run "$full" nosuchgroup
[ $rc -eq 2 ] || fail "unknown group: exit $rc, expected 2"
grep -q "groups: build test bench long" "$tmp/out" || fail "unknown group: groups not listed"

[ $fails -eq 0 ] && echo "install-deps: all cases ok"
exit $((fails > 0))
