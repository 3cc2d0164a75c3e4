#!/usr/bin/env bash
# hearth-history over logs written by real drivers (docs/history.md):
# - local[2]: a job with a retried task and a job whose stage fails, in one
#   directory: the listing (states, tasks, newest first, --state, --name,
#   --since, --json, the index written and reused) and each summary
#   (failures with their last error, stages, jobs);
# - local-cluster[2,1,512] with a speculated straggler: its copy counted,
#   two executors;
# - local[2] with an executor killed by kill -9: its exit reason and lost
#   tasks in the summary;
# - a long job: RUNNING while its driver lives, FAILED ("the log ended
#   without app_end") after kill -9 of the driver; the summary of the cut
#   log reads;
# - a log rolled at 2K: one application, every task counted.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 240
export TMPDIR=$T
H=$BIN/hearth-history
LC='local-cluster[2,1,512]'

# hist ARGS...: hearth-history, stdout to $T/hout, stderr to $T/herr
hist() { "$H" "$@" >"$T/hout" 2>"$T/herr"; }
# js JQ: a value of the last --json output
js() { jq -r "$1" "$T/hout"; }
idof() { basename "$(ls "$1"/*.events | head -1)" .events; }

# --- a retried task, a failed stage ---------------------------------------
M=$T/retry.att
J=$(job retry "{\"name\":\"retry\",\"stages\":[
  {\"name\":\"s\",\"tasks\":[{\"cmd\":[\"sh\",\"-c\",
    \"echo x >>$M.{i}; if [ {i} = 2 ] && [ \$(wc -l <$M.{i}) = 1 ]; then echo first try >&2; exit 3; fi; echo {i}\"],
    \"count\":6}]},
  {\"name\":\"t\",\"tasks\":[{\"cmd\":[\"cat\"],\"input\":\"s\"}]}]}")
check "a job with a retried task succeeds (local[2], --event-log)" \
  submit --master 'local[2]' --event-log "$T/ev" "$J"
RETRY=$(idof "$T/ev")
sleep 1.1 # a later start, to the second
J=$(job fail "{\"name\":\"fail\",\"stages\":[
  {\"name\":\"ok\",\"tasks\":[{\"cmd\":[\"echo\",\"fine\"]}]},
  {\"name\":\"bad\",\"tasks\":[{\"cmd\":[\"sh\",\"-c\",\"cat >/dev/null; echo boom >&2; exit 7\"],\"input\":\"ok\"}]}]}")
submit --master 'local[2]' --max-failures 2 --event-log "$T/ev" "$J"
check "a job whose stage fails fails" test $? -eq 1
FAIL=$(ls "$T"/ev/*.events | xargs -n1 basename | sed 's/\.events$//' | grep -vx "$RETRY")

check "the listing exits 0" hist --dir "$T/ev"
check "... a header and two rows, newest (the failed one) first" \
  test "$(awk 'NR > 1 { print $1 }' "$T/hout" | tr '\n' ' ')" = "$FAIL $RETRY "
check "... the failed one FAILED with its reason" \
  grep -qE "^$FAIL +fail +[^ ]+ +FAILED .*job fail failed" "$T/hout"
check "... the retried one FINISHED, 7 tasks succeeded, 1 failed attempt" \
  grep -qE "^$RETRY +retry +[^ ]+ +FINISHED .* 2 +7 +1 its driver finished" "$T/hout"
check "... the index written" test -s "$T/ev/.hearth-history/index"
cp "$T/hout" "$T/first"
check "... and a second listing, from the index, the same" hist --dir "$T/ev"
check "... (the same text)" same "$T/first" "$T/hout"
check "--state FAILED: only the failed one" hist --dir "$T/ev" --state FAILED
check "... one row" test "$(tail -n +2 "$T/hout" | awk '{ print $1 }')" = "$FAIL"
check "--state finished,killed (a comma list, any case)" hist --dir "$T/ev" --state finished,killed
check "... one row" test "$(tail -n +2 "$T/hout" | awk '{ print $1 }')" = "$RETRY"
check "--name 're*'" hist --dir "$T/ev" --name 're*'
check "... one row" test "$(tail -n +2 "$T/hout" | awk '{ print $1 }')" = "$RETRY"
check "--since 1h: both" hist --dir "$T/ev" --since 1h
check "... two rows" test "$(tail -n +2 "$T/hout" | wc -l)" -eq 2
check "--since a date to come: none" hist --dir "$T/ev" --since 2099-01-01
check "... no row" test "$(tail -n +2 "$T/hout" | wc -l)" -eq 0
check "--json" hist --dir "$T/ev" --json
check "... its applications: state, tasks, cores" \
  test "$(js '[.applications[] | [.id, .state, .tasks_succeeded, .tasks_failed, .cores] | map(tostring) | join(" ")] | join(",")')" \
  = "$FAIL FAILED 1 2 2,$RETRY FINISHED 7 1 2"

check "the retried application's summary" hist --dir "$T/ev" "$RETRY"
check "... its failure: stage 1 task 2, 1 attempt, then succeeded, the error" \
  grep -qE '^  1 +2 +1 +0 +0 +succeeded +sh exited with status 3: first try' "$T/hout"
check "... its two stages SUCCEEDED" \
  test "$(grep -cE '^  [12] +1 +[st] +SUCCEEDED' "$T/hout")" -eq 2
check "... as JSON" hist --dir "$T/ev" "$RETRY" --json
check "... 7 succeeded, 8 attempts, percentiles of 7 runs" \
  test "$(js '[.tasks.succeeded, .tasks.attempts_started, .tasks.run.count, (.tasks.run.p50_us <= .tasks.run.p95_us and .tasks.run.p95_us <= .tasks.run.max_us)] | map(tostring) | join(" ")')" = "7 8 7 true"
check "... the slowest attempts, slowest first, at most 10" \
  test "$(js '[.slowest[].run_us] | (. == (sort | reverse)) and length == 8')" = true
check "... core-seconds used ≤ reserved, from the log's figures" \
  test "$(js '.accounting | (.core_ms_used <= .core_ms_reserved) and .core_ratio > 0')" = true
# the totals the driver writes in app_end (web-wire §5) agree with the
# counts made from the events
totals() { jq -r 'select(.event == "app_end") | [.tasks_succeeded, .tasks_failed] | map(tostring) | join(" ")' "$1"; }
check "... its counts those of the log's app_end" \
  test "$(js '[.tasks.succeeded, .tasks.failed_attempts] | map(tostring) | join(" ")')" = "$(totals "$T/ev/$RETRY.events")"
check "... core-seconds from app_end, the driver's host from app_start" \
  test "$(js '[.accounting.core_ms_reserved_from, .accounting.core_ms_used_from, .host] | join(" ")')" = "app_end app_end $(hostname)"
check "the failed application's summary (JSON)" hist --dir "$T/ev" "$FAIL" --json
check "... its counts those of the log's app_end" \
  test "$(js '[.tasks.succeeded, .tasks.failed_attempts] | map(tostring) | join(" ")')" = "$(totals "$T/ev/$FAIL.events")"
check "... task 0 of stage 2 failed twice, gave up, with boom" \
  test "$(js '.failures[] | [.stage, .index, .failed_attempts, .result, (.last_error | test("boom"))] | map(tostring) | join(" ")')" = "2 0 2 gave_up true"
check "... stage bad FAILED, job FAILED" \
  test "$(js '[(.stages[] | select(.name == "bad") | .state), .jobs[0].state] | join(" ")')" = "FAILED FAILED"

# --- a speculated straggler -----------------------------------------------
M=$T/spec.att
J=$(job spec "{\"name\":\"spec\",\"stages\":[
  {\"name\":\"s\",\"tasks\":[{\"cmd\":[\"sh\",\"-c\",
    \"echo x >>$M.{i}; if [ {i} = 5 ] && [ \$(wc -l <$M.{i}) = 1 ]; then sleep 5; fi; sleep 0.2; echo {i}\"],
    \"count\":12}]}]}")
check "a job with a straggler succeeds with speculation on $LC" \
  submit --master "$LC" --speculation --event-log "$T/ev3" "$J"
check "... its summary" hist --dir "$T/ev3" "$(idof "$T/ev3")" --json
check "... a speculative copy counted, 12 accepted" \
  test "$(js '.stages[0] | [(.speculative >= 1), .accepted] | map(tostring) | join(" ")')" = "true 12"
check "... two executors with their hosts and cores" \
  test "$(js '[.executors[] | select(.host != null and .cores == 1)] | length')" -eq 2
check "... the most cores at once: 2" test "$(js .cores)" -eq 2
check "... each executor's worker and memory (512 MiB) from the log" \
  test "$(js '[.executors[] | select(.worker != null and .memory_mb == 512)] | length')" -eq 2
check "... the memory accounting over the executors with a peak" \
  test "$(js '.accounting | (.memory_executors_known == 0 and .memory_ratio == null) or (.memory_mb_reserved == 512 * .memory_executors_known and .memory_ratio > 0)')" = true

# --- a killed executor ----------------------------------------------------
J=$(job slow '{"name":"slow","stages":[{"name":"s","tasks":[{"cmd":["sh","-c","sleep 0.02; echo {i}"],"count":300}]}]}')
submit --master 'local[2]' --event-log "$T/ev4" "$J" &
job=$!
PIDS+=($job)
# killed once some tasks have ended (the log says so), not at a guess
some_ended() { [ "$(cat "$T"/ev4/*.events 2>/dev/null | grep -c '"task_end"')" -ge 20 ]; }
check "(the job is under way: 20 tasks ended)" wait_for 60 some_ended
EX=$(test_pids hearth-executor | head -1)
check "(its executor found, and killed)" kill -9 "${EX:-none}"
wait $job
check "a job whose executor is killed still succeeds" test $? -eq 0
check "... its summary" hist --dir "$T/ev4" "$(idof "$T/ev4")" --json
say "executors: $(js '[.executors[] | [.executor, .reason, .tasks_lost] | map(tostring) | join(" ")] | join("; ")')"
check "... two executors, the first removed for another reason than the end" \
  test "$(js '[.executors | length >= 2, (.[0].reason != "the application is over")] | map(tostring) | join(" ")')" = "true true"
check "... with its lost tasks" test "$(js '.executors[0].tasks_lost')" -ge 1
check "... each ended LOST in the stage's counts and the failures" \
  test "$(js '[.stages[0].lost == .executors[0].tasks_lost, ([.failures[] | select(.result == "succeeded")] | length) >= .executors[0].tasks_lost] | map(tostring) | join(" ")')" = "true true"
check "... 300 tasks succeeded" test "$(js .tasks.succeeded)" -eq 300

# --- a driver killed ------------------------------------------------------
J=$(job long "{\"name\":\"long\",\"stages\":[{\"name\":\"s\",\"tasks\":[{\"cmd\":[\"sh\",\"-c\",\"sleep 0.05; echo {i}\"],\"count\":100000}]}]}")
submit --master 'local[2]' --event-log "$T/ev5" "$J" &
PIDS+=($!)
ended() { L=$(ls "$T"/ev5/*.events 2>/dev/null | head -1); [ -n "$L" ] && [ "$(grep -c task_end "$L")" -ge 20 ]; }
check "a long job's log fills while it runs" wait_for 30 ended
ID=$(idof "$T/ev5")
check "... listed RUNNING while its driver lives" hist --dir "$T/ev5" --state RUNNING
check "... (one row)" test "$(tail -n +2 "$T/hout" | awk '{ print $1 }')" = "$ID"
check "... its summary reads while it runs" hist --dir "$T/ev5" "$ID" --json
check "... RUNNING, no end, tasks counted" \
  test "$(js '[.state, .ended, (.tasks.succeeded >= 20)] | map(tostring) | join(" ")')" = "RUNNING false true"
DPID=$(test_pids hearth-submit)
check "... its driver found" test -n "$DPID"
kill -9 $DPID
wait_for 10 no_leftovers
check "after kill -9 of the driver: listed" hist --dir "$T/ev5"
check "... FAILED, the log ended without app_end, naming the pid" \
  grep -qE "^$ID .* FAILED .*the log ended without app_end \(driver pid $DPID is gone\)" "$T/hout"
check "... --state FAILED lists it" hist --dir "$T/ev5" --state FAILED
check "... (one row)" test "$(tail -n +2 "$T/hout" | wc -l)" -eq 1
check "... its summary reads the cut log" hist --dir "$T/ev5" "$ID" --json
check "... FAILED, not ended" test "$(js '[.state, .ended] | map(tostring) | join(" ")')" = "FAILED false"

# --- rolled files ---------------------------------------------------------
J=$(job roll '{"name":"roll","stages":[{"name":"s","tasks":[{"cmd":["echo","{i}"],"count":60}]}]}')
check "a job with --event-log-roll 2K succeeds" \
  submit --master 'local[2]' --event-log "$T/ev6" --event-log-roll 2K "$J"
say "rolled into $(ls "$T"/ev6/*.events* | wc -l) files"
check "... several files" test "$(ls "$T"/ev6/*.events* | wc -l)" -ge 4
check "... listed as one application, 60 tasks" hist --dir "$T/ev6" --json
check "... (one, FINISHED, 60)" \
  test "$(js '[.applications | length, .[0].state, .[0].tasks_succeeded, (.[0].files > 3)] | map(tostring) | join(" ")')" = "1 FINISHED 60 true"
check "... its summary counts 60 from all the files" hist --dir "$T/ev6" "$(idof "$T/ev6")" --json
check "... (60 succeeded, 60 started)" \
  test "$(js '[.tasks.succeeded, .tasks.attempts_started] | map(tostring) | join(" ")')" = "60 60"
check "nothing is left running" wait_for 10 no_leftovers
finish
