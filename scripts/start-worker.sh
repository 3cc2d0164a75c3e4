#!/usr/bin/env bash
# start-worker.sh MASTER_URL [INSTANCE] [WORKER_FLAGS...] - start
# hearth-worker number INSTANCE (default 1) of this machine in the
# background, with a pid file and a log file, and wait until it has
# registered with the master (docs/operations.md).  Does nothing when that
# instance already runs.
#
# Settings (environment or $HEARTH_CONF_DIR/hearth-env.sh):
# HEARTH_WORKER_CORES, HEARTH_WORKER_MEMORY, HEARTH_WORKER_DIR (instance N
# works in HEARTH_WORKER_DIR/worker-N), HEARTH_WORKER_HOST (the address it
# advertises), HEARTH_WORKER_RESOURCE and HEARTH_WORKER_RESOURCE_DISCOVERY
# (custom resources, ';'-separated), HEARTH_WORKER_OPTS, HEARTH_PID_DIR,
# HEARTH_LOG_DIR.
set -euo pipefail
usage() {
  cat <<EOF
Usage: $(basename "$0") MASTER_URL [INSTANCE] [WORKER_FLAGS...]

Start hearth-worker number INSTANCE (default 1) of this machine in the
background, with a pid file and a log file, and wait until it has
registered with the master at MASTER_URL (tcp://HOST:PORT), at most
HEARTH_START_TIMEOUT seconds.  A worker not registered by then keeps
trying: the script says why it could not (connection refused, a key not
admitted...), as the worker's log does, and exits 1.  Does nothing when
that instance already runs.  WORKER_FLAGS are passed to hearth-worker
(hearth-worker --help); it refuses a flag it does not know.

  HEARTH_WORKER_CORES   cores offered (default: the machine's)
  HEARTH_WORKER_MEMORY  memory offered (default: the machine's less 1G)
  HEARTH_WORKER_DIR     instance N works in HEARTH_WORKER_DIR/worker-N
                        (default \$HEARTH_PID_DIR/work)
  HEARTH_WORKER_HOST    the address it advertises
  HEARTH_WORKER_RESOURCE
                        custom resources it offers, ';'-separated
                        (gpu=0,1;fpga=0: one --resource each)
  HEARTH_WORKER_RESOURCE_DISCOVERY
                        discovery scripts, ';'-separated
                        (gpu=/etc/hearth/gpus.sh: one --resource-discovery
                        each)
  HEARTH_WORKER_OPTS    more hearth-worker flags
EOF
}
# shellcheck source=hearth-common.sh
. "$(dirname "$0")/hearth-common.sh"

[[ $# -ge 1 && $1 == tcp://* ]] ||
  die "usage: $hearth_me MASTER_URL [INSTANCE] [WORKER_FLAGS...] (MASTER_URL: tcp://HOST:PORT; see $hearth_me --help)"
url=$1
shift
n=1
if [[ $# -ge 1 && $1 =~ ^[0-9]+$ ]]; then
  n=$1
  shift
fi
role=worker-$n
pidfile=$(hearth_file "$role" pid)
idfile=$(hearth_file "$role" id)
if pid=$(hearth_running "$pidfile" hearth-worker); then
  say "hearth-worker $n already runs (pid $pid) as $(cat "$idfile" 2>/dev/null || echo '?')"
  exit 0
fi
rm -f "$idfile"
work=$HEARTH_WORKER_DIR/$role
mkdir -p "$work" || die "cannot create $work"
args=(--master "$url" --work-dir "$work" --ready-file "$idfile")
[[ -n $HEARTH_WORKER_HOST ]] && args+=(--host "$HEARTH_WORKER_HOST")
[[ -n $HEARTH_WORKER_CORES ]] && args+=(--cores "$HEARTH_WORKER_CORES")
[[ -n $HEARTH_WORKER_MEMORY ]] && args+=(--memory "$HEARTH_WORKER_MEMORY")
IFS=';' read -ra res <<<"$HEARTH_WORKER_RESOURCE"
for r in "${res[@]}"; do [[ -n $r ]] && args+=(--resource "$r"); done
IFS=';' read -ra res <<<"$HEARTH_WORKER_RESOURCE_DISCOVERY"
for r in "${res[@]}"; do [[ -n $r ]] && args+=(--resource-discovery "$r"); done
# shellcheck disable=SC2206
args+=($HEARTH_WORKER_OPTS "$@")
hearth_launch hearth-worker "$role" "${args[@]}" || exit $?
pid=$(hearth_running "$pidfile" hearth-worker)
for ((i = 0; i < HEARTH_START_TIMEOUT * 10; i++)); do
  [[ -s $idfile ]] && break
  sleep 0.1
done
if [[ -s $idfile ]]; then
  say "hearth-worker $n started (pid $pid) and registered with $url as $(cat "$idfile"); log $(hearth_file "$role" log)"
else
  # what the worker found of why (connection refused, keys...), if anything
  why=$(grep -h 'still trying$' "$(hearth_file "$role" log)" 2>/dev/null | tail -1 |
    sed 's/^.* WARN //; s/; still trying$//')
  say "hearth-worker $n started (pid $pid) but has not registered with $url yet${why:+: $why}; it keeps trying: see $(hearth_file "$role" log)"
  # not a success: the cluster does not have this worker (issue 42 item
  # 10); the worker runs on (hearth-stop-worker.sh stops it)
  exit 1
fi
