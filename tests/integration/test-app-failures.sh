#!/usr/bin/env bash
# Failures around applications, with the stand-in executor (it can be told
# to fail): executors that keep failing end their application FAILED
# (max-executor-retries); a killed worker's executors are LOST, the driver
# hears worker_lost, and the cores are granted again elsewhere; a driver
# gone silent ends its application and its executors are killed; an
# executor that ignores SIGTERM gets SIGKILL after the grace period.
export HEARTH_FAKE_EXECUTOR=1
. "$(dirname "$0")/lib.sh"
deadline 90

start_master --max-executor-retries 3 || exit 1
start_worker w1 || exit 1
start_worker w2 || exit 1
start_worker w3 || exit 1

# --- executors that fail -----------------------------------------------
start_app bad --max-cores 1 --memory-mb 128 --conf fake.exit=3 || exit 1
check "the app fails after 3 executor failures in a row" \
  wait_for 15 grep -q '^APPLICATION_REMOVED FAILED' "$T/bad.out"
check "the driver heard FAILED with the exit status" \
  grep -q '^EXECUTOR_UPDATED 0 FAILED worker_lost=0 exited with status 3' "$T/bad.out"
check "3 executors tried" test "$(count_lines "$T/bad.out" '^EXECUTOR_ADDED ')" -eq 3
check "FAILED in MASTER_STATE with the reason" jq_state ".apps[] | select(.id
  == \"$APP_ID\") | .state == \"FAILED\" and .reason == \"too many executor failures\""
wait "$APP_PID"

# --- a worker dies under an application ---------------------------------
# 3 workers of 4 cores; max 8, 2 per executor, spread-out: [4,2,2].
start_app lost --max-cores 8 --cores-per-executor 2 --memory-mb 128 || exit 1
reg() { test "$(count_lines "$T/lost.out" '^EXECUTOR_REGISTERED ')" -ge "$1"; }
check "4 executors registered" wait_for 15 reg 4
busiest=$(state_json | jq -r --arg app "$APP_ID" '[.apps[] | select(.id ==
  $app) | .executors[]] | group_by(.worker_id) | max_by(length)[0].worker_id')
for w in w1 w2 w3; do
  id_var=ID_$w; pid_var=PID_$w
  [[ ${!id_var} == "$busiest" ]] && victim_pid=${!pid_var}
done
kill9 "$victim_pid"
check "the driver hears LOST with worker_lost" wait_for 5 \
  grep -q '^EXECUTOR_UPDATED [0-9]* LOST worker_lost=1' "$T/lost.out"
check "2 executors LOST" test "$(count_lines "$T/lost.out" ' LOST worker_lost=1')" -eq 2
check "the lost cores are granted again on the other workers" wait_for 5 \
  jq_state ".apps[] | select(.id == \"$APP_ID\") | .cores_granted == 8
    and all(.executors[]; .worker_id != \"$busiest\")"
check "6 executors added in all" test "$(count_lines "$T/lost.out" '^EXECUTOR_ADDED ')" -eq 6

# --- the driver dies ----------------------------------------------------
pids=$(awk '/^EXECUTOR_REGISTERED/{print $3}' "$T/lost.out")
gone() { local p; for p in $pids; do kill -0 "$p" 2>/dev/null && return 1; done; return 0; }
lost_app=$APP_ID
kill9 "$APP_PID"
check "a silent driver's application ends FAILED" wait_for 5 jq_state \
  ".apps[] | select(.id == \"$lost_app\") | .state == \"FAILED\"
    and (.reason | startswith(\"driver lost\"))"
check "its executors are killed" wait_for 5 gone

# --- an executor that ignores SIGTERM -----------------------------------
start_app stubborn --max-cores 1 --memory-mb 128 --conf fake.ignore-term=1 ||
  exit 1
check "stubborn executor started" wait_for 15 grep -q '^EXECUTOR_UPDATED 0 RUNNING' \
  "$T/stubborn.out"
wait_for 5 bash -c "ls $T/w*/$APP_ID/0/stdout" >/dev/null
pid=$(grep -h -o 'pid [0-9]*' "$T"/w*/"$APP_ID"/0/stderr | awk '{print $2}')
"$TBIN/test-app" --master "$MASTER_URL" --kill "$APP_ID" >/dev/null
t0=$(now_ms)
check "SIGKILL after the 1 s grace period" wait_for 5 bash -c "! kill -0 $pid"
elapsed=$(( $(now_ms) - t0 ))
say "stubborn executor gone after $elapsed ms"
check "not before the grace period" test "$elapsed" -ge 800
finish
