#!/usr/bin/env bash
# Job files of several jobs ("jobs", docs/jobs.md "Several jobs,
# iterations") on real processes: a 2-job file with a repeated job runs
# its jobs in order in ONE application (one registration, one set of
# executors) in local[2], local-cluster and cluster deploy mode, printing
# each job's results in turn, exactly; each iteration's output depends on
# {iter}, and the event log counts each job's task starts; a job that
# fails stops the file there, naming it, and the later ones never start.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 240
export TMPDIR=$T

# prep: 3 command tasks; step (x3): a map of 2 function tasks (stored
# simple tasks, {iter} in their argument) and a reduce of one command
# task reading it; the file's env under the job's.
J=$(job iterate '{"name": "iterate", "lib": "libtesttasks.so",
 "params": {"greet": "hi"}, "env": {"WHO": "file", "WHERE": "file"},
 "jobs": [
  {"name": "prep", "stages": [{"name": "gen", "tasks": [
     {"cmd": ["sh", "-c", "echo prep-{i} $WHO $WHERE"], "count": 3}]}]},
  {"name": "step", "repeat": 3, "env": {"WHERE": "step{iter}"}, "stages": [
     {"name": "map", "tasks": [{"fn": "echo", "arg": "{greet}-{iter}-{i}"},
                               {"fn": "echo", "arg": "{greet}-{iter}-1"}]},
     {"name": "sum", "tasks": [{"cmd": ["sh", "-c",
        "sort | tr \"\\n\" \" \"; echo $WHO $WHERE {{iter} {iter}"],
        "input": "map"}]}]}]}')
expected() {
  printf 'prep-%d file file\n' 0 1 2
  for it in 0 1 2; do
    echo "$1-$it-0 $1-$it-1 file step$it {iter} $it"
  done
}

# task_starts LOG: "JOB-NAME COUNT" per job of the event log, job order.
task_starts() {
  jq -rs '(map(select(.event == "stage_start") | {key: (.stage | tostring), value: .job}) | from_entries) as $job
    | (map(select(.event == "job_start") | {key: (.job | tostring), value: .name}) | from_entries) as $name
    | map(select(.event == "task_start") | $job[.stage | tostring])
    | group_by(.) | map("\($name[.[0] | tostring]) \(length)") | .[]' "$1"
}
printf '%s\n' 'prep 3' 'step[0] 3' 'step[1] 3' 'step[2] 3' >"$T/starts.ref"

# --- local[2] ------------------------------------------------------------
check "a file of 2 jobs, one repeated 3 times, runs in local[2]" \
  submit --master 'local[2]' --lib "$TASKS_LIB" --event-log "$T/ev1" "$J"
expected hi >"$T/expected"
check "... printing each job's results in turn, each iteration's its own" \
  same "$T/out" "$T/expected"
L=$(ls "$T"/ev1/*.events | head -1)
check "... in one application (one log, one app_start, one app_end FINISHED)" \
  test "$(ls "$T"/ev1/*.events | wc -l) $(jq -s '[.[] | select(.event == "app_start")] | length' "$L") $(jq -r 'select(.event == "app_end") | .state' "$L")" = "1 1 FINISHED"
check "... its jobs started in order: prep, step[0], step[1], step[2]" \
  test "$(jq -r 'select(.event == "job_start") | .name' "$L" | paste -sd ' ')" = "prep step[0] step[1] step[2]"
task_starts "$L" >"$T/starts"
check "... each job's tasks started exactly once each (3 per job)" \
  same "$T/starts" "$T/starts.ref"
check "--param reaches every job" \
  submit --master 'local[2]' --lib "$TASKS_LIB" --param greet=yo "$J"
expected yo >"$T/expected"
check "... printing exactly what it names" same "$T/out" "$T/expected"

# --- a later job reads an earlier one's output ---------------------------
# (its "foreach": {"parts": DIR} is read when its turn comes: DIR does
# not exist when the file is loaded)
C=$(job chain "{\"jobs\": [
  {\"name\": \"write\", \"stages\": [{\"name\": \"w\", \"output\": \"$T/parts\",
     \"tasks\": [{\"cmd\": [\"echo\", \"part {i}\"], \"count\": 3}]}]},
  {\"name\": \"read\", \"stages\": [{\"name\": \"r\", \"tasks\": [
     {\"cmd\": [\"sh\", \"-c\", \"tr a-z A-Z < \\\"\$0\\\"\", \"{item}\"],
      \"foreach\": {\"parts\": \"$T/parts\"}}]}]}]}")
check "a job reading the parts an earlier job of the file writes runs" \
  submit --master 'local[2]' "$C"
printf 'PART %d\n' 0 1 2 >"$T/expected"
check "... printing what it read, exactly" same "$T/out" "$T/expected"
check "... after the writer's line" grep -qF "3 part files in $T/parts" "$T/err"

# --- a job that fails stops the file --------------------------------------
F=$(job fails "{\"name\": \"fails\", \"jobs\": [
  {\"name\": \"a\", \"stages\": [{\"name\": \"s\", \"tasks\": [{\"cmd\": [\"echo\", \"A\"]}]}]},
  {\"name\": \"b\", \"repeat\": 3, \"stages\": [{\"name\": \"s\", \"tasks\": [
     {\"cmd\": [\"sh\", \"-c\", \"echo B\$0; [ \$0 != 1 ]\", \"{iter}\"]}]}]},
  {\"name\": \"c\", \"stages\": [{\"name\": \"s\", \"tasks\": [
     {\"cmd\": [\"touch\", \"$T/c-ran\"]}]}]}]}")
submit --master 'local[2]' --max-failures 1 --event-log "$T/ev2" "$F"
check "a file whose second job fails in its iteration 1 exits 1" test $? -eq 1
check "... naming that job and iteration" \
  grep -qF 'job b (jobs[1], iteration {iter}=1 of 0...2) failed: stage s, task 0 failed 1 time' "$T/err"
printf '%s\n' A B0 >"$T/expected"
check "... after the results of the jobs before it, and none after" \
  same "$T/out" "$T/expected"
check "... the later iteration and job never started" \
  eval 'test ! -e "$T/c-ran" && test "$(jq -r "select(.event == \"job_start\") | .name" "$T"/ev2/*.events | paste -sd " ")" = "a b[0] b[1]"'
check "... and the application ended FAILED" \
  test "$(jq -r 'select(.event == "app_end") | .state' "$T"/ev2/*.events)" = FAILED

# --- local-cluster: the same file, the same executors for every job ------
check "the same file runs on local-cluster[2,1,512]" \
  submit --master 'local-cluster[2,1,512]' --lib "$TASKS_LIB" --event-log "$T/ev3" "$J"
expected hi >"$T/expected"
check "... printing exactly the same" same "$T/out" "$T/expected"
L=$(ls "$T"/ev3/*.events | head -1)
task_starts "$L" >"$T/starts"
check "... each job's tasks started exactly once each" same "$T/starts" "$T/starts.ref"
check "... all on the application's 2 executors, added once" \
  test "$(jq -r 'select(.event == "task_start") | .executor' "$L" | sort -u | wc -l) $(jq -r 'select(.event == "app_end") | .executors' "$L")" = "2 2"
check "nothing of local[2] and local-cluster is left running" no_leftovers

# --- cluster deploy mode: the driver runs the file on a worker ------------
start_master || { fail "master"; finish; exit 1; }
CORES=2 MEMORY=2G start_worker w1 || fail "worker w1"
check "the same file runs in cluster deploy mode" \
  submit --master "$MASTER_URL" --deploy-mode cluster --executor-memory 512M \
  --lib "$TASKS_LIB" "$J"
ID=$(head -1 "$T/out")
check "... its driver printing exactly the same on its worker" \
  same "$T/w1/$ID/stdout" "$T/expected"

finish
