#!/usr/bin/env bash
# The outputs a driver records while its master is dead and it does not
# know it yet reach the master it registers with again (issue 39; found
# while writing test-resume-chaos, which met it: seed 3919, run 4).
#
# A master with a journal and --resume-window, two workers of 4 cores, a
# client-mode 3-stage job (test-resume.sh's) whose 4 last map tasks (of
# 8, 4 at a time) wait for $T/go-map and whose count tasks wait for
# $T/go-count.  With those map tasks running (the 4 first done and
# recorded), the master is killed (kill -9) and the map tasks let go:
# they end, and the driver tells their outputs (OUTPUTS_RECORDED) to a
# master that is dead, on a link it still holds for up; the master is
# started again on its journal and port at once; the driver registers
# again and the count starts.  Then the driver is killed and its
# application resumed: the map's outputs are all held on the live workers,
# so no map task may run again.
#
# Before the fix they all ran again: the driver took its records off its
# queue as it sent them, so those sent into the dead link were gone,
# whether they died with the connection or reached the restarted master
# by the DEALER's reconnection before the driver registered again (the
# master refuses an OUTPUTS_RECORDED that does not come from the
# application's link).  Now the driver tells every output of its running
# stages again once it has registered again (libhearth/record.h).
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 120
export TMPDIR=$T LC_ALL=C

JOURNAL=$T/journal
start_master --journal "$JOURNAL" --resume-window 60s || exit 1
CORES=4 start_worker w1 || exit 1
CORES=4 start_worker w2 || exit 1
word_files 8 2000 200 11

RUNS=$T/runs
mkdir -p "$RUNS"
# gate NAME: a shell loop waiting for $T/NAME (at most 60 s)
gate() { echo "n=0; while [ ! -e $T/$1 ] && [ \$n -lt 600 ]; do sleep 0.1; n=\$((n+1)); done"; }
J=$(job gone "{\"name\": \"gone\", \"stages\": [
  {\"name\": \"map\", \"partitions\": 4,
   \"tasks\": [{\"cmd\": [\"sh\", \"-c\", \"echo x >> $RUNS/map.{i}; if [ {i} -ge 4 ]; then $(gate go-map); fi; cat $T/in/{i}.txt\"],
                \"count\": 8}]},
  {\"name\": \"count\", \"partitions\": 4,
   \"tasks\": [{\"cmd\": [\"sh\", \"-c\", \"echo x >> $RUNS/count.{i}; $(gate go-count); sort | uniq -c | while read n w; do echo \\\"\$w \$n\\\"; done\"],
                \"input\": \"map\"}]},
  {\"name\": \"out\", \"output\": \"$T/result\",
   \"tasks\": [{\"cmd\": [\"sh\", \"-c\", \"echo x >> $RUNS/out.{i}; sort\"],
                \"input\": \"count\"}]}]}")
runs() { cat "$RUNS/$1.$2" 2>/dev/null | wc -l; }
each_once() {
  local i
  for ((i = 0; i < $2; i++)); do [[ $(runs "$1" $i) -eq 1 ]] || return 1; done
}
app_state() {
  state_json | jq -r --arg id "$APP" '[.apps[]? | select(.id == $id) | .state][0]'
}

"$BIN/hearth-submit" --master "$MASTER_URL" --log-level info \
  --heartbeat-interval "${INTERVAL_MS}ms" --heartbeat-liveness "$LIVENESS" \
  "$J" >"$T/first.out" 2>"$T/first.err" &
DRV=$!
PIDS+=($DRV)
check "the 4 first map tasks are done, the 4 last run (and wait)" \
  wait_for 30 eval '[[ $(cat $RUNS/map.* 2>/dev/null | wc -l) -eq 8 ]]'
APP=$(sed -n 's/.*application \(app-[0-9-]*\) registered with.*/\1/p' "$T/first.err" | head -1)
check "the driver registered its application ($APP)" test -n "$APP"

kill9 "$MASTER_PID"
touch "$T/go-map"
check "with the master dead, the map ends: the count starts" \
  wait_for 30 eval '[[ $(cat $RUNS/count.* 2>/dev/null | wc -l) -ge 1 ]]'
PORT=$MASTER_PORT start_master --journal "$JOURNAL" --resume-window 60s || exit 1
check "the driver registers again with the master started again" \
  wait_for 20 grep -Eq "application $APP (re-registered|registered again) with" "$T/first.err"
sleep 1 # a few ticks: anything still waiting reaches the master
kill9 "$DRV"
check "the driver killed, its application is RELAUNCHING" \
  wait_for 15 eval '[[ $(app_state) == RELAUNCHING ]]'
n=$(state_json | jq -r --arg id "$APP" '[.apps[]? | select(.id == $id) | .outputs][0] // 0')
say "the master holds $n outputs of the application (the map left 8)"
check "... the master holds the map's 8 outputs ($n)" test "$n" -ge 8

touch "$T/go-count"
submit --master "$MASTER_URL" --resume "$APP" "$J"
check "hearth-submit --resume finishes the job" test $? -eq 0
check "... the output is exact" \
  same <(cat "$T/result"/part-* | sort) "$T/counts.ref"
check "... no map task ran again (their outputs are held: $(cat $RUNS/map.* | wc -l) runs of 8)" \
  each_once map 8
finish
