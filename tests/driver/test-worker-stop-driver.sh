#!/usr/bin/env bash
# A worker stopped with SIGTERM while a cluster-mode driver, its executors
# and their tasks run on it (docs/operations.md: a worker stops cleanly
# on SIGTERM, taking its children with it): it exits 0, and once it has exited nothing of
# them is left: no hearth-driver, no hearth-executor, no task.  The
# driver's executors on another worker are stopped too, and the master
# ends the driver and its application.  (test-valgrind-cluster-mode.sh
# checks a program driver under valgrind, in builds without sanitizers;
# this runs in every build, with a job file's driver and executors.)
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 120
export TMPDIR=$T

start_master || exit 1
CORES=4 start_worker w1 || exit 1
M=(--master "$MASTER_URL")
J=$(job long '{"name":"long","stages":[
  {"name":"s","tasks":[{"cmd":["sleep","600"],"count":5}]}]}')

# comms PID...: their program names, sorted, one line.
comms() {
  local p
  for p in "$@"; do cat "/proc/$p/comm" 2>/dev/null; done | sort | uniq -c |
    awk '{printf "%s %s, ", $1, $2}'
}
# executors_on WORKER_ID: the driver's application's RUNNING executors there.
executors_on() {
  state_json | jq --arg w "$1" --arg app "$APP" \
    '[.apps[] | select(.id == $app) | .executors[]
      | select(.worker_id == $w and .state == "RUNNING")] | length'
}

check "a cluster-mode job is submitted" submit "${M[@]}" --deploy-mode cluster \
  --no-wait --driver-cores 1 --driver-memory 256M --executor-cores 1 \
  --total-executor-cores 5 --executor-memory 256M "$J"
D=$(head -1 "$T/out")
check "its driver runs on w1" wait_for 20 jq_state \
  ".drivers[] | select(.id == \"$D\") | .state == \"RUNNING\" and .worker_id == \"$ID_w1\""
wait_for 10 eval '[[ $(state_json | jq -r --arg id "$D" ".drivers[] | select(.id == \$id) | .app_id") == app-* ]]'
APP=$(state_json | jq -r --arg id "$D" '.drivers[] | select(.id == $id) | .app_id')
check "... with 3 executors beside it" wait_for 20 eval '[[ $(executors_on "$ID_w1") == 3 ]]'
CORES=2 start_worker w2 || exit 1
check "a second worker joins and gets the other 2" \
  wait_for 20 eval '[[ $(executors_on "$ID_w2") == 2 ]]'
check "... their executors started there" \
  wait_for 20 eval '[[ $(comms $(procs_in "$T/w2")) == "2 hearth-executor, " ]]'
check "the tasks run on w1's executors" \
  wait_for 20 eval '[[ $(comms $(procs_in "$T/w1")) == *"3 sleep, " ]]'

mapfile -t ON_W1 < <(procs_in "$T/w1")
say "on w1: $(comms "${ON_W1[@]}")"
check "on w1: the driver, 3 executors and 3 tasks" \
  test "$(comms "${ON_W1[@]}")" = "1 hearth-driver, 3 hearth-executor, 3 sleep, "

kill -TERM "$PID_w1"
check "SIGTERM: the worker exits" wait_for 20 bash -c "! kill -0 $PID_w1"
wait "$PID_w1"
check "... with status 0" test $? -eq 0
check "... leaving nothing running in its work dir" none_in "$T/w1"
left=()
for p in "${ON_W1[@]}"; do
  [[ -e /proc/$p && $(awk '{print $3}' "/proc/$p/stat" 2>/dev/null) != Z ]] && left+=("$p")
done
check "... and none of the driver, executors and tasks it ran (${left[*]:-})" \
  test "${#left[@]}" -eq 0
check "... saying it stopped them" bash -c "grep -q 'stopping 3 executors and 1 drivers' '$T/w1.log' &&
  grep -q 'driver $D (pid [0-9]*) KILLED' '$T/w1.log' && grep -q 'worker stopped' '$T/w1.log'"
check "the driver ends (not RUNNING any more)" wait_for 15 jq_state \
  ".drivers[] | select(.id == \"$D\") | .state != \"RUNNING\" and .state != \"SUBMITTED\""
say "driver: $(state_json | jq -c --arg id "$D" '.drivers[] | select(.id == $id) | {state, error}')"
check "... and its application" wait_for 15 jq_state \
  "[.apps[] | select(.id == \"$APP\")][0].state as \$s | \$s != \"RUNNING\" and \$s != \"WAITING\""
check "its executors on w2 are stopped too" wait_for 15 none_in "$T/w2/$APP"
check "no driver, executor or task of this test is left" \
  wait_for 5 eval '[[ -z $(test_pids hearth-driver; test_pids hearth-executor; test_pids sleep) ]]'
check "the master and w2 still run" kill -0 "$MASTER_PID" "$PID_w2"
finish
