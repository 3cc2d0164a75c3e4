#!/usr/bin/env bash
# A driver stopped (SIGSTOP, a paused VM, a swap storm) while its
# executors gave up on it and exited finds, once it runs again, their
# last updates, then executors its ROUTER cannot reach: it must not offer
# them tasks at every tick.  Each such offer lost its tasks again (the
# launch never left: LOST, toward --max-lost), so the job failed ("task 0
# failed 9 times; last error: cannot send LAUNCH_TASKS: Host
# unreachable") within half a second, before the executors' silence told
# the driver they were gone (test-app-takeover.sh: bob's driver, back
# after a master restart).
#
# fake-executor (local[1]'s executor 0, FAKE_VANISH) holds the updates of
# its first batch; the driver is stopped; the executor sends them, closes
# its socket and stays, silent and unreaped; the driver runs again.  The
# tasks of the offer it could not send run again once, on executor 1,
# which local[1] starts once executor 0 has been silent for its liveness.
# (fake-executor runs echo_all itself; the driver checks that a shipped
# library defines it.)
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 120
export TMPDIR=$T

mkdir -p "$T/fake"
ln -s "$BIN/tests/driver/fake-executor" "$T/fake/hearth-executor"
echo '{"name": "r", "stages": [{"name": "s", "tasks": [
  {"fn": "echo_all", "arg": "t{i}", "count": 8}]}]}' >"$T/r.json"
for i in 0 1 2 3 4 5 6 7; do echo "t$i"; done >"$T/r.expected"

FAKE_EXEC=0 FAKE_REFUSE=0 FAKE_VANISH=$T/vanish HEARTH_BIN_DIR=$T/fake \
  "$BIN/hearth-submit" --master 'local[1]' --log-level info --lib "$TASKS_LIB" \
  --heartbeat-interval "${INTERVAL_MS}ms" --heartbeat-liveness "$LIVENESS" \
  "$T/r.json" >"$T/out" 2>"$T/err" &
DRIVER=$!
PIDS+=("$DRIVER")
check "executor 0 holds its first batch's updates" \
  wait_for 30 grep -q 'fake-executor: holding' "$T/err"
kill -STOP "$DRIVER"
touch "$T/vanish"
check "... and, the driver stopped, sends them and goes" \
  wait_for 30 grep -q 'fake-executor: vanished' "$T/err"
kill -CONT "$DRIVER"
wait "$DRIVER"
RC=$?
check "the driver runs on: the job succeeds (exit 0)" test "$RC" -eq 0
check "... with every result, once" same "$T/out" "$T/r.expected"
check "... executor 0 unreachable, said once" \
  test "$(grep -c 'executor 0 is not connected: no tasks go to it' "$T/err")" = 1
# (none when the driver's offer left before its ROUTER saw the peer go:
# ZeroMQ dropped it, and the executor's loss ran its tasks again)
check "... one offer lost to it at most, not one a tick" \
  test "$(grep -c 'executor 0: [0-9]* tasks not launched' "$T/err")" -le 1
check "... then lost for its silence" \
  grep -q 'executor 0 lost.*no heartbeat' "$T/err"
finish
