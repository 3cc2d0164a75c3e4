#!/usr/bin/env bash
# The authorization table, walked whole (docs/security.md, "Who may do
# what"): hearth-master --authz-table prints who may send each command;
# this test sends every command of it, as each of six senders — an
# operator key, the owner of what the command names (alice), another
# client key (bob), a worker key, the masters' own key, and a running
# cluster-mode driver's own key (read from its directory, as its user
# could) — to a master with role directories, and checks that the master
# refuses exactly the senders the row does not name.  A command added to
# the master without a row here, or without a body below, fails the
# test; so does a row the docs do not show as printed.
#
# Each sender gets a fresh application and cluster-mode driver of
# alice's to name (what an allowed sender may kill), from links of their
# own: the relation only a record's own driver has (self: the
# application's driver on its link, or the named cluster-mode driver with
# its own key) holds for none of the senders, so rows naming only it
# refuse all six.  No worker runs for the first five passes: the drivers
# stay SUBMITTED, the applications WAITING.  Then a worker of one core
# comes: it runs one of the drivers left (whose key the sixth sender
# holds), and none of the sixth pass's.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
. "$(dirname "$0")/../lib/security.sh"
deadline 150
export TMPDIR=$T
SRC=${HEARTH_SRC_DIR:-$(dirname "$0")/../..}

"$BIN/hearth-keygen" "$K" >/dev/null &&
  for c in alice bob; do "$BIN/hearth-keygen" --client "$c" "$K" >/dev/null; done &&
  "$BIN/hearth-keygen" --worker w1 "$K" >/dev/null &&
  "$BIN/hearth-keygen" --operator ops "$K" >/dev/null ||
  { fail "keys"; finish; exit 1; }

"$BIN/hearth-master" --authz-table >"$T/table"
check "hearth-master --authz-table prints the table" test -s "$T/table"
# Every row, as docs/security.md shows it: | `COMMAND` | who, who |
while read -r cmd who; do
  row="| \`$cmd\` | ${who// /, } |"
  check "docs/security.md shows $cmd's row as the master has it" \
    grep -qF -- "$row" "$SRC/docs/security.md"
done <"$T/table"
check "... and no other row" test \
  "$(grep -c '^| `[A-Z_]*` | [a-z, ]* |' "$SRC/docs/security.md")" -eq "$(wc -l <"$T/table")"

start_master --curve-secret "$K/master.key_secret" --curve-allow "$K/clients" \
  --curve-allow-workers "$K/workers" --curve-operators "$K/operators" ||
  { fail "a master with role directories starts"; finish; exit 1; }

# records FOR: a fresh application (APP) and cluster-mode driver (DRV) of
# alice's, for sender FOR to name.
records() {
  # shellcheck disable=SC2046
  "$TBIN/test-app" --master "$MASTER_URL" $(client_keys alice) \
    --name "target-$1" --interval "${INTERVAL_MS}ms" >"$T/app-$1.out" 2>&1 &
  PIDS+=($!)
  wait_for 10 grep -q '^REGISTERED ' "$T/app-$1.out" || return 1
  APP=$(sed -n 's/^REGISTERED //p' "$T/app-$1.out")
  # shellcheck disable=SC2046
  submit --master "$MASTER_URL" $(client_keys alice) --deploy-mode cluster \
    --no-wait "$HOLD" || return 1
  DRV=$(head -1 "$T/out")
  [[ $DRV == driver-* ]]
}
HOLD=$(job hold '{"name":"hold","stages":[{"name":"s","tasks":[{"cmd":["sleep","60"]}]}]}')
WID=worker-20260101000000-ghost-1 # a worker nobody runs

# body CMD: a body for CMD naming APP, DRV and WID (the probe's line).
body() {
  case $1 in
  HEARTBEAT) echo "{\"id\":\"$APP\"}" ;;
  REGISTER_WORKER)
    echo "{\"id\":\"worker-20260101000000-probe-$S\",\"host\":\"127.0.0.1\",\"cores\":1,\"memory_mb\":1,\"version\":\"0\"}" ;;
  EXECUTOR_STATE_CHANGED) echo "{\"app_id\":\"$APP\",\"exec_id\":0,\"state\":\"FAILED\"}" ;;
  DRIVER_STATE_CHANGED) echo "{\"driver_id\":\"$DRV\",\"state\":\"FAILED\"}" ;;
  DRIVER_LOG_RESPONSE) echo "{\"ok\":false,\"driver_id\":\"$DRV\",\"request_id\":1}" ;;
  WORKER_STOPPING) echo "{\"id\":\"$WID\",\"reason\":\"probe\"}" ;;
  WORKER_DECOMMISSIONING) echo "{\"id\":\"$WID\",\"reason\":\"probe\",\"timeout_ms\":0}" ;;
  REGISTER_APPLICATION)
    echo "{\"name\":\"decoy\",\"driver_url\":\"tcp://127.0.0.1:1\",\"driver_id\":\"$DRV\",\"memory_per_executor_mb\":1}" ;;
  OUTPUTS_RECORDED)
    echo "{\"app_id\":\"$APP\",\"driver_epoch\":1,\"outputs\":[{\"stage\":\"aa\",\"kind\":\"map\",\"index\":0}]}" ;;
  APPLICATION_PROGRESS)
    echo "{\"app_id\":\"$APP\",\"jobs_active\":0,\"tasks_total\":1,\"tasks_finished\":0,\"tasks_failed\":0,\"tasks_running\":0,\"stages\":[]}" ;;
  KILL_EXECUTOR) echo "{\"app_id\":\"$APP\",\"exec_id\":0}" ;;
  REQUEST_EXECUTORS) echo "{\"app_id\":\"$APP\",\"total\":0}" ;;
  KILL_EXECUTORS) echo "{\"app_id\":\"$APP\",\"exec_ids\":[0]}" ;;
  SUBMIT_DRIVER)
    echo "{\"name\":\"probe\",\"app\":\"none.json\",\"kind\":\"job\",\"args\":[],\"files\":[],\"cores\":1,\"memory_mb\":1}" ;;
  UNREGISTER_APPLICATION) echo "{\"app_id\":\"$APP\",\"state\":\"FINISHED\"}" ;;
  KILL_APPLICATION) echo "{\"app_id\":\"$APP\"}" ;;
  KILL_DRIVER) echo "{\"driver_id\":\"$DRV\"}" ;;
  MASTER_STATE) echo "{}" ;;
  DRIVER_STATUS) echo "{\"driver_id\":\"$DRV\"}" ;;
  DRIVER_LOG) echo "{\"driver_id\":\"$DRV\",\"stream\":\"stderr\",\"offset\":0}" ;;
  ERROR) echo "{\"code\":\"probe\",\"message\":\"a probe's error\"}" ;;
  DRAIN_WORKER | RESUME_WORKER | DECOMMISSION_WORKER) echo "{\"worker_id\":\"$WID\"}" ;;
  FOLLOW_JOURNAL) echo "{\"stream\":\"\",\"url\":\"tcp://127.0.0.1:1\"}" ;;
  *) return 1 ;;
  esac
}

# The words of the table each sender has: its key's roles, and owner for
# alice, who owns every record named.
declare -A KEY=([operator]=ops [owner]=alice [client]=bob [worker]=w1 [master]=master
  [driver]=driver)
declare -A HAS=([operator]="operator client" [owner]="client owner" [client]=client
  [worker]=worker [master]=master [driver]=driver)

# driver_key: a worker of one core runs the first driver left SUBMITTED;
# its key, copied from its directory, is $K/driver.key_secret.
driver_key() {
  # shellcheck disable=SC2046
  CORES=1 start_worker w1 $(client_keys w1) || return 1
  local drv
  running() { drv=$(state_as bob | jq -r '.drivers[] | select(.state == "RUNNING") | .id'); [[ -n $drv ]]; }
  wait_for 20 running || return 1
  wait_for 10 test -s "$T/w1/$drv/.driver.key_secret" || return 1
  cp "$T/w1/$drv/.driver.key_secret" "$K/driver.key_secret" &&
    chmod 600 "$K/driver.key_secret"
}
# Ends come last: what they end is named by the rows after them too.
ENDS='UNREGISTER_APPLICATION KILL_APPLICATION KILL_DRIVER'
for S in operator owner client worker master driver; do
  if [[ $S == driver ]]; then
    driver_key || { fail "a running cluster-mode driver's key"; continue; }
  fi
  records "$S" || { fail "alice's application and driver for the $S pass"; continue; }
  : >"$T/lines-$S"
  while read -r cmd _; do
    [[ " $ENDS " == *" $cmd "* ]] && continue
    line=$(body "$cmd") || { fail "a body for $cmd (add it to body() here)"; continue; }
    echo "$cmd $line" >>"$T/lines-$S"
  done <"$T/table"
  for cmd in $ENDS; do echo "$cmd $(body "$cmd")" >>"$T/lines-$S"; done
  # shellcheck disable=SC2046
  "$PROBE" --master "$MASTER_URL" $(client_keys "${KEY[$S]}") \
    <"$T/lines-$S" >"$T/probe-$S" 2>&1
  check "the $S pass answered every command" \
    test "$(grep -c ' \(refused\|passed\) ' "$T/probe-$S")" -eq "$(wc -l <"$T/table")"
  while read -r cmd who; do
    allowed=0
    for w in ${HAS[$S]}; do [[ " $who " == *" $w "* ]] && allowed=1; done
    if ((allowed)); then want=passed; else want=refused; fi
    got=$(awk -v c="$cmd" '$1 == c { print $2 }' "$T/probe-$S")
    check "$cmd as $S (${KEY[$S]}): $want" test "$got" = "$want"
  done <"$T/table"
done
# What a refusal says: the key, its role, and who the row admits.
check "a refusal names the key, its role and what the command needs" \
  grep -q '^DRAIN_WORKER refused ERROR the key bob.key (.*) is a client key: DRAIN_WORKER needs an operator key (--curve-operators)$' "$T/probe-client"
check "... and what the record is, for an owner's row" \
  grep -q "^KILL_APPLICATION refused ERROR application app-[0-9-]* belongs to another key" "$T/probe-client"
check "... a cluster-mode driver's key named as one, and its driver" \
  grep -q "^REGISTER_WORKER refused REGISTER_WORKER_FAILED the key driver-[0-9-]* (.*) is a cluster-mode driver's key: REGISTER_WORKER needs a worker key" "$T/probe-driver"
check "... each logged by the master" \
  grep -q 'refused .*: DECOMMISSION_WORKER: the key w1.key' "$T/master.log"
finish
