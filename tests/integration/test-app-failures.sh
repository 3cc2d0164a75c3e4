#!/usr/bin/env bash
# Failures around applications, with the real hearth-executor: executors
# that keep failing (a --conf value they refuse at start-up) end their
# application FAILED (max-executor-retries); a killed worker's executors
# are LOST, the driver hears worker_lost, and the cores are granted again
# elsewhere; a driver gone silent ends its application and its executors
# are killed; an executor that takes longer than the worker's --kill-grace
# to stop (a function task still runs) gets SIGKILL after the grace.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 90
export TMPDIR=$T

# --resume-window 0: a silent driver's application ends FAILED at once, as
# before issue 39 (test-resume-window.sh tests the window)
start_master --max-executor-retries 3 --resume-window 0 || exit 1
start_worker w1 || exit 1
start_worker w2 || exit 1
start_worker w3 || exit 1

# --- executors that fail -----------------------------------------------
# The worker passes the application's conf to its executors as --conf
# KEY=VALUE: a value the executor cannot read stops it at start-up (exit 2).
start_app bad --max-cores 1 --memory-mb 128 --conf heartbeat-interval=soon ||
  exit 1
check "the app fails after 3 executor failures in a row" \
  wait_for 15 grep -q '^APPLICATION_REMOVED FAILED' "$T/bad.out"
check "the driver heard FAILED with the exit status" \
  grep -q '^EXECUTOR_UPDATED 0 FAILED worker_lost=0 exited with status 2' "$T/bad.out"
check "the executor said why" grep -q "heartbeat-interval" "$T"/w*/"$APP_ID"/0/stderr
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

# --- an executor that does not stop within the grace period ------------
# A function task cannot be interrupted: the executor waits up to 1 s for
# it at exit, longer than this worker's grace, so the worker SIGKILLs it.
for w in w1 w2 w3; do pid_var=PID_$w; kill -TERM "${!pid_var}" 2>/dev/null; done
for w in w1 w2 w3; do pid_var=PID_$w; wait "${!pid_var}" 2>/dev/null; done
start_worker grace --kill-grace 300ms || exit 1
J=$(job stubborn '{"name":"stubborn","lib":"libtesttasks.so","stages":[{"name":"s",
  "tasks":[{"fn":"sleep_ms","arg":"60000"}]}]}')
submit --master "$MASTER_URL" --lib "$TASKS_LIB" --total-executor-cores 1 \
  --executor-memory 128M --log-level info "$J" &
PIDS+=($!)
exec_pid() {
  local p
  for p in $(procs_in "$T/grace"); do
    [[ $(cat "/proc/$p/comm" 2>/dev/null) == hearth-executor ]] && echo "$p"
  done
}
# (the master may first place it on a worker that just stopped: any exec id)
check "the executor runs a long function task" wait_for 20 \
  bash -c "grep -qs 'registered with the driver' '$T'/grace/app-*/*/stderr"
sleep 0.5
pid=$(exec_pid)
APP_ID=$(basename "$(ls -d "$T"/grace/app-*)")
# The clock starts before the kill is sent: the worker's grace begins after
# it, so the executor cannot be gone sooner than 300 ms from here. (Timed
# from test-app's return instead, a slow start and exit of test-app ate
# 90 ms of the grace in CI and the check saw 209 ms.)
t0=$(now_ms)
"$TBIN/test-app" --master "$MASTER_URL" --kill "$APP_ID" >/dev/null
check "SIGKILL after the 300 ms grace period" wait_for 5 bash -c "! kill -0 $pid 2>/dev/null"
elapsed=$(( $(now_ms) - t0 ))
say "executor busy in a function task gone after $elapsed ms"
check "not before the grace period" test "$elapsed" -ge 295
check "the worker says so" grep -q "did not stop within 300 ms of SIGTERM: SIGKILL" \
  "$T/grace.log"
finish
