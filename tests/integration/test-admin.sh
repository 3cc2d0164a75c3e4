#!/usr/bin/env bash
# hearth-admin (issue 13), what scontrol and scancel do:
# - apps, drivers and workers, listed by state and by name;
# - kill by name (the others keep running), by state, by id; a driver
#   killed with its application;
# - drain: a new application gets no executor on the drained worker while
#   the running one keeps its own; the drain survives a master restart on
#   its journal; resume undoes it, and the waiting application gets the
#   worker's cores;
# - bad ids, unknown workers and unknown commands answered clearly.
# hearth-submit --kill is tests/driver/test-kill-app.sh's.
. "$(dirname "$0")/../lib/cluster.sh"
deadline 150
export TMPDIR=$T HEARTH_CONF_DIR=$T/conf
CORES=2
A=worker-20261201093000-node1-4242
B=worker-20261201093000-node2-4343
JOURNAL=$T/journal

start_master --journal "$JOURNAL" || exit 1
start_worker w1 --id "$A" || exit 1
start_worker w2 --id "$B" || exit 1
admin() { "$BIN/hearth-admin" --master "$MASTER_URL" --timeout 3s "$@"; }
# rows CMD ARGS...: the first column of a listing, without its headings.
rows() { admin "$@" | awk 'NR > 2 {print $1}' | sort | tr '\n' ' '; }
# execs_on APP WORKER: APP's executors on that worker.
execs_on() {
  state_json | jq --arg a "$1" --arg w "$2" \
    '[.apps[] | select(.id == $a) | .executors[] | select(.worker_id == $w)] | length'
}
app_state() { state_json | jq -r --arg a "$1" '.apps[] | select(.id == $a) | .state'; }

# --- listing -----------------------------------------------------------
start_app etl-a --max-cores 1 || exit 1
ETL_A=$APP_ID
start_app etl-b --max-cores 1 || exit 1
ETL_B=$APP_ID
start_app quick --max-cores 1 || exit 1
QUICK=$APP_ID QUICK_PID=$APP_PID
kill -TERM "$QUICK_PID"
wait "$QUICK_PID"
check "three applications registered, one of them finished" \
  wait_for 5 eval '[[ $(app_state "$QUICK") == FINISHED ]]'
check "apps --state RUNNING lists the two running ones" \
  wait_for 5 eval '[[ $(rows apps --state RUNNING) == "$(printf "%s\n" "$ETL_A" "$ETL_B" | sort | tr "\n" " ")" ]]'
check "apps --name 'etl-*' lists the same two" \
  test "$(rows apps --name 'etl-*')" = "$(rows apps --state RUNNING)"
check "apps --state FINISHED --name quick lists the finished one" \
  test "$(rows apps --state finished --name quick)" = "$QUICK "
check "... with its submit time, duration and reason" \
  eval 'admin apps --name quick | grep -Eq "^$QUICK +quick +FINISHED .* [0-9-]+T[0-9:]+Z +[0-9.]+(ms|s) +unregistered"'
admin apps --state BOGUS >"$T/bogus.out" 2>&1
check "apps --state BOGUS is a usage mistake (exit 2), not an empty list" test $? -eq 2
check "... naming the states there are" \
  grep -q "state BOGUS: not a state of an application (WAITING, RUNNING, FINISHED, FAILED, KILLED, RELAUNCHING)" "$T/bogus.out"
admin workers --state draining >"$T/draining.out" 2>&1
check "workers --state draining is one (exit 0)" test $? -eq 0
check "apps --json: one object a line, as the master has it" \
  eval '[[ $(admin apps --json --name etl-a | jq -r .id) == "$ETL_A" ]]'
check "workers shows both by their short names" \
  test "$(rows workers)" = "node1 node2 "
check "... and their ids" eval 'admin workers | grep -q "^node1 *$A "'

# --- kill --------------------------------------------------------------
check "kill --name etl-a" eval 'admin kill --name etl-a >"$T/kill.out" 2>&1'
check "... says so" grep -qx "application $ETL_A KILLED" "$T/kill.out"
check "... etl-a is KILLED" eval '[[ $(app_state "$ETL_A") == KILLED ]]'
check "... etl-b still runs" eval '[[ $(app_state "$ETL_B") == RUNNING ]]'
printf '%s\n' '{"name":"cm","stages":[{"name":"s","tasks":[{"cmd":["sleep","60"]}]}]}' >"$T/cm.json"
"$BIN/hearth-submit" --master "$MASTER_URL" --deploy-mode cluster --no-wait \
  --name cm --driver-memory 256M --executor-memory 256M "$T/cm.json" \
  >"$T/cm.out" 2>&1
DRV=$(head -1 "$T/cm.out")
check "drivers --state RUNNING lists the cluster-mode driver" \
  wait_for 20 eval '[[ $(rows drivers --state RUNNING) == "$DRV " ]]'
check "... on its worker, by short name" \
  eval 'admin drivers | grep -Eq "^$DRV +cm +RUNNING +node[12] "'
check "kill --state RUNNING --name cm kills the driver (its app with it)" \
  eval 'admin kill --state RUNNING --name cm >"$T/kill.out" 2>&1'
check "... once, as a driver" eval '[[ $(cat "$T/kill.out") == "driver $DRV KILLED" ]]'
check "kill APP_ID, by id" eval 'admin kill "$ETL_B" >"$T/kill.out"'
check "... etl-b is KILLED" eval '[[ $(app_state "$ETL_B") == KILLED ]]'
check "kill of an unknown application exits 1, saying so" \
  eval '! admin kill app-20200101000000-0001 2>"$T/err" && grep -q "no such application" "$T/err"'
check "kill of something that is not an id exits 2, killing nothing" \
  eval 'admin kill etl-x 2>"$T/err"; [[ $? == 2 ]] && grep -q "not an application or driver id" "$T/err"'
check "kill --state FINISHED exits 2: an ended one cannot be killed" \
  eval 'admin kill --state FINISHED 2>"$T/err"; [[ $? == 2 ]]'
check "kill with nothing to choose by exits 2" \
  eval 'admin kill 2>"$T/err"; [[ $? == 2 ]] && grep -q "never kills everything" "$T/err"'
check "kill --name that matches nothing exits 1" \
  eval '! admin kill --name nothing-like-it 2>"$T/err" && grep -q "matches" "$T/err"'

# --- drain ---------------------------------------------------------------
# The killed applications' executors are gone from both workers first.
wait_for 15 jq_state 'all(.workers[]; .cores_used == 0)'
start_app before --cores-per-executor 1 --max-cores 2 || exit 1
BEFORE=$APP_ID
check "an application runs on both workers" \
  wait_for 10 eval '[[ $(execs_on "$BEFORE" "$A") == 1 && $(execs_on "$BEFORE" "$B") == 1 ]]'
check "drain node2 (its short name), with a reason" \
  eval 'admin drain --reason "disk swap" node2 >"$T/drain.out"'
check "... says so" grep -q "^worker node2 ($B) draining" "$T/drain.out"
check "workers --state DRAINING lists it" test "$(rows workers --state DRAINING)" = "node2 "
check "... with the reason" eval 'admin workers | grep -q "(drained: disk swap)"'
check "MASTER_STATE: draining, still ALIVE" \
  jq_state ".workers[] | select(.id == \"$B\") | .draining == true and .state == \"ALIVE\""
check "hearth-tail --state shows it DRAINING" \
  eval '"$BIN/hearth-tail" --master "$MASTER_URL" --state | grep -Eq "^node2 +$B .* DRAINING "'
start_app after --cores-per-executor 1 || exit 1
AFTER=$APP_ID
check "a new application gets an executor on the other worker" \
  wait_for 10 eval '[[ $(execs_on "$AFTER" "$A") == 1 ]]'
sleep 1 # a few scheduling rounds
check "... and none on the drained one" test "$(execs_on "$AFTER" "$B")" = 0
check "the running application keeps its executor there" \
  test "$(execs_on "$BEFORE" "$B")" = 1
check "draining it again is no mistake" \
  eval 'admin drain node2 | grep -q "already draining"'

# The drain is journaled: a master killed and started again keeps it.
kill9 "$MASTER_PID"
PORT=$MASTER_PORT start_master --journal "$JOURNAL" || exit 1
check "after a master restart, node2 is still drained" \
  wait_for 10 jq_state ".workers[] | select(.id == \"$B\") | .draining == true"
check "... and still gets nothing new" \
  eval 'wait_for 10 jq_state ".status == \"ALIVE\""; sleep 1; [[ $(execs_on "$AFTER" "$B") == 0 ]]'

check "resume node2" eval 'admin resume node2 >"$T/resume.out"'
check "... says so" grep -q "^worker node2 ($B) taking work" "$T/resume.out"
check "... the waiting application gets its cores" \
  wait_for 10 eval '[[ $(execs_on "$AFTER" "$B") -ge 1 ]]'
check "MASTER_STATE: no longer draining" \
  jq_state ".workers[] | select(.id == \"$B\") | has(\"draining\") | not"
check "the worker events say draining and resumed" \
  eval 'grep -q "worker $B drained on request: disk swap" "$T/master.log" &&
        grep -q "worker $B resumed on request" "$T/master.log"'

# --- mistakes ------------------------------------------------------------
check "drain of an unknown worker exits 1, naming it" \
  eval '! admin drain node9 2>"$T/err" && grep -q "node9.*no such worker\|no worker .node9." "$T/err"'
check "drain of an unknown worker id: the master says so" \
  eval '! admin drain worker-20200101000000-x-1 2>"$T/err" && grep -q "no such worker" "$T/err"'
check "drain without a worker exits 2" eval 'admin drain 2>/dev/null; [[ $? == 2 ]]'
check "an unknown command exits 2, listing the commands" \
  eval 'admin frobnicate 2>"$T/err"; [[ $? == 2 ]] && grep -q "unknown command .frobnicate. (apps, drivers" "$T/err"'
check "no command exits 2" eval 'admin 2>/dev/null; [[ $? == 2 ]]'
check "an unknown flag after the command exits 2" \
  eval 'admin apps --bogus 2>"$T/err"; [[ $? == 2 ]] && grep -q "unknown option --bogus" "$T/err"'
check "HEARTH_NAME does not filter apps (a flag only)" \
  eval '[[ -n $(HEARTH_NAME=nothing admin apps --state RUNNING | sed -n 3p) ]]'
mkdir -p "$T/conf"
echo "master = $MASTER_URL" >"$T/conf/hearth-defaults.conf"
check "the master may come from the defaults file" \
  eval '"$BIN/hearth-admin" workers | grep -q "^node1 "'
kill -STOP "$MASTER_PID"
check "a master that does not answer is said so" \
  eval '! admin --timeout 1s apps 2>"$T/err" && grep -q "no answer from the master" "$T/err"'
kill -CONT "$MASTER_PID"
finish
