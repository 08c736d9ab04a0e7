#!/usr/bin/env bash
# Stops the single-node Slurm that start-local-slurm.sh started: slurmd and
# slurmctld by their pid files (munged is left running; other programs may
# use it). Jobs still running are killed with slurmd.
set -euo pipefail
for pidfile in /run/slurm/slurmd.pid /run/slurm/slurmctld.pid; do
  if [ -s "$pidfile" ]; then
    pid=$(cat "$pidfile")
    if kill "$pid" 2>/dev/null; then
      echo "stop-local-slurm: stopped $(basename "$pidfile" .pid) (pid $pid)" >&2
    fi
  fi
done
