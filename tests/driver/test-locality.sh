#!/usr/bin/env bash
# Locality through the C API (issue 37; tests/driver/test_locality_api.c)
# and job files ("prefer") in local[2]: tasks preferring the executors' host run NODE_LOCAL, tasks
# preferring a host or a worker no executor is on, and tasks preferring
# nothing, run at once as NO_PREF (nothing to wait for, whatever
# --locality-wait says), each attempt's level in its task_start event;
# the results are exact; a skewed partition's reducer runs on the
# worker holding its bytes (local-cluster), and anywhere with
# reduce-locality=false; hearth_stage_prefer's
# refusals.  The waits and
# the levels between hosts are tests/unit/test_taskset_locality.c's.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 120
export TMPDIR=$T
P=$BIN/tests/driver/test-locality-api

# The host local executors register with, from a first run's event log.
check "a first run names the executors' host" \
  submit --master 'local[2]' --event-log "$T/ev0" "$P" nowhere.invalid
HOST=$(jq -r 'select(.event == "executor_added") | .host' "$T"/ev0/*.events | head -1)
check "... in its executor_added event ($HOST)" test -n "$HOST" -a "$HOST" != null

check "a stage preferring that host, a host and a worker nobody is on, and nothing" \
  submit --master 'local[2]' --locality-wait 1h --event-log "$T/ev1" "$P" "$HOST"
check "... exact results, in task order" same "$T/out" \
  <(printf '%s\n' near0 near1 gone0 gone1 w0 w1 free0 free1)
L=$(ls "$T"/ev1/*.events)
levels() { # the level each task's first attempt was offered at, by index
  jq -r 'select(.event == "task_start" and .attempt == 0) | "\(.index) \(.locality // "NO_PREF")"' "$L" | sort -n
}
check "... the host's tasks NODE_LOCAL, the others NO_PREF without waiting an hour" \
  same <(levels) <(printf '%s\n' '0 NODE_LOCAL' '1 NODE_LOCAL' '2 NO_PREF' '3 NO_PREF' \
    '4 NO_PREF' '5 NO_PREF' '6 NO_PREF' '7 NO_PREF')
check "... each task_end says the level too" \
  test "$(jq -r 'select(.event == "task_end") | "\(.index) \(.locality // "NO_PREF")"' "$L" | sort -n | tr '\n' ' ')" \
  = "0 NODE_LOCAL 1 NODE_LOCAL 2 NO_PREF 3 NO_PREF 4 NO_PREF 5 NO_PREF 6 NO_PREF 7 NO_PREF "
check "... hearth_stage_locality counts the 2 NODE_LOCAL attempts (NO_PREF ones are not counted)" \
  grep -qx 'locality: node 2 rack 0 any 0' "$T/err"
check "... a task_start without a preference has no locality field (format 2)" \
  test "$(jq -c 'select(.event == "task_start" and .index == 7) | has("locality")' "$L" | sort -u)" = false

# The same through a job file: "prefer" per foreach item, and an array.
J=$(job prefer '{"name": "prefer", "stages": [{"name": "s", "tasks": [
  {"cmd": ["echo", "{item}"], "foreach": "args", "prefer": "{item}"},
  {"cmd": ["echo", "both"], "prefer": ["nowhere.invalid", "'"$HOST"'"]}]}]}')
check "a job file's \"prefer\", per item and as an array" \
  submit --master 'local[2]' --locality-wait 1h --event-log "$T/ev2" "$J" "$HOST" nowhere.invalid
check "... exact results" same "$T/out" <(printf '%s\n' "$HOST" nowhere.invalid both)
L=$(ls "$T"/ev2/*.events)
check "... levels NODE_LOCAL, NO_PREF, NODE_LOCAL" \
  same <(levels) <(printf '%s\n' '0 NODE_LOCAL' '1 NO_PREF' '2 NODE_LOCAL')
J=$(job badprefer '{"name": "b", "stages": [{"name": "s", "tasks": [
  {"cmd": ["true"], "prefer": ["ok", ""]}]}]}')
check "an empty place is refused before anything runs" \
  expect_fail submit --master 'local[2]' "$J"
check "... saying where and what" \
  grep -q 'stages\[0\].tasks\[0\].prefer: expected a place' "$T/err"

# A skewed shuffle on two workers (local-cluster): map 0 writes 2 MB
# under one key, map 1 one line of it; that partition's reducer prefers
# the worker holding at least 20 % of its bytes (Spark's reducer
# preference), and runs there, NODE_LOCAL; the empty partition's
# reducer prefers nothing.
J=$(job skew '{"name": "skew", "stages": [
  {"name": "map", "partitions": 2, "tasks": [
    {"cmd": ["sh", "-c", "yes a | head -n 1000000"]},
    {"cmd": ["echo", "a"]}]},
  {"name": "count", "tasks": [{"cmd": ["wc", "-l"], "input": "map"}]}]}')
check "local-cluster: a skewed shuffle" \
  submit --master 'local-cluster[2,1,512]' --event-log "$T/ev3" "$J"
check "... exact" same <(tr -d ' ' <"$T/out" | sort -n) <(printf '%s\n' 0 1000001)
L=$(ls "$T"/ev3/*.events)
worker_of() { # the worker of the executor that ran attempt 0 of STAGE INDEX
  local x
  x=$(jq -r "select(.event == \"task_start\" and .stage == $1 and .index == $2 and .attempt == 0) | .executor" "$L")
  jq -r "select(.event == \"executor_added\" and .executor == $x) | .worker" "$L"
}
big=$(jq -r 'select(.event == "task_start" and .stage == 2 and .locality == "NODE_LOCAL") | .index' "$L")
check "... the big partition's reducer ran NODE_LOCAL (task ${big:-none})" \
  test "$(wc -w <<<"$big")" -eq 1
check "... on the worker of the big map output" \
  test "$(worker_of 2 "${big:-0}")" = "$(worker_of 1 0)" -a -n "$(worker_of 1 0)"

check "the same shuffle with --conf reduce-locality=false" \
  submit --master 'local-cluster[2,1,512]' --conf reduce-locality=false \
  --event-log "$T/ev4" "$J"
check "... exact" same <(tr -d ' ' <"$T/out" | sort -n) <(printf '%s\n' 0 1000001)
check "... no reducer prefers a worker (every attempt NO_PREF)" \
  test -z "$(jq -r 'select(.event == "task_start" and .stage == 2 and .locality != null) | .locality' "$T"/ev4/*.events)"

APP=$(head -1 "$L" | jq -r .app_id)
"$BIN/hearth-history" --dir "$T/ev3" "$APP" --json >"$T/hist.json" 2>"$T/hist.err"
check "hearth-history counts the reduce stage's attempts by level" \
  test "$(jq -c '.stages[] | select(.stage == 2) | .locality' "$T/hist.json")" = '{"NO_PREF":1,"NODE_LOCAL":1}'
check "... and the map stage, where nothing was preferred, has none" \
  test "$(jq -c '.stages[] | select(.stage == 1) | has("locality")' "$T/hist.json")" = false
check "... its text shows them beside the stage" \
  eval '"$BIN/hearth-history" --dir "$T/ev3" "$APP" | grep -q "count .*  no-pref 1 node 1$"'

check "hearth_stage_prefer's refusals" submit --master 'local[2]' "$P" refusals
check "... each refused" test "$(grep -c '^refused: ' "$T/out")" -eq 5
check "... none accepted" test "$(grep -c 'ACCEPTED\|UNEXPECTED' "$T/out")" -eq 0
check "no master, worker or executor is left" no_leftovers
finish
