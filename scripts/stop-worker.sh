#!/usr/bin/env bash
# stop-worker.sh [INSTANCE...] - stop the hearth-workers that
# start-worker.sh started here (all instances, or those named), through
# their pid files; each stops its executors and drivers first.
set -euo pipefail
# shellcheck source=hearth-common.sh
. "$(dirname "$0")/hearth-common.sh"

instances=("$@")
if [[ ${#instances[@]} -eq 0 ]]; then
  shopt -s nullglob
  for f in "$HEARTH_PID_DIR/hearth-$HEARTH_IDENT_STRING"-worker-*.pid; do
    n=${f##*-worker-}
    instances+=("${n%.pid}")
  done
fi
if [[ ${#instances[@]} -eq 0 ]]; then
  say "no hearth-worker to stop (no pid file in $HEARTH_PID_DIR)"
  exit 0
fi
for n in "${instances[@]}"; do
  hearth_stop hearth-worker "worker-$n" &
done
wait
for n in "${instances[@]}"; do rm -f "$(hearth_file "worker-$n" id)"; done
