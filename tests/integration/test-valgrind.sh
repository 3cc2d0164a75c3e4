#!/usr/bin/env bash
# The master (with a journal) and a worker under valgrind through a whole
# cycle: register, launch executors, kill the application, launch again,
# restart the master on its journal (it recovers and re-adopts), stop the
# worker with its executor running, stop the master.  Both must exit 0 with no
# memory error and no leak.  Runs only in a build without sanitizers.
command -v valgrind >/dev/null || { echo "valgrind not installed: skipped"; exit 77; }
. "$(dirname "$0")/../lib/cluster.sh"
deadline 120
INTERVAL_MS=300
# --child-silent-after-fork: a child forked by a daemon is not the daemon.
# Between its fork and its exec it joins its cgroup (issue 15: about
# 11 ms on cgroup v1), and a driver killed in that window dies with the
# daemon's copied heap, which valgrind would report as the child's leaks.
WRAP="valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect
  --child-silent-after-fork=yes --error-exitcode=9 --log-file=$T/valgrind-%p.txt"

start_master --journal "$T/journal" || exit 1
start_worker w1 || exit 1
start_app one --max-cores 2 --cores-per-executor 1 --memory-mb 128 || exit 1
check "2 executors registered" wait_for 30 bash -c \
  "[[ \$(grep -c '^EXECUTOR_REGISTERED' '$T/one.out') == 2 ]]"
"$TBIN/test-app" --master "$MASTER_URL" --kill "$APP_ID" >/dev/null
check "application removed" wait_for 10 grep -q '^APPLICATION_REMOVED' "$T/one.out"
start_app two --max-cores 1 --memory-mb 128 || exit 1
check "executor of the second app registered" wait_for 30 \
  grep -q '^EXECUTOR_REGISTERED' "$T/two.out"
"$TBIN/test-app" --master "$MASTER_URL" --garbage >/dev/null 2>&1
# The master stops and starts again on its journal: RECOVERING, the
# worker and the driver come back, ALIVE.
kill -TERM "$MASTER_PID"; wait "$MASTER_PID"; rc=$?
check "master exits 0 under valgrind (status $rc)" test "$rc" -eq 0
PORT=$MASTER_PORT start_master --journal "$T/journal" || exit 1
check "the restarted master recovers from its journal" wait_for 30 \
  grep -q 'recovery done' "$T/master.log"
check "... with the executor re-adopted" grep -q '1 executors re-adopted, 0 lost' \
  "$T/master.log"
kill -TERM "$PID_w1"; wait "$PID_w1"; rc=$?
check "worker exits 0 under valgrind (status $rc)" test "$rc" -eq 0
kill -TERM "$APP_PID"; wait "$APP_PID"
kill -TERM "$MASTER_PID"; wait "$MASTER_PID"; rc=$?
check "master exits 0 under valgrind (status $rc)" test "$rc" -eq 0
check "no valgrind report" no_valgrind_report
finish
