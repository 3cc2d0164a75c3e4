#!/usr/bin/env bash
# The master's journal on a disk that fills up mid-run (issue 14.2,
# docs/failures.md "A full disk under the journal"): the journal lives on
# a small tmpfs of its own, which the test fills with a file while
# applications start and end; it then frees the space, kill -9s the
# master and starts it again on the journal.  Every application (and
# worker) must come back exactly as it was: the journal never keeps a
# record cut short in front of good ones, and once the disk takes writes
# again a snapshot holds what could not be written.  Needs root (mount);
# skipped (77) otherwise.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 150
export TMPDIR=$T
JFS=$T/jfs
mkdir -p "$JFS"
if [[ $(id -u) -ne 0 ]] || ! mount -t tmpfs -o size=512k,mode=0700 none "$JFS" 2>/dev/null; then
  say "SKIP: mounting a tmpfs needs root"
  exit 77
fi
# The mount goes before cleanup removes $T (lazily: the master may still
# hold its files); the journal is copied out first, for a failed run.
trap 'cp -a "$JFS/journal" "$T/journal.copy" 2>/dev/null; umount -l "$JFS"; cleanup' EXIT
JOURNAL=$JFS/journal

# --resume-window 0: a lost driver's application ends FAILED at once, as
# before issue 39 (test-resume-window.sh tests the window)
start_master --journal "$JOURNAL" --resume-window 0 || exit 1
CORES=2 start_worker w1 || exit 1
CORES=2 start_worker w2 || exit 1

J=$(job short '{"name":"short","stages":[{"name":"s","tasks":[
  {"cmd":["sh","-c","echo {i}"],"count":4}]}]}')
# run_job NAME: a short job as application NAME, to its end.
run_job() {
  sed "s/\"short\"/\"$1\"/" "$J" >"$T/$1.json"
  "$BIN/hearth-submit" --master "$MASTER_URL" --heartbeat-interval \
    "${INTERVAL_MS}ms" --heartbeat-liveness "$LIVENESS" "$T/$1.json" \
    >"$T/$1.out" 2>"$T/$1.err"
}
# lost_app NAME: an application whose driver is killed: FAILED (driver
# lost) once the master notices.
lost_app() {
  start_app "$1" --max-cores 1 --memory-mb 64 || return 1
  wait_for 10 grep -q '^EXECUTOR_REGISTERED ' "$T/$1.out" || return 1
  kill9 "$APP_PID"
  local id=$APP_ID
  wait_for 10 jq_state ".apps[] | select(.id == \"$id\") | .state == \"FAILED\""
}

# Before the disk fills: one finished, one failed, one that keeps running.
check "a job before the disk fills" run_job before
check "an application whose driver dies before" lost_app lost-before
start_app long --max-cores 1 --memory-mb 64 || exit 1
LONG=$APP_ID
check "a long application runs" \
  wait_for 10 grep -q '^EXECUTOR_REGISTERED ' "$T/long.out"

# The disk fills: every write of the journal fails from here.
dd if=/dev/zero of="$JFS/fill" bs=4k 2>/dev/null
say "tmpfs full: $(df --output=avail "$JFS" | tail -1 | tr -d ' ') KiB free"
check "a job while the disk is full" run_job during
check "an application whose driver dies while the disk is full" lost_app lost-during
check "the master says the journal cannot be written" \
  grep -q "cannot write to the journal .*No space left on device" "$T/master.log"
check "... once" \
  test "$(count_lines "$T/master.log" 'cannot write to the journal')" -eq 1
say "master: $(grep -o '(the [0-9]* bytes written of a record were cut off\|(nothing was cut short' "$T/master.log")"

# Space comes back: a snapshot makes the journal whole.
rm -f "$JFS/fill"
t_free=$(now_ms)
check "the journal is written again once there is space" \
  wait_for 5 grep -q "the journal in .* is written again" "$T/master.log"
say "journal whole again $(($(log_ms "$T/master.log" "is written again") - t_free)) ms after the space came back"
check "a job after the disk is freed" run_job after

settled() {
  state_json >"$T/before.json" &&
    jq -e '[.apps[] | select(.state == "WAITING" or (.state == "RUNNING"
      and .id != "'"$LONG"'"))] | length == 0' "$T/before.json" >/dev/null
}
check "every application but the long one has ended" wait_for 10 settled
kill9 "$MASTER_PID"
PORT=$MASTER_PORT start_master --journal "$JOURNAL" --resume-window 0 || exit 1
check "the long application's driver is back" wait_for 15 \
  grep -q "application $LONG (long): its driver is back" "$T/master.log"
check "the master is ALIVE after the restart" \
  wait_for 15 jq_state '.status == "ALIVE"'
state_json >"$T/after.json"

# apps FILE: what must survive of each application, in a stable order.
apps() {
  jq -S '[.apps[] | {id, name, state, reason, submit_ms, end_ms,
    executors: [.executors[]? | {exec_id, worker_id, pid, state}]}]
    | sort_by(.id)' "$1"
}
workers() { jq -S '[.workers[] | {id, state}] | sort_by(.id)' "$1"; }
apps "$T/before.json" >"$T/apps.before"
apps "$T/after.json" >"$T/apps.after"
workers "$T/before.json" >"$T/workers.before"
workers "$T/after.json" >"$T/workers.after"
say "$(jq -r 'map("\(.name)=\(.state)") | join(" ")' "$T/apps.before")"
check "6 applications before the kill" \
  test "$(jq length "$T/apps.before")" -eq 6
check "every application exactly as before the kill" \
  same "$T/apps.after" "$T/apps.before"
check "every worker as before the kill" \
  same "$T/workers.after" "$T/workers.before"
check "the replay skipped nothing" \
  eval '! grep -q "skipped" "$T/master.log"'
finish
