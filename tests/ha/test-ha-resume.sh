#!/usr/bin/env bash
# A master failover in the middle of a resume (issue 39): three masters
# elected through a real ZooKeeper, each with --resume-window, two
# workers and client-mode drivers given the three URLs.  A 3-stage job
# (test-resume.sh's: a map of 8 tasks into 4 partitions, a count of 4
# reducers into 4 partitions, an output stage of 4 part files; every task
# appends a line to RUNS/STAGE.INDEX when it starts, and the last output
# task waits for $T/go after it):
#   - its driver killed with kill -9 at about 90 % (3 part files
#     committed, the last task waiting): the leader has the application
#     RELAUNCHING, and so has each standby's journal;
#   - `hearth-submit --master URL1,URL2,URL3 --resume APP job.json` takes
#     it over; once its one task to run has started (and waits), kill -9
#     of the leader; a standby leads, the workers and the driver follow
#     it; then the task is let go.
# Checks: the resume finishes with exit 0 saying what it spared, the
# output is exact, no map or count task ran again (nor an output task
# whose part was committed), part-00000 was not written again, and the
# application is FINISHED on the new leader with driver epoch 2.
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

RUNS=$T/runs
mkdir -p "$RUNS"
J=$(job late "{\"name\": \"late\", \"stages\": [
  {\"name\": \"map\", \"partitions\": 4,
   \"tasks\": [{\"cmd\": [\"sh\", \"-c\", \"echo x >> $RUNS/map.{i}; cat $T/in/{i}.txt\"],
                \"count\": 8}]},
  {\"name\": \"count\", \"partitions\": 4,
   \"tasks\": [{\"cmd\": [\"sh\", \"-c\", \"echo x >> $RUNS/count.{i}; sort | uniq -c | while read n w; do echo \\\"\$w \$n\\\"; done\"],
                \"input\": \"map\"}]},
  {\"name\": \"out\", \"output\": \"$T/result\",
   \"tasks\": [{\"cmd\": [\"sh\", \"-c\", \"echo x >> $RUNS/out.{i}; if [ {i} = 3 ]; then n=0; while [ ! -e $T/go ] && [ \$n -lt 900 ]; do sleep 0.1; n=\$((n+1)); done; fi; sort\"],
                \"input\": \"count\"}]}]}")

# runs STAGE INDEX: how many times that task started.
runs() { cat "$RUNS/$1.$2" 2>/dev/null | wc -l; }
# each_once STAGE N: tasks 0..N-1 of the stage each started once.
each_once() {
  local i
  for ((i = 0; i < $2; i++)); do [[ $(runs "$1" $i) -eq 1 ]] || return 1; done
}
# SE: the application's state and driver epoch (MASTER_STATE's "epoch" of
# an application is being renamed driver_epoch: either)
SE='"\(.state) \(.driver_epoch // .epoch)"'
# app_on MASTER FILTER: FILTER of the application in that master's
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

# ---- the first driver, killed at about 90 % ---------------------------------
"$BIN/hearth-submit" --master "$LIST" --log-level info \
  --heartbeat-interval "${INTERVAL_MS}ms" --heartbeat-liveness "$LIVENESS" \
  "$J" >"$T/first.out" 2>"$T/first.err" &
DRV=$!
PIDS+=($DRV)
check "the three first part files are committed, the last task runs" \
  wait_for 60 bash -c "[ \$(ls $T/result 2>/dev/null | grep -c '^part-') -ge 3 ] && [ -e $RUNS/out.3 ]"
sleep 1 # the last records reach the leader, and the standbys
APP=$(sed -n 's/.*application \(app-[0-9-]*\) registered with.*/\1/p' "$T/first.err" | head -1)
check "the driver registered its application ($APP)" test -n "$APP"
inode0=$(stat -c %i "$T/result/part-00000" 2>/dev/null)
kill9 "$DRV"
check "the leader ($OLD) has it RELAUNCHING" \
  wait_for 15 eval '[[ $(app_on "$OLD" .state) == RELAUNCHING ]]'
for n in a b c; do
  [[ $n == "$OLD" ]] && continue
  check "... and so has standby $n's journal" wait_for 10 relaunching_in "$n"
done

# ---- the resume, and the leader killed under it ------------------------------
"$BIN/hearth-submit" --master "$LIST" --log-level info \
  --heartbeat-interval "${INTERVAL_MS}ms" --heartbeat-liveness "$LIVENESS" \
  --resume "$APP" "$J" >"$T/resume.out" 2>"$T/resume.err" &
RES=$!
PIDS+=($RES)
check "hearth-submit --resume runs the one task left (it waits)" \
  wait_for 30 eval '[[ $(runs out 3) -eq 2 ]]'
check "... saying what it spared" \
  grep -q "resumed $APP: 2 of 3 stages skipped, 1 of 16 tasks to run" "$T/resume.err"
wait_for 10 eval '[[ $(app_on "$OLD" "$SE") == "RUNNING 2" ]]'
v=$(app_on "$OLD" "$SE")
check "... the leader has it RUNNING under driver epoch 2 ($v)" test "$v" = "RUNNING 2"
sleep 0.5 # the standbys have the resume in their journals
stop_ha "$OLD" KILL
t_kill=$(now_ms)
check "after kill -9 of the leader $OLD, one of the others leads" \
  wait_for $((SESSION / 1000 + 15)) settled
NEW=$LEADER
E2=$(epoch "$NEW")
say "master $NEW leads, epoch $E2, $(($(now_ms) - t_kill)) ms after the kill"
check "... with a higher epoch ($E1 < $E2)" test "$E2" -gt "$E1"
MASTER_URL=${URL[$NEW]}
check "both workers registered with the new leader" \
  wait_for 20 jq_state '[.workers[] | select(.state == "ALIVE")] | length == 2'
wait_for 20 eval '[[ $(app_on "$NEW" "$SE") == "RUNNING 2" ]]'
v=$(app_on "$NEW" "$SE")
check "the resumed driver registered with it: the application RUNNING, driver epoch 2 ($v)" \
  test "$v" = "RUNNING 2"
n=$(app_on "$NEW" .outputs)
check "... and the outputs table the first driver recorded (at least 15 outputs: $n)" test "${n:-0}" -ge 15
touch "$T/go"
wait "$RES"
rc=$?
check "the resume finishes with exit 0 ($rc)" test "$rc" -eq 0
check "... the output is exact" same <(cat "$T/result"/part-* | sort) "$T/counts.ref"
check "... no map task ran again" each_once map 8
check "... no count task ran again" each_once count 4
check "... no output task whose part was committed ran again" each_once out 3
check "... part-00000 was not written again (same inode)" \
  test -n "$inode0" -a "$(stat -c %i "$T/result/part-00000")" = "$inode0"
check "... the four part files, once each" \
  test "$(ls "$T/result" | grep -c '^part-')" -eq 4 -a \
  "$(jq '.parts | length' "$T/result/_SUCCESS")" -eq 4
check "the application is FINISHED on the new leader $NEW" \
  wait_for 10 eval '[[ $(app_on "$NEW" .state) == FINISHED ]]'
if ((FAILED)); then
  say "the resumed driver's last lines:"
  tail -n 15 "$T/resume.err" | sed 's/^/  /'
fi
finish
