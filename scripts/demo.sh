#!/usr/bin/env bash
# The main job until the timed model lands: a short tour of the bit-exact number formats.
set -euo pipefail
lampsim=${1:-build/lampsim}
echo "== e4m3 rounding (OCP, saturating at 448)"
"$lampsim" fp round e4m3 0.3 1.0625 -2.75 464 500 0.0009765625
echo "== e4m3 accumulation of twenty ones: swamping stalls at 16"
ones=$(printf '1,%.0s' $(seq 19))1
"$lampsim" fp dot --acc e4m3 --a "$ones" --b "$ones"
echo "== exponential LUT, first rows (ue5m3s shift -> ue5m3x exp)"
"$lampsim" fp lut | sed -n '1,4p;138,142p'
