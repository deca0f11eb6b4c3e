#!/usr/bin/env bash
# Exercises the Slurm path for real on this machine: starts a private single-node Slurm cluster
# (munged, slurmctld, slurmd from the Debian packages slurm-wlm and munge, all state, sockets and
# logs in a temporary directory, nothing in /etc touched), submits a small sweep as a job array
# through scripts/slurm_sweep.sh --submit, waits for the array and its merge job, checks every
# point ran exactly once and the merged CSV equals `lampsim sweep run`'s, then stops the daemons
# it started (by their process ids) and removes the directory.
#
#   scripts/slurm_local_test.sh [LAMPSIM]      (default: build/lampsim)
#
# Exit status: 0 pass, 1 fail, 77 skipped (Slurm or munge not installed, or not root: slurmd
# needs root to launch jobs). ctest runs it as sweep_slurm_local (label long).
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
lampsim=${1:-$here/build/lampsim}
lampsim=$(cd "$(dirname "$lampsim")" && pwd)/$(basename "$lampsim")
for c in munged slurmctld slurmd sbatch squeue sinfo scontrol; do
  if ! command -v $c >/dev/null 2>&1 && [ ! -x /usr/sbin/$c ]; then
    echo "SKIP: $c not found (Debian packages: slurm-wlm munge)"
    exit 77
  fi
done
if [ "$(id -u)" != 0 ]; then echo "SKIP: needs root (slurmd launches jobs as their owner)"; exit 77; fi
PATH=$PATH:/usr/sbin

T=$(mktemp -d /tmp/lampsim-slurm.XXXXXX)
chmod 755 "$T"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  sleep 0.5
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
  if [ "${KEEP:-0}" = 1 ]; then echo "kept $T"; else rm -rf "$T"; fi
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; for f in "$T"/log/*.log; do echo "== $f"; tail -n 20 "$f"; done; exit 1; }
free_port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

mkdir -p "$T/munge" "$T/state" "$T/spool" "$T/log" "$T/run"
chmod 700 "$T/munge"
dd if=/dev/urandom of="$T/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$T/munge/munge.key"
sock=$T/munge/munge.sock
munged --force --key-file="$T/munge/munge.key" --socket="$sock" --pid-file="$T/run/munged.pid" \
  --log-file="$T/log/munged.log" --seed-file="$T/munge/seed" || fail "munged did not start"
for _ in $(seq 50); do [ -s "$T/run/munged.pid" ] && break; sleep 0.1; done
pids+=("$(cat "$T/run/munged.pid")")

host=$(hostname -s)
cpus=$(nproc)
user=$(id -un)
cat > "$T/slurm.conf" <<EOF
ClusterName=lampsimtest
SlurmctldHost=$host(127.0.0.1)
SlurmUser=$user
SlurmdUser=root
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
AuthType=auth/munge
AuthInfo=socket=$sock
CredType=cred/munge
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/run/slurmctld.pid
SlurmdPidFile=$T/run/slurmd.pid
SlurmctldLogFile=$T/log/slurmctld.log
SlurmdLogFile=$T/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
SlurmdTimeout=30
InactiveLimit=0
KillWait=5
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$T/slurm.conf
slurmctld -D -i -f "$SLURM_CONF" > "$T/log/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" -N "$host" > "$T/log/slurmd.out" 2>&1 &
pids+=($!)
ok=0
for _ in $(seq 120); do
  if sinfo -h -N -o '%T' 2>/dev/null | grep -q '^idle'; then ok=1; break; fi
  sleep 0.5
done
[ $ok = 1 ] || fail "the node did not become idle: $(sinfo -N 2>&1)"
echo "slurm_local_test: single-node cluster up ($host, $cpus CPUs)"

cd "$T"
cat > small.yaml <<'YAML'
name: slurm_small
base:
  workload: {heads_q: 2, heads_kv: 1, seq_q: 128, seq_k: 128}
axes:
  algorithm.tau: {geom: [1, 0.125], points: 4}
  accelerator.regfile.layout: [compact, full]
YAML
jid=$(LAMPSIM=$lampsim bash "$here/scripts/slurm_sweep.sh" --submit small.yaml "$T/out" -n 3 2> submit.log) \
  || fail "submit: $(cat submit.log)"
echo "slurm_local_test: array job $jid submitted"
for _ in $(seq 240); do
  [ -z "$(squeue -h 2>/dev/null)" ] && [ -s "$T/out/results.csv" ] && break
  sleep 0.5
done
[ -s "$T/out/results.csv" ] || fail "no results.csv after the array and merge jobs: $(squeue 2>&1) $(cat "$T"/out/slurm-*.out 2>/dev/null)"
ntask=$(ls "$T"/out/slurm-"$jid"_*.out 2>/dev/null | wc -l)
[ "$ntask" = 3 ] || fail "expected 3 array task logs, got $ntask"
grep -q 'array task' "$T/out/slurm-${jid}_0.out" || fail "task log: $(cat "$T/out/slurm-${jid}_0.out")"
"$lampsim" sweep run small.yaml -o ref -j 2 --quiet
"$lampsim" sweep merge ref > ref.csv
cmp -s ref.csv "$T/out/results.csv" || fail "merged CSV of the array differs from lampsim sweep run's"
[ "$(ls "$T"/out/points/*/DONE | wc -l)" = 8 ] || fail "not every point is DONE"
# each point ran in exactly one task: the tasks' logs list 8 distinct points
runs=$(grep -ho 'point [0-9]* [0-9a-f]\{16\} \(done\|reused\)' "$T"/out/slurm-"$jid"_*.out | awk '{print $3}' | sort)
[ "$(echo "$runs" | wc -l)" = 8 ] && [ "$(echo "$runs" | sort -u | wc -l)" = 8 ] || fail "points run: $runs"
echo "slurm_local_test: PASS (8 points in 3 array tasks, merged CSV identical to a local run)"
exit 0
