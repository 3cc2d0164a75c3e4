#!/usr/bin/env bash
# start-master.sh [MASTER_FLAGS...] - start hearth-master on this machine,
# in the background, with a pid file and a log file (docs/operations.md).
# Does nothing when the master of this pid file already runs.
#
# Settings (environment or $HEARTH_CONF_DIR/hearth-env.sh):
# HEARTH_MASTER_HOST, HEARTH_MASTER_PORT (0: any free port),
# HEARTH_MASTER_EVENTS_PORT, HEARTH_MASTER_JOURNAL (its journal, so that
# a master started again recovers the cluster; empty: none),
# HEARTH_MASTER_OPTS, HEARTH_PID_DIR, HEARTH_LOG_DIR.  It prints the master's URL, also kept in
# $HEARTH_PID_DIR/hearth-$USER-master.url.
set -euo pipefail
usage() {
  cat <<EOF
Usage: $(basename "$0") [MASTER_FLAGS...]

Start hearth-master on this machine in the background, with a pid file and
a log file, and print its URL once it has bound its ports.  Does nothing
when the master of this pid file already runs.  MASTER_FLAGS are passed to
hearth-master (hearth-master --help); it refuses a flag it does not know.

  HEARTH_MASTER_HOST         address to bind and advertise (127.0.0.1)
  HEARTH_MASTER_PORT         ROUTER port (7077; 0: any free port)
  HEARTH_MASTER_EVENTS_PORT  events port (default: the port + 1)
  HEARTH_MASTER_JOURNAL      its journal (\$HEARTH_PID_DIR/journal;
                             empty: none)
  HEARTH_MASTER_OPTS         more hearth-master flags
EOF
}
# shellcheck source=hearth-common.sh
. "$(dirname "$0")/hearth-common.sh"

pidfile=$(hearth_file master pid)
urlfile=$(hearth_file master url)
if pid=$(hearth_running "$pidfile" hearth-master); then
  say "hearth-master already runs (pid $pid) at $(head -1 "$urlfile" 2>/dev/null || echo '?')"
  exit 0
fi
rm -f "$urlfile"
args=(--host "$HEARTH_MASTER_HOST" --port "$HEARTH_MASTER_PORT"
  --ready-file "$urlfile")
if [[ -n $HEARTH_MASTER_EVENTS_PORT ]]; then
  args+=(--events-port "$HEARTH_MASTER_EVENTS_PORT")
fi
if [[ -n $HEARTH_MASTER_JOURNAL ]]; then
  args+=(--journal "$HEARTH_MASTER_JOURNAL")
fi
# shellcheck disable=SC2206
args+=($HEARTH_MASTER_OPTS "$@")
hearth_launch hearth-master master "${args[@]}" || exit $?
for ((i = 0; i < HEARTH_START_TIMEOUT * 10; i++)); do
  [[ -s $urlfile ]] && break
  sleep 0.1
done
[[ -s $urlfile ]] || die "hearth-master did not bind its ports: see $(hearth_file master log)"
say "hearth-master started (pid $(hearth_running "$pidfile" hearth-master)) at $(head -1 "$urlfile"); log $(hearth_file master log)"
