#!/usr/bin/env bash
# What each lampsim target needs, checked by probing for the thing itself (a command, a pkg-config
# module, a Python import) rather than for a Debian package, so a machine that has the dependencies
# (built from source, another distribution, a module system) needs neither root nor dpkg.
# What is missing is installed with apt-get when this machine has it and root or sudo is at hand;
# otherwise the script lists what is missing, with the Debian package names, and exits 1.
#
# usage: scripts/install-deps.sh [--check] [--optional] [GROUP...]
#   GROUP       build (the default), test, bench, long, rtl; several may be given
#   --check     report what is missing, install nothing
#   --optional  install what is missing only where that needs no password (root, sudo -n); else
#               report it and exit 0 (the tests that need it skip)
#
# A group is one array below, group_<name>, of "debian-package|probe|what it is for" lines
# (probe: a shell condition without '|', true when the dependency is present; a function above
# when it needs more). To add a group, add its array and its name to `groups`.
set -euo pipefail

py=/usr/bin/python3   # the interpreter the tests and scripts use (the first python3 on PATH may lack the modules)
have() { command -v "$1" >/dev/null 2>&1; }
pc() { have pkg-config && pkg-config --exists "$@"; }
# found without importing it (importing torch takes seconds)
pymod() { [ -x "$py" ] && "$py" -c "import importlib.util, sys; sys.exit(importlib.util.find_spec('$1') is None)" 2>/dev/null; }
openblas() { pc openblas || compgen -G '/usr/include/*/openblas*/cblas.h' >/dev/null || [ -f /usr/include/cblas.h ]; }
gnu_parallel() { have parallel && parallel --version 2>/dev/null | grep -q 'GNU parallel'; }
libfuzzer() {
  have clang && echo 'int LLVMFuzzerTestOneInput(const char *d, long n) { return 0; }' |
    clang -x c -fsanitize=fuzzer -o /dev/null - >/dev/null 2>&1
}
# SystemC as CMakeLists.txt looks for it: pkg-config, $SYSTEMC_HOME, or a SystemCLanguage CMake package
# under $CMAKE_PREFIX_PATH.
systemc() {
  pc systemc tlm && return 0
  [ -n "${SYSTEMC_HOME:-}" ] && [ -f "$SYSTEMC_HOME/include/systemc.h" ] && return 0
  local p prefixes=${CMAKE_PREFIX_PATH:-}
  for p in ${prefixes//:/ }; do
    compgen -G "$p/lib*/cmake/SystemCLanguage/SystemCLanguageConfig.cmake" >/dev/null && return 0
  done
  return 1
}

groups=(build test bench long rtl)
# make run, make install, and any build: compiler, CMake, SystemC, libyaml.
group_build=(
  "build-essential|have cc && have c++ && have make|a C11/C++17 compiler (cc, c++) and make"
  "cmake|have cmake|CMake >= 3.16"
  "pkg-config|have pkg-config|pkg-config (finds libyaml and SystemC)"
  "libsystemc-dev|systemc|SystemC 2.3.x with TLM-2.0, built for C++17 (pkg-config systemc, SYSTEMC_HOME or CMAKE_PREFIX_PATH)"
  "libyaml-dev|pc yaml-0.1|libyaml (pkg-config yaml-0.1)"
)
# make test: what the default suite uses besides the build (tests whose dependency is missing skip, exit 77).
group_test=(
  "python3|[ -x $py ]|/usr/bin/python3 (the docs, sweep and Python tests)"
  "python3-numpy|pymod numpy|numpy for /usr/bin/python3"
  "python3-yaml|pymod yaml|PyYAML for /usr/bin/python3 (scripts/validate_*.py read points.yaml)"
  "python3-matplotlib|pymod matplotlib|matplotlib for /usr/bin/python3 (sweep plots, report.html figures)"
  "python3-jinja2|pymod jinja2|Jinja2 for /usr/bin/python3 (the run report page's template, scripts/report/templates)"
  "python3-torch|pymod torch|PyTorch for /usr/bin/python3 (python/lampsim tests, the tiny model)"
  "python3-pip|pymod pip|pip for /usr/bin/python3 (python_pip_install: pip install .)"
  "python3-setuptools|pymod setuptools|setuptools for /usr/bin/python3 (pip install --no-build-isolation .)"
  "python3-wheel|pymod wheel|wheel for /usr/bin/python3 (pip install --no-build-isolation .)"
  "python3-jinja2|pymod jinja2|Jinja2 for /usr/bin/python3 (the sweep report's template, scripts/templates/)"
  "python3-pandas|pymod pandas|pandas for /usr/bin/python3 (lampsim.load_run / load_sweep / load_model)"
  "bible-kjv|have bible|the King James text reader /usr/bin/bible (the tiny model's held-out text)"
  "bible-kjv-text|have bible && bible -f Gen1:1 >/dev/null 2>&1|the King James text itself"
  "parallel|gnu_parallel|GNU parallel (scripts/parallel_sweep.sh)"
)
# make bench: the OpenBLAS fp32 attention yardstick (bench_head).
group_bench=(
  "libopenblas-dev|openblas|OpenBLAS with cblas.h"
)
# make test-long: libFuzzer targets (clang) and the single-node Slurm sweep.
group_long=(
  "clang|have clang|clang (libFuzzer targets)"
  "libclang-rt-14-dev|libfuzzer|clang's libFuzzer runtime"
  "slurm-wlm|have slurmctld && have sbatch|Slurm (the single-node sweep test)"
  "munge|have munged|MUNGE (Slurm's authentication)"
  "git|have git|git (docs_plain_cmake copies the tracked files of a checkout)"
  "python3-venv|pymod ensurepip|venv with pip for /usr/bin/python3 (docs_plain_cmake: pip install . in a venv)"
  "chromium|have chromium|headless Chromium (rendering study and report pages to PNG to look at them)"
)

# the RTL of the novel units (docs/rtl.md): the rtl tests register only when Verilator is present
group_rtl=(
  "verilator|have verilator|Verilator (the rtl testbenches)"
  "yosys|have yosys|Yosys (scripts/rtl_synth.sh)"
  "iverilog|have iverilog|Icarus Verilog (a second simulator)"
)

mode=install
want=()
for a in "$@"; do
  case "$a" in
    --check) mode=check ;;
    --optional) mode=optional ;;
    --long) want+=(build test long) ;;   # the old spelling
    -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "install-deps: unknown option '$a' (--check, --optional)" >&2; exit 2 ;;
    *)
      if [[ " ${groups[*]} " != *" $a "* ]]; then
        echo "install-deps: unknown group '$a' (groups: ${groups[*]})" >&2
        exit 2
      fi
      want+=("$a") ;;
  esac
done
[ ${#want[@]} -eq 0 ] && want=(build)

missing=() missing_what=() seen=" "
for g in "${want[@]}"; do
  declare -n list="group_$g"
  for entry in "${list[@]}"; do
    IFS='|' read -r pkg probe what <<<"$entry"
    [[ "$seen" == *" $pkg "* ]] && continue
    seen+="$pkg "
    if ! eval "$probe"; then
      missing+=("$pkg")
      missing_what+=("  $what  (Debian: $pkg)")
    fi
  done
  unset -n list
done
[ ${#missing[@]} -eq 0 ] && exit 0

report() {
  echo "install-deps: missing for '${want[*]}':" >&2
  printf '%s\n' "${missing_what[@]}" >&2
}
# --optional: what cannot be installed without asking is reported and skipped.
give_up() {
  report
  echo "install-deps: $1" >&2
  if [ "$mode" = optional ]; then
    echo "install-deps: going on without them: the tests that need them skip" >&2
    exit 0
  fi
  exit 1
}
[ "$mode" = check ] && { report; exit 1; }
if ! have apt-get || ! have dpkg-query; then
  give_up "this machine has no apt-get: install these with its package manager (for SystemC, or point CMake at it: SYSTEMC_HOME, CMAKE_PREFIX_PATH, PKG_CONFIG_PATH), then run make again"
fi
if [ "$(id -u)" -eq 0 ]; then
  sudo=()
elif have sudo && { [ "$mode" = install ] || sudo -n true 2>/dev/null; }; then
  sudo=(sudo)
else
  give_up "installing them needs root or sudo: sudo apt-get install ${missing[*]}"
fi
echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
if ! "${sudo[@]}" apt-get update -qq || ! "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; then
  give_up "apt-get could not install them"
fi
