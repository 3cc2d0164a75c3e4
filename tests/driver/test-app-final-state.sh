#!/usr/bin/env bash
# An application's final state is how it ended (issue 13, defect 4):
# FAILED with the task's error when its job failed, KILLED when
# hearth-submit was stopped by Ctrl-C (SIGINT) or SIGTERM, FINISHED when
# its job succeeded; the same in MASTER_STATE, in the `app` events that
# hearth-tail follows, across a restart of the master on its journal, and
# in --status of a cluster-mode driver.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 150
export TMPDIR=$T
JOURNAL=$T/journal

start_master --journal "$JOURNAL" || exit 1
CORES=2 start_worker w1 || exit 1
"$BIN/hearth-tail" --master "$MASTER_URL" --topic app --json \
  >"$T/events" 2>"$T/tail.err" &
PIDS+=($!)
sleep 0.5 # the subscription is in place before the first application

# app_field NAME FIELD: FIELD of the application called NAME.
app_field() {
  state_json | jq -r --arg n "$1" ".apps[] | select(.name == \$n) | .$2"
}
# app_is NAME STATE: the application called NAME is in STATE.
app_is() { [[ $(app_field "$1" state) == "$2" ]]; }
running() { app_is "$1" RUNNING; }

J=$(job fails '{"name":"fails","stages":[{"name":"s","tasks":[
  {"cmd":["sh","-c","echo disk on fire >&2; exit 3"]}]}]}')
submit --master "$MASTER_URL" --name failing --max-failures 2 "$J"
check "a failing job exits 1" test $? -eq 1
check "its application is FAILED" app_is failing FAILED
check "... with the task's error as the reason" eval \
  '[[ $(app_field failing reason) == *"task 0 failed 2 times; last error: sh exited with status 3: disk on fire"* ]]'

# stopped_by SIG NAME APP...: hearth-submit runs APP as NAME, with SIGINT
# at its default action (a shell ignores it in background jobs), until
# SIG stops it: it exits 128 + SIG, the application ends KILLED.
stopped_by() {
  local sig=$1 name=$2
  shift 2
  # not through submit(): $! must be hearth-submit itself
  env --default-signal=INT "$BIN/hearth-submit" \
    --heartbeat-interval "${INTERVAL_MS}ms" --heartbeat-liveness "$LIVENESS" \
    --master "$MASTER_URL" --name "$name" "$@" >"$T/out" 2>"$T/err" &
  local sub=$!
  PIDS+=($sub)
  check "$name: a long job runs (SIG$sig next)" wait_for 20 running "$name"
  kill -"$sig" "$sub"
  wait "$sub"
  local rc=$?
  check "$name: SIG$sig stops it (exit $rc)" test "$rc" -eq $((128 + $(kill -l "$sig")))
  check "$name: ... and its application is KILLED, stopped by SIG$sig" eval \
    "app_is $name KILLED && [[ \$(app_field $name reason) == 'stopped by SIG$sig' ]]"
}
LONG=$(job long '{"name":"long","stages":[{"name":"s","tasks":[
  {"cmd":["sleep","60"],"count":2}]}]}')
stopped_by INT by-INT "$LONG"
stopped_by TERM by-TERM "$LONG"

OK=$(job ok '{"name":"ok","stages":[{"name":"s","tasks":[{"cmd":["echo","hi"]}]}]}')
check "a successful job exits 0" submit --master "$MASTER_URL" --name fine "$OK"
check "its application is FINISHED" app_is fine FINISHED

# ended_event NAME STATE: hearth-tail saw NAME end in STATE.
ended_event() {
  jq -se --arg n "$1" --arg s "$2" \
    'any(.[]; .event == "ended" and .app.name == $n and .app.state == $s)' \
    "$T/events" >/dev/null
}
check "the app events say FAILED, with the reason" eval \
  'ended_event failing FAILED && grep -q "disk on fire" "$T/events"'
check "... KILLED twice" eval 'ended_event by-INT KILLED && ended_event by-TERM KILLED'
check "... FINISHED" ended_event fine FINISHED

kill9 "$MASTER_PID"
PORT=$MASTER_PORT start_master --journal "$JOURNAL" || exit 1
check "after a restart on the journal: still FAILED, KILLED, KILLED, FINISHED" \
  eval 'app_is failing FAILED && app_is by-INT KILLED && app_is by-TERM KILLED &&
    app_is fine FINISHED'
check "... with the reasons" eval \
  '[[ $(app_field failing reason) == *"disk on fire"* && $(app_field by-TERM reason) == *SIGTERM* ]]'
alive() { jq_state '.status == "ALIVE" and ([.workers[] | select(.state == "ALIVE")] | length == 1)'; }
check "the master recovers, with its worker" wait_for 20 alive

# A libhearth program: the rule of hearth.h (hearth_ctx_set_final_state).
CTX=$BIN/tests/driver/test-ctx
# ctx_ends MODE STATE REASON: test-ctx MODE's application ends in STATE,
# its reason matching REASON.
ctx_ends() {
  submit --master "$MASTER_URL" --name "ctx-$1" --max-failures 1 "$CTX" "$1"
  check "libhearth, $1: exits 0" test $? -eq 0
  check "libhearth, $1: the application is $2 ($3)" eval \
    "app_is ctx-$1 $2 && [[ \$(app_field ctx-$1 reason) == $3 ]]"
}
ctx_ends fail-then-ok FINISHED "*"
ctx_ends ok-then-fail FAILED "'job job failed: stage s, task 0 failed 1 time; last error: false exited with status 1'"
ctx_ends explicit FAILED "'the answer was wrong'"
ctx_ends cancel FINISHED "*"
# Without --name, a libhearth program's application is named after the
# program, as Spark names one after its main class (issue 42 item 10:
# every one was "hearth").
submit --master "$MASTER_URL" --max-failures 1 "$CTX" fail-then-ok
check "libhearth without --name: exits 0" test $? -eq 0
check "... its application is named after the program (test-ctx)" app_is test-ctx FINISHED
# The program leaves SIGINT and SIGTERM alone: libhearth ends the
# application KILLED, then the program dies of the signal.
stopped_by INT ctx-INT "$CTX" sleep
stopped_by TERM ctx-TERM "$CTX" sleep

# A cluster-mode driver whose job fails: --status shows its application's
# end.
submit --master "$MASTER_URL" --deploy-mode cluster --name cm-failing \
  --executor-memory 512M --driver-memory 256M --max-failures 1 "$J"
check "a failing cluster-mode driver exits non-zero" test $? -ne 0
DRV=$(grep -ho 'driver-[0-9]*-[0-9]*' "$T/out" "$T/err" | head -1)
"$BIN/hearth-submit" --master "$MASTER_URL" --status "$DRV" >"$T/status" 2>&1
check "--status of the driver shows its application FAILED, with the reason" \
  grep -Eq '^application: +app-[0-9-]+ \(FAILED: .*disk on fire' "$T/status"
CM_APP=$(state_json | jq -r --arg d "$DRV" '.drivers[] | select(.id == $d) | .app_id')
check "the application is FAILED in MASTER_STATE too" jq_state \
  ".apps[] | select(.id == \"$CM_APP\") | .state == \"FAILED\""
check "nothing is left running" eval 'wait_for 10 none_in "$T/w1"'
finish
