#!/usr/bin/env bash
# The master's journal (docs/failures.md): a master killed with kill -9 in
# the middle of a job and started again on the same --journal comes back
# RECOVERING (MASTER_STATE and a `master` event), re-adopts the workers,
# the driver and the executors that still run (none is killed, no new one
# is needed), then is ALIVE; the job finishes with exactly its output, and
# `hearth-tail --state` shows the same application and workers as before.
# Then a corrupt journal tail: the master starts, warns, keeps the rest.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 150
export TMPDIR=$T
JOURNAL=$T/journal

start_master --journal "$JOURNAL" || exit 1
CORES=2 start_worker w1 || exit 1
CORES=2 start_worker w2 || exit 1

N=600
J=$(job steady "{\"name\":\"steady\",\"stages\":[{\"name\":\"s\",\"tasks\":[
  {\"cmd\":[\"sh\",\"-c\",\"sleep 0.05; echo {i} >>$T/done; echo {i}\"],
   \"count\":$N}]}]}")
seq 0 $((N - 1)) >"$T/expected"
submit --master "$MASTER_URL" --log-level info "$J" &
SUBMIT=$!
PIDS+=($SUBMIT)

app_running() {
  jq_state '[.apps[] | select(.state == "RUNNING") | .executors[]
    | select(.state == "RUNNING")] | length == 2'
}
check "the job runs on 2 executors" wait_for 30 app_running
sleep 1
state_json >"$T/before.json"
APP=$(jq -r '.apps[0].id' "$T/before.json")
jq -r '[.workers[].id] | sort | join(" ")' "$T/before.json" >"$T/workers.before"
jq -c '[.apps[0].executors[] | [.exec_id, .worker_id, .pid]]' \
  "$T/before.json" >"$T/execs.before"
EXEC_PIDS=$(jq -r '.apps[0].executors[].pid' "$T/before.json")

# kill -9 mid-job; the workers are stopped while the master restarts, so
# that RECOVERING lasts long enough to be seen (the driver and the
# executors are not: the job goes on).
kill9 "$MASTER_PID"
t_kill=$(now_ms)
kill -STOP "$PID_w1" "$PID_w2"
done_at_kill=$(wc -l <"$T/done")
sleep 1
check "the job goes on while the master is down ($done_at_kill, then $(wc -l <"$T/done") tasks done)" \
  test "$(wc -l <"$T/done")" -gt "$done_at_kill"
PORT=$MASTER_PORT start_master --journal "$JOURNAL" || exit 1
t_start=$(now_ms)
"$BIN/hearth-tail" --master "$MASTER_URL" --topic master --json \
  >"$T/master-events" 2>/dev/null &
PIDS+=($!)
state_json >"$T/recovering.json"
in_file() { jq -e "$1" "$T/recovering.json" >/dev/null; }
check "MASTER_STATE says RECOVERING" in_file '.status == "RECOVERING"'
check "... with the workers UNKNOWN" \
  in_file '[.workers[].state] | all(. == "UNKNOWN") and length == 2'
check "... and the application still RUNNING with its 2 executors" \
  in_file ".apps[] | select(.id == \"$APP\") | .state == \"RUNNING\"
    and (.executors | length == 2)"
check "... waiting for its driver unless it is back already" \
  in_file ".apps[] | select(.id == \"$APP\") | .recovering == true
    or (\"$(grep -c "application $APP (steady): its driver is back" "$T/master.log")\" != \"0\")"
check "the master logs that it recovers" grep -q 'RECOVERING from journal' "$T/master.log"
sleep 0.5 # hearth-tail subscribes (slow joiner)
kill -CONT "$PID_w1" "$PID_w2"
alive() { jq_state '.status == "ALIVE"'; }
check "ALIVE again once the workers and the driver are back" wait_for 10 alive
t_alive=$(now_ms)
check "a master event says it recovered" wait_for 5 grep -q '"event":"recovered"' "$T/master-events"
say "master down $((t_start - t_kill)) ms; RECOVERING to ALIVE in $((t_alive - t_start)) ms (workers stopped for part of it)"
grep -o 'recovery done in [0-9]* ms.*' "$T/master.log" | tail -1 | sed "s/^/$TEST_NAME: /"
check "every executor re-adopted, none lost" \
  grep -q '2 executors re-adopted, 0 lost' "$T/master.log"
state_json >"$T/after.json"
check "the same executors (ids, workers, pids) after the restart" \
  test "$(jq -c --arg app "$APP" '[.apps[] | select(.id == $app) | .executors[]
    | [.exec_id, .worker_id, .pid]]' "$T/after.json")" = "$(cat "$T/execs.before")"
running() { local p; for p in $EXEC_PIDS; do kill -0 "$p" 2>/dev/null || return 1; done; }
check "no executor was killed" running
check "the driver registered again under its id" \
  grep -q "application $APP registered again" "$T/err"

# Again, restarted at once and with nobody stopped: how fast recovery is.
kill9 "$MASTER_PID"
PORT=$MASTER_PORT start_master --journal "$JOURNAL" || exit 1
check "ALIVE again after a second kill -9" wait_for 10 alive
line=$(grep -o 'recovery done in [0-9]* ms.*' "$T/master.log" | tail -1)
say "second restart: $line"
check "... with the executors re-adopted again" \
  grep -q '2 executors re-adopted, 0 lost' <<<"$line"
check "... and the job still running" kill -0 "$SUBMIT"

wait "$SUBMIT"
check "the job succeeds" test $? -eq 0
check "... with exactly its output" same "$T/out" "$T/expected"
check "the application FINISHED" \
  jq_state ".apps[] | select(.id == \"$APP\") | .state == \"FINISHED\""
check "no executor was added after the restart" \
  test "$(grep -c "launching executor $APP" "$T/master.log")" -eq 2
"$BIN/hearth-tail" --master "$MASTER_URL" --state >"$T/state.txt"
check "hearth-tail --state shows the same application" grep -q "$APP" "$T/state.txt"
for w in $(cat "$T/workers.before"); do
  check "hearth-tail --state shows worker $w ALIVE" grep -q "$w.*ALIVE" "$T/state.txt"
done
check "the journal was compacted into a snapshot at start-up" test -s "$JOURNAL/snapshot"

# --- a corrupt tail --------------------------------------------------------
kill9 "$MASTER_PID"
last=$(ls "$JOURNAL"/journal.* | grep -v '\.bad$' | head -1)
records=$(wc -l <"$last")
# Damage the last record (one character of its JSON) and add a torn one.
tail -1 "$last" | sed 's/"t":"/"t":"X/' >"$T/damaged"
head -n -1 "$last" >"$T/kept"
cat "$T/kept" "$T/damaged" >"$last"
printf '0badc0de {"t":"app","id":"app-2' >>"$last"
PORT=$MASTER_PORT start_master --journal "$JOURNAL" || exit 1
check "the master starts on a corrupt journal" kill -0 "$MASTER_PID"
check "... warns about the skipped tail" \
  grep -q "CRC mismatch at line $records .*skipped the last" "$T/master.log"
check "... keeps the skipped bytes aside" test -s "$last.bad"
check "... and keeps what is intact: the application" \
  wait_for 5 jq_state "[.apps[] | select(.id == \"$APP\")] | length == 1"
check "... and the workers, ALIVE again" wait_for 10 jq_state \
  '[.workers[] | select(.state == "ALIVE")] | length == 2'
check "a new job runs after that" submit --master "$MASTER_URL" "$J"
check "... with exactly its output" same "$T/out" "$T/expected"
finish
