#!/usr/bin/env bash
# stop-cluster.sh - stop what start-cluster.sh started: the workers on
# every host of $HEARTH_CONF_DIR/workers (stop-worker.sh, over ssh for
# other hosts; each stops its executors and drivers), then the master
# here.  Only processes named by the pid files are stopped.
set -euo pipefail
usage() {
  cat <<EOF
Usage: $(basename "$0")

Stop what ${hearth_prefix}start-cluster.sh started: the workers on every
host of \$HEARTH_CONF_DIR/workers (${hearth_prefix}stop-worker.sh, over ssh
for other hosts; each stops its executors and drivers first), then the
master here.  Only the
processes named by the pid files are stopped.  It takes no argument.

  HEARTH_SSH_OPTS  ssh options for the other hosts
EOF
}
# It takes no argument.
check_args() { [[ $# -eq 0 ]] || hearth_bad_arg "$1"; }
# shellcheck source=hearth-common.sh
. "$(dirname "$0")/hearth-common.sh"

mapfile -t hosts < <(hearth_workers | sort -u)
pids=()
for h in "${hosts[@]}"; do
  (
    hearth_on "$h" stop-worker.sh 2>&1 | sed "s/^/$h: /"
    exit "${PIPESTATUS[0]}"
  ) &
  pids+=($!)
done
status=0
for p in "${pids[@]}"; do wait "$p" || status=1; done
"$(hearth_script stop-master.sh)" || status=1
exit "$status"
