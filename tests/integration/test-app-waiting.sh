#!/usr/bin/env bash
# An application registered when no worker has free cores is WAITING in
# MASTER_STATE (no cores granted, no executor, and why: no_worker, or
# cluster_full naming who holds the cores) and stays so; it becomes
# RUNNING when a worker joins, or when another application's cores free
# up, with the cores granted, and its job (a real hearth-submit in client
# mode, tasks of half a second) then completes.
. "$(dirname "$0")/../lib/cluster.sh"
deadline 90

printf '%s\n' '{"name":"n","stages":[{"name":"s","tasks":[{"cmd":["sh","-c","sleep 0.5; echo {i}"],"count":7}]},{"name":"c","tasks":[{"cmd":["wc","-l"],"input":"s"}]}]}' >"$T/job.json"

# submit_bg NAME: the job as application NAME, in the background; sets
# SUBMIT_PID.
submit_bg() {
  "$BIN/hearth-submit" --master "$MASTER_URL" --name "$1" \
    --executor-memory 256M --heartbeat-interval "${INTERVAL_MS}ms" \
    "$T/job.json" >"$T/$1.out" 2>"$T/$1.err" &
  SUBMIT_PID=$!
  PIDS+=($SUBMIT_PID)
}
# app NAME FILTER: the filter is true on the application called NAME.
app() {
  state_json | jq -e --arg n "$1" \
    "[.apps[] | select(.name == \$n)] | length == 1 and (.[0] | $2)" >/dev/null
}
# waits NAME WHY: checks that application NAME is WAITING, and still is a
# second (5 heartbeats) later.
waits() {
  check "$2: the application is WAITING" wait_for 10 app "$1" "$WAITING"
  sleep 1
  check "... and still WAITING a second later" app "$1" "$WAITING"
}
# runs_to_end NAME WHY: checks that application NAME becomes RUNNING with
# the worker's 2 cores and its job completes.
runs_to_end() {
  check "$2: the application is RUNNING" \
    wait_for 10 app "$1" '.state == "RUNNING" and .cores_granted == 2'
  check "... its job completes" wait_for 30 bash -c "! kill -0 $SUBMIT_PID"
  wait "$SUBMIT_PID"
  check "... hearth-submit exiting 0" test $? -eq 0
  check "... with the job's result" grep -qx 7 "$T/$1.out"
  check "... and the application FINISHED" wait_for 5 app "$1" '.state == "FINISHED"'
}
WAITING='.state == "WAITING" and .cores_granted == 0 and (.executors | length) == 0'

# --- no worker at all ------------------------------------------------------
start_master || exit 1
submit_bg early
waits early "no worker in the cluster"
check "... saying why (no_worker)" \
  app early '.waiting == {code: "no_worker", reason: "no worker is alive"}'
check "... its driver still waiting for it" kill -0 "$SUBMIT_PID"
CORES=2 start_worker w1 || exit 1
runs_to_end early "a worker joins"
check "... its executor ran on the new worker" \
  grep -q 'executor app-.* started' "$T/w1.log"

# --- every core taken by another application --------------------------------
start_app hog --max-cores 2 --cores-per-executor 1 --memory-mb 256 || exit 1
check "another application takes both cores" wait_for 10 \
  jq_state '.workers[0].cores_used == 2 and ([.apps[] | select(.name == "hog")][0].state == "RUNNING")'
submit_bg late
waits late "registered while every core is taken"
check "... waiting for the cores the first holds, naming it (cluster_full)" \
  app late '.waiting == {code: "cluster_full", reason: "no worker has room for one executor (1 core, 256 MiB) now: it waits for the cores held by '"$APP_ID"' (hog)"}'
check "... the worker's cores all held by the first" \
  jq_state '.workers[0].cores_used == 2'
kill -TERM "$APP_PID"
check "the first application ends" wait_for 10 bash -c "! kill -0 $APP_PID"
runs_to_end late "its cores free up"
check "no cores left in use" wait_for 10 jq_state '.workers[0].cores_used == 0'
finish
