#!/usr/bin/env bash
# hearth-tail --topic, repeated: `--topic app --topic executor` prints
# every app and executor event and nothing else, while heartbeats and
# worker events flow; through it, an application's registration, running
# and end, and its executors launched, running and ended; and
# `--topic driver` follows a cluster-mode driver from SUBMITTED to
# FINISHED.
. "$(dirname "$0")/../lib/cluster.sh"
deadline 90

start_master || exit 1
start_worker w1 || exit 1

# tail_to FILE ARGS...: hearth-tail in the background, lines to $T/FILE
# (workers by their ids: this test follows topics, not names).
tail_to() {
  local file=$1; shift
  "$BIN/hearth-tail" --master "$MASTER_URL" --full-ids "$@" >"$T/$file" 2>&1 &
  PIDS+=($!)
  TAILS+=($!)
}
TAILS=()
tail_to two.txt --topic app --topic executor
tail_to driver.txt --topic driver
tail_to all.txt --topic heartbeat --topic worker --topic app \
  --topic executor --topic driver --topic master
# The tails subscribed when the one of every topic sees a heartbeat.
wait_for 10 grep -q ' heartbeat ' "$T/all.txt" || fail "no heartbeat seen"
sleep 0.3

printf '%s\n' '{"name":"n","stages":[{"name":"s","tasks":[{"cmd":["sh","-c","echo {i}"],"count":7}]},{"name":"c","tasks":[{"cmd":["wc","-l"],"input":"s"}]}]}' >"$T/job.json"
# submit NAME ARGS...: the job as application NAME, output to $T/NAME.out.
submit() {
  local name=$1; shift
  "$BIN/hearth-submit" --master "$MASTER_URL" --name "$name" \
    --executor-memory 256M "$@" "$T/job.json" >"$T/$name.out" 2>&1
}
check "a job runs in client mode on 2 executors" \
  submit tailjob --executor-cores 1 --total-executor-cores 2
check "a job runs in cluster mode" \
  submit tailcm --deploy-mode cluster --driver-memory 256M
DRIVER=$(head -1 "$T/tailcm.out")
start_worker w2 || exit 1 # a worker event
wait_for 5 grep -q ' driver .* FINISHED ' "$T/driver.txt"
sleep 0.5 # a few more heartbeats
kill "${TAILS[@]}" 2>/dev/null
wait "${TAILS[@]}" 2>/dev/null

# topics FILE: the topics of its lines (column 2), sorted, on one line.
topics() { awk '{print $2}' "$T/$1" | sort -u | tr '\n' ' '; }
check "meanwhile heartbeats and worker events were published" \
  eval '[[ $(topics all.txt) == *heartbeat* && $(topics all.txt) == *worker* ]]'
check "--topic app --topic executor printed both topics and only those" \
  test "$(topics two.txt)" = "app executor "
check "... every app and executor event, none lost" test \
  "$(grep -Ec '^\S+ (app|executor) ' "$T/two.txt")" = \
  "$(grep -Ec '^\S+ (app|executor) ' "$T/all.txt")"

APP=$(awk '$2 == "app" && $3 == "registered" && $5 == "(tailjob)" {print $4}' "$T/two.txt")
check "app: the client-mode application's registration, WAITING" \
  grep -Eq "^\S+ app +registered $APP \(tailjob\) WAITING" "$T/two.txt"
# app_events ID: its app events' names and states, one line.
app_events() {
  awk -v id="$1" '$2 == "app" && $4 == id {print $3, $6}' "$T/two.txt" | tr '\n' ' '
}
check "... then running and ended FINISHED" \
  test "$(app_events "$APP")" = "registered WAITING running RUNNING ended FINISHED "
# exec_events ID/N: that executor's events and states, one line.
exec_events() {
  awk -v x="$1" '$2 == "executor" && $4 == x {print $3, $7}' "$T/two.txt" |
    tr -d ',' | tr '\n' ' '
}
for n in 0 1; do
  check "executor: $APP/$n launched, running, then ended with its app" \
    eval '[[ $(exec_events "$APP/$n") =~ ^"added LAUNCHING state RUNNING state "(KILLED|EXITED)" "$ ]]'
done
check "... and no third executor" test "$(exec_events "$APP/2")" = ""
CM=$(awk '$2 == "app" && $5 == "(tailcm)" {print $4; exit}' "$T/two.txt")
check "the cluster-mode driver's application shows too" \
  test "$(app_events "$CM")" = "registered WAITING running RUNNING ended FINISHED "

check "--topic driver printed only driver events" \
  test "$(topics driver.txt)" = "driver "
# driver_events: the driver's events and states, one line.
driver_events() {
  awk -v id="$DRIVER" '$2 == "driver" && $4 == id {print $3, $5}' "$T/driver.txt" |
    tr '\n' ' '
}
check "driver: $DRIVER submitted, launched, RUNNING, its app, FINISHED" test \
  "$(driver_events)" = "submitted SUBMITTED launched SUBMITTED state RUNNING app RUNNING state FINISHED "
check "... launched on the worker that ran it" \
  grep -Eq "^\S+ driver +launched $DRIVER SUBMITTED on $ID_w1, launch 1" "$T/driver.txt"
finish
