#!/usr/bin/env bash
# start-cluster.sh - start a whole cluster from this machine: the master
# here (start-master.sh), then one worker per line of
# $HEARTH_CONF_DIR/workers (start-worker.sh), over ssh for other hosts; a
# host named N times runs N workers.  Running it again starts only what
# is not running.  See docs/operations.md.
set -euo pipefail
usage() {
  cat <<EOF
Usage: $(basename "$0")

Start a whole cluster from this machine: the master here
(${hearth_prefix}start-master.sh), then one worker per line of
\$HEARTH_CONF_DIR/workers (${hearth_prefix}start-worker.sh), over ssh for
other hosts; a host named N times runs N workers.  Running it again
starts only what is not running.  It takes no argument: everything comes
from the settings of ${hearth_prefix}start-master.sh and
${hearth_prefix}start-worker.sh (see their --help) and from:

  HEARTH_SSH_OPTS  ssh options for the other hosts
                   (-o BatchMode=yes -o ConnectTimeout=10)
EOF
}
# It takes no argument.
check_args() { [[ $# -eq 0 ]] || hearth_bad_arg "$1"; }
# shellcheck source=hearth-common.sh
. "$(dirname "$0")/hearth-common.sh"

"$(hearth_script start-master.sh)"
url=$(head -1 "$(hearth_file master url)" 2>/dev/null) ||
  die "the master's URL is not in $(hearth_file master url)"

mapfile -t hosts < <(hearth_workers)
remote=0
for h in "${hosts[@]}"; do hearth_is_local "$h" || remote=1; done
if ((remote)) && [[ $url == tcp://127.* || $url == tcp://localhost:* ]]; then
  say "warning: the master listens on $url, which other hosts cannot reach: set HEARTH_MASTER_HOST in $HEARTH_CONF_DIR/hearth-env.sh" >&2
fi

declare -A count=()
pids=()
for h in "${hosts[@]}"; do
  count[$h]=$((${count[$h]:-0} + 1))
  host_of_worker=$h
  hearth_is_local "$h" && [[ $h == localhost || $h == 127.* ]] && host_of_worker=127.0.0.1
  (
    export HEARTH_WORKER_HOST=${HEARTH_WORKER_HOST:-$host_of_worker}
    hearth_on "$h" start-worker.sh "$url" "${count[$h]}" 2>&1 | sed "s/^/$h: /"
    exit "${PIPESTATUS[0]}"
  ) &
  pids+=($!)
done
status=0
for p in "${pids[@]}"; do wait "$p" || status=1; done
((status == 0)) || die "some workers did not start (see above)"
say "cluster up: master $url, ${#hosts[@]} workers"
