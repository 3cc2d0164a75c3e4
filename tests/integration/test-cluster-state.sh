#!/usr/bin/env bash
# A master and 3 workers: all ALIVE in `hearth-tail --state` (table and
# JSON), with the fields issue 3 lists; bad flags fail clearly.
. "$(dirname "$0")/lib.sh"
deadline 60

start_master || exit 1
for w in w1 w2 w3; do start_worker "$w" || exit 1; done

check "3 workers ALIVE in the JSON state" \
  wait_for 5 jq_state '[.workers[] | select(.state == "ALIVE")] | length == 3'
check "state has status, workers, apps, drivers" \
  jq_state '.status == "ALIVE" and (.apps | type == "array") and (.drivers == [])'
check "worker fields" jq_state '.workers[0] | has("id") and has("host")
  and has("state") and has("cores") and has("cores_used") and has("memory_mb")
  and has("memory_used_mb") and has("last_heartbeat_ms")'
check "cores and memory as offered" \
  jq_state 'all(.workers[]; .cores == 4 and .memory_mb == 4096)'

"$BIN/hearth-tail" --master "$MASTER_URL" --state >"$T/table.txt"
check "table lists the 3 workers ALIVE" \
  test "$(grep -c '^worker-.* ALIVE ' "$T/table.txt")" -eq 3
check "table has the sections" grep -q '^DRIVERS' "$T/table.txt"

# Heartbeat events show each worker, its cores in use and the age.
"$BIN/hearth-tail" --master "$MASTER_URL" --topic heartbeat --count 3 \
  >"$T/beats.txt" &
tail_pid=$!; PIDS+=($tail_pid)
check "hearth-tail --topic heartbeat --count 3 exits" wait_for 10 \
  bash -c "! kill -0 $tail_pid"
check "heartbeat lines show cores and age" \
  grep -q 'heartbeat *worker worker-.* cores 0/4 used.*heartbeat age' "$T/beats.txt"
"$BIN/hearth-tail" --master "$MASTER_URL" --json --topic heartbeat --count 1 \
  >"$T/beat.json"
check "--json prints the raw event" jq -e '.worker.id' "$T/beat.json"

# Bad flags: a clear message and a non-zero status, never a start.
bad() {
  local out; out=$("$@" 2>&1) && return 1
  [[ $out == *"$EXPECT"* ]]
}
EXPECT="unknown option --bogus" check "master: unknown flag" \
  bad "$BIN/hearth-master" --bogus
EXPECT="bad value for port" check "master: bad port" \
  bad "$BIN/hearth-master" --port 70000
EXPECT="bad value for heartbeat-interval" check "master: bad duration" \
  bad "$BIN/hearth-master" --heartbeat-interval soon
EXPECT="cannot bind" check "master: port in use" \
  bad "$BIN/hearth-master" --port "$MASTER_PORT" --events-port 0
EXPECT="--master URL is required" check "worker: no master" \
  bad env -u HEARTH_MASTER "$BIN/hearth-worker"
EXPECT="bad --master" check "worker: bad master URL" \
  bad "$BIN/hearth-worker" --master localhost
EXPECT="bad value for cores" check "worker: bad cores" \
  bad "$BIN/hearth-worker" --master "$MASTER_URL" --cores 0
EXPECT="bad --id" check "worker: bad id" \
  bad "$BIN/hearth-worker" --master "$MASTER_URL" --id ../x
EXPECT="--master URL is required" check "tail: no master" \
  bad env -u HEARTH_MASTER "$BIN/hearth-tail" --state
check "--help exits 0" bash -c "'$BIN/hearth-master' --help >/dev/null"
check "--version" bash -c "'$BIN/hearth-worker' --version | grep -q '^hearth-worker '"
check "master still serves" jq_state '.workers | length == 3'
finish
