#!/usr/bin/env bash
# A newer launch of a driver while its older launch is still stopping (a
# race seen in test-supervise under load): the worker of a supervised
# driver is timed out (SIGSTOP past the liveness) and registers again
# listing the driver's launch 1; the master, which had made the driver
# RELAUNCHING, stops launch 1 (KILL_DRIVER) and sends LAUNCH_DRIVER launch
# 2 to the same worker.  Launch 1 ignores SIGTERM, so it is still there
# when launch 2 arrives for the whole kill grace (3 s).  Before, the
# worker ignored launch 2 ("it already runs here"), the master ignored
# launch 1's end ("not placed there"), and the driver hung in the books
# with nothing running (a kill then got "not running").  Now the worker
# starts launch 2 once launch 1 is reaped, and the master's books follow:
# RUNNING as launch 2, and a kill ends it.  Then the same with a kill
# while launch 2 waits: it never starts, and the master hears KILLED.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 120
export TMPDIR=$T
GRACE_S=3

start_master --driver-relaunch-delay 200ms || exit 1
start_worker w1 --kill-grace "${GRACE_S}s" || exit 1
M=(--master "$MASTER_URL")

status() {
  "$BIN/hearth-submit" "${M[@]}" --status "$1" >"$T/status" 2>/dev/null
  awk '$1 == "state:" {print $2}' "$T/status"
}
field() { awk -v k="$1:" '$1 == k {print $2}' "$T/status"; }
# runs: how many runs of the driver started.
runs() { wc -l <"$T/runs" 2>/dev/null || echo 0; }
# alive_runs: how many of them still run.
alive_runs() {
  local pid n=0
  for pid in $(cat "$T/runs" 2>/dev/null); do
    kill -0 "$pid" 2>/dev/null && n=$((n + 1))
  done
  echo "$n"
}

cat >"$T/stubborn.sh" <<'PROG'
#!/bin/sh
# Takes its time to stop: SIGTERM is ignored (SIGKILL after the grace).
trap 'echo "SIGTERM ignored"' TERM
echo $$ >>"$1"
while :; do sleep 0.1; done
PROG
chmod +x "$T/stubborn.sh"
# start_stubborn: submit it supervised; sets D once its launch 1 runs.
start_stubborn() {
  rm -f "$T/runs"
  submit "${M[@]}" --deploy-mode cluster --driver-memory 256M --supervise \
    --no-wait "$T/stubborn.sh" "$T/runs" || return 1
  D=$(head -1 "$T/out")
  wait_for 20 eval '[[ $(status "$D") == RUNNING && $(runs) == 1 ]]'
}
kill_it() {
  timeout $((GRACE_S + 20)) "$BIN/hearth-submit" "${M[@]}" --kill "$D" \
    >"$T/kill.out" 2>&1
}
check "a supervised driver runs (launch 1)" start_stubborn

# Its worker is timed out, then comes back with launch 1 still running.
kill -STOP "$PID_w1"
check "the stopped worker is DEAD for the master" \
  wait_for 10 eval '[[ $(worker_state "$ID_w1") == DEAD ]]'
check "... and the driver RELAUNCHING" \
  wait_for 5 eval '[[ $(status "$D") == RELAUNCHING ]]'
kill -CONT "$PID_w1"
check "the worker registers again" \
  wait_for 10 eval '[[ $(worker_state "$ID_w1") == ALIVE ]]'
check "the master stops launch 1 and sends launch 2 to the same worker" \
  wait_for 10 grep -q "launching driver $D (launch 2) on $ID_w1" "$T/master.log"
check "... while launch 1 still runs (it ignores SIGTERM)" \
  test "$(alive_runs)" = 1
check "the worker starts launch 2 once launch 1 has ended" \
  wait_for $((GRACE_S + 10)) eval '[[ $(runs) == 2 ]]'
check "... the worker says it waited for launch 1" \
  grep -q "LAUNCH_DRIVER $D (launch 2): launch 1 is still stopping" "$T/w1.log"
check "... launch 1 is gone, launch 2 runs" test "$(alive_runs)" = 1
check "the master's books follow: RUNNING, launch 2" \
  wait_for 10 eval '[[ $(status "$D") == RUNNING && $(field launches) == 2 ]]'
check "--kill of the driver ends it" kill_it
check "... KILLED" grep -q "driver $D KILLED" "$T/kill.out"
check "... in the master's books" test "$(status "$D")" = KILLED
check "... with nothing of it left running" test "$(alive_runs)" = 0
# Again, killed while launch 2 waits for launch 1: launch 2 never starts,
# and the master hears it KILLED.
check "a second supervised driver runs (launch 1)" start_stubborn
kill -STOP "$PID_w1"
wait_for 10 eval '[[ $(worker_state "$ID_w1") == DEAD ]]'
kill -CONT "$PID_w1"
check "its launch 2 waits on the worker for launch 1" \
  wait_for 10 grep -q "LAUNCH_DRIVER $D (launch 2): launch 1 is still stopping" "$T/w1.log"
check "--kill then ends it" kill_it
check "... KILLED in the master's books" test "$(status "$D")" = KILLED
check "... launch 2 never started" \
  grep -q "driver $D (launch 2) will not start: killed before it started" "$T/w1.log"
check "... and nothing of it runs" \
  wait_for $((GRACE_S + 5)) eval '[[ $(alive_runs) == 0 && $(runs) == 1 ]]'
check "no launch was ignored" \
  bash -c "! grep -q 'ignored: it already runs here' '$T/w1.log'"
finish
