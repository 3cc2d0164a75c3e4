#!/usr/bin/env bash
# A new application's first job on local-cluster[W,C,M] (benchmark 23,
# docs/performance.md "The first job"): hearth_ctx_new() returns once the
# executors of the context's own workers have registered, so the first
# job finds them there.  Read from the event log's order, never timed:
# - local-cluster[2,1,512]: both executors added before the first
#   job_start;
# - local-cluster[2,2,512] with --executor-cores 1 --executor-memory
#   256M: the four it holds, before the job;
# - the same with --total-executor-cores 3: the three the master gives;
# - with --dynamic-allocation (nothing to wait for) the job still runs.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 120
export TMPDIR=$T

J=$(job one '{"name":"one","stages":[{"name":"s","tasks":[{"cmd":["true"],"count":4}]}]}')
log_of() { ls "$1"/*.events 2>/dev/null | head -1; }
# executors added before the first job_start, and in all
before_job() {
  jq -r .event "$1" | awk '$1 == "executor_added" { n++ }
    $1 == "job_start" && !b { b = n + 0 } END { print b + 0, n + 0 }'
}

check "local-cluster[2,1,512]: a job runs" \
  submit --master 'local-cluster[2,1,512]' --event-log "$T/ev1" "$J"
check "... both executors added before the first job starts" \
  test "$(before_job "$(log_of "$T/ev1")")" = "2 2"

check "local-cluster[2,2,512], 1 core and 256M an executor: a job runs" \
  submit --master 'local-cluster[2,2,512]' --executor-cores 1 \
  --executor-memory 256M --event-log "$T/ev2" "$J"
check "... its four executors added before the job starts" \
  test "$(before_job "$(log_of "$T/ev2")")" = "4 4"

check "... with --total-executor-cores 3: a job runs" \
  submit --master 'local-cluster[2,2,512]' --executor-cores 1 \
  --executor-memory 256M --total-executor-cores 3 --event-log "$T/ev3" "$J"
check "... the three the master gives added before the job" \
  test "$(before_job "$(log_of "$T/ev3")")" = "3 3"

check "--dynamic-allocation on local-cluster[2,1,512]: a job runs" \
  submit --master 'local-cluster[2,1,512]' --dynamic-allocation "$J"

finish
