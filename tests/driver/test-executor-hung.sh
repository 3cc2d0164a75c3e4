#!/usr/bin/env bash
# An executor killed (kill -9) mid-job, on a cluster started by hand: its
# worker reports it at once, the driver re-queues its tasks and a
# replacement is granted.  A hung executor (SIGSTOP) mid-job: the
# driver gives up on it after liveness x interval without a heartbeat
# (re-queueing its tasks within liveness x interval + one interval), asks
# the master to kill it, its worker SIGKILLs it after the grace period,
# a replacement executor takes its cores, and the job ends with exactly its
# output.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 120
export TMPDIR=$T
LIMIT=$((LIVENESS * INTERVAL_MS + INTERVAL_MS))
SLACK=300

start_master || exit 1
CORES=2 start_worker w1 || exit 1
CORES=2 start_worker w2 || exit 1
N=160 # 12 s of work on 4 cores: it outlasts both replacements on a loaded machine
J=$(job hung "{\"name\":\"hung\",\"stages\":[{\"name\":\"s\",\"tasks\":[
  {\"cmd\":[\"sh\",\"-c\",\"sleep 0.3; echo {i}\"],\"count\":$N}]}]}")
seq 0 $((N - 1)) >"$T/expected"
submit --master "$MASTER_URL" --log-level info --executor-cores 1 "$J" &
SUB=$!
PIDS+=($SUB)
four() { [[ $(test_pids hearth-executor | wc -l) -eq 4 ]]; }
check "4 executors run the job" wait_for 30 four
sleep 1
victim=$(test_pids hearth-executor | head -1)
X=$(basename "$(readlink "/proc/$victim/cwd")")
t_kill=$(now_ms)
kill -9 "$victim"
check "the driver drops the killed executor $X" \
  wait_for 10 grep -q "executor $X lost (FAILED" "$T/err"
t=$(log_ms "$T/err" "executor $X lost (FAILED")
say "killed executor $X given up $((t - t_kill)) ms after kill -9"
check "... at once (within one interval)" test $((t - t_kill)) -le $((INTERVAL_MS + SLACK))
check "... and a replacement is granted" wait_for 10 grep -q "executor 4 granted" "$T/err"
t=$(log_ms "$T/err" "executor 4 granted")
say "replacement granted $((t - t_kill)) ms after kill -9"
check "4 executors run the job again" wait_for 30 four
sleep 0.5
victim=$(test_pids hearth-executor | head -1)
X=$(basename "$(readlink "/proc/$victim/cwd")")
kill -STOP "$victim"
t_stop=$(now_ms)
check "the driver gives up on the hung executor $X" \
  wait_for 10 grep -q "executor $X lost (no heartbeat)" "$T/err"
t=$(log_ms "$T/err" "executor $X lost (no heartbeat)")
say "hung executor $X given up $((t - t_stop)) ms after SIGSTOP (limit $LIMIT ms)"
check "... its tasks re-queued within liveness x interval + one interval" \
  test $((t - t_stop)) -le $((LIMIT + SLACK))
check "the master is asked to kill it" \
  wait_for 5 grep -q "executor .*/$X on .*: its driver asks to kill it" "$T/master.log"
check "its worker kills it" wait_for 5 bash -c "! kill -0 $victim 2>/dev/null"
check "a replacement executor is granted" \
  wait_for 10 grep -q "executor [5-9] granted" "$T/err"
wait "$SUB"
check "the job succeeds" test $? -eq 0
check "... with exactly its output" same "$T/out" "$T/expected"
finish
