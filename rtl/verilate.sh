#!/usr/bin/env bash
# rtl/verilate.sh VERILATOR MDIR TOP SOURCES...: build the Verilator model of module TOP into MDIR
# (V<TOP>__ALL.a); the log is kept beside it and shown on failure. Used by rtl/CMakeLists.txt.
set -euo pipefail
verilator=$1 mdir=$2 top=$3
shift 3
mkdir -p "$mdir"
if ! OBJCACHE=$(command -v ccache || true) "$verilator" --cc -Wall -Wno-DECLFILENAME -O3 --x-assign fast --x-initial fast \
    --build -j 1 -MAKEFLAGS "OPT_FAST=-O2 OPT_SLOW=-O1" --Mdir "$mdir" --top-module "$top" --prefix "V$top" \
    "$@" >"$mdir.log" 2>&1; then
  cat "$mdir.log" >&2
  exit 1
fi
