#!/usr/bin/env bash
# The master and a worker under valgrind through cluster deploy mode:
# submissions (one refused for its size), a driver that finishes, a
# supervised one that fails and is relaunched, --status, --logs, --kill,
# and a worker stopped with a driver running.  Both must exit 0 with no
# memory error and no leak.  Runs only in a build without sanitizers.
command -v valgrind >/dev/null || { echo "valgrind not installed: skipped"; exit 77; }
export HEARTH_FAKE_EXECUTOR=1
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 180
INTERVAL_MS=300
# --child-silent-after-fork: a child forked by a daemon is not the daemon.
# Between its fork and its exec it joins its cgroup (issue 15: about
# 11 ms on cgroup v1), and a driver killed in that window dies with the
# daemon's copied heap, which valgrind would report as the child's leaks.
WRAP="valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect
  --child-silent-after-fork=yes --error-exitcode=9 --log-file=$T/valgrind-%p.txt"

start_master --max-submit-size 64K --driver-relaunch-delay 100ms || exit 1
start_worker w1 || exit 1
M=(--master "$MASTER_URL" --timeout 30s)
CM=("${M[@]}" --deploy-mode cluster --driver-memory 64M)
state_of() {
  "$BIN/hearth-submit" "${M[@]}" --status "$1" 2>/dev/null |
    awk '$1 == "state:" {print $2}'
}

printf '#!/bin/sh\necho "hello from $HEARTH_DRIVER_ID"\n' >"$T/hello.sh"
printf '#!/bin/sh\nn=$(cat "$1" 2>/dev/null || echo 0); echo $((n + 1)) >"$1"\n[ "$n" -ge 1 ]\n' >"$T/flaky.sh"
printf '#!/bin/sh\nexec sleep 600\n' >"$T/sleeper.sh"
chmod +x "$T"/*.sh
check "a program runs in cluster mode" submit "${CM[@]}" "$T/hello.sh"
HELLO=$(head -1 "$T/out")
check "... and --logs returns its output" \
  eval '"$BIN/hearth-submit" "${M[@]}" --logs "$HELLO" | grep -qx "hello from $HELLO"'
check "a supervised driver failing once ends FINISHED" \
  submit "${CM[@]}" --supervise "$T/flaky.sh" "$T/marker"
head -c 100K /dev/zero >"$T/big.so"
submit "${CM[@]}" --lib "$T/big.so" "$T/hello.sh"
check "an application too large is refused" grep -q "more than this master accepts" "$T/err"
check "a long driver is submitted" submit "${CM[@]}" --no-wait "$T/sleeper.sh"
LONG=$(head -1 "$T/out")
check "... runs" wait_for 30 eval '[[ $(state_of "$LONG") == RUNNING ]]'
check "... and is killed" "$BIN/hearth-submit" "${M[@]}" --kill "$LONG"
check "another long driver runs" submit "${CM[@]}" --no-wait "$T/sleeper.sh"
LAST=$(head -1 "$T/out")
check "... runs" wait_for 30 eval '[[ $(state_of "$LAST") == RUNNING ]]'
kill -TERM "$PID_w1"; wait "$PID_w1"; rc=$?
check "worker exits 0 under valgrind, stopping its driver (status $rc)" test "$rc" -eq 0
check "... and no driver is left" test -z "$(test_pids sleep)"
kill -TERM "$MASTER_PID"; wait "$MASTER_PID"; rc=$?
check "master exits 0 under valgrind (status $rc)" test "$rc" -eq 0
check "no valgrind report" no_valgrind_report
finish
