#!/usr/bin/env bash
# Garbage to a worker and to an executor (issue 14, defect 8): a fake
# master (a ROUTER the worker connects to) and a fake driver (for an
# executor started by hand) each accept the registration, then send
# 20,000 malformed messages of every kind (test-fakepeer.c), then a
# request the peer must answer.  Each peer answers it (it read everything
# and still works), stays up, and logs a few lines about the garbage
# instead of one per message (before: about 19,500 lines).
. "$(dirname "$0")/../lib/cluster.sh"
deadline 120
N=20000

# start_fake ROLE: the fake peer, its output in $T/fake-ROLE.out; sets
# FAKE_PID and FAKE_URL.
start_fake() {
  "$TBIN/test-fakepeer" --role "$1" --count "$N" \
    --interval "${INTERVAL_MS}ms" >"$T/fake-$1.out" 2>&1 &
  FAKE_PID=$!
  PIDS+=($FAKE_PID)
  wait_for 10 grep -q '^URL ' "$T/fake-$1.out" || return 1
  FAKE_URL=$(awk '/^URL /{print $2; exit}' "$T/fake-$1.out")
}
# garbage_lines LOG: the log's lines about what the peer sent.
garbage_lines() {
  grep -c -e 'bad message' -e 'unexpected' -e 'reports an error' \
    -e 'says garbage' -e 'more like it' "$1" || true
}

# after_garbage WHO LOG PID ANSWER ROLE: the fake peer of ROLE sent its
# garbage to WHO (pid PID, its log LOG), which answered what came behind
# it with ANSWER and logged little.
after_garbage() {
  local who=$1 log=$2 pid=$3 answer=$4 role=$5 lines
  check "the fake $role sent $N malformed messages to the $who" \
    wait_for 60 grep -q "^SENT $N" "$T/fake-$role.out"
  check "... and the $who still answered what came behind them" \
    wait_for 30 grep -q "^ANSWERED $answer" "$T/fake-$role.out"
  check "the $who is still running" kill -0 "$pid"
  lines=$(garbage_lines "$log")
  say "$who: $lines log lines about $N malformed messages ($(wc -l <"$log") lines in all)"
  check "... logging a few lines, not one per message" test "$lines" -le 6
  check "... its whole log stays short" test "$(wc -l <"$log")" -le 20
}

start_fake master || exit 1
# The fake master asks for no cookie (an older master): the worker has
# none to present (a cookie it cannot keep).
HEARTH_COOKIE=/dev/null/cookie HEARTH_BIN_DIR="$T/bin" \
  "$BIN/hearth-worker" --master "$FAKE_URL" \
  --work-dir "$T/w" --cores 1 --memory 1G --log-level info >"$T/w.log" 2>&1 &
WORKER=$!
PIDS+=($WORKER)
after_garbage worker "$T/w.log" "$WORKER" DRIVER_LOG_RESPONSE master
kill -TERM "$WORKER"
check "... and stops cleanly" wait_for 10 bash -c "! kill -0 $WORKER"

start_fake driver || exit 1
mkdir -p "$T/e"
(cd "$T/e" && exec "$BIN/hearth-executor" --driver-url "$FAKE_URL" \
  --app-id app-20260101000000-0001 --exec-id 0 --cores 1 --memory-mb 64 \
  --host 127.0.0.1 --heartbeat-interval "${INTERVAL_MS}ms" \
  --log-level info) >"$T/e.log" 2>&1 &
EXEC=$!
PIDS+=($EXEC)
after_garbage executor "$T/e.log" "$EXEC" STATUS_UPDATE driver
check "no sanitizer report" \
  bash -c "! grep -q Sanitizer '$T/w.log' '$T/e.log'"
finish
