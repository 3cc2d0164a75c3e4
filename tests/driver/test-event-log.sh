#!/usr/bin/env bash
# The application event log (--event-log DIR, docs/event-log.md), with real
# hearth-submit runs in local[2] and local-cluster[2,1,512]:
# - a job with a task retried (its first attempt fails, a marker file says
#   so), a stage that fails, and a straggler speculated: every kind of
#   event, counts that match the runs (task_end lines = attempts);
# - HEARTH_EVENT_LOG_DIR works as the setting does;
# - rolling at a small size keeps every event, in whole lines, across the
#   files;
# - a driver killed with SIGKILL leaves a log whose whole lines all parse;
# - a symbolic link left at the log's name in a shared DIR (the id is easy
#   to guess: local mode's is the second and the driver's pid) is never
#   written through: the start is refused, saying so; one at a rolled
#   file's name stops the log there; the file each names is untouched.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 200
export TMPDIR=$T
LC='local-cluster[2,1,512]'

# the one log file of DIR (none rolled); events LOG KIND: how many
log_of() { ls "$1"/*.events 2>/dev/null | head -1; }
events() { jq -c "select(.event == \"$2\")" "$1" | wc -l; }
# field LOG KIND JQ: the values of JQ in events of KIND, one a line; a
# task_end's state, outcome and result_bytes read with format 2's
# defaults (docs/event-log.md), as any reader must
field() {
  jq -r "select(.event == \"$2\") | if .event == \"task_end\" then
           {state: \"FINISHED\", outcome: \"accepted\", result_bytes: 0} + .
         else . end | $3" "$1"
}
parses() { jq -e . "$@" >/dev/null; }

# --- retries and a failed stage, local[2] ---------------------------------
N=6
M=$T/retry.att
J=$(job retry "{\"name\":\"retry\",\"stages\":[
  {\"name\":\"s\",\"tasks\":[{\"cmd\":[\"sh\",\"-c\",
    \"echo x >>$M.{i}; if [ {i} = 2 ] && [ \$(wc -l <$M.{i}) = 1 ]; then echo first try >&2; exit 3; fi; echo {i}\"],
    \"count\":$N}]},
  {\"name\":\"t\",\"tasks\":[{\"cmd\":[\"cat\"],\"input\":\"s\"}]}]}")
check "a job with a retried task succeeds, with --event-log" \
  submit --master 'local[2]' --event-log "$T/ev1" "$J"
L=$(log_of "$T/ev1")
check "... writing DIR/APP_ID.events" test -s "$L"
check "... every line of it JSON" parses "$L"
check "... the first line log_start, format 2, with the settings" \
  test "$(head -1 "$L" | jq -r '[.event, .format, .name, .settings["event-log"], (.user|length>0), (.app_id|length>0)] | join(" ")')" \
  = "log_start 2 retry $T/ev1 true true"
check "... the file named by the app_id" test "$(basename "$L")" = "$(head -1 "$L" | jq -r .app_id).events"
check "... every event with a time_ms" test "$(jq -c 'select(.time_ms|type != "number")' "$L" | wc -l)" -eq 0
check "... one app_start, one app_end FINISHED, last" \
  test "$(events "$L" app_start) $(tail -1 "$L" | jq -r '.event + " " + .state')" = "1 app_end FINISHED"
check "... one job_start, one job_end SUCCEEDED" \
  test "$(events "$L" job_start) $(field "$L" job_end .state)" = "1 SUCCEEDED"
check "... two stages started and ended SUCCEEDED" \
  test "$(events "$L" stage_start) $(field "$L" stage_end .state | sort -u)" = "2 SUCCEEDED"
att=$(cat "$M".* | wc -l)
check "... task_start lines = attempts ($((N + 2)))" test "$(events "$L" task_start)" -eq $((N + 2))
check "... task_end lines = attempts too ($att of stage s, 1 of t)" \
  test "$(events "$L" task_end)" -eq $((att + 1))
check "... the failed first attempt of task 2: state, error, retried" \
  test "$(field "$L" task_end 'select(.state == "FAILED") | [.index, .attempt, .outcome, (.error|test("first try"))] | map(tostring) | join(" ")')" = "2 0 retried true"
check "... its second attempt accepted" \
  test "$(field "$L" task_end 'select(.index == 2 and .attempt == 1 and .stage == 1) | .outcome')" = accepted
check "... format 2: accepted task_end lines leave out state, outcome and error" \
  test "$(jq -c 'select(.event == "task_end" and .error == null) | [has("state"), has("outcome"), has("error")]' "$L" | sort -u | tr -d '\n')" \
  = '[false,false,false]'
check "... and task_start lines a false speculative" \
  test "$(jq -c 'select(.event == "task_start") | has("speculative")' "$L" | sort -u)" = false
check "... results' bytes and run times" \
  test "$(field "$L" task_end 'select(.outcome == "accepted" and (.result_bytes < 1 or .run_us < 1))' | wc -l)" -eq 0
check "... executors added and removed with a reason" \
  test "$(events "$L" executor_added) $(field "$L" executor_removed .reason)" = "1 the application is over"
check "... executor_removed with its cores, lifetime and peak memory (the executor's own report)" \
  test "$(field "$L" executor_removed '[.cores, (.lifetime_ms >= 0), (.peak_rss_bytes > 1048576)] | map(tostring) | join(" ")')" = "2 true true"
check "... app_start names the driver's host" \
  test "$(field "$L" app_start .host)" = "$(hostname)"
check "... app_end's totals: $((N + 1)) succeeded, 1 failed, 1 executor" \
  test "$(field "$L" app_end '[.tasks_succeeded, .tasks_failed, .executors] | map(tostring) | join(" ")')" = "$((N + 1)) 1 1"
check "... core time reserved >= used > 0, duration > 0" \
  test "$(field "$L" app_end '.core_ms_reserved >= .core_ms_used and .core_ms_used > 0 and .duration_ms > 0')" = true
check "... used: the attempts' run times summed" \
  test "$(jq -s '([.[] | select(.event == "task_end") | .run_us] | add / 1000 | floor) as $u | (.[-1].core_ms_used - $u | fabs) <= 1' "$L")" = true

J=$(job fail "{\"name\":\"fail\",\"stages\":[
  {\"name\":\"ok\",\"tasks\":[{\"cmd\":[\"echo\",\"fine\"]}]},
  {\"name\":\"bad\",\"tasks\":[{\"cmd\":[\"sh\",\"-c\",\"cat >/dev/null; echo boom >&2; exit 7\"],\"input\":\"ok\"}]}]}")
HEARTH_EVENT_LOG_DIR=$T/ev2 submit --master 'local[2]' --max-failures 2 "$J"
check "a job whose stage fails fails (HEARTH_EVENT_LOG_DIR set)" test $? -eq 1
L=$(log_of "$T/ev2")
check "... and logs to HEARTH_EVENT_LOG_DIR" test -s "$L"
check "... stage ok SUCCEEDED, stage bad FAILED" \
  test "$(field "$L" stage_end '.name + "=" + .state' | tr '\n' ' ')" = "ok=SUCCEEDED bad=FAILED "
check "... 2 failed attempts, the last gave up" \
  test "$(field "$L" task_end 'select(.stage == 2) | .outcome' | tr '\n' ' ')" = "retried gave_up "
check "... job_end FAILED with the task's error" \
  test "$(field "$L" job_end '[.state, (.error|test("stage bad, task 0 failed 2 times"))] | map(tostring) | join(" ")')" = "FAILED true"
check "... app_end FAILED with its reason" \
  test "$(field "$L" app_end '[.state, (.reason|test("job fail failed"))] | map(tostring) | join(" ")')" = "FAILED true"

# --- a speculated straggler, local-cluster -------------------------------
M=$T/spec.att
J=$(job spec "{\"name\":\"spec\",\"stages\":[
  {\"name\":\"s\",\"tasks\":[{\"cmd\":[\"sh\",\"-c\",
    \"echo x >>$M.{i}; if [ {i} = 5 ] && [ \$(wc -l <$M.{i}) = 1 ]; then sleep 5; fi; sleep 0.2; echo {i}\"],
    \"count\":12}]},
  {\"name\":\"t\",\"tasks\":[{\"cmd\":[\"sh\",\"-c\",\"sleep 0.5; cat\"],\"input\":\"s\"}]}]}")
check "a job with a straggler succeeds with speculation on $LC" \
  submit --master "$LC" --speculation --event-log "$T/ev3" "$J"
L=$(log_of "$T/ev3")
# (under load another task may straggle and be copied too)
check "... a speculative task_start of task 5" \
  grep -qx 5 <(field "$L" task_start 'select(.speculative) | .index')
check "... every speculative start a later attempt" \
  test "$(field "$L" task_start 'select(.speculative and .attempt < 1)' | wc -l)" -eq 0
check "... two executors added (two workers)" test "$(events "$L" executor_added)" -eq 2
check "... task 5's two attempts on different executors" \
  test "$(field "$L" task_start 'select(.stage == 1 and .index == 5) | .executor' | sort -u | wc -l)" -eq 2
check "... one accepted result per task of stage s" \
  test "$(field "$L" task_end 'select(.stage == 1 and .outcome == "accepted") | .index' | sort -u | wc -l)" -eq 12
check "... and the straggler's end: killed, or a duplicate" \
  test "$(field "$L" task_end 'select(.stage == 1 and .index == 5 and .outcome != "accepted") | .outcome' | grep -cE 'released|duplicate|retried')" -eq 1

# --- an executor killed under its tasks, local-cluster ----------------------
# Task 1's first attempt kills its executor (its shell's parent) while the
# executor's other task runs: both attempts are lost with it.
M=$T/lost.att
J=$(job lost "{\"name\":\"lost\",\"stages\":[
  {\"name\":\"s\",\"tasks\":[{\"cmd\":[\"sh\",\"-c\",
    \"echo x >>$M.{i}; if [ {i} = 1 ] && [ \$(wc -l <$M.{i}) = 1 ]; then sleep 0.5; kill -9 \$PPID; fi; sleep 1; echo {i}\"],
    \"count\":4}]}]}")
check "a job whose executor is killed under its tasks succeeds on local-cluster[2,2,512]" \
  submit --master 'local-cluster[2,2,512]' --event-log "$T/ev6" "$J"
L=$(log_of "$T/ev6")
check "... its output exact" test "$(sort "$T/out" | tr '\n' ' ')" = "0 1 2 3 "
lost=$(jq -s '[.[] | select(.event == "executor_removed" and .tasks_lost > 0) | .tasks_lost] | add // 0' "$L")
say "attempts lost with the killed executor: $lost"
check "... the killed executor took attempts along (executor_removed)" test "$lost" -ge 1
check "... each of them has a task_end LOST, retried, naming why" \
  test "$(field "$L" task_end 'select(.state == "LOST" and .outcome == "retried" and (.error|test("executor [0-9]+ lost")))' | jq -s length)" -eq "$lost"
check "... task 1's lost attempt is one of them" \
  test "$(field "$L" task_end 'select(.state == "LOST" and .index == 1 and .attempt == 0) | .outcome')" = retried
check "... executor_added with the worker's id and memory" \
  test "$(field "$L" executor_added 'select((.worker|startswith("worker-")) and .memory_mb > 0)' | jq -s length)" -ge 2
check "... every task_start has its task_end" \
  test "$(events "$L" task_start)" -eq "$(events "$L" task_end)"
check "... the executors that ended with the application have a peak memory" \
  test "$(field "$L" executor_removed 'select(.reason == "the application is over" and (.peak_rss_bytes|type) != "number")' | wc -l)" -eq 0

# --- rolling --------------------------------------------------------------
N=60
J=$(job roll "{\"name\":\"roll\",\"stages\":[{\"name\":\"s\",\"tasks\":[{\"cmd\":[\"echo\",\"{i}\"],\"count\":$N}]}]}")
check "a job with --event-log-roll 2K succeeds" \
  submit --master 'local[2]' --event-log "$T/ev4" --event-log-roll 2K "$J"
files=$(ls "$T"/ev4/*.events* | sort -V)
nfiles=$(echo "$files" | wc -l)
say "rolled into $nfiles files"
check "... into several files (.events, .events.1 ...)" test "$nfiles" -ge 4
check "... the first one .events, the others numbered from 1" \
  test "$(echo "$files" | sed 's/.*\.events//' | tr '\n' ' ')" = "$(seq 1 $((nfiles - 1)) | sed 's/^/./' | tr '\n' ' ' | sed 's/^/ /')"
big=0
for f in $files; do [ "$(stat -c %s "$f")" -le 2048 ] || big=1; done
check "... none over 2 KiB" test $big -eq 0
cat $files >"$T/all4"
check "... each a set of whole lines" parses $files
check "... log_start first, app_end last" \
  test "$(head -1 "$T/all4" | jq -r .event) $(tail -1 "$T/all4" | jq -r .event)" = "log_start app_end"
check "... every task's start and end kept ($N each)" \
  test "$(events "$T/all4" task_start) $(events "$T/all4" task_end)" = "$N $N"

# --- a killed driver ------------------------------------------------------
J=$(job long "{\"name\":\"long\",\"stages\":[{\"name\":\"s\",\"tasks\":[{\"cmd\":[\"sh\",\"-c\",\"sleep 0.05; echo {i}\"],\"count\":100000}]}]}")
submit --master 'local[2]' --event-log "$T/ev5" "$J" &
PIDS+=($!)
ended() { L=$(log_of "$T/ev5"); [ -n "$L" ] && [ "$(grep -c task_end "$L")" -ge 20 ]; }
check "a long job's log fills while it runs" wait_for 30 ended
DPID=$(test_pids hearth-submit)
check "... its driver runs" test -n "$DPID"
kill -9 $DPID
wait_for 10 no_leftovers
L=$(log_of "$T/ev5")
# the whole lines: all but a last one cut
if [ -n "$(tail -c 1 "$L")" ]; then head -n -1 "$L" >"$T/whole5"; else cp "$L" "$T/whole5"; fi
say "killed driver: $(wc -l <"$T/whole5") whole lines, last byte $(tail -c 1 "$L" | od -An -c)"
check "after kill -9, every whole line parses" parses "$T/whole5"
check "... from log_start on, with no app_end" \
  test "$(head -1 "$T/whole5" | jq -r .event) $(events "$T/whole5" app_end)" = "log_start 0"
check "nothing is left running" wait_for 10 no_leftovers

# --- links left at the log's names in a shared directory -------------------
# plant SUFFIX ARGS...: a shell links DIR/app-SECOND-PID.SUFFIX to $T/victim
# for each second of the next minute under its own pid (local mode's app
# id), then execs hearth-submit ARGS (same pid); its exit status in $rc.
mkdir -p "$T/shared" && chmod 1777 "$T/shared"
printf 'precious\n' >"$T/victim" && chmod 600 "$T/victim"
plant() {
  sh -c 'suffix=$1 victim=$2 dir=$3; shift 3
    pid=$(printf %04d $$) now=$(date +%s)
    for s in $(seq 0 60); do
      ln -s "$victim" "$dir/app-$(date -u -d "@$((now + s))" +%Y%m%d%H%M%S)-$pid.$suffix"
    done
    exec "$@"' sh "$1" "$T/victim" "$T/shared" "$BIN/hearth-submit" "${@:2}" \
    >"$T/planted.out" 2>"$T/planted.err"
  rc=$?
  find "$T/shared" -type l -delete
}
J=$(job planted '{"name":"planted","stages":[{"name":"s","tasks":[{"cmd":["echo","{i}"],"count":4}]}]}')
plant events --master 'local[2]' --event-log "$T/shared" "$J"
check "a link at the log's name: the application does not start (exit $rc)" test "$rc" -ne 0
check "... saying why, naming the file" \
  grep -q "cannot create the event log $T/shared/app-.*\.events: something of that name is there already" "$T/planted.err"
check "... the file the link names untouched" test "$(cat "$T/victim")" = precious
check "... and no log written elsewhere" test -z "$(ls "$T/shared")"
plant events.1 --master 'local[2]' --event-log "$T/shared" --event-log-roll 600 "$J"
check "a link at a rolled file's name: the job still runs (exit $rc)" test "$rc" -eq 0
check "... the log stops there, saying so" grep -q "event log .*: cannot create its next file app-.*\.events\.1: something of that name" "$T/planted.err"
check "... the file the link names untouched" test "$(cat "$T/victim")" = precious
check "... the first file whole lines" parses "$T"/shared/app-*.events
check "nothing is left running" wait_for 10 no_leftovers
finish
