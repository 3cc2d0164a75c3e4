#!/usr/bin/env bash
# A worker that died keeps its last heartbeat across a restart of the
# master (issue 42 item 10): the journal's worker record carries it, and
# a restarted master shows a DEAD worker's last sign of life, not its
# registration time (2 s before it here), in MASTER_STATE (which the
# pages and Spark's /json show).
. "$(dirname "$0")/../lib/cluster.sh"
deadline 90
JOURNAL=$T/journal

start_master --journal "$JOURNAL" || exit 1
start_worker w1 || exit 1
# heartbeats for a while, so that the last one is well after registration
sleep 2
kill9 "$PID_w1"
dead() { jq_state ".workers[] | select(.id == \"$ID_w1\") | .state == \"DEAD\""; }
check "the killed worker is DEAD" wait_for 30 dead
state_json >"$T/before.json"
last=$(jq -r ".workers[] | select(.id == \"$ID_w1\") | .last_heartbeat_ms" "$T/before.json")
say "its last heartbeat: $last"

kill -TERM "$MASTER_PID"
wait "$MASTER_PID" 2>/dev/null
PORT=$MASTER_PORT start_master --journal "$JOURNAL" || exit 1
state_json >"$T/after.json"
check "after the restart it is DEAD still" jq -e \
  ".workers[] | select(.id == \"$ID_w1\") | .state == \"DEAD\"" "$T/after.json"
check "... with the same last heartbeat ($last), not its registration" jq -e \
  ".workers[] | select(.id == \"$ID_w1\") | .last_heartbeat_ms == $last" "$T/after.json"
finish
