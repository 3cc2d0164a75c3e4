#!/usr/bin/env bash
# A cluster with keys: workers and a job with keys are served; a worker, a
# submit and a tail (state and events) with no key, with a key not
# admitted, or with the wrong master key are refused and change nothing,
# while the master keeps serving the others; executors with a wrong token
# are refused by the driver, logged once with their real address, while
# the job runs on; a client key added then removed, with SIGHUP, is
# admitted then refused -- a worker and an event tail already connected
# included: the worker is declared DEAD, the tail gets no more events, and
# a driver ends at once, without waiting for an answer that cannot come.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
. "$(dirname "$0")/../lib/security.sh"
deadline 240
export TMPDIR=$T

make_keys || { fail "keys"; finish; exit 1; }
secure_master || { fail "a master with keys starts"; finish; exit 1; }
# shellcheck disable=SC2046
CORES=2 start_worker w1 $(client_keys w1) || fail "worker w1 registers with its key"
# shellcheck disable=SC2046
CORES=2 start_worker w2 $(client_keys w2) || fail "worker w2 registers with its key"
two_alive() { [[ $(alive_workers) == 2 ]]; }
check "both workers are ALIVE" wait_for 10 two_alive

J=$(job seq '{"name":"secure","stages":[
  {"name":"s","tasks":[{"cmd":["echo","line {i}"],"count":200}]},
  {"name":"n","tasks":[{"cmd":["wc","-l"],"input":"s"}]}]}')
# shellcheck disable=SC2046
check "a job runs end to end with keys (client mode)" \
  submit --master "$MASTER_URL" $(client_keys client) "$J"
check "... and its result is right" grep -qx 200 "$T/out"

# --- refused peers ------------------------------------------------------
"$BIN/hearth-keygen" "$T/other" >/dev/null
rogue() { # NAME ARGS...: a worker that should not get in; sets ROGUE_NAME
  local name=$1; shift
  "$BIN/hearth-worker" --master "$MASTER_URL" --work-dir "$T/$name" \
    --ready-file "$T/$name.ready" --heartbeat-interval "${INTERVAL_MS}ms" \
    "$@" >>"$T/$name.log" 2>&1 &
  PIDS+=($!)
  printf -v "ROGUE_$name" '%s' "$!"
}
rogue nokey
rogue unknown --curve-secret "$T/other/client.key_secret" --master-key "$K/master.key"
rogue wrongmaster --curve-secret "$K/w1.key_secret" --master-key "$T/other/master.key"
sleep 2
# Refused, not crashed: still running, still trying, never answered.
for r in nokey unknown wrongmaster; do
  pid_var=ROGUE_$r
  check "a worker with $r keys does not register" test ! -s "$T/$r.ready"
  check "... it is still running (refused, not crashed)" kill -0 "${!pid_var}"
  check "... and tried again and again without an answer" \
    test "$(count_lines "$T/$r.log" 'registering with')" -ge 2
  check "... never registered" eval "! grep -q 'registered with' '$T/$r.log'"
done
check "the master still has exactly its 2 workers" two_alive

check "a tail without a key cannot read the state" \
  eval '! "$BIN/hearth-tail" --master "$MASTER_URL" --state --timeout 1s >/dev/null 2>&1'
check "a tail with a key not admitted cannot" \
  eval '! "$BIN/hearth-tail" --master "$MASTER_URL" --state --timeout 1s --curve-secret "$T/other/client.key_secret" --master-key "$K/master.key" >/dev/null 2>&1'
check "a tail expecting another master cannot" \
  eval '! "$BIN/hearth-tail" --master "$MASTER_URL" --state --timeout 1s --curve-secret "$K/client.key_secret" --master-key "$T/other/master.key" >/dev/null 2>&1'
submit --master "$MASTER_URL" --register-timeout 2s "$J"
check "a submit without a key cannot register an application" test $? -ne 0
check "... and says the master did not answer" grep -q 'did not register the application' "$T/err"
submit --master "$MASTER_URL" --register-timeout 2s \
  --curve-secret "$T/other/client.key_secret" --master-key "$K/master.key" "$J"
check "a submit with a key not admitted cannot either" test $? -ne 0
submit --master "$MASTER_URL" --register-timeout 2s \
  --curve-secret "$K/client.key_secret" --master-key "$T/other/master.key" "$J"
check "a submit with the wrong master key cannot either" test $? -ne 0
check "... and says the master did not answer" grep -q 'did not register the application' "$T/err"
check "the refused submits left no application behind" \
  eval '[[ $(state_as client | jq ".apps | length") == 1 ]]'
check "the master logged the refusals with the peer's address" \
  grep -q 'refused 127.0.0.1' "$T/master.log"
# shellcheck disable=SC2046
check "the master still serves the legitimate peers" \
  submit --master "$MASTER_URL" $(client_keys client) "$J"

# A refused peer gets no event either: tails straight to the events socket.
follow() { # NAME ARGS...: hearth-tail following events to $T/NAME.events
  local name=$1; shift
  "$BIN/hearth-tail" --master "$MASTER_URL" --events "$EVENTS_URL" --json \
    "$@" >"$T/$name.events" 2>"$T/$name.tail.err" &
  PIDS+=($!)
  printf -v "TAIL_$name" '%s' "$!"
}
# shellcheck disable=SC2046
follow legit $(client_keys client) --topic heartbeat
follow nokey_tail
follow unknown_tail --curve-secret "$T/other/client.key_secret" --master-key "$K/master.key"
follow wrongmaster_tail --curve-secret "$K/client.key_secret" --master-key "$T/other/master.key"
sleep 2.5
check "a tail with a key receives heartbeat events" \
  grep -q '"event":"heartbeat"' "$T/legit.events"
for r in nokey_tail unknown_tail wrongmaster_tail; do
  check "a $r receives nothing" test ! -s "$T/$r.events"
done
kill "$TAIL_legit" "$TAIL_nokey_tail" "$TAIL_unknown_tail" "$TAIL_wrongmaster_tail"
wait "$TAIL_legit" "$TAIL_nokey_tail" "$TAIL_unknown_tail" "$TAIL_wrongmaster_tail" 2>/dev/null

# --- executors with a wrong token ---------------------------------------
P=$(job paced '{"name":"paced","stages":[{"name":"s","tasks":[{"cmd":["sleep","1"],"count":16}]}]}')
# shellcheck disable=SC2046
"$BIN/hearth-submit" --master "$MASTER_URL" $(client_keys client) --log-level info \
  --heartbeat-interval "${INTERVAL_MS}ms" "$P" >"$T/paced.out" 2>"$T/paced.err" &
PACED=$!
PIDS+=($PACED)
check "an application starts" \
  wait_for 15 grep -q 'executor 0 registered' "$T/paced.err"
DRIVER_URL=$(sed -n 's/.*executors connect to \(tcp:[^ ]*\) (CURVE server key \(.*\))$/\1/p' "$T/paced.err")
DRIVER_KEY=$(sed -n 's/.*executors connect to \(tcp:[^ ]*\) (CURVE server key \(.*\))$/\2/p' "$T/paced.err")
APP=$(sed -n 's/.*application \(app-[0-9-]*\) registered.*/\1/p' "$T/paced.err")
check "the driver's link to executors has a CURVE key" test ${#DRIVER_KEY} -eq 40
intruder() { # TOKEN: an executor presenting it, claiming another host
  HEARTH_DRIVER_KEY=$DRIVER_KEY HEARTH_TOKEN=$1 timeout 20 "$BIN/hearth-executor" \
    --driver-url "$DRIVER_URL" --app-id "$APP" --exec-id 99 --host 10.9.8.7 \
    --heartbeat-interval "${INTERVAL_MS}ms" >"$T/intruder.out" 2>"$T/intruder.err"
}
for i in 1 2 3; do
  intruder not-the-token
  check "an executor with a wrong token is refused (exits 1, try $i)" test $? -eq 1
  check "... told so by the driver" grep -q 'refused' "$T/intruder.err"
done
check "the driver logs it with the real address, not the claimed host" \
  wait_for 5 grep -q 'refused 127.0.0.1: executor 99 (says host 10.9.8.7, pid [0-9]*) presented a wrong token' "$T/paced.err"
HEARTH_TOKEN= intruder ""
check "an executor with no token is refused too" test $? -eq 1
check "... told so by the driver" grep -q 'refused' "$T/intruder.err"
check "four refusals from one address: one log line" \
  test "$(count_lines "$T/paced.err" 'presented .* token')" -eq 1
HEARTH_DRIVER_KEY= timeout 20 "$BIN/hearth-executor" --driver-url "$DRIVER_URL" \
  --app-id "$APP" --exec-id 98 --heartbeat-interval "${INTERVAL_MS}ms" \
  >"$T/plain.out" 2>"$T/plain.err"
check "an executor without the driver's key never gets through" \
  grep -qF "the driver at $DRIVER_URL did not register executor 98 within" \
  "$T/plain.err" || cat "$T/plain.err"
check "the application was still running meanwhile" kill -0 "$PACED"
wait "$PACED"
check "the job ran to its end on the good executors" test $? -eq 0
check "the intruders ran no task" \
  eval '! grep -q "executor 9[89] registered" "$T/paced.err"'

# --- rotation: a client key removed, then SIGHUP --------------------------
"$BIN/hearth-keygen" --client viewer "$K" >/dev/null
kill -HUP "$MASTER_PID"
check "a client key added, then SIGHUP: it is admitted" \
  wait_for 5 served viewer
rm "$K/clients/viewer.key"
kill -HUP "$MASTER_PID"
sleep 0.5
check "its key removed, then SIGHUP: it is refused" eval '! served viewer'
check "... while the others are still served" served client

# --- rotation: peers already connected are cut off too --------------------
"$BIN/hearth-keygen" --client watcher "$K" >/dev/null
kill -HUP "$MASTER_PID"
wait_for 5 served watcher
# shellcheck disable=SC2046
follow watcher $(client_keys watcher) --topic heartbeat
# shellcheck disable=SC2046
follow keeper $(client_keys client) --topic heartbeat
check "a tail with a new key receives events" \
  wait_for 5 grep -q '"event":"heartbeat"' "$T/watcher.events"
W2_PUB=$(sed -n 's/.*public-key = "\(.*\)"/\1/p' "$K/clients/w2.key")
mv "$K/clients/w2.key" "$T/w2.key.removed"
rm "$K/clients/watcher.key"
kill -HUP "$MASTER_PID"
w2_state() {
  state_as client | jq -r --arg id "$ID_w2" '.workers[] | select(.id == $id) | .state'
}
w2_dead() { [[ $(w2_state) == DEAD ]]; }
check "worker w2's key removed, then SIGHUP: w2 is declared DEAD" wait_for 10 w2_dead
check "... at the reload, not after liveness x interval" \
  grep -q "worker $ID_w2 .* is DEAD: its CURVE key was removed from the allow directory" \
  "$T/master.log"
check "... its messages were refused, and the master says why" \
  wait_for 5 grep -qF "refused 127.0.0.1: CURVE key $W2_PUB was removed from the allow directory" "$T/master.log"
# before any of its messages was refused: at the reload itself
first_line() { grep -n -m1 -F -- "$1" "$T/master.log" | cut -d: -f1; }
dead_at=$(first_line "worker $ID_w2 (") refused_at=$(first_line "CURVE key $W2_PUB was removed")
check "... DEAD (log line $dead_at) before any of its messages was refused (line $refused_at)" \
  test "${dead_at:-999999}" -lt "${refused_at:-0}"
check "... w2 never registered again" \
  eval '[[ $(grep -c "worker $ID_w2 registered" "$T/master.log") == 1 ]]'
one_alive() { [[ $(alive_workers) == 1 ]]; }
check "w1 is still ALIVE" one_alive
sleep 0.5
watched=$(wc -c <"$T/watcher.events")
kept=$(wc -c <"$T/keeper.events")
sleep 1.5
check "the event tail whose key was removed gets no more events" \
  test "$(wc -c <"$T/watcher.events")" -eq "$watched"
check "... while a tail with a key still admitted does" \
  test "$(wc -c <"$T/keeper.events")" -gt "$kept"
# shellcheck disable=SC2046
check "a job still runs on w1" submit --master "$MASTER_URL" $(client_keys client) "$J"
check "... and its result is right" grep -qx 200 "$T/out"

# A driver whose key is removed while its job runs ends at once, FAILED:
# the master ended its application, and it does not wait (register-timeout,
# 60 s here) for the answer to an UNREGISTER_APPLICATION the master drops.
"$BIN/hearth-keygen" --client dropped "$K" >/dev/null
kill -HUP "$MASTER_PID"
wait_for 5 served dropped
HOLD=$(job hold '{"name":"hold","stages":[{"name":"s","tasks":[{"cmd":["sleep","60"]}]}]}')
# shellcheck disable=SC2046
"$BIN/hearth-submit" --master "$MASTER_URL" $(client_keys dropped) \
  --heartbeat-interval "${INTERVAL_MS}ms" --register-timeout 60s --log-level info \
  "$HOLD" >"$T/dropped.out" 2>"$T/dropped.err" &
DROPPED=$!
PIDS+=($DROPPED)
check "a driver with the key 'dropped' runs its job" \
  wait_for 15 grep -q "application app-[0-9-]* registered" "$T/dropped.err"
rm "$K/clients/dropped.key"
kill -HUP "$MASTER_PID"
check "its key removed: the master ends its application (driver cut off)" \
  wait_for 10 grep -q "FAILED: driver cut off" "$T/master.log"
check "... and the driver exits within 15 s, not after its 60 s register-timeout" \
  wait_for 15 eval '! kill -0 $DROPPED'
wait "$DROPPED"
check "... failing (exit 1)" test $? -eq 1
check "... saying that the master removed the application" \
  grep -q "driver cut off" "$T/dropped.err"
check "... without waiting for a confirmation" \
  eval '! grep -q "did not confirm the end" "$T/dropped.err"'

kill -TERM "$PID_w2"; wait "$PID_w2" 2>/dev/null
mv "$T/w2.key.removed" "$K/clients/w2.key"
kill -HUP "$MASTER_PID"
sleep 0.3
# shellcheck disable=SC2046
CORES=2 start_worker w2b $(client_keys w2)
check "w2's key back, then SIGHUP: a new worker with it registers" test $? -eq 0
check "two workers are ALIVE again" wait_for 10 two_alive
finish
