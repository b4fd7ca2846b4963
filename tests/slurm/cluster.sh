#!/usr/bin/env bash
# A private single-node Slurm cluster for the Slurm executor's tests, from Debian's slurm-wlm
# and munge packages: `cluster.sh start DIR` starts munged, slurmctld and slurmd on this host
# (as root, proctrack/linuxproc, task/none: no cgroups needed) with every file, socket and log
# in DIR and ports of their own, and waits until the node takes jobs; `cluster.sh stop DIR`
# cancels its jobs and stops the three daemons. Clients reach it with SLURM_CONF=DIR/slurm.conf.
# ctest runs start and stop as the fixture of the tests (tests/slurm/CMakeLists.txt).
# ARBO_SLURM_PORT (default 16817) is the controller's port; slurmd takes the next one.
set -euo pipefail

usage() { echo "usage: cluster.sh start|stop DIR" >&2; exit 2; }
[ $# -eq 2 ] || usage
action=$1
dir=$(realpath -m "$2")
port=${ARBO_SLURM_PORT:-16817}

# True while process $1 runs (a zombie does not: where PID 1 does not reap, a stopped daemon
# stays one).
running() {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  stat=${stat##*) }
  [ "${stat:0:1}" != Z ]
}

stop_daemons() {
  local ctld
  ctld=$(cat "$dir/slurmctld.pid" 2>/dev/null || true)
  if [ -f "$dir/slurm.conf" ] && [ -n "$ctld" ] && running "$ctld"; then
    # The jobs first: a batch job's slurmstepd outlives slurmd.
    SLURM_CONF="$dir/slurm.conf" timeout 20 scancel --user="$(id -un)" 2>/dev/null || true
    for _ in $(seq 50); do
      [ -z "$(SLURM_CONF="$dir/slurm.conf" timeout 5 squeue -h -t running,completing \
        2>/dev/null)" ] && break
      sleep 0.2
    done
  fi
  for name in slurmd slurmctld munged; do
    pidfile="$dir/$name.pid"
    [ -f "$pidfile" ] || continue
    pid=$(cat "$pidfile" 2>/dev/null || true)
    if [ -n "$pid" ] && running "$pid"; then
      kill -TERM "$pid" 2>/dev/null || true
      for _ in $(seq 100); do running "$pid" || break; sleep 0.1; done
      kill -KILL "$pid" 2>/dev/null || true
    fi
    rm -f "$pidfile"
  done
}

fail() {
  echo "cluster.sh: $*" >&2
  for log in slurmctld.log slurmd.log munged.log; do
    [ -f "$dir/$log" ] && { echo "--- $dir/$log (last lines)" >&2; tail -n 20 "$dir/$log" >&2; }
  done
  stop_daemons
  exit 1
}

case "$action" in
stop)
  stop_daemons
  exit 0
  ;;
start) ;;
*) usage ;;
esac

[ "$(id -u)" = 0 ] || fail "slurmd runs jobs as root here (as on CI): run the Slurm tests as root"
for b in munged mungekey slurmctld slurmd sbatch squeue scancel sinfo; do
  command -v "$b" >/dev/null || fail "$b not found: run tools/install-deps (slurm-wlm, munge)"
done
stop_daemons  # what an earlier, interrupted run left
rm -rf "$dir"
mkdir -p "$dir/state" "$dir/spool"
# slurmctld must run on the host SlurmctldHost names; the address in parentheses spares the
# clients a lookup of that name (a CI machine's hostname need not resolve).
host=$(hostname -s)

mungekey --create --keyfile="$dir/munge.key" --bits=1024 >/dev/null 2>&1 ||
  fail "mungekey could not create a key"
chmod 400 "$dir/munge.key"
munged --force --socket="$dir/munge.socket" --key-file="$dir/munge.key" \
  --pid-file="$dir/munged.pid" --log-file="$dir/munged.log" --seed-file="$dir/munged.seed" \
  </dev/null >>"$dir/daemons.out" 2>&1 ||
  fail "munged did not start"

cat >"$dir/slurm.conf" <<CONF
# Written by tests/slurm/cluster.sh: a single-node test cluster, not for production.
ClusterName=arbotest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MinJobAge=300
KillWait=2
SlurmdDebug=debug
SlurmctldDebug=debug
InactiveLimit=0
# 32 CPUs whatever the machine has (config_overrides): the tests' jobs mostly wait, and tests
# running at once must not queue behind each other's jobs.
SlurmdParameters=config_overrides
NodeName=$host NodeAddr=127.0.0.1 CPUs=32 State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$dir/slurm.conf"
# The daemons keep no descriptor of ours: ctest reads a test's output until every writer is gone.
slurmctld -f "$SLURM_CONF" </dev/null >>"$dir/daemons.out" 2>&1 || fail "slurmctld did not start"
# slurmd registers once at its start and retries only 20 s later: the controller must answer
# first.
for _ in $(seq 150); do
  timeout 5 sinfo -h >/dev/null 2>&1 && break
  sleep 0.1
done
slurmd -f "$SLURM_CONF" </dev/null >>"$dir/daemons.out" 2>&1 || fail "slurmd did not start"
for _ in $(seq 150); do
  state=$(timeout 5 sinfo -h -o %T 2>/dev/null || true)
  case "$state" in
  idle* | mixed* | allocated*) echo "cluster.sh: node $host is $state (SLURM_CONF=$SLURM_CONF)"; exit 0 ;;
  esac
  sleep 0.2
done
fail "the node did not become idle in 30 s (sinfo: ${state:-no answer})"
