#!/usr/bin/env bash
# Custom resources on a hand-started cluster (issue 15, docs/resources.md):
# three workers with fake devices from discovery scripts (A: gpu 0,1;
# B: gpu 0; C: none) and applications asking --executor-resource gpu=1.
# - executors go only to A and B, each with its own address there (the
#   state JSON), and each is started with --resource gpu=ADDR;
# - a second application waits while all addresses are held, and runs
#   once the first ends (its addresses freed);
# - a master killed and started again on its journal keeps who holds
#   which address (the journal, and the workers' re-registration), and
#   places nothing on a held one;
# - one asking gpu=3 waits, and its driver says why (hearth-submit's
#   stderr: "the most any live worker has is 2"), the state's `waiting`
#   too;
# - a bad --resource and bad discovery output stop a worker (exit 1)
#   with a message naming the value or the script;
# - local-cluster passes --worker-resource and --worker-resource-discovery
#   to its workers: the same placement there.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
. "$(dirname "$0")/../web/web.sh"
deadline 200
export TMPDIR=$T
# Heartbeats of 500 ms (liveness 2.5 s): what is tested is placement, and
# on a loaded machine 1 s of silence lost executors and a worker mid-test
# (then placed again, on other addresses).
INTERVAL_MS=500

# The executors' command lines, recorded by a wrapper in the workers'
# bin dir.  An executor without --resource (the task side, merged apart)
# gets the list without it, so that placement is tested on its own.
rm -f "$T/bin/hearth-executor"
cat >"$T/bin/hearth-executor" <<SH
#!/usr/bin/env bash
echo "\$\$ \$*" >>"$T/executor-argv"
args=("\$@")
if ! "$BIN/hearth-executor" --help 2>&1 | grep -q -- --resource; then
  args=()
  while ((\$#)); do
    if [[ \$1 == --resource ]]; then shift 2; continue; fi
    args+=("\$1"); shift
  done
fi
exec "$BIN/hearth-executor" "\${args[@]}"
SH
chmod +x "$T/bin/hearth-executor"

# discovery NAME ADDRS...: a script printing Spark's format.
discovery() {
  local name=$1 list="" a
  shift
  for a in "$@"; do list+="${list:+, }\"$a\""; done
  printf '#!/bin/sh\necho "discovering" >&2\necho '"'"'{"name": "gpu", "addresses": [%s]}'"'"'\n' \
    "$list" >"$T/$name.sh"
  chmod +x "$T/$name.sh"
}
discovery gpus-a 0 1
discovery gpus-b 0

start_master --journal "$T/journal" || exit 1
CORES=4 start_worker a --resource-discovery "gpu=$T/gpus-a.sh" || exit 1
CORES=4 start_worker b --resource-discovery "gpu=$T/gpus-b.sh" || exit 1
CORES=4 start_worker c || exit 1
check "the state shows A's addresses 0,1 and B's 0, C none" \
  jq_state "([.workers[] | select(.id == \"$ID_a\")][0].resources.gpu == [\"0\",\"1\"])
    and ([.workers[] | select(.id == \"$ID_b\")][0].resources.gpu == [\"0\"])
    and ([.workers[] | select(.id == \"$ID_c\")][0].resources == null)"
check "a discovery script's stderr goes to the worker's log" \
  grep -q "discovery script $T/gpus-a.sh: discovering" "$T/a.log"

J=$(job slow '{"name":"slow","stages":[{"name":"s","tasks":[
  {"fn":"sleep_ms","arg":"60000","count":6}]}]}')
# start_gpu NAME AMOUNT [ARGS...]: the job as application NAME, AMOUNT
# gpus per one-core executor, in the background (stderr in $T/NAME.err).
start_gpu() {
  local name=$1 amount=$2
  shift 2
  sed "s/\"slow\"/\"$name\"/" "$J" >"$T/$name.json"
  "$BIN/hearth-submit" --master "$MASTER_URL" --lib "$TASKS_LIB" \
    --heartbeat-interval "${INTERVAL_MS}ms" --heartbeat-liveness "$LIVENESS" \
    --executor-cores 1 --executor-resource "gpu=$amount" "$@" "$T/$name.json" \
    >"$T/$name.out" 2>"$T/$name.err" &
  PIDS+=($!)
}
app_id() { state_json | jq -r --arg n "$1" '.apps[] | select(.name == $n) | .id'; }
# running NAME N: application NAME has N RUNNING executors.
running() {
  jq_state "[.apps[] | select(.name == \"$1\") | .executors[]
    | select(.state == \"RUNNING\")] | length == $2"
}

# --- placement --------------------------------------------------------------
start_gpu first 1
check "the first application gets 3 executors (A's 2 gpus, B's 1)" \
  wait_for 30 running first 3
state_json >"$T/state.first"
# first_has ARGS... FILTER: true when jq's filter yields true on that state.
first_has() { jq -e "$@" "$T/state.first" >/dev/null; }
check "... none of them on C" \
  first_has --arg c "$ID_c" '[.apps[] | select(.name == "first") | .executors[]
    | select(.worker_id == $c)] | length == 0'
check "... two on A holding gpu 0 and 1, one on B holding gpu 0" \
  first_has --arg a "$ID_a" --arg b "$ID_b" '[.apps[] | select(.name == "first")
    | .executors[]] as $e
    | ([$e[] | select(.worker_id == $a) | .resources.gpu[]] | sort) == ["0","1"]
    and ([$e[] | select(.worker_id == $b) | .resources.gpu[]]) == ["0"]'
check "... and the workers say who holds each address" \
  first_has --arg a "$ID_a" '[.workers[] | select(.id == $a)][0].resources_held.gpu
    | keys == ["0","1"]'
check "the app shows its executor_resources" \
  first_has '[.apps[] | select(.name == "first")][0].executor_resources == {"gpu": 1}'
check "each executor was started with --resource gpu=ADDR (3 of them)" \
  test "$(grep -c -- '--resource gpu=[01]\( \|$\)' "$T/executor-argv")" = 3
if "$BIN/hearth-executor" --help 2>&1 | grep -q -- --resource; then
  pids=$(test_pids hearth-executor)
  check "... as their /proc cmdline shows" \
    test "$(for p in $pids; do tr '\0' ' ' <"/proc/$p/cmdline"; echo; done |
      grep -c -- '--resource gpu=')" = 3
fi

check "hearth-tail --state lists the addresses and their holders" \
  eval '"$BIN/hearth-tail" --master "$MASTER_URL" --state --timeout 3s |
    grep -q "resources: gpu 0 (app-[0-9-]*/[0-9]*), 1 (app-[0-9-]*/[0-9]*)"'
check "... the app's amounts and each executor's addresses" \
  eval '"$BIN/hearth-tail" --master "$MASTER_URL" --state --timeout 3s >"$T/state.txt" &&
    grep -q "each executor: gpu=1" "$T/state.txt" &&
    test "$(grep -c "RUNNING  gpu=[01]$" "$T/state.txt")" = 3'
WEB=$(jq -r '.web_url // empty' "$T/state.first" 2>/dev/null)
[[ -z $WEB ]] && WEB=$(sed -n 's/.*web pages at \(http[^ ]*\).*/\1/p' "$T/master.log" | tail -1)
web_curl -s -m 10 "$WEB/json" >"$T/spark.json"
check "Spark's /json: a worker's resources, resourcesused and resourcesfree" \
  jq -e --arg a "$ID_a" '[.workers[] | select(.id == $a)][0]
    | .resources.gpu.addresses == ["0","1"] and .resourcesused.gpu.addresses == ["0","1"]
    and .resourcesfree.gpu.addresses == []' "$T/spark.json"
check "... and an app's resourcesperexecutor" \
  jq -e '[.activeapps[] | select(.name == "first")][0].resourcesperexecutor
    == [{"name": "gpu", "amount": 1}]' "$T/spark.json"
web_curl -s -m 10 "$WEB/" >"$T/master.html"
check "the master's page shows who holds each address" \
  grep -q "gpu 0 (app-[0-9-]*/[0-9]*), 1 (app-[0-9-]*/[0-9]*)" "$T/master.html"
WWEB=$(sed -n 's/.*worker web pages at \(http[^ ]*\).*/\1/p' "$T/a.log" | tail -1)
worker_page() {
  web_curl -s -m 10 "$WWEB/" >"$T/worker.html" &&
    grep -q "gpu 0 (app-[0-9-]*/[0-9]*), 1 (app-[0-9-]*/[0-9]*)" "$T/worker.html"
}
check "the worker's page too" wait_for 5 worker_page

# --- a second application waits for the addresses ----------------------------
start_gpu second 1
wait_for 10 eval '[[ -n $(app_id second) ]]'
sleep 1
check "a second application asking 1 gpu waits while all are held" \
  jq_state '[.apps[] | select(.name == "second")][0]
    | .state == "WAITING" and (.executors | length) == 0'
FIRST=$(app_id first)
"$BIN/hearth-submit" --master "$MASTER_URL" --kill "$FIRST" >/dev/null 2>&1
check "... and gets the 3 once the first ends" wait_for 30 running second 3

# --- a master restart keeps the holdings ------------------------------------
held() {
  state_json | jq -c '[.workers[] | select(.resources != null)
    | {id, held: .resources_held}] | sort_by(.id)'
}
before=$(held)
kill9 "$MASTER_PID"
PORT=$MASTER_PORT start_master --journal "$T/journal" || exit 1
check "after a master restart, the workers are back" \
  wait_for 20 jq_state '[.workers[] | select(.state == "ALIVE")] | length == 3'
check "... and the second application's 3 executors" wait_for 20 running second 3
same_held() { [[ $(held) == "$before" ]]; }
say "held before the restart: $before"
check "... holding the same addresses as before" wait_for 10 same_held
start_gpu fourth 1
wait_for 10 eval '[[ -n $(app_id fourth) ]]'
sleep 1.5
check "... and a new application asking 1 gpu is placed on none of them" \
  jq_state '[.apps[] | select(.name == "fourth")][0] | (.executors | length) == 0'
SECOND=$(app_id second)
"$BIN/hearth-submit" --master "$MASTER_URL" --kill "$SECOND" >/dev/null 2>&1
check "... until the second ends" wait_for 30 running fourth 3
FOURTH=$(app_id fourth)
"$BIN/hearth-submit" --master "$MASTER_URL" --kill "$FOURTH" >/dev/null 2>&1

# --- more than any worker has ----------------------------------------------
start_gpu third 3 --log-level info
check "an application asking 3 gpu waits, its driver saying why" \
  wait_for 20 grep -q "each executor asks for 3 gpu; the most any live worker has is 2" \
  "$T/third.err"
check "... and its state's waiting says so" \
  jq_state '[.apps[] | select(.name == "third")][0]
    | .state == "WAITING" and .waiting.code == "resource_missing"
      and (.waiting.reason | test("the most any live worker has is 2"))'
discovery gpus-d 0 1 2
CORES=4 start_worker d --resource-discovery "gpu=$T/gpus-d.sh" || exit 1
check "a worker with 3 gpus joins: the third application runs there" \
  wait_for 20 running third 1
check "... and its driver hears it is no longer held back" \
  wait_for 5 grep -q "the master no longer holds the application back" "$T/third.err"

# --- cluster mode: the amounts travel with the driver's settings -----------
Q=$(job quick '{"name":"quick","stages":[{"name":"s","tasks":[
  {"fn":"sleep_ms","arg":"300","count":2}]}]}')
check "a cluster-mode driver asking gpu=1 per executor runs its job" \
  "$BIN/hearth-submit" --master "$MASTER_URL" --deploy-mode cluster \
  --driver-memory 256M --lib "$TASKS_LIB" --executor-cores 1 \
  --executor-resource gpu=1 --heartbeat-interval "${INTERVAL_MS}ms" "$Q"
check "... its application asked for them" \
  jq_state '[.apps[] | select(.name == "quick")][0].executor_resources == {"gpu": 1}'

# --- local-cluster ------------------------------------------------------------
# Two local workers of 2 cores, one gpu each: 1-core executors asking a
# gpu are one per worker (4 without the gpu), each started with it.
L=$(job local '{"name":"local","stages":[{"name":"s","tasks":[
  {"fn":"sleep_ms","arg":"1500","count":4}]}]}')
: >"$T/executor-argv"
check "local-cluster with --worker-resource gpu=0: the job runs" \
  env HEARTH_BIN_DIR="$T/bin" "$BIN/hearth-submit" --master 'local-cluster[2,2,512]' \
  --lib "$TASKS_LIB" --executor-cores 1 --worker-resource gpu=0 \
  --executor-resource gpu=1 "$L"
check "... on 2 executors, one per worker, each with --resource gpu=0" \
  eval 'test "$(grep -c -- "--resource gpu=0" "$T/executor-argv")" = 2 &&
    test "$(grep -o -- "--shuffle-dir [^ ]*" "$T/executor-argv" | sort -u | wc -l)" = 2'
: >"$T/executor-argv"
check "HEARTH_WORKER_RESOURCE=gpu=0,1 (the environment's comma list) and gpu=2" \
  env HEARTH_BIN_DIR="$T/bin" HEARTH_WORKER_RESOURCE=gpu=0,1 \
  HEARTH_EXECUTOR_RESOURCE=gpu=2 "$BIN/hearth-submit" \
  --master 'local-cluster[2,2,512]' --lib "$TASKS_LIB" --executor-cores 1 "$L"
check "... one executor per worker holding both" \
  test "$(grep -c -- "--resource gpu=0,1" "$T/executor-argv")" = 2
check "local-cluster --worker-resource-discovery: the job runs" \
  env HEARTH_BIN_DIR="$T/bin" "$BIN/hearth-submit" --master 'local-cluster[1,2,512]' \
  --lib "$TASKS_LIB" --worker-resource-discovery "gpu=$T/gpus-a.sh" \
  --executor-resource gpu=2 "$L"
check "a bad --worker-resource is refused before anything starts" \
  eval '! "$BIN/hearth-submit" --master "local-cluster[1,1,512]" --lib "$TASKS_LIB" \
    --worker-resource gpu= "$L" 2>"$T/lerr" && grep -q "bad --worker-resource gpu=" "$T/lerr"'

check "a bad --executor-resource is refused by hearth-submit, naming it" \
  eval '! "$BIN/hearth-submit" --master "$MASTER_URL" --executor-resource gpu=0 \
    "$L" 2>"$T/eerr" && grep -q "bad --executor-resource gpu=0" "$T/eerr"'

# --- bad values stop a worker -----------------------------------------------
bad_worker() {
  HEARTH_BIN_DIR="$T/bin" "$BIN/hearth-worker" --master "$MASTER_URL" \
    --work-dir "$T/bad" --web-port 0 "$@" >"$T/bad.out" 2>&1
}
check "--resource gpu=0,,1: exit 1" eval "bad_worker --resource gpu=0,,1; test \$? = 1"
check "... naming the value" grep -q "bad --resource 'gpu=0,,1'" "$T/bad.out"
printf '#!/bin/sh\necho "not json"\n' >"$T/bad.sh"
chmod +x "$T/bad.sh"
check "discovery printing bad output: exit 1" \
  eval "bad_worker --resource-discovery gpu=$T/bad.sh; test \$? = 1"
check "... naming the script and what it printed" \
  grep -q "discovery script $T/bad.sh: .*printed 'not json'" "$T/bad.out"
printf '#!/bin/sh\necho oops >&2\nexit 3\n' >"$T/fail.sh"
chmod +x "$T/fail.sh"
check "a failing discovery script: exit 1, its status in the message" \
  eval "bad_worker --resource-discovery gpu=$T/fail.sh; test \$? = 1 &&
    grep -q 'discovery script $T/fail.sh exited with status 3' '$T/bad.out'"
printf '#!/bin/sh\nsleep 30\n' >"$T/slow.sh"
chmod +x "$T/slow.sh"
check "a discovery script past --resource-discovery-timeout: exit 1" \
  eval "bad_worker --resource-discovery gpu=$T/slow.sh \
    --resource-discovery-timeout 500ms; test \$? = 1 &&
    grep -q 'did not finish within 500 ms' '$T/bad.out'"
finish
