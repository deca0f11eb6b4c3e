#!/usr/bin/env bash
# Runs a lampsim sweep through GNU parallel (Debian package `parallel`): one job per manifest line,
# locally or across machines, then merges the results.
#
#   scripts/parallel_sweep.sh SWEEP.yaml [-o DIR] [-j N] [--sshloginfile FILE] [--lampsim PATH]
#                             [-- extra GNU parallel options]
#
# Each job is `lampsim sweep run SWEEP.yaml -o DIR --point ID -j 1 --quiet`, so a job whose point
# is already DONE does nothing: re-running the script resumes. GNU parallel's job log goes to
# DIR/parallel.joblog (add `-- --resume-failed` to retry only failed jobs from it). At the end the
# script writes DIR/results.csv with `lampsim sweep merge` and exits with parallel's status
# (the number of failed jobs, capped at 101).
#
# Across machines (--sshloginfile, one `[ncpus/]host` per line, `:` for this machine): every host
# needs the same lampsim binary at the same path and DIR and the sweep file on a shared file system
# (both are passed as absolute paths). Defaults: DIR out/<sweep name>, N all cores, lampsim from
# $LAMPSIM, else build/lampsim next to this script's repository, else `lampsim` on PATH.
set -euo pipefail

usage() { sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; }

sweep="" out="" jobs="" sshlogin="" lampsim="${LAMPSIM:-}"
extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    -o) out=$2; shift 2 ;;
    -j) jobs=$2; shift 2 ;;
    --sshloginfile) sshlogin=$2; shift 2 ;;
    --lampsim) lampsim=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    --) shift; extra=("$@"); break ;;
    -*) echo "parallel_sweep.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
    *) if [ -n "$sweep" ]; then echo "parallel_sweep.sh: one sweep file at most" >&2; exit 2; fi
       sweep=$1; shift ;;
  esac
done
[ -n "$sweep" ] || { usage >&2; exit 2; }
command -v parallel >/dev/null || { echo "parallel_sweep.sh: GNU parallel not found (Debian: apt-get install parallel)" >&2; exit 2; }
if [ -z "$lampsim" ]; then
  here=$(cd "$(dirname "$0")/.." && pwd)
  if [ -x "$here/build/lampsim" ]; then lampsim=$here/build/lampsim; else lampsim=$(command -v lampsim || true); fi
fi
[ -n "$lampsim" ] && [ -x "$lampsim" ] || { echo "parallel_sweep.sh: lampsim binary not found (set LAMPSIM or --lampsim)" >&2; exit 2; }
lampsim=$(cd "$(dirname "$lampsim")" && pwd)/$(basename "$lampsim")
sweep=$(cd "$(dirname "$sweep")" && pwd)/$(basename "$sweep")

# expand first: a bad sweep file stops here, with its file:line:col message, before anything is written
manifest=$("$lampsim" sweep expand "$sweep")
if [ -z "$out" ]; then
  name=$(sed -n 's/^name:[[:space:]]*\([A-Za-z0-9._-]*\).*/\1/p' "$sweep" | head -n1)
  [ -n "$name" ] || name=$(basename "$sweep" .yaml)
  out=out/$name
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
n=$(printf '%s\n' "$manifest" | grep -c .)
echo "parallel_sweep.sh: $n points of $sweep -> $out" >&2

popt=(--joblog "$out/parallel.joblog" --halt never --line-buffer)
[ -n "$jobs" ] && popt+=(-j "$jobs")
[ -n "$sshlogin" ] && popt+=(--sshloginfile "$sshlogin")
# --will-cite: we cite GNU parallel in docs/sweeps.md; it silences the citation notice
status=0
printf '%s\n' "$manifest" | cut -f2 | \
  parallel --will-cite "${popt[@]}" "${extra[@]}" \
    "$lampsim" sweep run "$sweep" -o "$out" --point {} -j 1 --quiet || status=$?
"$lampsim" sweep merge "$out" -o "$out/results.csv" || status=$(( status ? status : 1 ))
echo "parallel_sweep.sh: merged $(($(wc -l < "$out/results.csv") - 1)) of $n points into $out/results.csv" >&2
exit "$status"
