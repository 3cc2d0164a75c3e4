#!/usr/bin/env bash
# A worker restarted on its work dir while the master is down (issue 14,
# defect 5): the journal keeps each worker's work dir identity
# (work_dir_id), so when the restarted master hears the new worker (a new
# id: the default one holds the pid) from the old one's work dir, it
# marks the old record, restored UNKNOWN, DEAD "replaced by worker NEW",
# and RECOVERING ends about one interval after that registration instead
# of at the recovery deadline (5 s here).
. "$(dirname "$0")/../lib/cluster.sh"
deadline 90
JOURNAL=$T/journal

start_master --journal "$JOURNAL" || exit 1
start_worker x || exit 1
OLD=$ID_x

kill9 "$PID_x"
kill9 "$MASTER_PID"
# The worker comes back first, on its work dir, and keeps trying.
rm -f "$T/x.ready"
HEARTH_BIN_DIR="$T/bin" "$BIN/hearth-worker" --master "$MASTER_URL" \
  --work-dir "$T/x" --ready-file "$T/x.ready" \
  --heartbeat-interval "${INTERVAL_MS}ms" --cores 4 --memory 4G \
  --log-level debug >>"$T/x.log" 2>&1 &
PIDS+=($!)
sleep 0.5
PORT=$MASTER_PORT start_master --journal "$JOURNAL" || exit 1
check "the restarted worker registers" wait_for 10 test -s "$T/x.ready"
NEW=$(cat "$T/x.ready")
check "... under a new id" test "$NEW" != "$OLD"
check "the master's recovery ends" \
  wait_for 10 grep -q "recovery done in" "$T/master.log"

start_ms=$(log_ms "$T/master.log" "RECOVERING from journal")
reg_ms=$(log_ms "$T/master.log" "worker $NEW registered")
done_ms=$(log_ms "$T/master.log" "recovery done in")
deadline_ms=$(sed -n 's/.*waiting up to \([0-9]*\) ms.*/\1/p' "$T/master.log" | head -1)
say "RECOVERING began; the worker registered after $((reg_ms - start_ms)) ms;" \
  "RECOVERING ended after $((done_ms - start_ms)) ms," \
  "$((done_ms - reg_ms)) ms after that (the deadline: $deadline_ms ms)"
check "the old record is DEAD, replaced by the new worker" \
  grep -q "worker $OLD (127.0.0.1) is DEAD: replaced by worker $NEW" \
  "$T/master.log"
check "RECOVERING ended because every worker was back, not at the deadline" \
  grep -q "recovery done in .* (every worker and driver is back)" \
  "$T/master.log"
check "... within about one interval of the registration" \
  test $((done_ms - reg_ms)) -le $((2 * INTERVAL_MS + 300))
check "the master is ALIVE" jq_state '.status == "ALIVE"'
check "... with the new worker ALIVE and the old DEAD" \
  test "$(worker_state "$NEW") $(worker_state "$OLD")" = "ALIVE DEAD"
finish
