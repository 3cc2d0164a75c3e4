#!/usr/bin/env bash
# Master restart on the same port: the workers notice, register again
# (RECONNECT_WORKER or their own silence detection), and show ALIVE.
. "$(dirname "$0")/../lib/cluster.sh"
deadline 90

start_master || exit 1
start_worker w1 || exit 1
start_worker w2 || exit 1
check "2 workers ALIVE" \
  wait_for 5 jq_state '[.workers[] | select(.state == "ALIVE")] | length == 2'

# Stop with SIGTERM: the master exits 0.
kill -TERM "$MASTER_PID"
wait "$MASTER_PID"
check "master exits 0 on SIGTERM" test $? -eq 0
sleep 0.3
PORT=$MASTER_PORT start_master || exit 1
check "workers registered again after a restart" \
  wait_for 10 jq_state '[.workers[] | select(.state == "ALIVE")] | length == 2'
check "same worker ids" jq_state "[.workers[].id] | sort == ([\"$ID_w1\", \"$ID_w2\"] | sort)"

# An application with one executor, then kill -9 of the master: the
# executor keeps running, the driver registers again under its id, and the
# new master neither reuses exec id 0 nor overbooks the worker.
start_app survivor --max-cores 1 --memory-mb 128 || exit 1
check "executor 0 registered with the driver" \
  wait_for 15 grep -q '^EXECUTOR_REGISTERED 0 ' "$T/survivor.out"
kill9 "$MASTER_PID"
PORT=$MASTER_PORT start_master || exit 1
check "workers registered again after kill -9" \
  wait_for 10 jq_state '[.workers[] | select(.state == "ALIVE")] | length == 2'
check "the driver was asked to register again" \
  wait_for 10 grep -q '^RECONNECT' "$T/survivor.out"
check "same application id after the restart" wait_for 5 \
  jq_state "[.apps[] | select(.id == \"$APP_ID\")] | length == 1"
check "the new master's executor for it is exec 1, not 0 again" \
  wait_for 10 grep -q '^EXECUTOR_ADDED 1 ' "$T/survivor.out"
check "exec 0 was added only once" \
  test "$(count_lines "$T/survivor.out" '^EXECUTOR_ADDED 0 ')" -eq 1
check "the surviving executor's core still counts as used" \
  wait_for 5 jq_state '[.workers[].cores_used] | add == 2'
check "worker logs the re-registration" grep -q "registered with" "$T/w1.log"
finish
