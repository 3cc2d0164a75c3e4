#!/usr/bin/env bash
# A master failover in the middle of a resume (issue 39): three masters
# elected through a real ZooKeeper, each with --resume-window, two
# workers and client-mode drivers given the three URLs.  A 3-stage job
# (test-resume.sh's: a map of 8 tasks into 4 partitions, a count of 4
# reducers into 4 partitions, an output stage of 4 part files; every task
# appends a line to RUNS/STAGE.INDEX when it starts, and the last output
# task waits for a file after it) has its driver killed with kill -9 at
# about 90 % (3 part files committed, the last task waiting): the leader
# has the application RELAUNCHING, and so has each standby's journal.
# Then `hearth-submit --master URL1,URL2,URL3 --resume APP job.json`:
#   - late: once the resume's one task has started (and waits), kill -9
#     of the leader: a standby leads with a higher epoch, has the
#     application RUNNING under driver epoch 2 with the first driver's
#     outputs table, the workers and the driver follow it; the task is
#     let go;
#   - early: the resume started while the leader is frozen (SIGSTOP),
#     then the leader killed: the last master takes the resume.
# Checks, each time: the resume exits 0 saying what it spared ("2 of 3
# stages skipped, 1 of 16 tasks to run"), the output is exact, no map or
# count task ran again, nor an output task whose part was committed,
# part-00000 keeps its inode, the four part files are there once each,
# and the application is FINISHED on the new leader (driver epoch 2).
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
. "$(dirname "$0")/../lib/zk.sh"
deadline 200
export TMPDIR=$T LC_ALL=C

zk_require
SESSION=${SESSION:-3000}
ZKP=$(zk_free_port)
ZK=127.0.0.1:$ZKP
HA_MASTER_ARGS="--resume-window 60s --max-executor-retries 100"
. "$(dirname "$0")/../lib/hamasters.sh"

start_zk z1 "$ZKP" || { fail "ZooKeeper starts on $ZKP"; finish; exit 1; }
start_ha a || { fail "master a starts"; finish; exit 1; }
check "(master a leads)" wait_for 30 eval '[[ $(role a) == LEADER ]]'
start_ha b || { fail "master b starts"; finish; exit 1; }
start_ha c || { fail "master c starts"; finish; exit 1; }
check "(masters b and c are its standbys)" wait_for 30 settled
OLD=$LEADER
E1=$(epoch "$OLD")
LIST="${URL[a]},${URL[b]},${URL[c]}"
MASTER_URL=$LIST CORES=2 start_worker w1 || { finish; exit 1; }
MASTER_URL=$LIST CORES=2 start_worker w2 || { finish; exit 1; }
word_files 8 4000 400 5

# resume_job NAME: the job file; its tasks' lines in $T/runs-NAME, its
# part files in $T/result-NAME, its last output task waits for $T/go-NAME.
resume_job() {
  local runs=$T/runs-$1
  mkdir -p "$runs"
  job "$1" "{\"name\": \"$1\", \"stages\": [
  {\"name\": \"map\", \"partitions\": 4,
   \"tasks\": [{\"cmd\": [\"sh\", \"-c\", \"echo x >> $runs/map.{i}; cat $T/in/{i}.txt\"],
                \"count\": 8}]},
  {\"name\": \"count\", \"partitions\": 4,
   \"tasks\": [{\"cmd\": [\"sh\", \"-c\", \"echo x >> $runs/count.{i}; sort | uniq -c | while read n w; do echo \\\"\$w \$n\\\"; done\"],
                \"input\": \"map\"}]},
  {\"name\": \"out\", \"output\": \"$T/result-$1\",
   \"tasks\": [{\"cmd\": [\"sh\", \"-c\", \"echo x >> $runs/out.{i}; if [ {i} = 3 ]; then n=0; while [ ! -e $T/go-$1 ] && [ \$n -lt 900 ]; do sleep 0.1; n=\$((n+1)); done; fi; sort\"],
                \"input\": \"count\"}]}]}"
}

# runs NAME STAGE INDEX: how many times that task started.
runs() { cat "$T/runs-$1/$2.$3" 2>/dev/null | wc -l; }
# each_once NAME STAGE N: tasks 0..N-1 of the stage each started once.
each_once() {
  local i
  for ((i = 0; i < $3; i++)); do [[ $(runs "$1" "$2" $i) -eq 1 ]] || return 1; done
}
# SE: the application's state and driver epoch
SE='"\(.state) \(.driver_epoch)"'
# app_on MASTER FILTER: FILTER of the application $APP in that master's
# MASTER_STATE.
app_on() {
  ask "$1" | jq -r --arg id "$APP" \
    "[.apps[]? | select(.id == \$id)][0] | $2" 2>/dev/null
}
# relaunching_in MASTER: that master's journal has the application
# RELAUNCHING (a standby's journal is the leader's stream).
relaunching_in() {
  cat "$T/$1.journal/snapshot" "$T/$1.journal"/journal.* 2>/dev/null |
    grep -F "\"id\":\"$APP\"" | grep -q '"state":"RELAUNCHING"'
}
# drive NAME FILE [ARGS...]: a client-mode driver of job NAME given every
# master, in the background, its output in $T/FILE.out and .err; sets
# DRV.
drive() {
  local name=$1 file=$2
  shift 2
  "$BIN/hearth-submit" --master "$LIST" --log-level info \
    --heartbeat-interval "${INTERVAL_MS}ms" --heartbeat-liveness "$LIVENESS" \
    "$@" "$T/$name.json" >"$T/$file.out" 2>"$T/$file.err" &
  DRV=$!
  PIDS+=($DRV)
}
# at_ninety NAME: job NAME run by a driver killed once 3 of its 4 part
# files are committed (the last task waiting); sets APP and INODE0 (of
# its part-00000); the leader $LEADER has it RELAUNCHING, and every
# standby's journal too.
at_ninety() {
  local n
  resume_job "$1" >/dev/null
  drive "$1" "$1"
  check "$1: the three first part files are committed, the last task runs" \
    wait_for 60 bash -c "[ \$(ls $T/result-$1 2>/dev/null | grep -c '^part-') -ge 3 ] && [ -e $T/runs-$1/out.3 ]"
  sleep 1 # the last records reach the leader, and the standbys
  APP=$(sed -n 's/.*application \(app-[0-9-]*\) registered with.*/\1/p' "$T/$1.err" | head -1)
  check "$1: the driver registered its application ($APP)" test -n "$APP"
  INODE0=$(stat -c %i "$T/result-$1/part-00000" 2>/dev/null)
  kill9 "$DRV"
  check "$1: killed, the leader ($LEADER) has it RELAUNCHING" \
    wait_for 15 eval '[[ $(app_on "$LEADER" .state) == RELAUNCHING ]]'
  for n in $(alive); do
    [[ $n == "$LEADER" ]] && continue
    check "... and so has standby $n's journal" wait_for 10 relaunching_in "$n"
  done
}
# exact NAME RC: the resume of job NAME exited RC: checks it and the
# output.
exact() {
  check "$1: the resume finishes with exit 0 ($2)" test "$2" -eq 0
  check "... the output is exact" \
    same <(cat "$T/result-$1"/part-* | sort) "$T/counts.ref"
  check "... no map task ran again" each_once "$1" map 8
  check "... no count task ran again" each_once "$1" count 4
  check "... no output task whose part was committed ran again" \
    each_once "$1" out 3
  check "... part-00000 was not written again (same inode)" \
    test -n "$INODE0" -a "$(stat -c %i "$T/result-$1/part-00000")" = "$INODE0"
  check "... the four part files, once each" \
    test "$(ls "$T/result-$1" | grep -c '^part-')" -eq 4 -a \
    "$(jq '.parts | length' "$T/result-$1/_SUCCESS")" -eq 4
  if ((FAILED)); then
    say "the resumed driver's last lines:"
    tail -n 15 "$T/$1-resume.err" | sed 's/^/  /'
  fi
}
# new_leader OLD: after OLD's kill -9, another master leads with a higher
# epoch, and the workers registered with it; sets LEADER, MASTER_URL.
new_leader() {
  local t_kill e
  stop_ha "$1" KILL
  t_kill=$(now_ms)
  check "after kill -9 of the leader $1, another master leads" \
    wait_for $((SESSION / 1000 + 15)) settled
  e=$(epoch "$LEADER")
  say "master $LEADER leads, epoch $e, $(($(now_ms) - t_kill)) ms after the kill"
  check "... with a higher epoch ($E_LAST < $e)" test "$e" -gt "$E_LAST"
  E_LAST=$e
  MASTER_URL=${URL[$LEADER]}
  check "both workers registered with the new leader $LEADER" \
    wait_for 20 jq_state '[.workers[] | select(.state == "ALIVE")] | length == 2'
}
E_LAST=$E1

# ---- the leader killed while the resumed driver runs its task ---------------
at_ninety late
drive late late-resume --resume "$APP"
RES=$DRV
check "late: hearth-submit --resume runs the one task left (it waits)" \
  wait_for 30 eval '[[ $(runs late out 3) -eq 2 ]]'
check "... saying what it spared" \
  grep -q "resumed $APP: 2 of 3 stages skipped, 1 of 16 tasks to run" "$T/late-resume.err"
wait_for 10 eval '[[ $(app_on "$LEADER" "$SE") == "RUNNING 2" ]]'
v=$(app_on "$LEADER" "$SE")
check "... the leader has it RUNNING under driver epoch 2 ($v)" test "$v" = "RUNNING 2"
sleep 0.5 # the standbys have the resume in their journals
new_leader "$LEADER"
wait_for 20 eval '[[ $(app_on "$LEADER" "$SE") == "RUNNING 2" ]]'
v=$(app_on "$LEADER" "$SE")
check "the resumed driver registered with it: the application RUNNING, driver epoch 2 ($v)" \
  test "$v" = "RUNNING 2"
n=$(app_on "$LEADER" .outputs)
check "... with the outputs table the first driver recorded (at least 15 outputs: $n)" \
  test "${n:-0}" -ge 15
touch "$T/go-late"
wait "$RES"
exact late $?
check "the application is FINISHED on the new leader $LEADER" \
  wait_for 10 eval '[[ $(app_on "$LEADER" .state) == FINISHED ]]'

# ---- the leader frozen when the resume starts, then killed -------------------
# The resume's registration goes to a leader that does not answer (its
# ZooKeeper session may expire meanwhile: the last master is elected
# while it is frozen, as a leader cut off would be); once it is killed,
# the resume is taken by the last master.
at_ninety early
touch "$T/go-early"
kill -STOP "${MPID[$LEADER]}"
drive early early-resume --resume "$APP"
RES=$DRV
sleep 1 # the resume waits for the frozen leader's answer
new_leader "$LEADER"
wait "$RES"
rc=$?
check "early: the resume was taken by the new leader (driver epoch 2)" \
  grep -q "application $APP resumed (driver epoch 2)" "$T/early-resume.err"
check "... saying what it spared" \
  grep -q "resumed $APP: 2 of 3 stages skipped, 1 of 16 tasks to run" "$T/early-resume.err"
exact early "$rc"
v=$(app_on "$LEADER" "$SE")
check "the application is FINISHED on $LEADER, driver epoch 2 ($v)" \
  test "$v" = "FINISHED 2"
finish
