#!/usr/bin/env bash
# A worker that comes back too late to tell a restarted master whose an
# application is still starts no executor of another key's driver under
# the application's id, and serves that driver none of its map outputs
# (docs/security.md, "An application's id and its data").
#
# bob's shuffle has written its map outputs on w1 and waits.  The master
# restarts without a journal while w1 and bob's driver are stopped;
# alice's key claims bob's id with a token of hers, and the master, having
# heard no worker list the id within its recovery timeout (1 s here),
# gives it to her.  Then w1 comes back: the master places alice's
# executor there, and w1 refuses it, since the application runs there
# with another token (USER_REFUSED: the master ends her application, as
# it would have refused her claim had w1 been back in time, and does not
# count it against w1); its block server still refuses her token.  (bob's
# driver has lost its id: docs/security.md, "Not covered".)  test-app-
# takeover.sh is the case of a worker back in time.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
. "$(dirname "$0")/../lib/security.sh"
deadline 150
export TMPDIR=$T

"$BIN/hearth-keygen" "$K" >/dev/null &&
  for c in alice bob; do "$BIN/hearth-keygen" --client "$c" "$K" >/dev/null; done &&
  "$BIN/hearth-keygen" --worker w1 "$K" >/dev/null ||
  { fail "keys"; finish; exit 1; }
MASTER_KEYS=(--curve-secret "$K/master.key_secret" --curve-allow "$K/clients"
  --curve-allow-workers "$K/workers" --recovery-timeout 1s)
start_master "${MASTER_KEYS[@]}" || exit 1
PORT=$MASTER_PORT
# shellcheck disable=SC2046
CORES=4 start_worker w1 $(client_keys w1) || exit 1

check "bob's shuffle registers" held_shuffle bob 2 "printf 'k{i}\\\\tbob-secret\\\\n'" ""
B_APP=$S_APP
maps() { (($(find "$T/w1/shuffle/$B_APP" -name '*.index' | wc -l) == 2)); }
check "... its maps wrote their outputs on w1" wait_for 30 maps

# Every partition of bob's map outputs on w1, asked for with alice's token.
fetch_all() { w1_blocks "$B_APP" alices-token; }

# The master restarts while w1 and bob's driver are stopped.
kill -STOP "$SHUF_PID" "$PID_w1"
kill -TERM "$MASTER_PID"
wait "$MASTER_PID"
PORT=$PORT start_master "${MASTER_KEYS[@]}" || exit 1
# shellcheck disable=SC2046
"$TBIN/test-app" --master "$MASTER_URL" $(client_keys alice) --name grab \
  --app-id "$B_APP" --token alices-token --max-cores 1 --memory-mb 16 \
  --interval "${INTERVAL_MS}ms" >"$T/grab.out" 2>&1 &
PIDS+=($!)
check "alice's claim is held, then taken: no worker listed the id in time" \
  wait_for 20 grep -q "^REGISTERED $B_APP\$" "$T/grab.out"
check "... after the master held it" \
  grep -q "REGISTER_APPLICATION under $B_APP held for" "$T/master.log"

kill -CONT "$PID_w1"
check "w1 comes back and lists bob's application: the master says whose it is" \
  wait_for 20 grep -q "holds application $B_APP for bob.key" "$T/master.log"
refused() { grep -q "^EXECUTOR_UPDATED [0-9]* FAILED .*another token" "$T/grab.out"; }
check "w1 refuses alice's executor under bob's id (another token)" \
  wait_for 30 refused
check "... and starts none of hers" \
  eval "! grep -q '^EXECUTOR_UPDATED [0-9]* RUNNING' '$T/grab.out'"
check "... her application ends at once, with w1's reason" \
  wait_for 20 grep -q "^APPLICATION_REMOVED FAILED .*another token" "$T/grab.out"
check "... a refusal, not a launch failure counted against w1's health" \
  eval "! grep -q 'FAILED to start' '$T/master.log'"
fetch_all >"$T/after" 2>&1
check "alice's token gets none of bob's map outputs" \
  eval "grep -q '^refused bad_token' '$T/after' && ! grep -q bob-secret '$T/after'"

# bob's driver finds its id taken, and says so.
kill -CONT "$SHUF_PID"
touch "$T/go"
wait "$SHUF_PID"
check "bob's driver ends with an error, not silently" test $? -ne 0
check "... naming the application's id taken (duplicate_app)" \
  grep -q duplicate_app "$T/shuf.err"
finish
