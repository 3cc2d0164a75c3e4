#!/usr/bin/env bash
# A worker that cannot start executors (issue 14, defect 3): its work dir
# is a tiny tmpfs, full (as root; without root, a work dir it may not
# write in), so that every executor directory fails to be made.  Before,
# the master placed executor after executor on it: 54,990 launch failures
# in 5.3 s and megabytes of log, or, with another worker free, the
# application FAILED after 10 failures in 20 ms.  Now failed launches back
# off per worker, the worker is shown unhealthy with the reason, and the
# master prefers the other workers.
#   A. Alone (the master never gives up on the application: retries -1):
#      a bounded number of launches and log lines in 5 s, the worker
#      unhealthy in MASTER_STATE and hearth-tail --state, with the reason.
#   B. Beside a healthy worker with fewer cores (the allocator's first
#      choice is the full one, with more free cores) and an application
#      of one executor: it runs on the healthy worker and succeeds.
. "$(dirname "$0")/../lib/cluster.sh"
deadline 120
FULL=$T/full

# make_full: $FULL, made unusable for executor directories.
make_full() {
  mkdir -p "$FULL"
  if ((EUID == 0)) && mount -t tmpfs -o size=64k,nr_inodes=8 tmpfs "$FULL"; then
    MODE=tmpfs
    trap 'umount -l "$FULL" 2>/dev/null; cleanup' EXIT
  elif ((EUID != 0)); then
    MODE=chmod
  else
    say "SKIP: cannot mount a tmpfs"
    exit 77
  fi
}
# fill_full: no directory can be made in $FULL any more (the worker holds
# its lock file there already).
fill_full() {
  if [[ $MODE == tmpfs ]]; then
    local i
    for i in $(seq 1 64); do (: >"$FULL/fill.$i") 2>/dev/null || break; done
    dd if=/dev/zero of="$FULL/fill.1" bs=4k 2>/dev/null
  else
    chmod 0500 "$FULL"
  fi
  ! mkdir "$FULL/probe" 2>/dev/null
}
# launches APP: how many executors of APP the master launched.
launches() { count_lines "$T/master.log" "launching executor $1/"; }
# lines FILE FROM: lines of FILE past line FROM.
lines() { echo $(($(wc -l <"$1") - $2)); }

make_full
say "work dir made unusable by: $MODE"

# --- A: alone --------------------------------------------------------------
start_master --max-executor-retries -1 || exit 1
start_worker full || exit 1
BAD=$ID_full
check "no directory can be made in the worker's work dir" fill_full
master_from=$(wc -l <"$T/master.log")
worker_from=$(wc -l <"$T/full.log")
start_app storm --memory-mb 256 || exit 1
sleep 5
n=$(launches "$APP_ID")
m=$(lines "$T/master.log" "$master_from")
w=$(lines "$T/full.log" "$worker_from")
say "in 5 s: $n launches, $m master log lines, $w worker log lines"
check "a bounded number of launches in 5 s" test "$n" -ge 2 -a "$n" -le 10
check "... and of master log lines" test "$m" -le 40
check "... and of worker log lines" test "$w" -le 20
reason=$(state_json | jq -r --arg id "$BAD" '.workers[] | select(.id == $id) | .unhealthy // empty')
say "unhealthy: $reason"
check "MASTER_STATE shows the worker unhealthy, with the reason" \
  grep -q -e 'No space left on device' -e 'Permission denied' <<<"$reason"
check "... still ALIVE" test "$(worker_state "$BAD")" = ALIVE
check "hearth-tail --state shows it" \
  bash -c "'$BIN/hearth-tail' --master '$MASTER_URL' --state --full-ids | grep -A1 '^$BAD ' | grep -q 'unhealthy: .*cannot create'"
check "the master logged the worker's turn to unhealthy once" \
  test "$(count_lines "$T/master.log" "worker $BAD is unhealthy")" = 1
# Room again: the next probe starts an executor, and the worker is healthy.
rm -f "$FULL"/fill.*
chmod 0755 "$FULL"
check "once a launch succeeds again, the worker is healthy" \
  wait_for 40 bash -c "state_json() { '$BIN/hearth-tail' --master '$MASTER_URL' --state --json --timeout 3s; }; state_json | jq -e --arg id '$BAD' '.workers[] | select(.id == \$id) | (.unhealthy == null and .launch_failures == null)' >/dev/null"
check "... the master says so" \
  grep -q "worker $BAD is healthy again" "$T/master.log"
check "... and the application has its executor there" \
  wait_for 10 grep -q '^EXECUTOR_REGISTERED ' "$T/storm.out"
kill -TERM "$APP_PID"
wait "$APP_PID" 2>/dev/null
kill -TERM "$PID_full" "$MASTER_PID"
wait "$PID_full" "$MASTER_PID" 2>/dev/null
mv "$T/master.log" "$T/master-a.log"

# --- B: beside a healthy worker ---------------------------------------------
start_master || exit 1
CORES=8 start_worker full || exit 1
BAD=$ID_full
check "no directory can be made in its work dir again" fill_full
CORES=2 start_worker good || exit 1
GOOD=$ID_good
printf '%s\n' '{"name":"room","stages":[{"name":"s","tasks":[{"cmd":["sh","-c","echo {i}"],"count":20}]},{"name":"c","tasks":[{"cmd":["sh","-c","sort -n | tr \"\\n\" \" \""],"input":"s"}]}]}' >"$T/job.json"
run_job() {
  "$BIN/hearth-submit" --master "$MASTER_URL" --executor-memory 256M \
    --executor-cores 1 --total-executor-cores 1 "$T/job.json" \
    >"$T/job.out" 2>"$T/job.err"
}
check "with a healthy worker beside it, the job succeeds" run_job
check "... with its exact output" \
  test "$(cat "$T/job.out")" = "$(seq 0 19 | tr '\n' ' ')"
check "... run on the healthy worker" \
  grep -q "executor app-.* on $GOOD: RUNNING" "$T/master.log"
check "... the application FINISHED, not FAILED" \
  jq_state '[.apps[] | select(.name == "room")][0].state == "FINISHED"'
check "the full worker's launches failed" \
  grep -q "executor app-.* on $BAD: FAILED" "$T/master.log"
finish
