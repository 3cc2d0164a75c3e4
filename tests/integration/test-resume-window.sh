#!/usr/bin/env bash
# The resume window (issue 39, docs/cluster.md "Resumable applications"):
# a client-mode driver killed with kill -9 leaves its application
# RELAUNCHING, not FAILED: its executors are stopped and it holds no core,
# but its worker keeps its directory.  A master restarted on its journal
# still has it RELAUNCHING with the same deadline; once the window passes
# it is FAILED ("driver lost: not resumed within ...") and the worker
# removes its directory.  KILL_APPLICATION ends a RELAUNCHING application
# KILLED at once.  With --resume-window 0, a lost driver's application is
# FAILED at once, as before, and nothing of it is kept.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
shopt -s extglob
deadline 150
export TMPDIR=$T
JOURNAL=$T/journal
WINDOW=4s # short, but long enough for a restart of the master inside it

start_master --journal "$JOURNAL" --resume-window "$WINDOW" || exit 1
# --app-retention 0s: a removed application's directory goes at once
CORES=2 start_worker w1 --app-retention 0s || exit 1

# One task that leaves a file in its executor's directory, then sleeps.
J=$(job sleepy '{"name":"sleepy","stages":[{"name":"s","tasks":[
  {"cmd":["sh","-c","echo kept >kept-file; sleep 300"]}]}]}')

# start_job NAME: the job in client mode; sets DRIVER and APP once its
# task has written its file.
start_job() {
  "$BIN/hearth-submit" --master "$MASTER_URL" --heartbeat-interval \
    "${INTERVAL_MS}ms" --heartbeat-liveness "$LIVENESS" --log-level info \
    "$J" >"$T/$1.out" 2>"$T/$1.err" &
  DRIVER=$!
  PIDS+=($DRIVER)
  APP=
  running() {
    APP=$(state_json | jq -r '.apps[] | select(.state == "RUNNING") | .id')
    [[ -n $APP ]] && compgen -G "$T/w1/$APP/*/kept-file" >/dev/null
  }
  wait_for 30 running
}
app_field() {
  state_json | jq -r --arg id "$APP" ".apps[] | select(.id == \$id) | $1"
}
app_is() { [[ $(app_field .state) == "$1" ]]; }
kept() { compgen -G "$T/w1/$APP/*/kept-file" >/dev/null; }
gone() { [[ ! -e $T/w1/$APP ]]; }
nothing_runs() { none_in "$T/w1/$APP"; }

check "a client-mode job runs, its task's file written" start_job one
kill9 "$DRIVER"
t_kill=$(now_ms)
check "its driver killed: the application is RELAUNCHING" \
  wait_for 10 app_is RELAUNCHING
say "RELAUNCHING $(($(now_ms) - t_kill)) ms after the kill: $(app_field .reason)"
check "... for a lost driver, kept until a time it says" \
  eval '[[ $(app_field .reason) == "driver lost: no heartbeat for "*"; kept for resuming until "*" UTC" ]]'
DEADLINE=$(app_field .resume_deadline_ms)
check "... with a deadline within the window" \
  eval '(( DEADLINE > t_kill && DEADLINE <= $(now_ms) + 4000 ))'
check "... its executor stopped" wait_for 10 nothing_runs
check "... and its cores free" wait_for 5 jq_state '[.workers[].cores_used] | add == 0'
check "... while the worker keeps its directory and files" kept
check "... and was not told it was removed" \
  eval '! grep -q "application $APP removed" "$T/w1.log"'

# A master restarted on its journal keeps it RELAUNCHING, same deadline.
kill9 "$MASTER_PID"
PORT=$MASTER_PORT start_master --journal "$JOURNAL" --resume-window "$WINDOW" \
  || exit 1
check "the restarted master has it RELAUNCHING" app_is RELAUNCHING
check "... with the same deadline ($DEADLINE)" \
  eval '[[ $(app_field .resume_deadline_ms) == "$DEADLINE" ]]'
check "... and the same reason" \
  eval '[[ $(app_field .reason) == *"kept for resuming until"* ]]'

# The window passes without a resume.
check "the window passed: the application is FAILED" wait_for 15 app_is FAILED
say "FAILED $(($(now_ms) - DEADLINE)) ms after its deadline: $(app_field .reason)"
check "... not resumed within $WINDOW" \
  eval '[[ $(app_field .reason) == "driver lost: not resumed within $WINDOW" ]]'
check "... not before its deadline" \
  eval '(( $(app_field .end_ms) >= DEADLINE ))'
check "the worker heard it was removed" \
  wait_for 5 grep -q "application $APP removed" "$T/w1.log"
check "... and removed its directory" wait_for 10 gone

# A supervised cluster-mode driver killed with kill -9: the master
# relaunches it, and the new driver, registering under its driver id,
# resumes the application without being told (same id, epoch 2).  (What
# the driver then does with it is the driver's half, tested there.)
kill9 "$MASTER_PID"
PORT=$MASTER_PORT start_master --journal "$JOURNAL" --resume-window 60s \
  --driver-relaunch-delay 100ms || exit 1
"$BIN/hearth-submit" --master "$MASTER_URL" --deploy-mode cluster --supervise \
  --driver-memory 256M --executor-memory 256M --no-wait "$J" >"$T/cm.out" 2>&1
APP=
cm_running() {
  APP=$(state_json | jq -r '.apps[] | select(.state == "RUNNING") | .id')
  [[ -n $APP ]] && compgen -G "$T/w1/$APP/*/kept-file" >/dev/null
}
check "a supervised cluster-mode job runs" wait_for 30 cm_running
DPID=$(test_pids hearth-driver | head -1)
kill -9 "$DPID"
check "its driver killed and relaunched: the same application resumed, epoch 2" \
  wait_for 20 eval '[[ $(app_field .driver_epoch) == 2 && $(app_field .state) == @(WAITING|RUNNING) ]]'
check "... the master says so" \
  grep -q "application $APP (sleepy) resumed by .* (driver epoch 2)" "$T/master.log"
"$BIN/hearth-submit" --master "$MASTER_URL" --kill "$(head -1 "$T/cm.out")" \
  >"$T/cm-kill.out" 2>&1

# KILL_APPLICATION of a RELAUNCHING application: KILLED at once.
kill9 "$MASTER_PID"
PORT=$MASTER_PORT start_master --journal "$JOURNAL" --resume-window 60s ||
  exit 1
check "a second job runs" start_job two
kill9 "$DRIVER"
check "its driver killed: RELAUNCHING for a minute" wait_for 10 app_is RELAUNCHING
"$BIN/hearth-submit" --master "$MASTER_URL" --kill "$APP" >"$T/kill.out" 2>&1
check "hearth-submit --kill ends it KILLED at once" app_is KILLED
check "... and the worker removes its directory" wait_for 10 gone

# --resume-window 0: FAILED at once, as before.
kill9 "$MASTER_PID"
PORT=$MASTER_PORT start_master --resume-window 0 || exit 1
"$BIN/hearth-tail" --master "$MASTER_URL" --topic app --json \
  >"$T/app-events" 2>/dev/null &
PIDS+=($!)
check "with --resume-window 0, a third job runs" start_job three
kill9 "$DRIVER"
check "its driver killed: FAILED" wait_for 10 app_is FAILED
check "... for a lost driver, as before" \
  eval '[[ $(app_field .reason) == "driver lost: no heartbeat for "*" ms" ]]'
check "... never RELAUNCHING" \
  eval '! grep -q RELAUNCHING "$T/app-events"'
check "... and the worker removes its directory" wait_for 10 gone
finish
