#!/usr/bin/env bash
# Graceful decommission (issue 18), with real daemons:
# - drain under a running job: SIGTERM of one of three workers while a
#   two-stage job with a shuffle runs: the master shows it DECOMMISSIONING
#   at once and places nothing more there, the driver moves its queued
#   tasks elsewhere and stops its executor once its running ones are done,
#   the worker keeps serving its map outputs until the application ends,
#   then leaves, shown DEAD with the reason; the job's result is exact and
#   no task failed (--max-failures 1 would have failed the job; the event
#   log's tasks_failed is 0) nor was any map output lost;
# - a timeout that expires: tasks longer than it are lost with the
#   executor, re-run elsewhere as lost, never failed, and the job succeeds;
# - hearth-admin decommission of a worker (reason and timeout), refused
#   for unknown workers, and drain and resume beside it.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 300
export TMPDIR=$T LC_ALL=C
DECOM_TIMEOUT=60s

mkdir -p "$T/in"
for f in $(seq 0 23); do
  awk -v seed=$((f + 7)) 'BEGIN { srand(seed);
    for (i = 0; i < 2000; i++) printf "w%d\n", int(rand() * 300) }' >"$T/in/$f.txt"
done
cat "$T/in"/*.txt | sort | uniq -c | awk '{print $2, $1}' | sort >"$T/counts.ref"
# 24 maps that wait for $T/go (so that the worker is told while its
# executor runs two and holds two more queued: one ahead per core before
# any run time is known), a gate that waits for $T/go2 (the reducers wait
# while the test looks at the leaving worker), then the reducers, which
# fetch the leaving worker's outputs too.
J=$(job wc "{\"name\": \"wc\", \"stages\": [
  {\"name\": \"map\", \"partitions\": 4, \"sort\": true,
   \"tasks\": [{\"cmd\": [\"sh\", \"-c\",
   \"i=0; while [ ! -e $T/go ] && [ \$i -lt 600 ]; do sleep 0.05; i=\$((i+1)); done; cat $T/in/{i}.txt\"], \"count\": 24}]},
  {\"name\": \"gate\", \"tasks\": [{\"cmd\": [\"sh\", \"-c\",
   \"i=0; while [ ! -e $T/go2 ] && [ \$i -lt 600 ]; do sleep 0.05; i=\$((i+1)); done\"]}]},
  {\"name\": \"reduce\", \"after\": [\"gate\"], \"tasks\": [{\"cmd\": [\"sh\", \"-c\",
   \"uniq -c | while read n w; do echo \$w \$n; done\"], \"input\": \"map\"}]}]}")

outputs() { find "$T/$1/shuffle" -name '*.index' 2>/dev/null | wc -l; }
# placed_after ID MS: executors the master placed on worker ID after MS.
placed_after() {
  local stamp n=0
  while read -r stamp _; do
    (($(date -d "$stamp" +%s%3N) > $2)) && n=$((n + 1))
  done < <(grep "launching executor .* on $1 " "$T/master.log")
  echo "$n"
}
# registered_on ID ERR: every executor on worker ID has registered with
# the driver whose log is ERR.
registered_on() {
  local ids id
  ids=$(state_json | jq -r --arg w "$1" '.apps[].executors[] | select(.worker_id == $w) | .exec_id')
  [[ -n $ids ]] || return 1
  for id in $ids; do grep -q "executor $id registered" "$2" || return 1; done
}
dead_reason() {
  state_json | jq -r --arg id "$1" '.workers[] | select(.id == $id) | .dead_reason'
}
# sleeping_in NAME: a task (its sh) runs in worker NAME's work dir.
sleeping_in() {
  local p comm
  for p in $(procs_in "$T/$1"); do
    comm=
    read -r comm 2>/dev/null <"/proc/$p/comm" || true
    [[ $comm == sh ]] && return 0
  done
  return 1
}
app_end() { jq -c 'select(.event == "app_end")' "$(ls "$1"/*.events)"; }

# --- SIGTERM under a running job with a shuffle ------------------------------
start_master || exit 1
CORES=2 start_worker wa || exit 1
CORES=2 start_worker wb || exit 1
CORES=2 start_worker wc || exit 1
B=$ID_wb
mkdir -p "$T/ev1"
submit --master "$MASTER_URL" --executor-memory 256M --executor-cores 2 \
  --max-failures 1 --max-lost 0 --event-log "$T/ev1" --log-level info "$J" &
JOB=$!
PIDS+=($JOB)
check "(the job's executor on wb has registered)" wait_for 20 registered_on "$B" "$T/err"
check "(its tasks run there)" wait_for 10 sleeping_in wb
sig_ms=$(now_ms)
kill -TERM "$PID_wb"
check "SIGTERM: the master marks wb DECOMMISSIONING at once" \
  wait_for 5 grep -q "worker $B (127.0.0.1) is DECOMMISSIONING: SIGTERM" "$T/master.log"
decom_ms=$(log_ms "$T/master.log" "worker $B (127.0.0.1) is DECOMMISSIONING")
say "DECOMMISSIONING $((decom_ms - sig_ms)) ms after SIGTERM"
check "... within a second of the signal" test $((decom_ms - sig_ms)) -lt 1000
check "... shown so in MASTER_STATE" test "$(worker_state "$B")" = DECOMMISSIONING
check "the driver hears it and moves the executor's queued tasks" \
  wait_for 5 grep -q "its worker leaves (SIGTERM): offered nothing more, 2 queued tasks moved" "$T/err"
touch "$T/go"
check "... and stops the executor once its running tasks are done" \
  wait_for 20 grep -q "decommissioned: SIGTERM; its tasks are done" "$T/err"
check "its executor exits (EXITED, not LOST)" \
  wait_for 10 grep -q "executor app-[^ ]* on $B: EXITED" "$T/master.log"
check "the worker stays while the reducers may need its map outputs" \
  eval 'sleep 1; kill -0 "$PID_wb" && test "$(outputs wb)" -eq 2'
touch "$T/go2"
wait "$JOB"
check "the job succeeds" test $? -eq 0
check "... counting right" same <(sort "$T/out") "$T/counts.ref"
EV=$(ls "$T"/ev1/*.events)
check "... no task failed (event log tasks_failed 0)" \
  test "$(app_end "$T/ev1" | jq -r .tasks_failed)" = 0
check "... the 2 moved attempts were released, not counted" \
  test "$(jq -c 'select(.event == "task_end" and .outcome == "released" and .error == "killed before it started")' "$EV" | wc -l)" -eq 2
check "... no map output lost: the map stage ran once" \
  test "$(jq -r 'select(.event == "stage_start" and .name == "map") | .attempt' "$EV" | tr '\n' ' ')" = "0 "
check "... no attempt lost or retried" \
  test "$(jq -c 'select(.event == "task_end" and (.state == "LOST" or .outcome == "retried"))' "$EV" | wc -l)" -eq 0
check "the master placed no executor on wb after the signal" \
  test "$(placed_after "$B" "$sig_ms")" = 0
check "once the application ended, wb leaves" wait_for 15 bash -c "! kill -0 $PID_wb"
wait "$PID_wb"
check "... exiting 0" test $? -eq 0
check "... saying its work was done" \
  grep -q "decommissioned: SIGTERM (its work is done)" "$T/wb.log"
check "the master shows it DEAD" test "$(worker_state "$B")" = DEAD
check "... with the reason" \
  test "$(dead_reason "$B")" = "decommissioned: SIGTERM (its work is done)"
check "... in hearth-tail --state's table too" eval \
  '"$BIN/hearth-tail" --master "$MASTER_URL" --state --full-ids | grep -q "^$B .* DEAD .*(gone: decommissioned: SIGTERM (its work is done))"'

# --- a timeout that expires --------------------------------------------------
DECOM_TIMEOUT=1s CORES=2 start_worker wd || exit 1
D=$ID_wd
# 12 tasks of 4 s on 6 cores (wa, wc, wd): whichever executor registers
# last still gets some (two running, two queued, each)
J2=$(job slow "{\"name\": \"slow\", \"stages\": [{\"name\": \"s\", \"tasks\": [
  {\"cmd\": [\"sh\", \"-c\", \"sleep 4; echo {i}\"], \"count\": 12}]},
  {\"name\": \"c\", \"tasks\": [{\"cmd\": [\"sh\", \"-c\", \"sort -n | tr '\\\\n' ' '\"], \"input\": \"s\"}]}]}")
mkdir -p "$T/ev2"
: >"$T/err"
submit --master "$MASTER_URL" --executor-memory 256M --executor-cores 2 \
  --max-failures 1 --event-log "$T/ev2" --log-level info "$J2" &
JOB=$!
PIDS+=($JOB)
check "(the job's executor on wd has registered)" wait_for 20 registered_on "$D" "$T/err"
check "(tasks run on wd)" wait_for 10 sleeping_in wd
X=$(state_json | jq -r --arg w "$D" '.apps[].executors[] | select(.worker_id == $w) | .exec_id')
kill -TERM "$PID_wd"
check "with a timeout of 1 s, wd stops before its tasks are done" \
  wait_for 10 bash -c "! kill -0 $PID_wd"
check "... saying its timeout passed with an executor left" \
  grep -q "decommissioned: SIGTERM (its timeout of 1000 ms passed with 1 executors" "$T/wd.log"
check "... the master marks its executor LOST, its worker decommissioned" \
  grep -q "worker $D (127.0.0.1) is DEAD: decommissioned: SIGTERM (its timeout" "$T/master.log"
wait "$JOB"
check "the job still succeeds (--max-failures 1: nothing failed)" test $? -eq 0
check "... with its exact output" test "$(cat "$T/out")" = "$(seq 0 11 | tr '\n' ' ')"
EV=$(ls "$T"/ev2/*.events)
# (the executor's own KILLED, "the executor is stopping", or the master's
# LOST, whichever the driver hears first: a loss either way)
check "... its running attempts were lost with it and re-run (attempt 1)" \
  test "$(jq -c --argjson x "$X" 'select(.event == "task_end" and .executor == $x and .outcome == "retried")' "$EV" | wc -l)" -ge 1 -a \
  "$(jq -c 'select(.event == "task_end" and .attempt == 1 and (.outcome // "accepted") == "accepted")' "$EV" | wc -l)" -ge 1
check "... and none failed" test "$(app_end "$T/ev2" | jq -r .tasks_failed)" = 0
check "wd is shown DEAD with the reason" \
  eval '[[ $(dead_reason "$D") == "decommissioned: SIGTERM (its timeout of 1000 ms passed"* ]]'

# --- hearth-admin decommission, drain and resume -----------------------------
admin() { "$BIN/hearth-admin" --master "$MASTER_URL" --timeout 5s "$@"; }
CORES=2 start_worker we || exit 1
E=$ID_we
admin decommission no-such-worker >"$T/a.out" 2>"$T/a.err"
check "decommission of an unknown worker fails" test $? -eq 1
check "... saying so" grep -q "no such worker" "$T/a.err"
admin decommission "$B" >"$T/a.out" 2>"$T/a.err"
check "decommission of a DEAD worker fails, saying why" \
  grep -q "not ALIVE" "$T/a.err"
admin decommission >"$T/a.out" 2>"$T/a.err"
check "decommission without a worker is a usage error" test $? -eq 2
# a job whose tasks keep we busy for a while (tasks of 3 s: the checks
# below look at we while they run)
J3=$(job busy "{\"name\": \"busy\", \"stages\": [{\"name\": \"s\", \"tasks\": [
  {\"cmd\": [\"sh\", \"-c\", \"sleep 3; echo {i}\"], \"count\": 12}]}]}")
: >"$T/err"
submit --master "$MASTER_URL" --executor-memory 256M --executor-cores 2 \
  --max-failures 1 --log-level info "$J3" &
JOB=$!
PIDS+=($JOB)
check "(the job's executor on we has registered)" wait_for 20 registered_on "$E" "$T/err"
check "(its tasks run there)" wait_for 10 sleeping_in we
admin decommission --reason "kernel update" --decommission-timeout 30s "$E" \
  >"$T/a.out" 2>"$T/a.err"
check "hearth-admin decommission succeeds" test $? -eq 0
check "... saying what happens" grep -q "worker $E decommissioning: nothing new" "$T/a.out"
check "... the worker is DECOMMISSIONING" test "$(worker_state "$E")" = DECOMMISSIONING
check "... with the reason" \
  jq_state ".workers[] | select(.id == \"$E\") | .decommission_reason == \"kernel update\""
check "... the worker heard the master" \
  wait_for 5 grep -q "the master asks this worker to leave: kernel update" "$T/we.log"
check "... hearth-admin workers shows it" \
  eval 'admin workers --full-ids | grep -q "$E .*DECOMMISSIONING"'
wait "$JOB"
check "the job succeeds" test $? -eq 0
check "... with its exact output" test "$(sort -n "$T/out" | tr '\n' ' ')" = "$(seq 0 11 | tr '\n' ' ')"
check "we leaves once its work is done" wait_for 15 bash -c "! kill -0 $PID_we"
check "... shown DEAD: decommissioned: kernel update" \
  test "$(dead_reason "$E")" = "decommissioned: kernel update (its work is done)"
# drain and resume still work, beside it
admin drain --reason "disk swap" "$ID_wa" >"$T/a.out" 2>"$T/a.err"
check "drain still works" test "$(worker_state "$ID_wa")" = ALIVE -a \
  "$(state_json | jq -r --arg id "$ID_wa" '.workers[] | select(.id == $id) | .draining')" = true
check "... shown DRAINING" eval 'admin workers --full-ids | grep -q "$ID_wa .*DRAINING"'
admin resume "$ID_wa" >"$T/a.out" 2>"$T/a.err"
check "resume still works" \
  test "$(state_json | jq -r --arg id "$ID_wa" '.workers[] | select(.id == $id) | .draining // false')" = false

# --- journaled: a restarted master still knows -------------------------------
kill "$PID_wa" "$PID_wc" "$MASTER_PID" 2>/dev/null
wait "$PID_wa" "$PID_wc" "$MASTER_PID" 2>/dev/null
JOURNAL=$T/journal
start_master --journal "$JOURNAL" || exit 1
CORES=2 start_worker wf || exit 1
F=$ID_wf
J4=$(job long "{\"name\": \"long\", \"stages\": [{\"name\": \"s\", \"tasks\": [
  {\"cmd\": [\"sh\", \"-c\", \"sleep 5; echo {i}\"], \"count\": 2}]}]}")
: >"$T/err"
submit --master "$MASTER_URL" --executor-memory 256M --executor-cores 2 \
  --max-failures 1 --log-level info "$J4" &
JOB=$!
PIDS+=($JOB)
check "(the job's executor on wf has registered)" wait_for 20 registered_on "$F" "$T/err"
check "(its tasks run)" wait_for 10 sleeping_in wf
admin decommission --reason "rack move" "$F" >"$T/a.out" 2>"$T/a.err"
check "wf is DECOMMISSIONING" test "$(worker_state "$F")" = DECOMMISSIONING
kill9 "$MASTER_PID"
PORT=$MASTER_PORT start_master --journal "$JOURNAL" || exit 1
check "after a master restart on its journal, wf is still DECOMMISSIONING" \
  wait_for 10 jq_state ".workers[] | select(.id == \"$F\") | .state == \"DECOMMISSIONING\" and .decommission_reason == \"rack move\""
wait "$JOB"
check "... the job succeeds" test $? -eq 0
check "... and wf leaves once its work is done" wait_for 15 bash -c "! kill -0 $PID_wf"
check "... shown DEAD: decommissioned: rack move" \
  wait_for 5 eval '[[ $(dead_reason "$F") == "decommissioned: rack move (its work is done)" ]]'
finish
