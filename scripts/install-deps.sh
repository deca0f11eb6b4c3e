#!/usr/bin/env bash
# Install the Debian packages lampsim needs that this machine lacks. Fast no-op when all are present.
# Usage: scripts/install-deps.sh [--long | --rtl]   (as root, or with sudo available)
set -euo pipefail

packages=(
  build-essential cmake pkg-config git       # toolchain
  libsystemc-dev                             # SystemC 2.3.4 + TLM-2.0 (built for C++17)
  libyaml-dev                                # YAML configuration
  python3 python3-numpy python3-matplotlib python3-yaml   # scripts/ (plots, points.yaml), run by /usr/bin/python3
  python3-torch                              # scripts/dump_qkv.py, python/lampsim, the tiny model
  bible-kjv bible-kjv-text                   # public-domain text (King James Bible) the tiny model trains on
  parallel                                   # scripts/parallel_sweep.sh and its test
  libopenblas-dev                            # make bench only: the OpenBLAS fp32 attention yardstick
)
# `--long`: also what the long tests need (libFuzzer targets are built with clang; the Slurm sweep
# test starts a single-node Slurm).
if [ "${1:-}" = "--long" ]; then
  packages+=(clang libclang-rt-14-dev slurm-wlm munge)   # libFuzzer targets; single-node Slurm sweep
fi
# `--rtl`: the RTL tools (docs/rtl.md): Verilator (the rtl tests register only when it is present),
# Yosys (scripts/rtl_synth.sh), Icarus Verilog (a second simulator).
if [ "${1:-}" = "--rtl" ]; then
  packages+=(verilator yosys iverilog)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "install-deps: installing ${missing[*]}" >&2
if [ "$(id -u)" -eq 0 ]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1; then
  sudo=(sudo)
else
  echo "install-deps: need root or sudo to install: ${missing[*]}" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
