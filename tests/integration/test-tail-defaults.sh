#!/usr/bin/env bash
# hearth-tail's defaults (issue 13):
# - heartbeats are hidden unless --topic heartbeat asks for them;
# - workers are shown by short names: worker-20261201093000-node1-4242 as
#   node1 while it is the only node1, node1-4242 once another worker is on
#   node1; --full-ids shows ids;
# - a line when the master goes away and when it comes back: on the same
#   events port (the SUB reconnects), and on another one (hearth-tail asks
#   the master again and follows it there); events flow again after;
# - --json adds each event's topic;
# - --state shows applications' submit time, duration, final state and
#   reason, and workers' short names;
# - an unknown --topic is refused.
. "$(dirname "$0")/../lib/cluster.sh"
deadline 120
CORES=2
A=worker-20261201093000-node1-4242
B=worker-20261201093000-node2-4343
C=worker-20261201093000-node1-4444

start_master || exit 1
EVENTS_PORT=${EVENTS_URL##*:}
start_worker w1 --id "$A" || exit 1
TAILS=()
# tail_to FILE ARGS...: hearth-tail in the background, lines to $T/FILE.
tail_to() {
  local file=$1; shift
  "$BIN/hearth-tail" --master "$MASTER_URL" --timeout 1s "$@" >"$T/$file" 2>"$T/$file.err" &
  PIDS+=($!)
  TAILS+=($!)
}
tail_to plain.txt
tail_to beats.txt --topic heartbeat
tail_to full.txt --full-ids
tail_to json.txt --json
check "the heartbeat tail sees heartbeats" \
  wait_for 10 grep -q ' heartbeat .*worker node1 ' "$T/beats.txt"
sleep 0.5 # every tail subscribed (slow joiner)

start_worker w2 --id "$B" || exit 1
check "a worker's registration shows its short name" \
  wait_for 5 grep -Eq "^\S+ worker +registered node2 127\.0\.0\.1 ALIVE cores 0/2$" "$T/plain.txt"
check "... and its id with --full-ids" \
  wait_for 5 grep -Eq "^\S+ worker +registered $B " "$T/full.txt"
start_worker w3 --id "$C" || exit 1
check "a second worker on node1 shows as node1-4444" \
  wait_for 5 grep -Eq " worker +registered node1-4444 " "$T/plain.txt"
check "... and the first one as node1-4242 from then on" \
  wait_for 5 grep -Eq " heartbeat .*worker node1-4242 " "$T/beats.txt"

start_app shown --max-cores 1 || exit 1
check "an executor's line names its worker by short name" \
  wait_for 10 grep -Eq " executor +added $APP_ID/0 on node(1-4242|2|1-4444): LAUNCHING" "$T/plain.txt"
kill -TERM "$APP_PID"
wait "$APP_PID"
check "... the application ended" wait_for 5 grep -q " app .*ended $APP_ID (shown) FINISHED" "$T/plain.txt"

check "no heartbeat without --topic heartbeat" \
  eval '! grep -q " heartbeat " "$T/plain.txt" "$T/full.txt"'
check "... none in --json either" eval '! grep -q "\"event\":\"heartbeat\"" "$T/json.txt"'
check "--json: every event carries its topic" \
  eval 'jq -e -s "length > 5 and all(.topic != null)" "$T/json.txt" >/dev/null'
check "... the one its frame had" \
  eval 'jq -e -s "any(.topic == \"executor\" and .executor != null)" "$T/json.txt" >/dev/null'

# --- the master goes away and comes back -------------------------------
kill9 "$MASTER_PID"
check "the master's end is said at once" \
  wait_for 5 grep -Eq "^\S+ master +gone: the connection to $EVENTS_URL closed" "$T/plain.txt"
check "... in --json too, as hearth-tail's own" \
  wait_for 5 eval 'jq -e -s "any(.topic == \"master\" and .event == \"gone\" and .from == \"hearth-tail\")" "$T/json.txt" >/dev/null'
check "... and no line says it is back yet" eval '! grep -q " master *back" "$T/plain.txt"'
PORT=$MASTER_PORT start_master --events-port "$EVENTS_PORT" || exit 1
check "on the same ports: it is back" \
  wait_for 10 grep -Eq "^\S+ master +back: " "$T/plain.txt"
# Events are best effort: those published before hearth-tail's SUB has
# reconnected are lost (the workers re-register within milliseconds of
# the master's return, and "back" may come from the DEALER first), so
# the check makes new ones (a drain and resume of one worker) until one
# arrives after the "back" line.
worker_event_after_back() {
  [[ $(sed -n "/ master *back: /,\$p" "$T/plain.txt" | grep -c " worker ") -ge 1 ]]
}
poke_worker() {
  "$BIN/hearth-admin" --master "$MASTER_URL" drain "$A" >/dev/null 2>&1
  "$BIN/hearth-admin" --master "$MASTER_URL" resume "$A" >/dev/null 2>&1
  false
}
check "... and events flow again" \
  wait_for 10 eval 'worker_event_after_back || poke_worker'
OLD_EVENTS=$EVENTS_URL
kill9 "$MASTER_PID"
check "gone again" wait_for 5 eval '[[ $(grep -c " master *gone: " "$T/plain.txt") == 2 ]]'
PORT=$MASTER_PORT start_master || exit 1
check "with another events port: hearth-tail follows it there" \
  wait_for 15 grep -q " master *back: the master answers again (ALIVE), events now from $EVENTS_URL" "$T/plain.txt"
check "... (it did move: $OLD_EVENTS, now $EVENTS_URL)" test "$OLD_EVENTS" != "$EVENTS_URL"
start_worker w4 --id worker-20261201093000-node4-4545 || exit 1
check "... and events flow from there" \
  wait_for 10 grep -q " worker *registered node4 " "$T/plain.txt"
kill "${TAILS[@]}" 2>/dev/null
wait "${TAILS[@]}" 2>/dev/null

# --- --state ---------------------------------------------------------------
start_app done-app --max-cores 1 || exit 1
DONE=$APP_ID
kill -TERM "$APP_PID"
wait "$APP_PID"
start_app killed-app --max-cores 1 || exit 1
KILLED=$APP_ID
"$BIN/hearth-submit" --master "$MASTER_URL" --kill "$KILLED" >/dev/null
start_app running-app --max-cores 1 || exit 1
RUNNING=$APP_ID
wait_for 5 jq_state ".apps[] | select(.id == \"$KILLED\") | .state == \"KILLED\""
sleep 1.1
"$BIN/hearth-tail" --master "$MASTER_URL" --state >"$T/state.txt"
check "--state: the applications' table has SUBMITTED, DURATION and REASON" \
  grep -Eq "^ID +NAME +STATE +CORES +MAX +SUBMITTED +DURATION +REASON$" "$T/state.txt"
stamp='[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z'
# (CORES of an ended one: the most it held, as Spark's completed
# applications show; before, 0)
check "... a finished one: its times, the cores it held and why it ended" \
  grep -Eq "^$DONE +done-app +FINISHED +1 +1 +$stamp +[0-9.]+(ms|s) +unregistered by its driver$" "$T/state.txt"
check "... a killed one: KILLED and why" \
  grep -Eq "^$KILLED +killed-app +KILLED +1 +1 +$stamp +[0-9.]+(ms|s) +killed by request$" "$T/state.txt"
check "... a running one: how long it has run so far, no reason" \
  grep -Eq "^$RUNNING +running-app +RUNNING +1 +1 +$stamp +[0-9.]+s$" "$T/state.txt"
# (issue 42 item 11: the completed ones came oldest first; Spark's and
# hearth-history's lists show the newest first)
check "... the running one first, then the ended ones newest first" \
  test "$(sed -n '/^APPLICATIONS$/,/^$/p' "$T/state.txt" | grep -Eo "^($DONE|$KILLED|$RUNNING) " | tr -d ' ' | tr '\n' ' ')" = "$RUNNING $KILLED $DONE "
check "... and so does the state (MASTER_STATE's apps)" \
  eval '[[ $(state_json | jq -r ".apps[].id" | tr "\n" " ") == "$RUNNING $KILLED $DONE " ]]'
check "... the workers by short name, then id" \
  grep -Eq "^node2 +$B +127\.0\.0\.1 +ALIVE " "$T/state.txt"
check "... and the executors' workers by short name" \
  grep -Eq "^$RUNNING +0 +node(1-4242|2|1-4444|4) " "$T/state.txt"

check "an unknown --topic is refused" \
  eval 'timeout 5 "$BIN/hearth-tail" --master "$MASTER_URL" --topic apps 2>"$T/err"; [[ $? == 2 ]] && grep -q "unknown topic .apps." "$T/err"'
finish
