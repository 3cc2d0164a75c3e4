#!/usr/bin/env bash
# Only the worker that runs a cluster-mode driver registers an application
# for the driver's submitter, after a restart of the master too
# (docs/security.md, "Who may do what": the row REGISTER_APPLICATION,
# "runner").  Such an application belongs to the submitter (its executors
# run as the submitter's user, its cores count against her limit), so the
# key that may register it must be that worker's: here alice's driver runs
# on w1; the master restarts over its journal while w1 is slow to speak
# again (stopped); the key of another worker, w2 (root on another node),
# names alice's driver in a REGISTER_APPLICATION.  It must be refused, and
# no application of alice's made; nor may w2's key register under w1's id
# (it took w1's record: w1's executors LOST, w1 itself refused as a
# duplicate).  Once w1 is back, the driver's own application is alice's
# still.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
. "$(dirname "$0")/../lib/security.sh"
deadline 150
export TMPDIR=$T

"$BIN/hearth-keygen" "$K" >/dev/null &&
  "$BIN/hearth-keygen" --client alice "$K" >/dev/null &&
  for w in w1 w2; do "$BIN/hearth-keygen" --worker "$w" "$K" >/dev/null; done &&
  "$BIN/hearth-keygen" --operator ops "$K" >/dev/null ||
  { fail "keys"; finish; exit 1; }
ALICE=$(sed -n 's/.*public-key = "\(.*\)"/\1/p' "$K/alice.key")
MASTER_ARGS=(--curve-secret "$K/master.key_secret" --curve-allow "$K/clients"
  --curve-allow-workers "$K/workers" --curve-operators "$K/operators"
  --journal "$T/journal")
start_master "${MASTER_ARGS[@]}" || exit 1
PORT=$MASTER_PORT
# shellcheck disable=SC2046
CORES=2 start_worker w1 $(client_keys w1) || exit 1

HOLD=$(job hold "{\"name\":\"hold\",\"stages\":[$(gate_stage)]}")
# shellcheck disable=SC2046
submit --master "$MASTER_URL" $(client_keys alice) --deploy-mode cluster \
  --no-wait --total-executor-cores 1 "$HOLD"
DRV=$(head -1 "$T/out")
check "alice's cluster-mode driver is submitted" test "${DRV#driver-}" != "$DRV"
# app_of DRIVER: its application once it has one, as an operator sees it
app_of() {
  state_as ops | jq -er --arg d "$1" \
    '.drivers[] | select(.id == $d and .app_id != null) | .app_id'
}
has_app() { app_of "$1" >/dev/null; }
check "... it runs on w1 and registers its application" wait_for 20 has_app "$DRV"
APP=$(app_of "$DRV")

# The master restarts while w1 is slow to come back.
kill -STOP "$PID_w1"
kill -TERM "$MASTER_PID"
wait "$MASTER_PID"
PORT=$PORT start_master "${MASTER_ARGS[@]}" || exit 1
# shellcheck disable=SC2046
echo "REGISTER_APPLICATION {\"name\":\"decoy\",\"driver_url\":\"tcp://127.0.0.1:1\",\"driver_id\":\"$DRV\",\"memory_per_executor_mb\":1}" |
  "$PROBE" --master "$MASTER_URL" $(client_keys w2) >"$T/probe.out" 2>&1
check "w2's key naming alice's driver is refused (not_allowed)" \
  grep -q '^REGISTER_APPLICATION refused ERROR ' "$T/probe.out"
check "... no application of alice's was made for it" eval \
  "! state_as ops | jq -e --arg k '$ALICE' '.apps[] | select(.name == \"decoy\" and .owner == \$k)' >/dev/null"
# shellcheck disable=SC2046
echo "REGISTER_WORKER {\"id\":\"$ID_w1\",\"host\":\"127.0.0.1\",\"cores\":8,\"memory_mb\":8000,\"version\":\"0\"}" |
  "$PROBE" --master "$MASTER_URL" $(client_keys w2) >"$T/probe-w.out" 2>&1
check "w2's key registering under w1's id is refused (REGISTER_WORKER_FAILED)" \
  grep -q '^REGISTER_WORKER refused REGISTER_WORKER_FAILED' "$T/probe-w.out"

kill -CONT "$PID_w1"
# owned APP: APP is alice's and running
owned() {
  state_as ops | jq -e --arg a "$1" --arg k "$ALICE" \
    '.apps[] | select(.id == $a and .owner == $k and .state == "RUNNING")' >/dev/null
}
check "once w1 is back, the driver's own application is alice's, running" \
  wait_for 20 owned "$APP"
touch "$T/go"
finish
