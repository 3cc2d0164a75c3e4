#!/usr/bin/env bash
# stop-worker.sh [INSTANCE...] - stop the hearth-workers that
# start-worker.sh started here (all instances, or those named), through
# their pid files; each stops its executors and drivers first.
set -euo pipefail
usage() {
  cat <<EOF
Usage: $(basename "$0") [INSTANCE...]

Stop the hearth-workers that ${hearth_prefix}start-worker.sh started here,
all of them or the numbered instances given, through their pid files
(SIGTERM, then SIGKILL after HEARTH_STOP_TIMEOUT); each stops its
executors and drivers first.
EOF
}
# Instance numbers only.
check_args() {
  local a
  for a in "$@"; do [[ $a =~ ^[0-9]+$ ]] || hearth_bad_arg "$a"; done
}
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
