#!/usr/bin/env bash
# Another key cannot take an application's id, nor its map outputs, after
# a master restart (docs/security.md: "A driver that registers again under
# an existing app_id gets the application back only with the same
# driver_url and token"; "the worker ... serves ... the map outputs to
# reducers holding the application's token").
#
# A master without --journal forgets its applications when it restarts;
# their drivers register again under their ids, and their executors and
# map outputs stay on the workers.  Here bob's shuffle has written its map
# outputs on w1 and waits; the master restarts, and alice's key registers
# an application under bob's id, with a token of hers, before bob's
# driver is back (it is stopped: a driver slower than the attacker).
# alice must not get bob's map outputs from w1's block server with her
# token, and bob's driver must get its application back and finish.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
. "$(dirname "$0")/../lib/security.sh"
deadline 150
export TMPDIR=$T

"$BIN/hearth-keygen" "$K" >/dev/null &&
  for c in alice bob; do "$BIN/hearth-keygen" --client "$c" "$K" >/dev/null; done &&
  "$BIN/hearth-keygen" --worker w1 "$K" >/dev/null ||
  { fail "keys"; finish; exit 1; }
start_master --curve-secret "$K/master.key_secret" --curve-allow "$K/clients" \
  --curve-allow-workers "$K/workers" || exit 1
PORT=$MASTER_PORT
# shellcheck disable=SC2046
CORES=4 start_worker w1 $(client_keys w1) || exit 1

check "bob's shuffle registers" held_shuffle bob 2 "printf 'k{i}\\\\tbob-secret\\\\n'" ""
B_APP=$S_APP
maps() { (($(find "$T/w1/shuffle/$B_APP" -name '*.index' | wc -l) == 2)); }
check "... its maps wrote their outputs on w1" wait_for 30 maps

# Every map output's partitions, as alice asks for them with her token
# (tests/lib/security.sh).
fetch_all() { w1_blocks "$B_APP" alices-token; }
fetch_all >"$T/before" 2>&1
check "alice's token gets none of bob's map outputs (bad_token)" \
  eval "grep -q '^refused bad_token' '$T/before' && ! grep -q bob-secret '$T/before'"

# The master restarts; alice claims bob's id before his driver is back.
kill -STOP "$SHUF_PID"
kill -TERM "$MASTER_PID"
wait "$MASTER_PID"
PORT=$PORT start_master --curve-secret "$K/master.key_secret" \
  --curve-allow "$K/clients" --curve-allow-workers "$K/workers" || exit 1
# shellcheck disable=SC2046
"$TBIN/test-app" --master "$MASTER_URL" $(client_keys alice) --name grab \
  --app-id "$B_APP" --token alices-token --max-cores 1 --memory-mb 16 \
  --interval "${INTERVAL_MS}ms" >"$T/grab.out" 2>&1 &
PIDS+=($!)
# the claim's outcome: refused, or an executor placed for it and ended
claimed() { grep -q '^EXECUTOR_UPDATED \|^ERROR ' "$T/grab.out"; }
check "alice's claim of bob's id is answered" wait_for 20 claimed
fetch_all >"$T/after" 2>&1
check "... and her token still gets none of bob's map outputs" \
  eval "! grep -q bob-secret '$T/after'"

kill -CONT "$SHUF_PID"
touch "$T/go"
wait "$SHUF_PID"
check "bob's driver gets its application back, and his shuffle succeeds" test $? -eq 0
check "... with every record of his maps" \
  test "$(grep -c 'bob-secret' "$T/shuf.out")" -eq 2
finish
