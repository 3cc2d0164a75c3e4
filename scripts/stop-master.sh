#!/usr/bin/env bash
# stop-master.sh - stop the hearth-master that start-master.sh started
# here (its pid file), and nothing else.
set -euo pipefail
# shellcheck source=hearth-common.sh
. "$(dirname "$0")/hearth-common.sh"
hearth_stop hearth-master master
rm -f "$(hearth_file master url)"
