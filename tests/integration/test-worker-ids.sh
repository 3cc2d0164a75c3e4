#!/usr/bin/env bash
# Worker ids an operator chooses (issue 13, defect 8): `--id node-a`
# registers under that name, the master shows it, and a job's executors
# run there (the driver checks the worker id of each EXECUTOR_ADDED); an
# id outside the rule is refused at start with a message that states the
# rule, and --help states it too.
. "$(dirname "$0")/../lib/cluster.sh"
deadline 60

start_master || exit 1
start_worker a --id node-a || exit 1
check "a worker registers as --id node-a" test "$WORKER_ID" = node-a
check "... ALIVE under that id in MASTER_STATE" \
  test "$(worker_state node-a)" = ALIVE
start_worker b --id rack1.node_07 || exit 1
check "... and another as rack1.node_07" \
  test "$(worker_state rack1.node_07)" = ALIVE

printf '%s\n' '{"name":"ids","stages":[{"name":"s","tasks":[{"cmd":["sh","-c","echo {i}"],"count":8}]},{"name":"c","tasks":[{"cmd":["wc","-l"],"input":"s"}]}]}' >"$T/job.json"
run_job() {
  "$BIN/hearth-submit" --master "$MASTER_URL" --executor-memory 256M \
    "$T/job.json" >"$T/job.out" 2>"$T/job.err"
}
check "a job runs on the named workers" run_job
check "... with its exact result" test "$(cat "$T/job.out")" = 8
check "... its executors placed on node-a" \
  grep -q "launching executor app-.* on node-a " "$T/master.log"

# refused ID: the worker stops at once, exit 1, stating the rule.
refused() {
  local out rc
  out=$("$BIN/hearth-worker" --master "$MASTER_URL" --work-dir "$T/bad" \
    --id="$1" 2>&1)
  rc=$?
  [[ $rc == 1 && $out == *"bad --id '$1': a worker id is 1 to 128 letters, digits"* ]]
}
long=$(printf 'n%.0s' $(seq 1 129))
for id in 'a/b' '.hidden' '-x' 'node a' 'a..b' 'n+1' \
  app-20260101000000-0001 "$long"; do
  check "--id '${id:0:20}' is refused, naming the rule" refused "$id"
done
check "... and none of them registered" \
  test "$(count_lines "$T/master.log" 'INFO worker .* registered')" = 2
check "--help states the rule" \
  bash -c "'$BIN/hearth-worker' --help | grep -q -- '--id ID .*letters, digits'"
finish
