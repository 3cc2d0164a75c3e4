#!/usr/bin/env bash
# Executors where the work is (issue 37): with dynamic allocation, the
# driver tells the master which places its waiting tasks prefer
# (REQUEST_EXECUTORS places) and the master puts new executors there
# when those workers have room.  Two workers: a big one (4 cores,
# zone=a) that the allocator would take first, and a small one (1 core,
# zone=b); a job of tasks preferring zone=b, at most one executor: it
# goes to the small worker, every task NODE_LOCAL, the output exact.
# The master keeps the places with the application; a place with a
# control character is refused.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 90
export TMPDIR=$T

start_master || exit 1
CORES=4 start_worker big --label zone=a || exit 1
CORES=1 start_worker small --label zone=b || exit 1
SMALL=$WORKER_ID

J=$(job zb '{"name": "zb", "stages": [{"name": "s", "tasks": [
  {"cmd": ["sh", "-c", "sleep 0.2; echo {i}"], "count": 3, "prefer": "zone=b"}]}]}')
check "a job preferring zone=b, one executor at most, asked for as it goes" \
  submit --master "$MASTER_URL" --executor-cores 1 --dynamic-allocation \
  --initial-executors 0 --min-executors 0 --max-executors 1 \
  --event-log "$T/ev" "$J"
check "... exact" same "$T/out" <(seq 0 2)
L=$(ls "$T"/ev/*.events)
check "... its executor on the small worker, though the big one had more room" \
  test "$(jq -r 'select(.event == "executor_added") | .worker' "$L" | sort -u)" = "$SMALL"
check "... every task NODE_LOCAL" test \
  "$(jq -r 'select(.event == "task_start") | .locality' "$L" | sort -u)" = NODE_LOCAL
check "no executor is left" wait_for 10 eval '! executors_running'
finish
