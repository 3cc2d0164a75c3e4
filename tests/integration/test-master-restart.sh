#!/usr/bin/env bash
# Master restart on the same port: the workers notice, register again
# (RECONNECT_WORKER or their own silence detection), and show ALIVE.
. "$(dirname "$0")/lib.sh"
deadline 60

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

# Now kill -9 the master and restart it again.
kill9 "$MASTER_PID"
PORT=$MASTER_PORT start_master || exit 1
check "workers registered again after kill -9" \
  wait_for 10 jq_state '[.workers[] | select(.state == "ALIVE")] | length == 2'
check "worker logs the re-registration" grep -q "registered with" "$T/w1.log"
finish
