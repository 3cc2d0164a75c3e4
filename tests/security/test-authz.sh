#!/usr/bin/env bash
# Authorization by owner and role (docs/security.md, "Who may do what"),
# on a master with client, worker and operator keys in their own allow
# directories: a client key cannot register a worker; a worker key cannot
# run an application; a user's key cannot kill or end another user's
# application or driver (refused, naming why, and it keeps running), nor
# have her driver killed by registering a decoy application in its name;
# only an operator key drains, resumes or decommissions a worker; an
# operator's kill succeeds; a cluster-mode driver's application belongs to
# its submitter, not to the key of its own it speaks with; and a key over its
# core limit waits with a message (in --state and in the events) and runs
# when its cores free, the limits file being read again on SIGHUP.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
. "$(dirname "$0")/../lib/security.sh"
deadline 200
export TMPDIR=$T

"$BIN/hearth-keygen" "$K" >/dev/null &&
  for c in alice bob carol; do "$BIN/hearth-keygen" --client "$c" "$K" >/dev/null; done &&
  "$BIN/hearth-keygen" --worker w1 "$K" >/dev/null &&
  "$BIN/hearth-keygen" --operator ops "$K" >/dev/null ||
  { fail "keys"; finish; exit 1; }
check "hearth-keygen --worker admits the key in DIR/workers" test -s "$K/workers/w1.key"
check "hearth-keygen --operator admits the key in DIR/operators" test -s "$K/operators/ops.key"
pub() { sed -n 's/.*public-key = "\(.*\)"/\1/p' "$K/$1.key"; }

printf 'carol 1   # carol may hold one core\n' >"$T/limits"
MASTER_ARGS=(--curve-secret "$K/master.key_secret" --curve-allow "$K/clients"
  --curve-allow-workers "$K/workers" --curve-operators "$K/operators"
  --key-limits "$T/limits" --journal "$T/journal")
start_master "${MASTER_ARGS[@]}" ||
  { fail "a master with role directories starts"; finish; exit 1; }
check "with role directories the master does not warn that every key may do everything" \
  eval '! grep -q "keys without roles" "$T/master.log"'
# shellcheck disable=SC2046
CORES=4 start_worker w1 $(client_keys w1) || fail "a worker key registers a worker"

# --- roles ------------------------------------------------------------------
"$BIN/hearth-worker" --master "$MASTER_URL" --work-dir "$T/rogue" \
  --ready-file "$T/rogue.ready" --heartbeat-interval "${INTERVAL_MS}ms" \
  $(client_keys alice) >"$T/rogue.log" 2>&1 &
ROGUE=$!
PIDS+=($ROGUE)
check "a worker with a client key is refused: it exits" wait_for 10 eval '! kill -0 $ROGUE'
wait "$ROGUE"
check "... with status 1" test $? -eq 1
check "... saying that REGISTER_WORKER needs a worker key" \
  grep -q "the master refused this worker: the key alice.key (.*) is a client key: REGISTER_WORKER needs a worker key (--curve-allow-workers)" "$T/rogue.log"
check "... it never registered" test ! -s "$T/rogue.ready"
check "... and the master has its one worker" \
  eval '[[ $(state_as bob | jq "[.workers[] | select(.state == \"ALIVE\")] | length") == 1 ]]'

ECHO=$(job echo '{"name":"echo","stages":[
  {"name":"s","tasks":[{"cmd":["echo","{i}"],"count":40}]},
  {"name":"n","tasks":[{"cmd":["wc","-l"],"input":"s"}]}]}')
# shellcheck disable=SC2046
submit --master "$MASTER_URL" $(client_keys w1) --register-timeout 5s "$ECHO"
check "a worker key cannot run an application (client mode)" test $? -ne 0
check "... the master says it needs a client key" \
  grep -q "not_allowed: the key w1.key (.*) is a worker key: REGISTER_APPLICATION needs a client key" "$T/err"
# shellcheck disable=SC2046
submit --master "$MASTER_URL" $(client_keys w1) --deploy-mode cluster "$ECHO"
check "... nor submit a cluster-mode driver" test $? -ne 0
check "... SUBMIT_DRIVER needs a client key" \
  grep -q "SUBMIT_DRIVER needs a client key" "$T/err"
# shellcheck disable=SC2046
check "an operator key runs applications as a client does" \
  submit --master "$MASTER_URL" $(client_keys ops) "$ECHO"
check "... with the exact result" grep -qx 40 "$T/out"

# --- killing: only the owner or an operator ---------------------------------
HOLD=$(job hold '{"name":"hold","stages":[{"name":"s","tasks":[{"cmd":["sleep","60"]}]}]}')
# bg NAME KEY JOB [ARGS...]: hearth-submit JOB as KEY, in the background;
# waits for its application; sets PID_NAME and APP_NAME.
bg() {
  local name=$1 key=$2 file=$3; shift 3
  # shellcheck disable=SC2046
  "$BIN/hearth-submit" --master "$MASTER_URL" $(client_keys "$key") \
    --heartbeat-interval "${INTERVAL_MS}ms" --log-level info "$@" "$file" \
    >"$T/$name.out" 2>"$T/$name.err" &
  PIDS+=($!)
  printf -v "PID_$name" '%s' "$!"
  wait_for 10 grep -q 'application app-[0-9-]* registered' "$T/$name.err" || return 1
  printf -v "APP_$name" '%s' \
    "$(sed -n 's/.*application \(app-[0-9-]*\) registered.*/\1/p' "$T/$name.err" | head -1)"
}
hold() { local name=$1 key=$2; shift 2; bg "$name" "$key" "$HOLD" "$@"; }
app_field() { # APP FIELD: a field of that application in MASTER_STATE
  state_as bob | jq -r --arg id "$1" ".apps[] | select(.id == \$id) | .$2"
}
app_is() { [[ $(app_field "$1" state) == "$2" ]]; }
kill_as() { # KEY ID: hearth-submit --kill ID as KEY; output in $T/out, $T/err
  # shellcheck disable=SC2046
  "$BIN/hearth-submit" --master "$MASTER_URL" $(client_keys "$1") --kill "$2" \
    >"$T/out" 2>"$T/err"
}
hold a1 alice --total-executor-cores 1 || fail "alice's application registers"
check "alice's application runs" wait_for 10 app_is "$APP_a1" RUNNING
check "... and is alice's (its owner is her key)" \
  test "$(app_field "$APP_a1" owner)" = "$(pub alice)"
kill_as bob "$APP_a1"
check "bob cannot kill alice's application (exit 1)" test $? -eq 1
check "... told that it belongs to another key" \
  grep -q "application $APP_a1 belongs to another key: only its owner or an operator key (--curve-operators) may end it, and bob.key (.*) is a client key" "$T/err"
check "... the master logs the refusal" \
  grep -q "refused .*: KILL_APPLICATION: application $APP_a1 belongs to another key" "$T/master.log"
# shellcheck disable=SC2046
"$TBIN/test-app" --master "$MASTER_URL" $(client_keys bob) --unregister "$APP_a1" >"$T/unreg.out"
check "bob cannot end it with UNREGISTER_APPLICATION either" \
  grep -q "UNREGISTER ERROR not_allowed application $APP_a1 belongs to another key" "$T/unreg.out"
sleep 0.5
check "... alice's application is still RUNNING" app_is "$APP_a1" RUNNING
check "... and her hearth-submit still runs" kill -0 "$PID_a1"
kill_as ops "$APP_a1"
check "an operator kills it (exit 0)" test $? -eq 0
check "... and says so" grep -qx "application $APP_a1 KILLED" "$T/out"
check "... it is KILLED" wait_for 5 app_is "$APP_a1" KILLED
check "... and alice's hearth-submit ends, failing" wait_for 10 eval '! kill -0 $PID_a1'
hold a2 alice --total-executor-cores 1 || fail "alice's second application registers"
kill_as alice "$APP_a2"
check "alice kills her own application" test $? -eq 0
check "... it is KILLED" wait_for 5 app_is "$APP_a2" KILLED

# A cluster-mode driver speaks with the key the master made for its
# launch; its application is its submitter's.
# shellcheck disable=SC2046
submit --master "$MASTER_URL" $(client_keys alice) --deploy-mode cluster \
  --total-executor-cores 1 --executor-memory 256M --no-wait "$HOLD"
DRV=$(head -1 "$T/out")
check "alice submits a cluster-mode driver" test -n "$DRV"
drv_app() { state_as bob | jq -r --arg id "$DRV" '.drivers[] | select(.id == $id) | .app_id // empty'; }
check "... its application registers" wait_for 20 eval '[[ -n $(drv_app) ]]'
DAPP=$(drv_app)
check "... and runs" wait_for 10 app_is "$DAPP" RUNNING
check "the driver is alice's" \
  test "$(state_as bob | jq -r --arg id "$DRV" '.drivers[] | select(.id == $id) | .owner')" = "$(pub alice)"
check "... and so is its application, though its driver speaks with a key of its own" \
  test "$(app_field "$DAPP" owner)" = "$(pub alice)"
# A decoy: bob registers an application claiming to be alice's driver,
# then kills it (his own): her driver must not go with it (issue 35 item 2).
drv_state() { state_as bob | jq -r --arg id "$DRV" '.drivers[] | select(.id == $id) | .state'; }
# shellcheck disable=SC2046
"$TBIN/test-app" --master "$MASTER_URL" $(client_keys bob) --name decoy \
  --driver-id "$DRV" --memory-mb 1 >"$T/decoy.out" 2>&1 &
PIDS+=($!)
check "bob registers a decoy application naming alice's driver" \
  wait_for 10 grep -q '^REGISTERED ' "$T/decoy.out"
DECOY=$(sed -n 's/^REGISTERED //p' "$T/decoy.out")
check "... which is bob's" test "$(app_field "$DECOY" owner)" = "$(pub bob)"
check "... and not linked to her driver, which keeps its application" \
  test "$(drv_app)" = "$DAPP"
check "... the master says why" \
  grep -q "application $DECOY names driver $DRV, which it is not: not linked to it" "$T/master.log"
kill_as bob "$DECOY"
check "bob kills his decoy" test $? -eq 0
check "... it is KILLED" wait_for 5 app_is "$DECOY" KILLED
sleep 0.5
check "... and alice's driver still runs" test "$(drv_state)" = RUNNING
check "... and so does its application" app_is "$DAPP" RUNNING
kill_as bob "$DRV"
check "bob cannot kill alice's driver" test $? -eq 1
check "... told that it belongs to another key" \
  grep -q "driver $DRV belongs to another key" "$T/err"
kill_as bob "$DAPP"
check "... nor its application" test $? -eq 1
check "... which still runs" app_is "$DAPP" RUNNING
# A driver's output is its owner's (and the operators'), as its files are.
logs_as() { # KEY: hearth-submit --logs $DRV as KEY; output in $T/log.out, .err
  # shellcheck disable=SC2046
  "$BIN/hearth-submit" --master "$MASTER_URL" $(client_keys "$1") --logs "$DRV" \
    --log-stream stderr >"$T/log.out" 2>"$T/log.err"
}
logs_as bob
check "bob cannot read alice's driver's output (exit 1)" test $? -eq 1
check "... told that only its owner or an operator may read it" \
  grep -q "driver $DRV belongs to another key: only its owner or an operator key (--curve-operators) may read its output" "$T/log.err"
logs_as alice
check "alice reads her driver's output" test $? -eq 0
logs_as ops
check "... and so does an operator" test $? -eq 0
kill_as alice "$DRV"
check "alice kills her driver" test $? -eq 0
check "... it is KILLED" grep -q "driver $DRV KILLED" "$T/out"

# --- the cluster: only operators drain, resume and decommission workers ------
# (issue 35 item 1: any key could; alice's application runs on w1 meanwhile)
admin_as() { # KEY ARGS...: hearth-admin as KEY; output in $T/out, $T/err
  local key=$1; shift
  # shellcheck disable=SC2046
  "$BIN/hearth-admin" --master "$MASTER_URL" $(client_keys "$key") "$@" \
    >"$T/out" 2>"$T/err"
}
worker_field() { state_as bob | jq -r --arg id "$WORKER_ID" ".workers[] | select(.id == \$id) | .$1"; }
hold a4 alice --total-executor-cores 1 || fail "alice's fourth application registers"
check "alice's application runs on the worker" wait_for 10 app_is "$APP_a4" RUNNING
for verb in drain resume; do
  admin_as bob "$verb" "$WORKER_ID"
  check "bob cannot $verb the worker (exit 1)" test $? -eq 1
  check "... told that ${verb^^}_WORKER needs an operator key" \
    grep -q "the key bob.key (.*) is a client key: ${verb^^}_WORKER needs an operator key (--curve-operators)" "$T/err"
done
check "... the worker is not draining" test "$(worker_field draining)" != true
admin_as bob decommission --decommission-timeout 0 "$WORKER_ID"
check "bob cannot decommission the worker (exit 1)" test $? -eq 1
check "... told that DECOMMISSION_WORKER needs an operator key" \
  grep -q "DECOMMISSION_WORKER needs an operator key" "$T/err"
admin_as w1 drain "$WORKER_ID"
check "nor can a worker key drain it" test $? -eq 1
sleep 0.5
check "... the worker is still ALIVE" test "$(worker_field state)" = ALIVE
check "... and alice's application still runs" app_is "$APP_a4" RUNNING
check "... and so does her hearth-submit" kill -0 "$PID_a4"
check "the master logs the refusals" \
  grep -q "refused .*: DECOMMISSION_WORKER: the key bob.key" "$T/master.log"
admin_as ops drain "$WORKER_ID"
check "an operator drains it (exit 0)" test $? -eq 0
check "... it is draining" test "$(worker_field draining)" = true
admin_as ops resume "$WORKER_ID"
check "... and resumes it" test $? -eq 0
check "... it takes work again" test "$(worker_field draining)" != true
kill_as alice "$APP_a4"

# --- per-key core limits ----------------------------------------------------
# shellcheck disable=SC2046
"$BIN/hearth-tail" --master "$MASTER_URL" --events "$EVENTS_URL" --json \
  $(client_keys bob) >"$T/events" 2>"$T/tail.err" &
PIDS+=($!)
sleep 0.5
GATE=$(job gate '{"name":"gate","stages":[{"name":"s","tasks":[{"cmd":["sh","-c","while [ ! -e '"$T"'/open ]; do sleep 0.05; done; echo out"]}]}]}')
gated() { local name=$1 key=$2; shift 2; bg "$name" "$key" "$GATE" "$@"; }
gated c1 carol || fail "carol's first application registers"
check "carol's first application runs" wait_for 10 app_is "$APP_c1" RUNNING
check "... on the one core her limit allows, of 4 free" \
  test "$(app_field "$APP_c1" cores_granted)" = 1
gated c2 carol || fail "carol's second application registers"
sleep 1
check "carol's second application waits" app_is "$APP_c2" WAITING
check "... saying why in --state" \
  eval '[[ $(app_field "$APP_c2" waiting.reason) == "its key carol.key ("*") holds 1 of its 1 cores (--max-cores-per-key, --key-limits): it waits until that key'"'"'s applications free cores" ]]'
check "... with its code" test "$(app_field "$APP_c2" waiting.code)" = key_limit
# shellcheck disable=SC2046
check "... and in hearth-tail --state's table" \
  eval '"$BIN/hearth-tail" --master "$MASTER_URL" --state --timeout 2s $(client_keys bob) | grep -q "^  waiting: its key carol.key"'
check "... and in its events" \
  grep -q "\"event\":\"waiting\".*\"id\":\"$APP_c2\".*\"waiting\":{\"code\":\"key_limit\",\"reason\":\"its key carol.key" "$T/events"
check "... and in the master's log" \
  grep -q "application $APP_c2 waits: its key carol.key" "$T/master.log"
check "... and its driver hears why (APPLICATION_WAITING)" \
  wait_for 5 grep -q "the master holds the application back: its key carol.key" "$T/c2.err"
# shellcheck disable=SC2046
check "bob's application runs meanwhile: the limit is carol's" \
  submit --master "$MASTER_URL" $(client_keys bob) "$ECHO"
check "... with the exact result" grep -qx 40 "$T/out"
check "carol's second application still waits" app_is "$APP_c2" WAITING
touch "$T/open"
wait "$PID_c1"
check "the gate opens: carol's first application ends well" test $? -eq 0
wait "$PID_c2"
check "... and her second one runs to its end when the core frees" test $? -eq 0
check "... with its result" grep -qx out "$T/c2.out"
check "... its driver told when the reason changed (it runs, on fewer cores)" \
  grep -q "the master holds the application back: .*it runs on fewer cores than it asks" "$T/c2.err"
rm -f "$T/open"

gated c3 carol --total-executor-cores 1 || fail "carol's third application registers"
check "carol's third application runs (it asks for one core)" \
  wait_for 10 app_is "$APP_c3" RUNNING
gated c4 carol || fail "carol's fourth application registers"
sleep 1
check "... her fourth waits" app_is "$APP_c4" WAITING
printf 'carol  2\n' >"$T/limits"
kill -HUP "$MASTER_PID"
check "her limit raised to 2 in the file, then SIGHUP: the fourth runs" \
  wait_for 10 app_is "$APP_c4" RUNNING
check "... while the third still holds its core" app_is "$APP_c3" RUNNING
check "... on the one core left under the limit, which it says (it asks for all)" \
  eval '[[ $(app_field "$APP_c4" waiting.reason) == *"holds 2 of its 2 cores"*"it runs on fewer cores than it asks"* ]]'
check "the master read the file again" \
  grep -q "key limits: 1 keys in $T/limits, 0 cores for the others" "$T/master.log"
printf 'carol lots\n' >"$T/limits"
kill -HUP "$MASTER_PID"
check "a bad limits file is refused on SIGHUP, naming the line" \
  wait_for 5 grep -q "$T/limits:1: bad number of cores 'lots'.*: the key limits stay as they were" "$T/master.log"
touch "$T/open"
wait "$PID_c3"
check "both end well" test $? -eq 0
wait "$PID_c4"
check "... both" test $? -eq 0

# --- owners survive a restart of the master (its journal) --------------------
hold a3 alice --total-executor-cores 1 || fail "alice's third application registers"
check "alice's third application runs" wait_for 10 app_is "$APP_a3" RUNNING
kill9 "$MASTER_PID"
printf 'carol 2\n' >"$T/limits" # a bad file would stop the start-up
PORT=$MASTER_PORT start_master "${MASTER_ARGS[@]}" || fail "the master restarts on its journal"
check "after the restart, alice's application is back" \
  wait_for 20 eval '[[ $(app_field "$APP_a3" state) == RUNNING && $(app_field "$APP_a3" recovering) == null ]]'
check "... still hers" test "$(app_field "$APP_a3" owner)" = "$(pub alice)"
kill_as bob "$APP_a3"
check "... and bob still cannot kill it" test $? -eq 1
check "... which runs on" app_is "$APP_a3" RUNNING
kill_as alice "$APP_a3"
check "alice can" test $? -eq 0

# Without CURVE there are no keys: limits are not applied, and it is said.
kill -TERM "$MASTER_PID"; wait "$MASTER_PID" 2>/dev/null
start_master --max-cores-per-key 1 || fail "a master without keys starts"
check "a master without keys but with a core limit warns that none applies" \
  grep -q "WARN per-key limits need CURVE keys (--curve-secret): without them no application has a key, and none is limited" "$T/master.log"
check "... and says nothing of roles" eval '! grep -q "keys without roles" "$T/master.log"'
finish
