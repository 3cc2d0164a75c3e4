#!/usr/bin/env bash
# hearth-submit --kill APP_ID ends an application of any deploy mode
# (KILL_APPLICATION): the master ends it KILLED, the workers stop its
# executors, its client-mode driver fails its job and exits non-zero
# saying so; killing it again, or an unknown application, is refused.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 60
export TMPDIR=$T

start_master || exit 1
CORES=2 start_worker w1 || exit 1

J=$(job forever '{"name":"forever","stages":[{"name":"s","tasks":[
  {"cmd":["sleep","60"],"count":2}]}]}')
submit --master "$MASTER_URL" --name "kill me" "$J" &
SUB=$!
PIDS+=($SUB)
running() {
  jq_state '[.apps[] | select(.state == "RUNNING")] | length == 1'
}
check "a client-mode job runs" wait_for 30 running
APP=$(state_json | jq -r '.apps[] | select(.state == "RUNNING") | .id')
check "... under the name --name gave it" jq_state \
  ".apps[] | select(.id == \"$APP\") | .name == \"kill me\""
check "... its tasks on the worker" wait_for 10 test -n "$(procs_in "$T/w1/$APP")"

"$BIN/hearth-submit" --master "$MASTER_URL" --kill "$APP" >"$T/kill.out" 2>&1
check "--kill APP_ID succeeds" test $? -eq 0
check "... saying so" grep -qx "application $APP KILLED" "$T/kill.out"
check "the application is KILLED" jq_state \
  ".apps[] | select(.id == \"$APP\") | .state == \"KILLED\""
check "nothing of it runs on the worker" wait_for 10 none_in "$T/w1/$APP"
wait "$SUB"
rc=$?
check "its driver exits non-zero ($rc)" test $rc -ne 0
check "... saying the application was killed" grep -qi 'killed' "$T/err"
# (issue 42 item 7) what ends with the application is not a loss, and
# the executors' last words are not a protocol error
check "... not that its executors were lost, with tasks to run again" \
  eval '! grep -q "tasks to run again" "$T/err"'
check "... nor in the protocol's words" \
  eval '! grep -q "has not registered\|REGISTER_EXECUTOR" "$T/err"'

"$BIN/hearth-submit" --master "$MASTER_URL" --kill "$APP" >"$T/kill.out" 2>&1
check "killing it again exits 1" test $? -eq 1
check "... saying it already ended" grep -q 'already ended' "$T/kill.out"
"$BIN/hearth-submit" --master "$MASTER_URL" --kill app-20200101000000-0001 \
  >"$T/kill.out" 2>&1
check "killing an unknown application exits 1" test $? -eq 1
check "... saying so" grep -q 'no such application' "$T/kill.out"

# The application of a supervised cluster-mode driver: the driver is
# killed with it, for good (as --kill DRIVER_ID).
"$BIN/hearth-submit" --master "$MASTER_URL" --deploy-mode cluster --supervise \
  --no-wait --executor-memory 512M "$J" >"$T/cm.out" 2>"$T/cm.err"
DRV=$(head -1 "$T/cm.out")
app_of() {
  state_json | jq -r --arg d "$DRV" '.drivers[] | select(.id == $d) | .app_id // empty'
}
cm_running() {
  local a; a=$(app_of)
  [[ -n $a ]] && jq_state ".apps[] | select(.id == \"$a\") | .state == \"RUNNING\""
}
check "a supervised cluster-mode job runs" wait_for 30 cm_running
CM_APP=$(app_of)
"$BIN/hearth-submit" --master "$MASTER_URL" --kill "$CM_APP" >"$T/kill.out" 2>&1
check "--kill of its application succeeds" test $? -eq 0
drv_state() {
  "$BIN/hearth-submit" --master "$MASTER_URL" --status "$DRV" 2>/dev/null |
    awk '$1 == "state:" {print $2}'
}
killed() { [[ $(drv_state) == KILLED ]]; }
check "... its driver ends KILLED" wait_for 10 killed
sleep 2
check "... and is not relaunched" \
  eval '[[ $(drv_state) == KILLED ]] && "$BIN/hearth-submit" --master "$MASTER_URL" \
    --status "$DRV" | grep -Eq "^launches: +1( |$)"'
check "nothing of it runs on the worker" wait_for 10 none_in "$T/w1/$DRV"
finish
