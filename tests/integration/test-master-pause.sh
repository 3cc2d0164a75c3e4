#!/usr/bin/env bash
# A master stopped (SIGSTOP, as a VM stall or a debugger would) for twice
# liveness x interval while a job runs, then resumed: its peers were alive
# all along, and their heartbeats wait in its socket.  The master must not
# judge them by its own absence: no worker goes DEAD, no executor is LOST
# or launched again, the application does not fail, and the job ends with
# exactly its output.  A worker killed during the pause is still found
# DEAD, once the master has run for liveness x interval without hearing
# from it (docs/failures.md, "The master pauses").
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 120
export TMPDIR=$T
PAUSE_MS=$((2 * INTERVAL_MS * LIVENESS))

start_master || exit 1
CORES=2 start_worker w1 || exit 1
CORES=2 start_worker w2 || exit 1

N=40
J=$(job paused "{\"name\":\"paused\",\"stages\":[{\"name\":\"s\",\"tasks\":[
  {\"cmd\":[\"sh\",\"-c\",\"sleep 0.3; echo {i}\"],\"count\":$N}]}]}")
seq 0 $((N - 1)) >"$T/expected"
submit --master "$MASTER_URL" --log-level info --executor-cores 2 "$J" &
SUB=$!
PIDS+=($SUB)
on_both() {
  jq_state '[.apps[] | select(.state == "RUNNING") | .executors[]
    | select(.state == "RUNNING")] | length == 2'
}
check "the job runs on both workers" wait_for 30 on_both
# A third worker, with nothing on it, that dies while the master is
# stopped.
CORES=1 start_worker w3 || exit 1

kill -STOP "$MASTER_PID"
kill9 "$PID_w3"
say "master stopped for $PAUSE_MS ms (liveness x interval: $((INTERVAL_MS * LIVENESS)) ms)"
sleep "$(awk -v ms="$PAUSE_MS" 'BEGIN { printf "%.3f", ms / 1000 }')"
kill -CONT "$MASTER_PID"
t_cont=$(now_ms)

wait "$SUB"
rc=$?
check "the job succeeds (exit $rc)" test "$rc" -eq 0
check "... with exactly its output" same "$T/out" "$T/expected"
check "no worker but the killed one went DEAD" \
  eval '! grep "is DEAD" "$T/master.log" | grep -qv "$ID_w3"'
check "no application FAILED" eval '! grep -q "FAILED" "$T/master.log"'
check "both workers of the job ALIVE" \
  test "$(worker_state "$ID_w1") $(worker_state "$ID_w2")" = "ALIVE ALIVE"
w3_dead() { [[ $(worker_state "$ID_w3") == DEAD ]]; }
check "the worker killed during the pause is DEAD" wait_for 10 w3_dead
took=$(($(log_ms "$T/master.log" "worker $ID_w3 .* is DEAD") - t_cont))
say "killed worker DEAD $took ms after the resume"
check "... no sooner than one interval after the resume" \
  test "$took" -ge "$INTERVAL_MS"
check "... and within liveness x interval + 1 s of it" \
  test "$took" -le $((INTERVAL_MS * LIVENESS + 1000))
check "the application FINISHED" \
  jq_state '[.apps[] | select(.name == "paused" and .state == "FINISHED")]
    | length == 1'
check "only the 2 first executors were ever launched" \
  test "$(count_lines "$T/master.log" 'launching executor')" -eq 2
check "... and granted to the driver" \
  test "$(count_lines "$T/err" 'executor [0-9]* granted')" -eq 2
check "no executor was LOST" \
  eval '! grep -qi "executor [0-9]* lost\|LOST" "$T/err" "$T/master.log"'
check "no task was re-run" eval '! grep -q "re-run\|requeued\|re-queued" "$T/err"'
check "the master logged the pause" \
  grep -q "the master was not running for" "$T/master.log"
say "job ended $(($(now_ms) - t_cont)) ms after the master resumed"
finish
