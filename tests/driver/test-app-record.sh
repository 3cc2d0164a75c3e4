#!/usr/bin/env bash
# The master's own record of an application (issue 16): where its driver
# writes the event log (REGISTER_APPLICATION `event_log`, absolute even
# when given relative, absent without one), in MASTER_STATE and in
# hearth-tail --state's completed applications; and the real final state
# and reason (FINISHED, FAILED, KILLED), kept across a restart of the
# master on its journal, with the event log's location and the durations
# -- including drivers killed with kill -9 (client mode and cluster
# mode), whose applications must not show FINISHED.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 200
export TMPDIR=$T
JOURNAL=$T/journal
TR=$(realpath "$T")

# --resume-window 0: drivers killed with kill -9 end their applications
# FAILED at once, as before issue 39 (test-resume-window.sh tests the
# window)
start_master --journal "$JOURNAL" --resume-window 0 || exit 1
CORES=2 start_worker w1 || exit 1

app_field() {
  state_json | jq -r --arg n "$1" ".apps[] | select(.name == \$n) | .$2"
}
app_is() { [[ $(app_field "$1" state) == "$2" ]]; }
running() { app_is "$1" RUNNING; }
# times NAME: its submit_ms and end_ms, tab-separated.
times() {
  state_json | jq -r --arg n "$1" '.apps[] | select(.name == $n) | [.submit_ms, .end_ms] | @tsv'
}
ended() { local s; s=$(app_field "$1" state); [[ -n $s && $s != RUNNING && $s != WAITING ]]; }

OK=$(job ok '{"name":"ok","stages":[{"name":"s","tasks":[{"cmd":["true"]}]}]}')
FAILS=$(job fails '{"name":"fails","stages":[{"name":"s","tasks":[
  {"cmd":["sh","-c","echo disk on fire >&2; exit 3"]}]}]}')
LONG=$(job long '{"name":"long","stages":[{"name":"s","tasks":[{"cmd":["sleep","60"]}]}]}')

# --- the event log's location ------------------------------------------
(cd "$T" && submit --master "$MASTER_URL" --name logged --event-log evdir "$OK")
check "a job with a relative --event-log succeeds" test $? -eq 0
check "MASTER_STATE has its event_log, made absolute" eval \
  '[[ $(app_field logged event_log) == "$TR/evdir" ]]'
check "... where the log is" eval 'ls "$TR"/evdir/app-*.events >/dev/null'
submit --master "$MASTER_URL" --name unlogged "$OK"
check "without --event-log: no event_log" eval '[[ $(app_field unlogged event_log) == null ]]'
submit --master "$MASTER_URL" --name failing --event-log "$T/ev2" --max-failures 1 "$FAILS"
check "a failing job: FAILED, with its event_log" eval \
  'app_is failing FAILED && [[ $(app_field failing event_log) == "$TR/ev2" ]]'
"$BIN/hearth-tail" --master "$MASTER_URL" --state --timeout 3s >"$T/state.txt"
check "hearth-tail --state lists the completed applications' event logs" eval \
  'grep -Eq "^app-[0-9-]+  FINISHED  $TR/evdir\$" "$T/state.txt" &&
   grep -Eq "^app-[0-9-]+  FAILED    $TR/ev2\$" "$T/state.txt"'

# --- drivers killed with kill -9 -----------------------------------------
env --default-signal=INT "$BIN/hearth-submit" --heartbeat-interval "${INTERVAL_MS}ms" \
  --heartbeat-liveness "$LIVENESS" --master "$MASTER_URL" --name killed9 \
  --event-log "$T/ev3" "$LONG" >"$T/k9.out" 2>&1 &
K9=$!
PIDS+=($K9)
check "a client-mode driver runs (kill -9 next)" wait_for 20 running killed9
kill9 "$K9"
check "its application ends once the master finds the driver gone" wait_for 20 ended killed9
check "... FAILED, not FINISHED, with why" eval \
  'app_is killed9 FAILED && [[ $(app_field killed9 reason) == "driver lost: no heartbeat for "* ]]'
REASON9=$(app_field killed9 reason)

submit --master "$MASTER_URL" --deploy-mode cluster --name cm-killed9 \
  --executor-memory 512M --driver-memory 256M --event-log "$T/ev4" "$LONG" &
CMSUB=$!
PIDS+=($CMSUB)
check "a cluster-mode driver runs (kill -9 of it next)" wait_for 30 running cm-killed9
DPID=$(test_pids hearth-driver | head -1)
check "... its process found" test -n "$DPID"
kill -9 "$DPID"
check "its application ends" wait_for 20 ended cm-killed9
check "... FAILED, not FINISHED, its driver's end the reason" eval \
  'app_is cm-killed9 FAILED && [[ $(app_field cm-killed9 reason) == *driver* ]]'
wait "$CMSUB" 2>/dev/null
REASONCM=$(app_field cm-killed9 reason)
declare -A DUR
for n in logged failing killed9 cm-killed9; do
  DUR[$n]=$(times "$n")
done

# --- across a restart of the master on its journal --------------------------
kill9 "$MASTER_PID"
PORT=$MASTER_PORT start_master --journal "$JOURNAL" --resume-window 0 || exit 1
check "after a restart: FINISHED, FAILED, FAILED, FAILED as before" eval \
  'app_is logged FINISHED && app_is failing FAILED && app_is killed9 FAILED &&
   app_is cm-killed9 FAILED'
check "... the same reasons" eval \
  '[[ $(app_field failing reason) == *"disk on fire"* &&
     $(app_field killed9 reason) == "$REASON9" &&
     $(app_field cm-killed9 reason) == "$REASONCM" ]]'
check "... the event logs' locations" eval \
  '[[ $(app_field logged event_log) == "$TR/evdir" &&
     $(app_field killed9 event_log) == "$TR/ev3" &&
     $(app_field unlogged event_log) == null ]]'
same_times() {
  local n
  for n in logged failing killed9 cm-killed9; do
    [[ $(times "$n") =~ ^[0-9]+$'\t'[0-9]+$ && $(times "$n") == "${DUR[$n]}" ]] || return 1
  done
}
check "... and the same submit and end times" same_times

# A driver killed with kill -9 while the master is down: when the master
# comes back it waits for the driver, which never returns.
env --default-signal=INT "$BIN/hearth-submit" --heartbeat-interval "${INTERVAL_MS}ms" \
  --heartbeat-liveness "$LIVENESS" --master "$MASTER_URL" --name orphan \
  "$LONG" >"$T/orphan.out" 2>&1 &
OR=$!
PIDS+=($OR)
check "one more driver runs" wait_for 20 running orphan
kill9 "$MASTER_PID"
kill9 "$OR"
PORT=$MASTER_PORT start_master --journal "$JOURNAL" --resume-window 0 || exit 1
check "its application, recovering, ends FAILED when its driver does not come back" \
  wait_for 30 app_is orphan FAILED
check "... saying so" eval '[[ $(app_field orphan reason) == *"did not come back"* ]]'
finish
