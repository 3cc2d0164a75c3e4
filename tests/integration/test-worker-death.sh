#!/usr/bin/env bash
# kill -9 of a worker: the master marks it DEAD within liveness x interval
# plus one interval, hearth-tail sees the `worker` event, and the others
# stay ALIVE.  A worker stopped with SIGTERM exits cleanly.
. "$(dirname "$0")/../lib/cluster.sh"
deadline 60

start_master || exit 1
for w in w1 w2 w3; do start_worker "$w" || exit 1; done
check "3 workers ALIVE" \
  wait_for 5 jq_state '[.workers[] | select(.state == "ALIVE")] | length == 3'

"$BIN/hearth-tail" --master "$MASTER_URL" --topic worker --full-ids \
  >"$T/events.txt" &
PIDS+=($!)
# The SUB socket needs a moment to subscribe (slow joiner).
sleep 0.5

victim=$ID_w2
kill9 "$PID_w2"
t0=$(now_ms)
dead() { [[ $(worker_state "$victim") == DEAD ]]; }
wait_for 10 dead
t1=$(now_ms)
elapsed=$((t1 - t0))
limit=$((INTERVAL_MS * LIVENESS + INTERVAL_MS))
say "worker DEAD after $elapsed ms (limit $limit ms + 150 ms polling slack)"
check "worker is DEAD" dead
check "DEAD within liveness x interval + one interval" \
  test "$elapsed" -le $((limit + 150))
check "not before liveness x interval" \
  test "$elapsed" -ge $((INTERVAL_MS * (LIVENESS - 1)))
check "hearth-tail saw the worker event" \
  wait_for 5 grep -q "dead $victim .* DEAD" "$T/events.txt"
check "the other workers are ALIVE" \
  jq_state '[.workers[] | select(.state == "ALIVE")] | length == 2'

# A clean stop: SIGTERM, exit status 0.
kill -TERM "$PID_w3"
wait "$PID_w3"
check "SIGTERM stops a worker with status 0" test $? -eq 0
finish
