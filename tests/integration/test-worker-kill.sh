#!/usr/bin/env bash
# A worker killed with kill -9 (docs/failures.md):
# - mid-job: the driver has re-queued its executors' running tasks within
#   liveness x interval + one interval, the master starts replacement
#   executors where cores are free, and the job ends with exactly its
#   output;
# - while its executor runs a long command task and a long function task:
#   the executor notices and nothing of it is left running;
# - together with its executor (as a kill of the process tree or the OOM
#   killer would): the executor's command task is left running, and the
#   next worker started on the same work dir kills it.  (A stopped executor
#   does not stay stopped: when its worker dies, its process group is
#   orphaned and the kernel sends it SIGHUP and SIGCONT.)
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 150
export TMPDIR=$T
LIMIT=$((LIVENESS * INTERVAL_MS + INTERVAL_MS))
SLACK=300 # scheduling on a loaded machine, over the documented bound

start_master || exit 1
for w in w1 w2 w3; do CORES=2 start_worker "$w" || exit 1; done

# name_of ID: the test's name of a worker (w1...).
name_of() {
  local w id_var
  for w in w1 w2 w3; do
    id_var=ID_$w
    [[ ${!id_var} == "$1" ]] && echo "$w"
  done
}
# running_execs APP: RUNNING executors of APP, as "exec_id worker_id" lines.
running_execs() {
  state_json | jq -r --arg app "$1" '.apps[] | select(.id == $app)
    | .executors[] | select(.state == "RUNNING")
    | "\(.exec_id) \(.worker_id)"'
}

# --- kill -9 of a worker mid-job -----------------------------------------
N=60
J=$(job mid "{\"name\":\"mid\",\"stages\":[{\"name\":\"s\",\"tasks\":[
  {\"cmd\":[\"sh\",\"-c\",\"sleep 0.4; echo {i}\"],\"count\":$N}]}]}")
seq 0 $((N - 1)) >"$T/expected"
submit --master "$MASTER_URL" --log-level info --total-executor-cores 4 \
  --executor-cores 1 "$J" &
SUB=$!
PIDS+=($SUB)
# app_of NAME: the id of the application called NAME.
app_of() { state_json | jq -r --arg n "$1" '.apps[] | select(.name == $n) | .id'; }
four() { [[ $(running_execs "$(app_of mid)" | wc -l) -eq 4 ]]; }
check "4 executors run the job" wait_for 30 four
sleep 1
state_json >"$T/before.json"
APP=$(jq -r '.apps[0].id' "$T/before.json")
VICTIM=$(jq -r '[.apps[0].executors[]] | group_by(.worker_id)
  | max_by(length)[0].worker_id' "$T/before.json")
VNAME=$(name_of "$VICTIM")
LOST_EXECS=$(jq -r --arg w "$VICTIM" '.apps[0].executors[]
  | select(.worker_id == $w) | .exec_id' "$T/before.json")
pid_var=PID_$VNAME
kill9 "${!pid_var}"
t_kill=$(now_ms)
say "killed worker $VNAME ($VICTIM) with executors $(echo $LOST_EXECS)"
lost_all() {
  local x
  for x in $LOST_EXECS; do grep -q "executor $x lost" "$T/err" || return 1; done
}
check "the driver gives up on its executors" wait_for 10 lost_all
for x in $LOST_EXECS; do
  t=$(log_ms "$T/err" "executor $x lost")
  say "executor $x lost at the driver $((t - t_kill)) ms after the kill (limit $LIMIT ms)"
  check "executor $x's tasks re-queued within liveness x interval + interval" \
    test $((t - t_kill)) -le $((LIMIT + SLACK))
done
t=$(log_ms "$T/master.log" "worker $VICTIM .* is DEAD")
say "worker DEAD at the master $((t - t_kill)) ms after the kill"
replaced() {
  local lines
  lines=$(running_execs "$APP")
  [[ $(wc -l <<<"$lines") -eq 4 ]] && ! grep -q "$VICTIM" <<<"$lines"
}
check "replacement executors run on the other workers" wait_for 10 replaced
say "4 executors running again $(($(now_ms) - t_kill)) ms after the kill"
wait "$SUB"
check "the job succeeds" test $? -eq 0
check "... with exactly its output" same "$T/out" "$T/expected"
check "nothing of the killed worker's executors is left" none_in "$T/$VNAME"
cp "$T/err" "$T/mid.err"

# --- killed while its executor runs long tasks --------------------------
J=$(job long '{"name":"long","lib":"libtesttasks.so","stages":[{"name":"s",
  "tasks":[{"cmd":["sleep","300"]},{"fn":"sleep_ms","arg":"300000"}]}]}')
"$BIN/hearth-submit" --master "$MASTER_URL" --lib "$TASKS_LIB" \
  --heartbeat-interval "${INTERVAL_MS}ms" --heartbeat-liveness "$LIVENESS" \
  --total-executor-cores 2 --executor-cores 2 "$J" >"$T/long.out" 2>"$T/long.err" &
LONG=$!
PIDS+=($LONG)
long_runs() { # the executor and its sleep 300 run
  local app line
  app=$(app_of long) && line=$(running_execs "$app" | head -1) && [[ -n $line ]] &&
    [[ $(procs_in "$T/$(name_of "${line#* }")/$app" | wc -l) -ge 2 ]]
}
check "an executor runs a long command and a long function task" wait_for 20 long_runs
APP2=$(app_of long)
read -r X W <<<"$(running_execs "$APP2" | head -1)"
WNAME=$(name_of "$W")
pid_var=PID_$WNAME
kill9 "${!pid_var}"
t_kill=$(now_ms)
check "nothing of worker $WNAME's executor is left" wait_for 10 none_in "$T/$WNAME"
t=$(log_ms "$T/$WNAME/$APP2/$X/stderr" "exiting with status")
say "executor $X (a long command and a function task) exited $((t - t_kill)) ms after its worker's kill -9"
grep -q 'the process that started this executor is gone' "$T/$WNAME/$APP2/$X/stderr" &&
  pass "the executor noticed its worker was gone" ||
  fail "the executor noticed its worker was gone"

# --- killed with its executor; a new worker on the same work dir --------
moved() { # the tasks run on the last worker
  local line
  line=$(running_execs "$APP2" | grep -v "^$X ") && [[ -n $line ]] &&
    [[ $(procs_in "$T/$(name_of "${line#* }")/$APP2" | wc -l) -ge 2 ]]
}
check "the long tasks run again on the last worker" wait_for 20 moved
read -r X3 W3 <<<"$(running_execs "$APP2" | grep -v "^$X " | head -1)"
W3NAME=$(name_of "$W3")
DIR3=$T/$W3NAME/$APP2/$X3
EPID=$(procs_in "$DIR3" | while read -r p; do
  [[ $(cat "/proc/$p/comm") == hearth-executor ]] && echo "$p"; done)
check "found the executor" test "$(wc -w <<<"$EPID")" -eq 1
pid_var=PID_$W3NAME
# The worker is stopped first: in CI, with `kill -9 executor worker`, the
# worker ran long enough between the two signals to reap its executor and
# clear its group, the command task with it (the master logged the
# executor FAILED and placed another on that worker).
kill -STOP "${!pid_var}"
kill -9 "$EPID" "${!pid_var}"
wait "${!pid_var}" 2>/dev/null
sleep 1.5
check "its command task outlives them ($(procs_in "$DIR3" | wc -l) process)" \
  test "$(procs_in "$DIR3" | wc -l)" -ge 1
CORES=2 start_worker "$W3NAME" || exit 1
check "the next worker on that work dir kills what was left" wait_for 5 none_in "$DIR3"
check "... and says so" grep -q "processes left in $T/$W3NAME by an earlier worker" \
  "$T/$W3NAME.log"

kill -TERM "$LONG"
wait "$LONG"
for w in w1 w2 w3; do pid_var=PID_$w; kill -TERM "${!pid_var}" 2>/dev/null; done
for w in w1 w2 w3; do pid_var=PID_$w; wait "${!pid_var}" 2>/dev/null; done
kill -TERM "$MASTER_PID"
wait "$MASTER_PID"
check "no process of this test is left" wait_for 5 no_leftovers
finish
