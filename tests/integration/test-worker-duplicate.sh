#!/usr/bin/env bash
# Two workers with one --id on one host (issue 13, defect 3): they used to
# take the id from each other for ever (each re-registering about every
# 1.25 s, the master logging twice a second, a running job failing).  Now
# the second, on another work dir, is refused at once with a message that
# names the first (its host, its work dir, since when) and exits non-zero;
# the first stays ALIVE without registering again, and the job running on
# it meanwhile gives its exact result.  (The same id on the same work dir
# is the same worker restarted: test-worker-same-id.sh.)
. "$(dirname "$0")/../lib/cluster.sh"
deadline 90
ID=worker-20260101000000-127.0.0.1-4242

start_master || exit 1
start_worker a --id "$ID" || exit 1

# 24 tasks of 0.25 s on 4 cores: the job runs for about 2 s or more.
printf '%s\n' '{"name":"dup","stages":[{"name":"s","tasks":[{"cmd":["sh","-c","sleep 0.25; echo {i}"],"count":24}]},{"name":"c","tasks":[{"cmd":["sh","-c","sort -n | tr \"\\n\" \" \""],"input":"s"}]}]}' >"$T/job.json"
"$BIN/hearth-submit" --master "$MASTER_URL" --executor-memory 256M \
  "$T/job.json" >"$T/job.out" 2>"$T/job.err" &
JOB=$!
PIDS+=($JOB)
check "the job's executor starts on $ID" \
  wait_for 10 grep -q "executor app-.* started" "$T/a.log"

started_ms=$(now_ms)
HEARTH_BIN_DIR="$T/bin" "$BIN/hearth-worker" --master "$MASTER_URL" \
  --id "$ID" --work-dir "$T/b" --cores 2 --memory 1G \
  --heartbeat-interval "${INTERVAL_MS}ms" --log-level debug >"$T/b.log" 2>&1 &
second=$!
PIDS+=($second)
check "a second worker with the same --id, same host, stops" \
  wait_for 5 bash -c "! kill -0 $second"
stopped_ms=$(now_ms)
kill -TERM "$second" 2>/dev/null # still running: it was not refused
wait "$second"
rc=$?
say "the second worker exited $rc, $((stopped_ms - started_ms)) ms after it started"
check "... non-zero" test "$rc" -ne 0
check "... saying the master refused it as a duplicate" \
  grep -q "the master refused this worker: duplicate worker id" "$T/b.log"
check "... naming the first one's host, work dir and since when" \
  grep -q "$ID is in use by a live worker at 127.0.0.1 (work dir $T/a, registered at 20[0-9-]*T[0-9:]*Z" \
  "$T/b.log"
check "the master logs the refusal, naming both work dirs" \
  grep -q "worker $ID at 127.0.0.1 (work dir $T/b) refused: id in use by a live worker at 127.0.0.1 (work dir $T/a" \
  "$T/master.log"

wait "$JOB"
check "the job succeeds" test $? -eq 0
check "... with its exact output" \
  test "$(cat "$T/job.out")" = "$(seq 0 23 | tr '\n' ' ')"
check "the first worker is still ALIVE" test "$(worker_state "$ID")" = ALIVE
check "... registered once, never again" \
  test "$(count_lines "$T/master.log" "worker $ID registered")" = 1
check "... and never asked to" \
  test "$(count_lines "$T/a.log" "registering with")" = 1
check "... heartbeating" wait_for 5 eval \
  '(( $(state_json | jq --arg id "$ID" ".workers[] | select(.id == \$id) | .heartbeat_age_ms") < 2 * INTERVAL_MS ))'
lines=$(grep -c "$ID" "$T/master.log")
say "master log lines naming $ID: $lines"
check "the master logs a few lines about it, not a stream" \
  test "$(grep -c -e refused -e RECONNECT -e 'asking it to register' "$T/master.log")" -le 2
check "no executor of the job was lost" \
  bash -c "! grep -q 'LOST' '$T/master.log'"
finish
