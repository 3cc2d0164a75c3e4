#!/usr/bin/env bash
# hearth-worker --master-file FILE: a worker started before its master
# (as a local cluster starts them, side by side) waits for the master's
# ready file, reads the URL from its first line and registers; the flag
# wins over HEARTH_MASTER from the environment; a file that never comes
# and both flags at once are refused with a clear error.
. "$(dirname "$0")/../lib/cluster.sh"
deadline 60

# the worker first, its master not started yet (a wrong HEARTH_MASTER in
# its environment, as a local cluster's submit exports one)
HEARTH_MASTER=tcp://127.0.0.1:1 "$BIN/hearth-worker" \
  --master-file "$T/master.ready" --work-dir "$T/w" --ready-file "$T/w.ready" \
  --heartbeat-interval "${INTERVAL_MS}ms" --cores 1 --memory 1G \
  --isolation none --web-port 0 --log-level debug >"$T/w.log" 2>&1 &
WPID=$!
PIDS+=($WPID)
sleep 0.3
check "the worker waits for the master's ready file" kill -0 "$WPID"
check "... and has not registered anywhere" test ! -e "$T/w.ready"
start_master || exit 1
check "once the master is up, the worker registers with it" \
  wait_for 10 test -s "$T/w.ready"
check "... with the URL of the file ($MASTER_URL), not HEARTH_MASTER's" \
  grep -q "registered with $MASTER_URL" "$T/w.log"
alive() { [[ $(worker_state "$(cat "$T/w.ready")") == ALIVE ]]; }
check "... and the master counts it ALIVE" wait_for 5 alive

"$BIN/hearth-worker" --master-file "$T/never" --master-file-wait 300ms \
  --work-dir "$T/w2" --isolation none --web-port 0 >"$T/w2.out" 2>&1
rc=$?
check "a --master-file that never comes: exit 1 ($rc)" test "$rc" -eq 1
check "... saying so" grep -q "$T/never did not appear within 300 ms" "$T/w2.out"

"$BIN/hearth-worker" --master-file "$T/master.ready" --master "$MASTER_URL" \
  --work-dir "$T/w3" --isolation none --web-port 0 >"$T/w3.out" 2>&1
rc=$?
check "--master and --master-file together: exit 1 ($rc)" test "$rc" -eq 1
check "... saying to give one" grep -q -- "--master and --master-file: give one" "$T/w3.out"
finish
