#!/usr/bin/env bash
# Starts a single-node Slurm on this machine, for trying `morris plan
# --slurm` and for the Slurm tests (tools/tests/slurm.rs). Needs root.
#
# Installs Debian's (or Ubuntu's) `slurm-wlm` and `munge` when missing,
# creates a munge key, writes /etc/slurm/slurm.conf for one node with this
# machine's CPUs and memory (proctrack/linuxproc, task/none: no cgroups, no
# systemd), starts munged, slurmctld and slurmd as plain daemons, and waits
# until `sinfo` shows the node idle. Idempotent: does nothing when a
# controller already answers. Stop it with tools/slurm/stop-local-slurm.sh.
#
# Environment: SLURM_CONF_DIR (default /etc/slurm) and SLURM_STATE_DIR
# (default /var/spool/slurm-local); MORRIS_SLURM_WAIT seconds to wait for
# the node (default 60).
set -euo pipefail

log() { echo "start-local-slurm: $*" >&2; }

conf_dir=${SLURM_CONF_DIR:-/etc/slurm}
ours="Written by tools/slurm/start-local-slurm.sh"
# A controller that answers with a responding node, and that this script did
# not set up: use it as it is.
if command -v sinfo >/dev/null 2>&1 && sinfo -h -o '%t' 2>/dev/null | grep -qE '^(idle|mix|alloc)$' \
  && ! grep -qs "$ours" "$conf_dir/slurm.conf"; then
  log "a Slurm controller already answers:"
  sinfo >&2
  exit 0
fi

if [ "$(id -u)" != 0 ]; then
  log "needs root (it installs packages and starts daemons); try: sudo $0"
  exit 1
fi

missing=()
for cmd in slurmctld slurmd sbatch munged; do
  command -v "$cmd" >/dev/null 2>&1 || missing+=("$cmd")
done
if [ ${#missing[@]} -gt 0 ]; then
  if ! command -v apt-get >/dev/null 2>&1; then
    log "missing ${missing[*]} and no apt-get: install Slurm and munge with your package manager"
    exit 1
  fi
  log "installing slurm-wlm and munge (missing: ${missing[*]})"
  apt-get update -q
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends slurm-wlm munge
fi

state=${SLURM_STATE_DIR:-/var/spool/slurm-local}
host=$(hostname -s)
cpus=$(nproc)
# Leave 10% of the memory (at least 512 MiB) to the system.
mem_mib=$(awk '/^MemTotal:/ { m = int($2 / 1024); r = int(m / 10); if (r < 512) r = 512; print m - r }' /proc/meminfo)

# munge: a key, its directories, the daemon.
mkdir -p /etc/munge /var/log/munge /run/munge /var/lib/munge
if [ ! -s /etc/munge/munge.key ]; then
  log "creating /etc/munge/munge.key"
  if command -v mungekey >/dev/null 2>&1; then
    mungekey --create --keyfile=/etc/munge/munge.key
  else
    dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
  fi
fi
chown -R munge:munge /etc/munge /var/log/munge /run/munge /var/lib/munge
chmod 0700 /etc/munge /var/log/munge /var/lib/munge
chmod 0755 /run/munge
chmod 0400 /etc/munge/munge.key
if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
  log "starting munged"
  runuser -u munge -- munged
fi

# slurm.conf: one node, one partition, no accounting, no cgroups.
mkdir -p "$conf_dir" "$state/ctld" "$state/d" /var/log/slurm /run/slurm
cat >"$conf_dir/slurm.conf" <<EOF
# $ours: a single-node Slurm for tests.
ClusterName=local
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$state/ctld
SlurmdSpoolDir=$state/d
SlurmctldPidFile=/run/slurm/slurmctld.pid
SlurmdPidFile=/run/slurm/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=2,bf_interval=2
SlurmctldTimeout=30
SlurmdTimeout=30
MinJobAge=300
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem_mib State=UNKNOWN
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF

if ! pgrep -x slurmctld >/dev/null; then
  log "starting slurmctld"
  slurmctld -f "$conf_dir/slurm.conf"
fi
if ! pgrep -x slurmd >/dev/null; then
  log "starting slurmd"
  slurmd -f "$conf_dir/slurm.conf"
fi

wait_s=${MORRIS_SLURM_WAIT:-60}
for _ in $(seq "$wait_s"); do
  state_now=$(sinfo -h -o '%t' 2>/dev/null || true)
  case "$state_now" in
    idle | mix | alloc)
      log "node $host is up ($cpus CPUs, $mem_mib MiB):"
      sinfo >&2
      exit 0
      ;;
    down* | drain*)
      scontrol update nodename="$host" state=resume 2>/dev/null || true
      ;;
  esac
  sleep 1
done
log "the node did not come up within $wait_s s; logs: /var/log/slurm/"
tail -n 20 /var/log/slurm/slurmctld.log /var/log/slurm/slurmd.log >&2 || true
exit 1
