#!/usr/bin/env bash
# A key of its own for each launch of a cluster-mode driver
# (docs/security.md, "Cluster-mode drivers"; issue 35): on a master with
# role directories and a journal,
# - alice's cluster-mode driver gets a key pair of its own in its
#   directory (mode 0600), and no copy of the worker's key, and registers
#   its application, hers, with it;
# - whoever holds that key (copied out of the directory, as its user
#   could) may read the state, but cannot register a worker
#   (REGISTER_WORKER_FAILED), register an application of its own, nor end
#   or kill bob's application;
# - after kill -9 of the master and a restart on its journal, the live
#   driver registers its application again with its key;
# - killed, the supervised driver is launched again with a new key, its
#   old one refused from then on, and resumes its application with the
#   new key (issue 39);
# - once it has finished, its key is refused too.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
. "$(dirname "$0")/../lib/security.sh"
deadline 240
export TMPDIR=$T

"$BIN/hearth-keygen" "$K" >/dev/null &&
  for c in alice bob; do "$BIN/hearth-keygen" --client "$c" "$K" >/dev/null; done &&
  "$BIN/hearth-keygen" --worker w1 "$K" >/dev/null ||
  { fail "keys"; finish; exit 1; }
MASTER_ARGS=(--curve-secret "$K/master.key_secret" --curve-allow "$K/clients"
  --curve-allow-workers "$K/workers" --journal "$T/journal"
  --driver-relaunch-delay 200ms)
start_master "${MASTER_ARGS[@]}" || { fail "the master starts"; finish; exit 1; }
# shellcheck disable=SC2046
CORES=4 start_worker w1 $(client_keys w1) || { fail "the worker starts"; finish; exit 1; }

# pub_of FILE: the public key a key file holds.
pub_of() { sed -n 's/^ *public-key = "\(.*\)"$/\1/p' "$1"; }
# with_key FILE: the flags of a client holding the secret key FILE.
with_key() { echo "--curve-secret $1 --master-key $K/master.key"; }
# reads FILE: a client with key FILE is served the state.
reads() {
  # shellcheck disable=SC2046
  "$BIN/hearth-tail" --master "$MASTER_URL" --state --json --timeout 2s \
    $(with_key "$1") >/dev/null 2>&1
}
# refused_key PUB: the master's log says it refused the handshake of PUB.
refused_key() { grep -qF "CURVE key $PUB is not in the allow directory" "$T/master.log"; }
# drv FIELD: a field of alice's driver in the state (read as bob).
drv() { state_as bob | jq -r --arg id "$DRV" --arg f "$1" '.drivers[] | select(.id == $id) | .[$f] // empty'; }
app_owner() { state_as bob | jq -r --arg id "$1" '.apps[] | select(.id == $id) | .owner'; }
# take_key N: copy the key file of the driver's launch N out of its
# directory (as its user could), into $T/drv-N.key_secret; sets PUB.
take_key() {
  PUB=
  cp "$DIR/.driver.key_secret" "$T/drv-$1.key_secret" &&
    chmod 600 "$T/drv-$1.key_secret" && PUB=$(pub_of "$T/drv-$1.key_secret")
}

# bob's application, for alice's driver's key to try to end.
# shellcheck disable=SC2046
"$TBIN/test-app" --master "$MASTER_URL" $(client_keys bob) --name bobs \
  --interval "${INTERVAL_MS}ms" --max-cores 1 --memory-mb 1 >"$T/bob.out" 2>&1 &
PIDS+=($!)
check "bob's application registers" wait_for 10 grep -q '^REGISTERED ' "$T/bob.out"
BOB_APP=$(sed -n 's/^REGISTERED //p' "$T/bob.out")

# --- the driver's own key --------------------------------------------------
HOLD=$(job hold "{\"name\":\"hold\",\"stages\":[{\"name\":\"s\",\"tasks\":[
  {\"cmd\":[\"sh\",\"-c\",\"while [ ! -e $T/go ]; do sleep 0.1; done; echo held\"]}]}]}")
# shellcheck disable=SC2046
submit --master "$MASTER_URL" $(client_keys alice) --deploy-mode cluster \
  --supervise --total-executor-cores 1 --executor-memory 256M --no-wait "$HOLD"
DRV=$(head -1 "$T/out")
check "alice submits a supervised cluster-mode driver" test -n "$DRV"
check "... it registers its application" wait_for 20 eval '[[ -n $(drv app_id) ]]'
APP1=$(drv app_id)
check "... which is alice's" test "$(app_owner "$APP1")" = "$(pub_of "$K/clients/alice.key")"
DIR=$T/w1/$DRV
check "its directory holds a key of its own, mode 0600" \
  test "$(stat -c %a "$DIR/.driver.key_secret")" = 600
W1_SECRET=$(sed -n 's/^ *secret-key = "\(.*\)"$/\1/p' "$K/w1.key_secret")
check "... and no copy of the worker's key" \
  eval '! grep -rqF -- "$W1_SECRET" "$DIR"'
# env_of PID: a process's environment, a variable a line.
env_of() { tr '\0' '\n' <"/proc/$1/environ"; }
DPID=$(drv pid)
check "... which the driver is given (HEARTH_CURVE_SECRET)" \
  eval 'env_of "$DPID" | grep -qx "HEARTH_CURVE_SECRET=$DIR/.driver.key_secret"'
check "... and nothing of the worker's" eval '! env_of "$DPID" | grep -qF "w1.key_secret"'
take_key 1
KEY1=$T/drv-1.key_secret PUB1=$PUB
check "... its public key is none of the allow directories'" \
  eval '! grep -rqF -- "$PUB1" "$K/clients" "$K/workers"'
check "the master says whose it is: the application is the driver's" \
  grep -q "application $APP1 is driver $DRV's" "$T/master.log"

# --- what that key may do ----------------------------------------------------
check "the driver's key may read the state" reads "$KEY1"
# shellcheck disable=SC2046
timeout 30 "$BIN/hearth-worker" --master "$MASTER_URL" $(with_key "$KEY1") \
  --work-dir "$T/forged" --cores 1 --memory 1G --log-level info >"$T/forged.log" 2>&1
check "a worker with the driver's key is refused (exit 1)" test $? -eq 1
check "... by REGISTER_WORKER_FAILED: a cluster-mode driver's key" \
  grep -q "the master refused this worker: the key $DRV (.*) is a cluster-mode driver's key: REGISTER_WORKER needs a worker key" "$T/forged.log"
check "... so the master has one worker still" \
  test "$(state_as bob | jq '.workers | length')" -eq 1
# shellcheck disable=SC2046
"$TBIN/test-app" --master "$MASTER_URL" $(with_key "$KEY1") --name forged \
  --interval "${INTERVAL_MS}ms" --memory-mb 1 >"$T/forged-app.out" 2>&1 &
FORGED=$!
PIDS+=($FORGED)
check "the driver's key registers no application of its own" \
  wait_for 10 grep -q "^ERROR not_allowed .*REGISTER_APPLICATION needs a client key" "$T/forged-app.out"
kill "$FORGED" 2>/dev/null
# shellcheck disable=SC2046
"$BIN/hearth-submit" --master "$MASTER_URL" $(with_key "$KEY1") --timeout 5s \
  --kill "$BOB_APP" >"$T/kill.out" 2>"$T/kill.err"
check "the driver's key cannot kill bob's application" test $? -eq 1
check "... not_allowed: it belongs to another key" \
  grep -q "not_allowed: application $BOB_APP belongs to another key" "$T/kill.err"
# shellcheck disable=SC2046
"$TBIN/test-app" --master "$MASTER_URL" $(with_key "$KEY1") \
  --unregister "$BOB_APP" >"$T/unreg.out" 2>&1
check "... nor end it" grep -q "^UNREGISTER ERROR not_allowed" "$T/unreg.out"
check "... which still runs" \
  test "$(state_as bob | jq -r --arg id "$BOB_APP" '.apps[] | select(.id == $id) | .state')" = RUNNING

# --- a restart of the master: the live driver's key is admitted again -------
kill9 "$MASTER_PID"
PORT=$MASTER_PORT start_master "${MASTER_ARGS[@]}" ||
  { fail "the master starts again on its journal"; finish; exit 1; }
check "the restarted master admits the placed driver's key again" \
  grep -q "the keys of 1 cluster-mode drivers placed are admitted again" "$T/master.log"
check "... the driver registers its application again with it" \
  wait_for 20 grep -q "application $APP1 (hold): its driver is back after the master's restart" "$T/master.log"
check "... still the driver's application" \
  wait_for 5 eval '(($(grep -c "application $APP1 is driver $DRV.s" "$T/master.log") == 2))'
check "... and the key still reads the state" reads "$KEY1"

# --- a relaunch: a new key, the old one refused ------------------------------
kill -9 "$(drv pid)"
check "killed, the supervised driver is launched again" \
  wait_for 20 eval '[[ $(drv launches) == 2 && $(drv state) == RUNNING ]]'
# a supervised driver relaunched resumes its application (issue 39): the
# same id, its next driver epoch, registered with the new launch's key
app_epoch() { state_as bob | jq -r --arg id "$1" '.apps[] | select(.id == $id) | .driver_epoch'; }
check "... and resumes its application (the same id, driver epoch 2)" \
  wait_for 20 eval '[[ $(drv app_id) == "$APP1" && $(app_epoch "$APP1") == 2 ]]'
APP2=$(drv app_id)
check "... alice's" test "$(app_owner "$APP2")" = "$(pub_of "$K/clients/alice.key")"
take_key 2
KEY2=$T/drv-2.key_secret PUB2=$PUB
check "... with a new key" test -n "$PUB2" -a "$PUB2" != "$PUB1"
check "... which reads the state" reads "$KEY2"
reads "$KEY1"
check "the first launch's key is refused" test $? -ne 0
check "... while a client key is served" served alice
PUB=$PUB1
check "... at the handshake, the master's log says" wait_for 5 refused_key

# --- the end: its key is refused ----------------------------------------------
touch "$T/go"
check "the driver finishes" wait_for 30 eval '[[ $(drv state) == FINISHED ]]'
reads "$KEY2"
check "... and its key is refused from then on" test $? -ne 0
check "... while a client key is served" served alice
finish
