#!/usr/bin/env bash
# stop-master.sh - stop the hearth-master that start-master.sh started
# here (its pid file), and nothing else.
set -euo pipefail
usage() {
  cat <<EOF
Usage: $(basename "$0")

Stop the hearth-master that ${hearth_prefix}start-master.sh started here
(SIGTERM, then SIGKILL after HEARTH_STOP_TIMEOUT), through its pid file,
and nothing else.  It takes no argument.
EOF
}
# It takes no argument.
check_args() { [[ $# -eq 0 ]] || hearth_bad_arg "$1"; }
# shellcheck source=hearth-common.sh
. "$(dirname "$0")/hearth-common.sh"
hearth_stop hearth-master master
rm -f "$(hearth_file master url)"
