#!/usr/bin/env bash
# An executor that registers with its driver later than the driver's
# liveness window after the master granted it is alive, not silent: the
# driver counted its silence from the grant, and dropped it as "no
# heartbeat" the first tick after it registered (seen in CI: a loaded
# machine's executor took 1.6 s to start, and was removed 23 ms after it
# was added).  Here every executor takes 1.5 s to start, against a window
# of 200 ms x 3.  (The drop needed a driver tick between the registration
# and the executor's next message; on a quiet machine that message comes
# first, so this passed before the fix too: it keeps the slow start
# working end to end.)
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 120
export TMPDIR=$T
INTERVAL_MS=200 LIVENESS=3

rm -f "$T/bin/hearth-executor"
printf '#!/bin/sh\nsleep 1.5\nexec "%s" "$@"\n' "$BIN/hearth-executor" \
  >"$T/bin/hearth-executor"
chmod 755 "$T/bin/hearth-executor"
start_master || exit 1
start_worker w1 || exit 1

J=$(job slow '{"name":"slow","stages":[{"name":"s","tasks":[{"cmd":["echo","{i}"],"count":4}]}]}')
printf '%s\n' 0 1 2 3 >"$T/expected"
run_job() {
  timeout 60 "$BIN/hearth-submit" --master "$MASTER_URL" \
    --heartbeat-interval "${INTERVAL_MS}ms" --heartbeat-liveness "$LIVENESS" \
    --event-log "$T/ev" "$J" >"$T/out" 2>"$T/err"
}
check "a job on an executor slow to start succeeds" run_job
check "... with its results" same "$T/out" "$T/expected"
removed() { jq -r 'select(.event == "executor_removed") | .reason' "$T"/ev/*.events* 2>/dev/null; }
check "... and no executor dropped as silent ($(removed | sort | uniq -c | tr -s ' \n' ' '))" \
  bash -c "! grep -q 'no heartbeat' <<<'$(removed)'"
check "... one executor added in all" \
  test "$(jq -r 'select(.event == "executor_added") | .executor' "$T"/ev/*.events* | wc -l)" -eq 1
finish
