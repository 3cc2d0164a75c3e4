#!/usr/bin/env bash
# Resuming an application whose driver died (issue 39), on a hand-started
# cluster (a master with a journal and --resume-window, two workers): a
# 3-stage job (a map of 8 tasks into 4 partitions, a count of 4 reducers
# into 4 partitions, an output stage of 4 part files), whose every task
# appends a line to a file of its own when it starts (RUNS/STAGE.INDEX:
# how many times it ran, counted from the tasks' side).
#   - client mode, the driver killed with kill -9 at about 90 % (3 of the 4
#     part files committed, the last task running): `hearth-submit --resume
#     APP_ID` finishes the job; the output is exact; no task of the map or
#     the count ran again, nor an output task whose part was committed; no
#     part file was written twice (same inode); it prints "resumed APP: 2
#     of 3 stages skipped, 1 of 16 tasks to run"; the event log has
#     app_resumed and stage_skipped.
#   - killed with the count done, resumed with the count's command
#     changed: the map is reused, the count and the output run whole, and
#     the driver says the count changed.
#   - a zombie: the driver frozen with SIGSTOP until the master gave up on
#     it, the application resumed and finished by a new driver, then the
#     old one continued: it is fenced (exits non-zero saying so), the
#     output exact.
#   - cluster mode with --supervise: the driver killed with kill -9 at
#     about 50 % (the count running), then its relaunch killed at about
#     90 %: the master relaunches it each time, each relaunch resumes the
#     application (driver epochs 2 and 3), and the output is exact with no
#     finished task run again.
#   - outputs lost: the worker holding more of the map outputs killed
#     with the driver; the resumed driver makes them again, exact.
#   - --resume of an application that is not RELAUNCHING (an unknown id,
#     a FINISHED one) is refused with the reason, exit non-zero.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 400
export TMPDIR=$T LC_ALL=C

start_master --journal "$T/journal" --resume-window 60s \
  --driver-relaunch-delay 200ms --driver-relaunch-max 2s
start_worker w1 --cores 2
start_worker w2 --cores 2
word_files 8 4000 400 5

# resume_job NAME COUNTCMD: the job file; the output task 3 waits for
# $T/go-NAME (at most 60 s) after its side effect.
resume_job() {
  local runs=$T/runs-$1
  mkdir -p "$runs"
  job "$1" "{\"name\": \"$1\", \"stages\": [
  {\"name\": \"map\", \"partitions\": 4,
   \"tasks\": [{\"cmd\": [\"sh\", \"-c\", \"echo x >> $runs/map.{i}; cat $T/in/{i}.txt\"],
                \"count\": 8}]},
  {\"name\": \"count\", \"partitions\": 4,
   \"tasks\": [{\"cmd\": [\"sh\", \"-c\", \"echo x >> $runs/count.{i}; $2\"],
                \"input\": \"map\"}]},
  {\"name\": \"out\", \"output\": \"$T/result-$1\",
   \"tasks\": [{\"cmd\": [\"sh\", \"-c\", \"echo x >> $runs/out.{i}; if [ {i} = 3 ]; then n=0; while [ ! -e $T/go-$1 ] && [ \$n -lt 600 ]; do sleep 0.1; n=\$((n+1)); done; fi; sort\"],
                \"input\": \"count\"}]}]}"
}
COUNT='sort | uniq -c | while read n w; do echo \"$w $n\"; done'

# runs NAME STAGE INDEX: how many times that task started.
runs() { cat "$T/runs-$1/$2.$3" 2>/dev/null | wc -l; }
# each_once NAME STAGE N: tasks 0..N-1 of the stage each started once.
each_once() {
  local i
  for ((i = 0; i < $3; i++)); do [[ $(runs "$1" "$2" $i) -eq 1 ]] || return 1; done
}
# app_state APP: its state in the master's books.
app_state() {
  state_json | jq -r --arg id "$1" \
    '[.active_apps[]?, .completed_apps[]?, .apps[]?] | map(select(.id == $id)) | .[0].state'
}
# drive NAME [ARGS...]: a client-mode driver of job NAME in the
# background, its output in $T/NAME.out and .err; sets DRV_PID.
drive() {
  local name=$1; shift
  "$BIN/hearth-submit" --master "$MASTER_URL" --log-level info \
    --heartbeat-interval "${INTERVAL_MS}ms" --heartbeat-liveness "$LIVENESS" \
    "$@" "$T/$name.json" >"$T/$name.out" 2>"$T/$name.err" &
  DRV_PID=$!
  PIDS+=($DRV_PID)
}
# app_of FILE: the application id a driver's stderr names.
app_of() {
  sed -n 's/.*application \(app-[0-9-]*\) registered with.*/\1/p' "$1" | head -1
}
# parts NAME: the part files committed so far.
parts() { ls "$T/result-$1" 2>/dev/null | grep -c '^part-' || true; }

# ---- at about 90 % ---------------------------------------------------------
J=$(resume_job late "$COUNT")
drive late --event-log "$T/ev"
check "late: the three first part files are committed, the last task runs" \
  wait_for 60 bash -c "[ \$(ls $T/result-late 2>/dev/null | grep -c '^part-') -ge 3 ] && [ -e $T/runs-late/out.3 ]"
sleep 1 # the last records reach the master (each tick)
APP=$(app_of "$T/late.err")
check "late: the driver registered its application ($APP)" test -n "$APP"
inode0=$(stat -c %i "$T/result-late/part-00000" 2>/dev/null)
kill -9 "$DRV_PID"
check "late: the application is RELAUNCHING once the master gives up on its driver" \
  wait_for 15 bash -c "[ \"\$(\"$BIN/hearth-tail\" --master $MASTER_URL --state --json --timeout 3s | jq -r --arg id $APP '[.. | objects | select(.id? == \$id) | .state][0]')\" = RELAUNCHING ]"
touch "$T/go-late"
submit --master "$MASTER_URL" --resume "$APP" --event-log "$T/ev" "$J"
check "late: hearth-submit --resume finishes the job" test $? -eq 0
check "... saying what it spared" \
  grep -q "resumed $APP: 2 of 3 stages skipped, 1 of 16 tasks to run" "$T/err"
check "... the output is exact" \
  same <(cat "$T/result-late"/part-* | sort) "$T/counts.ref"
check "... no map task ran again" each_once late map 8
check "... no count task ran again" each_once late count 4
check "... no output task whose part was committed ran again" each_once late out 3
check "... the last one ran again" test "$(runs late out 3)" -eq 2
check "... part-00000 was not written again (same inode)" \
  test -n "$inode0" -a "$(stat -c %i "$T/result-late/part-00000")" = "$inode0"
check "... the manifest lists the four parts" \
  test "$(jq '.parts | length' "$T/result-late/_SUCCESS")" -eq 4
check "... its event log is a file of its own, beside the first driver's" \
  test -s "$T/ev/$APP.events" -a -s "$T/ev/$APP.driver2.events"
check "... with app_resumed and two stage_skipped" \
  bash -c "grep -q '\"event\":\"app_resumed\"' $T/ev/$APP.driver2.events &&
           [ \$(grep -c '\"event\":\"stage_skipped\"' $T/ev/$APP.driver2.events) -eq 2 ]"
check "... the application is FINISHED" \
  wait_for 5 bash -c "\"$BIN/hearth-tail\" --master $MASTER_URL --state --json --timeout 3s | jq -e --arg id $APP '[.. | objects | select(.id? == \$id) | .state][0] == \"FINISHED\"' >/dev/null"

# ---- the count changed ------------------------------------------------------
# Killed once the count is done (its outputs recorded); resumed with
# another count command: the map is reused, the count and the output run
# whole, and the driver says the count changed.
J=$(resume_job mid "true; $COUNT")
drive mid
check "mid: the count is done, the output runs" \
  wait_for 60 test -e "$T/runs-mid/out.3"
sleep 1
APP=$(app_of "$T/mid.err")
check "mid: the driver registered its application ($APP)" test -n "$APP"
kill -9 "$DRV_PID"
check "mid: RELAUNCHING" \
  wait_for 15 bash -c "\"$BIN/hearth-tail\" --master $MASTER_URL --state --json --timeout 3s | grep -q RELAUNCHING"
rm -rf "$T/result-mid" # the output stage changes too (its input did)
J=$(resume_job mid "$COUNT") # the count's command is not the same
touch "$T/go-mid"
submit --master "$MASTER_URL" --resume "$APP" "$J"
check "mid: resumed with a changed count stage, the job finishes" test $? -eq 0
check "... the driver says the count changed" grep -q 'stage count: changed since' "$T/err"
check "... 1 of 3 stages skipped, 8 of 16 tasks to run" \
  grep -q "resumed $APP: 1 of 3 stages skipped, 8 of 16 tasks to run" "$T/err"
check "... the output is exact" \
  same <(cat "$T/result-mid"/part-* | sort) "$T/counts.ref"
check "... no map task ran again" each_once mid map 8
check "... every count task ran twice" \
  test "$(cat "$T"/runs-mid/count.* | wc -l)" -eq 8

# ---- a zombie ----------------------------------------------------------------
J=$(resume_job zombie "$COUNT")
drive zombie
check "zombie: the last output task runs" \
  wait_for 60 test -e "$T/runs-zombie/out.3"
sleep 1
APP=$(app_of "$T/zombie.err")
check "zombie: the driver registered its application ($APP)" test -n "$APP"
OLD=$DRV_PID
kill -STOP "$OLD"
check "zombie: the frozen driver's application is RELAUNCHING" \
  wait_for 15 bash -c "\"$BIN/hearth-tail\" --master $MASTER_URL --state --json --timeout 3s | grep -q RELAUNCHING"
touch "$T/go-zombie"
submit --master "$MASTER_URL" --resume "$APP" "$J"
check "zombie: a new driver resumes it and finishes" test $? -eq 0
kill -CONT "$OLD"
wait "$OLD"
rc=$?
check "... the old driver, continued, exits non-zero ($rc)" test "$rc" -ne 0 -a "$rc" -lt 128
check "... saying it was fenced by a newer driver" grep -q 'fenced' "$T/zombie.err"
check "... the output is exact" \
  same <(cat "$T/result-zombie"/part-* | sort) "$T/counts.ref"

# ---- cluster mode, supervised, killed twice -----------------------------------
J=$(resume_job clu "sleep 1; $COUNT") # killed while the count runs
"$BIN/hearth-submit" --master "$MASTER_URL" --deploy-mode cluster --supervise \
  --driver-memory 256M --no-wait "$J" >"$T/clu.submit" 2>&1
DRV=$(grep -o 'driver-[0-9a-z-]*' "$T/clu.submit" | head -1)
# driver_pid: the pid of the driver's current launch (MASTER_STATE)
driver_pid() {
  state_json | jq -r --arg d "$DRV" '[.. | objects | select(.id? == $d) | .pid][0] // empty'
}
check "cluster: the supervised driver runs the job; the count starts" \
  wait_for 60 bash -c "ls $T/runs-clu/count.* >/dev/null 2>&1"
sleep 0.3 # the map's outputs reach the master
pid=$(driver_pid)
check "... its pid is known ($pid)" test -n "$pid"
kill -9 "$pid" 2>/dev/null
check "cluster: killed at about 50 %, it is relaunched and resumes" \
  wait_for 30 bash -c "grep -qs 'resumed app-' $T/w1/$DRV/stderr $T/w2/$DRV/stderr"
check "... the last output task runs again" \
  wait_for 60 bash -c "[ \$(cat $T/runs-clu/out.3 2>/dev/null | wc -l) -ge 1 ] &&
    [ \$(ls $T/result-clu 2>/dev/null | grep -c '^part-') -ge 3 ]"
sleep 1
pid=$(driver_pid)
kill -9 "$pid" 2>/dev/null
touch "$T/go-clu"
check "cluster: killed at about 90 %, relaunched again, the driver FINISHES" \
  wait_for 60 bash -c "\"$BIN/hearth-submit\" --master $MASTER_URL --status $DRV 2>/dev/null | awk '\$1 == \"state:\" {print \$2}' | grep -qx FINISHED"
check "... the second relaunch resumed with driver epoch 3" \
  bash -c "cat $T/w1/$DRV/stderr $T/w2/$DRV/stderr 2>/dev/null | grep -q 'driver epoch 3:'"
check "... the output is exact" \
  same <(cat "$T/result-clu"/part-* | sort) "$T/counts.ref"
check "... no map task ran again" each_once clu map 8
check "... the output tasks committed before the second kill did not run again" \
  each_once clu out 3

# ---- outputs lost with their worker ----------------------------------------
# Killed at about 90 % with one of the two workers killed too (kill -9:
# its map outputs are gone): the master gives back only what the live
# worker holds, and the resumed driver makes the missing outputs again
# (the map and count tasks whose outputs the dead worker held), exact.
J=$(resume_job lost "$COUNT")
drive lost
check "lost: the three first part files are committed, the last task runs" \
  wait_for 60 bash -c "[ \$(ls $T/result-lost 2>/dev/null | grep -c '^part-') -ge 3 ] && [ -e $T/runs-lost/out.3 ]"
sleep 1
APP=$(app_of "$T/lost.err")
check "lost: the driver registered its application ($APP)" test -n "$APP"
# the worker holding more of them goes
n1=$(find "$T/w1/shuffle" -name '*.index' 2>/dev/null | wc -l)
n2=$(find "$T/w2/shuffle" -name '*.index' 2>/dev/null | wc -l)
if ((n1 > n2)); then victim=w1; else victim=w2; fi
vpid=PID_$victim vid=ID_$victim
check "lost: $victim holds map outputs ($n1 on w1, $n2 on w2)" \
  test $((n1 > n2 ? n1 : n2)) -gt 0
kill -9 "$DRV_PID" "${!vpid}"
check "lost: $victim is DEAD and the application RELAUNCHING" \
  wait_for 20 bash -c "[ \"\$(\"$BIN/hearth-tail\" --master $MASTER_URL --state --json --timeout 3s | jq -r --arg id ${!vid} '.workers[] | select(.id == \$id) | .state')\" = DEAD ] &&
    \"$BIN/hearth-tail\" --master $MASTER_URL --state --json --timeout 3s | grep -q RELAUNCHING"
touch "$T/go-lost"
submit --master "$MASTER_URL" --resume "$APP" "$J"
check "lost: the resumed driver finishes" test $? -eq 0
check "... the output is exact" \
  same <(cat "$T/result-lost"/part-* | sort) "$T/counts.ref"
check "... the map tasks whose outputs $victim held ran again" \
  test "$(cat "$T"/runs-lost/map.* | wc -l)" -gt 8
check "... the committed part files were not written again" each_once lost out 3

# ---- refusals -------------------------------------------------------------
expect_fail submit --master "$MASTER_URL" --resume app-20260101000000-9999 "$J"
check "--resume of an unknown application is refused" test $? -eq 0
check "... saying why" grep -q 'not_resumable' "$T/err"
expect_fail submit --master "$MASTER_URL" --resume "$APP" "$J"
check "--resume of a FINISHED application is refused" test $? -eq 0
check "... saying why" grep -q 'FINISHED' "$T/err"

finish
