#!/usr/bin/env bash
# A master and 3 workers: all ALIVE in `hearth-tail --state` (table and
# JSON), with the fields docs/cluster.md lists; the table's four sections with
# their headings, and, with an application and a cluster-mode driver
# running, the workers' memory and last heartbeat, the applications,
# executors and drivers as the JSON has them; bad flags fail clearly.
. "$(dirname "$0")/../lib/cluster.sh"
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

# --full-ids: rows start with the workers' ids (their short names are
# test-tail-defaults.sh's).
"$BIN/hearth-tail" --master "$MASTER_URL" --state --full-ids >"$T/table.txt"
check "table lists the 3 workers ALIVE" \
  test "$(grep -c '^worker-.* ALIVE ' "$T/table.txt")" -eq 3
# The table's sections and their headings (libcore/stateview.c), in order.
heading() { grep -Eq "^$1\$" "$T/table.txt"; }
check "table headings: WORKERS, APPLICATIONS, EXECUTORS, DRIVERS, in order" \
  test "$(grep -E '^(WORKERS|APPLICATIONS|EXECUTORS|DRIVERS)$' "$T/table.txt" | tr '\n' ' ')" \
  = "WORKERS APPLICATIONS EXECUTORS DRIVERS "
check "... with their columns" eval 'heading "ID +HOST +STATE +CORES +MEMORY \(MiB\) +SHUFFLE +LAST HEARTBEAT" &&
  heading "ID +NAME +STATE +CORES +MAX +SUBMITTED +DURATION +REASON" &&
  heading "APP +EXEC +WORKER +CORES +MEMORY +STATE" &&
  heading "ID +NAME +STATE +WORKER +CORES +MEMORY +LAUNCHES +APP"'

# With an application (2 executors of 1 core, 256 MiB) and a cluster-mode
# driver (1 core, 512 MiB, a program: no application) running, every
# section shows what the JSON says.
start_app tbl --max-cores 2 --cores-per-executor 1 --memory-mb 256 ||
  fail "the application did not register"
check "the application's 2 executors run" wait_for 10 jq_state \
  "[.apps[] | select(.id == \"$APP_ID\") | .executors[] | select(.state == \"RUNNING\")] | length == 2"
printf '#!/bin/sh\nexec sleep 600\n' >"$T/sleeper.sh"
chmod +x "$T/sleeper.sh"
"$BIN/hearth-submit" --master "$MASTER_URL" --deploy-mode cluster --no-wait \
  --driver-cores 1 --driver-memory 512M "$T/sleeper.sh" >"$T/driver.out" 2>&1
D=$(head -1 "$T/driver.out")
check "a cluster-mode driver runs" wait_for 20 jq_state \
  ".drivers[] | select(.id == \"$D\") | .state == \"RUNNING\""
state_json >"$T/state.json"
"$BIN/hearth-tail" --master "$MASTER_URL" --state --full-ids >"$T/table.txt"
# rows FILTER: the lines the table should have, from the JSON; each a
# regular expression (ids and numbers only, nothing to escape).
rows() { jq -r "$1" "$T/state.json"; }
# has_rows FILTER: every such line is in the table.
has_rows() {
  local re n=0
  while read -r re; do
    grep -Eq "^$re\$" "$T/table.txt" || { say "no row like: $re"; return 1; }
    n=$((n + 1))
  done < <(rows "$1")
  ((n > 0))
}
check "WORKERS: each worker's state, cores and memory used/total, shuffle bytes, as in the JSON" has_rows \
  '.workers[] | "\(.id) +\(.host) +\(.state) +\(.cores_used)/\(.cores) +\(.memory_used_mb)/\(.memory_mb) +[0-9.]+[KMGTPE]? +[0-9]+ ms ago"'
check "... memory in use where the executors and the driver run" \
  jq -e '([.workers[].memory_used_mb] | add) == 2 * 256 + 512' "$T/state.json" >/dev/null
check "... and heartbeats less than liveness x interval ago" eval \
  '[[ $(grep -Eo "[0-9]+ ms ago$" "$T/table.txt" | awk "\$1 >= $LIVENESS * $INTERVAL_MS" | wc -l) == 0 &&
     $(grep -Ec "^worker-.* [0-9]+ ms ago$" "$T/table.txt") == 3 ]]'
check "APPLICATIONS: the application, RUNNING with 2 of max 2 cores" \
  grep -Eq "^$APP_ID +tbl +RUNNING +2 +2 +[0-9T:-]+Z +[0-9.]+(ms|s)\$" "$T/table.txt"
check "EXECUTORS: its 2 executors, each on its worker, 1 core, 256 MiB, RUNNING" \
  eval 'has_rows ".apps[] | select(.id == \"$APP_ID\") | .executors[] |
    \"\\(.app_id // \"$APP_ID\") +\\(.exec_id) +\\(.worker_id) +1 +256 +RUNNING\"" &&
    [[ $(grep -Ec "^$APP_ID +[0-9]+ +worker-" "$T/table.txt") == 2 ]]'
check "DRIVERS: the driver, RUNNING on its worker, 1 core, 512 MiB, launched once" has_rows \
  '.drivers[] | "\(.id) +[^ ]+ +RUNNING +\(.worker_id) +1 +512 +1 +-"'
kill -TERM "$APP_PID"
"$BIN/hearth-submit" --master "$MASTER_URL" --kill "$D" >/dev/null 2>&1

# Heartbeat events show each worker, its cores in use and the age.
"$BIN/hearth-tail" --master "$MASTER_URL" --topic heartbeat --count 3 \
  --full-ids >"$T/beats.txt" &
tail_pid=$!; PIDS+=($tail_pid)
check "hearth-tail --topic heartbeat --count 3 exits" wait_for 10 \
  bash -c "! kill -0 $tail_pid"
check "heartbeat lines show cores and age" \
  grep -q 'heartbeat *worker worker-.* cores 0/4 used.*heartbeat age' "$T/beats.txt"
"$BIN/hearth-tail" --master "$MASTER_URL" --json --topic heartbeat --count 1 \
  >"$T/beat.json"
check "--json prints the raw event, with its time" jq -e '.worker.id and (.time_ms | type == "number")' "$T/beat.json"

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
