#!/usr/bin/env bash
# A lampsim sweep as a Slurm job array: task i of N runs shard i/N of the manifest (points whose
# index % N == i) with `lampsim sweep run --shard`, so the array covers every point exactly once
# and re-submitting resumes (finished points carry a DONE marker and are skipped).
#
# Submit (computes N, submits the array and a merge job that runs after it):
#   scripts/slurm_sweep.sh --submit SWEEP.yaml DIR [-n TASKS] [-c CPUS_PER_TASK] [-- sbatch options]
#     TASKS defaults to min(points, 64); each task runs its points on CPUS_PER_TASK workers (1).
#     Prints the array job id; DIR/results.csv appears when the merge job has run.
# Or by hand:
#   sbatch --array=0-9%4 scripts/slurm_sweep.sh SWEEP.yaml DIR     # then: lampsim sweep merge DIR
#
# The lampsim binary: $LAMPSIM (exported to the job by --submit), else `lampsim` on PATH. DIR must
# be on a file system every node sees. Inside a task the script reads SLURM_ARRAY_TASK_ID,
# SLURM_ARRAY_TASK_COUNT (or SLURM_ARRAY_TASK_MAX + 1) and SLURM_CPUS_PER_TASK.
#SBATCH --job-name=lampsim-sweep
#SBATCH --ntasks=1
#SBATCH --output=slurm-lampsim-%A_%a.out
set -euo pipefail

find_lampsim() {
  if [ -n "${LAMPSIM:-}" ]; then echo "$LAMPSIM"; return; fi
  command -v lampsim || { echo "slurm_sweep.sh: lampsim not found (set LAMPSIM)" >&2; exit 2; }
}

if [ "${1:-}" = "--submit" ]; then
  shift
  [ $# -ge 2 ] || { sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
  sweep=$1 out=$2; shift 2
  tasks="" cpus=1 extra=()
  while [ $# -gt 0 ]; do
    case "$1" in
      -n) tasks=$2; shift 2 ;;
      -c) cpus=$2; shift 2 ;;
      --) shift; extra=("$@"); break ;;
      *) echo "slurm_sweep.sh: unknown option $1" >&2; exit 2 ;;
    esac
  done
  if [ -z "${LAMPSIM:-}" ]; then
    here=$(cd "$(dirname "$0")/.." && pwd)
    if [ -x "$here/build/lampsim" ]; then LAMPSIM=$here/build/lampsim; fi
  fi
  lampsim=$(find_lampsim)
  lampsim=$(cd "$(dirname "$lampsim")" && pwd)/$(basename "$lampsim")
  sweep=$(cd "$(dirname "$sweep")" && pwd)/$(basename "$sweep")
  points=$("$lampsim" sweep expand "$sweep" --count)   # also validates the sweep file
  [ -n "$tasks" ] || tasks=$(( points < 64 ? points : 64 ))
  [ "$tasks" -ge 1 ] || { echo "slurm_sweep.sh: no points" >&2; exit 2; }
  mkdir -p "$out"
  out=$(cd "$out" && pwd)
  script=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
  jid=$(LAMPSIM=$lampsim sbatch --parsable --array="0-$((tasks - 1))" --cpus-per-task="$cpus" \
        --output="$out/slurm-%A_%a.out" --export=ALL,LAMPSIM="$lampsim" "${extra[@]}" "$script" "$sweep" "$out")
  jid=${jid%%;*}
  sbatch --parsable --dependency=afterany:"$jid" --output="$out/slurm-merge-%j.out" --job-name=lampsim-merge \
    "${extra[@]}" --wrap="'$lampsim' sweep merge '$out' -o '$out/results.csv'" >/dev/null
  echo "$jid"
  echo "slurm_sweep.sh: $points points in $tasks array tasks (job $jid); results in $out/results.csv after the merge job" >&2
  exit 0
fi

[ $# -eq 2 ] || { echo "usage: sbatch --array=0-N scripts/slurm_sweep.sh SWEEP.yaml DIR (or --submit)" >&2; exit 2; }
sweep=$1 out=$2
: "${SLURM_ARRAY_TASK_ID:?slurm_sweep.sh runs as a Slurm array task (sbatch --array=...)}"
count=${SLURM_ARRAY_TASK_COUNT:-$(( ${SLURM_ARRAY_TASK_MAX:-0} + 1 ))}
lampsim=$(find_lampsim)
echo "slurm_sweep.sh: array task $SLURM_ARRAY_TASK_ID ($count tasks) on $(hostname)"
idx=$(( SLURM_ARRAY_TASK_ID - ${SLURM_ARRAY_TASK_MIN:-0} ))
exec "$lampsim" sweep run "$sweep" -o "$out" --shard "$idx/$count" -j "${SLURM_CPUS_PER_TASK:-1}" --no-progress
