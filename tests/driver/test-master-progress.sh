#!/usr/bin/env bash
# A driver's progress summary reaches the master (APPLICATION_PROGRESS,
# issue 20): while a job runs, the application's `progress` in
# MASTER_STATE advances and hearth-tail --state shows its tasks
# done/total; at the end its numbers are exact (every task finished, the
# one failed attempt counted, nothing running, no active stage).  A
# summary from a connection that is not the application's driver is
# refused, and changes nothing.  A job of two stages lists the one
# waiting for its parent, then the one completed.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 120
export TMPDIR=$T

start_master || exit 1
CORES=2 start_worker w1 || exit 1

# progress NAME FILTER: FILTER on the progress of the application NAME.
progress() {
  state_json | jq -r --arg n "$1" ".apps[] | select(.name == \$n) | .progress | $2"
}
finished() { progress "$1" .tasks_finished; }
# advanced NAME: some but not all of its 8 tasks are finished.
advanced() {
  local n
  n=$(finished "$1")
  [[ $n =~ ^[0-9]+$ ]] && ((n >= 1 && n < 8))
}

# 8 tasks of about 0.7 s on 2 cores: about 3 s; task 0 fails once first.
J=$(job slow '{"name":"slow","stages":[{"name":"sleepy","tasks":[
  {"cmd":["sh","-c","if [ {i} = 0 ] && mkdir '"$T"'/failed-once 2>/dev/null; then exit 3; fi; sleep 0.7"],
   "count":8}]}]}')
submit --master "$MASTER_URL" --name prog "$J" &
SUB=$!
PIDS+=($SUB)
check "while it runs, MASTER_STATE shows its progress advancing" \
  wait_for 30 advanced prog
FIRST=$(finished prog)
check "... with its active stage, its 8 tasks and the one job" eval \
  '[[ $(progress prog "[.jobs_active, .tasks_total, .stages[0].name, .stages[0].tasks] | @tsv") == "1	8	sleepy	8" ]]'
"$BIN/hearth-tail" --master "$MASTER_URL" --state --timeout 3s >"$T/state.txt"
check "hearth-tail --state shows its tasks done/total" \
  grep -Eq '^app-[0-9-]+  tasks [0-9]/8  running' "$T/state.txt"
check "... and the stage" grep -Eq '^  job 1 stage 1 sleepy: [0-9]/8' "$T/state.txt"
more() { (($(finished prog) > FIRST)); }
check "the count goes up without anything but the driver's summaries" \
  wait_for 20 more

APP=$(state_json | jq -r '.apps[] | select(.name == "prog") | .id')
"$TBIN/test-app" --master "$MASTER_URL" --progress "$APP" >"$T/stray.out"
check "a summary from another connection is refused (not_allowed)" \
  grep -q '^PROGRESS ERROR not_allowed ' "$T/stray.out"
check "... and changes nothing (not 999 tasks)" eval \
  '[[ $(progress prog .tasks_total) == 8 ]]'

wait "$SUB"
check "the job succeeds" test $? -eq 0
check "at the end: 8/8 finished, 1 failed attempt, nothing running or active" \
  eval '[[ $(progress prog "[.tasks_total, .tasks_finished, .tasks_failed,
    .tasks_running, .jobs_active, (.stages | length)] | @tsv") == "8	8	1	0	0	0" ]]'
check "... dated by the master" eval \
  '[[ $(progress prog .time_ms) -gt $(($(now_ms) - 60000)) ]]'

# Two stages, the second after the first: while the first runs the
# second is listed waiting; while the second runs the first is listed
# completed (the application page's waiting and completed tables).
J2=$(job two '{"name":"two","stages":[
  {"name":"first","tasks":[{"cmd":["sh","-c","sleep 0.6"],"count":4}]},
  {"name":"second","after":["first"],"tasks":[{"cmd":["sh","-c","sleep 0.6"],"count":4}]}]}')
submit --master "$MASTER_URL" --name two "$J2" &
SUB=$!
PIDS+=($SUB)
check "while the first stage runs, the second is listed waiting" \
  wait_for 30 eval '[[ $(progress two "[.stages[0].name, .waiting[0].name, .waiting[0].tasks, (.completed | length)] | @tsv" 2>/dev/null) == "first	second	4	0" ]]'
check "while the second runs, the first is listed completed, 4 of 4" \
  wait_for 30 eval '[[ $(progress two "[.stages[0].name, .completed[0].name, .completed[0].finished, (.waiting | length)] | @tsv" 2>/dev/null) == "second	first	4	0" ]]'
wait "$SUB"
check "... and the job succeeds" test $? -eq 0

# local[N] has no master: nothing to send, and the job runs as before.
check "local[2] runs without a master" \
  submit --master 'local[2]' "$(job quick '{"name":"q","stages":[{"name":"s","tasks":[{"cmd":["true"],"count":3}]}]}')"
finish
