#!/usr/bin/env bash
# Cgroups cleaned up, for real, in this machine's cgroup v1 hierarchies
# (skipped, saying why, when not root or when there are none):
#   A. 100 executor launches (a test driver that stops each executor as
#      soon as it registers, so that the master launches the next): once
#      the application ends, no executor group and no executor process is
#      left, and the worker's own directory is empty.
#   B. A worker killed with SIGKILL leaves its executor running in its
#      group; restarted with the same id and work dir, it finds the group,
#      kills what runs there and removes it.
#   C. A worker stopped with SIGTERM removes its own directories.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
if [[ $(id -u) != 0 ]]; then
  echo "$TEST_NAME: SKIPPED: not root (cgroups need it here)"
  exit 77
fi
if ! grep -q ' - cgroup [^ ]* [^ ]*memory' /proc/self/mountinfo; then
  echo "$TEST_NAME: SKIPPED: no cgroup v1 memory hierarchy mounted"
  exit 77
fi
deadline 240

# worker_dirs ID: the worker's directories in every hierarchy.
worker_dirs() {
  find /sys/fs/cgroup/*/ -type d -path "*/hearth/$1.*" -prune 2>/dev/null
}
# groups_of ID: its children's groups, in every hierarchy.
groups_of() {
  local d
  for d in $(worker_dirs "$1"); do
    find "$d" -mindepth 1 -maxdepth 1 -type d
  done
}
launches() { count_lines "$T/master.log" "launching executor $1/"; }

# --- A: 100 launches -------------------------------------------------------
start_master --max-executor-retries -1 || exit 1
CORES=2 MEMORY=2G start_worker w1 --isolation cgroup || exit 1
W1=$ID_w1
check "the worker made its directories" test -n "$(worker_dirs "$W1")"
start_app churn --max-cores 2 --cores-per-executor 1 --memory-mb 128 \
  --stop-executors || exit 1
CHURN=$APP_ID
hundred() { (($(launches "$CHURN") >= 100)); }
check "100 executors launched" wait_for 150 hundred
kill -TERM "$APP_PID"
wait "$APP_PID"
say "$(launches "$CHURN") launches"
check "no executor process left" wait_for 10 eval '[[ -z $(test_pids hearth-executor) ]]'
check "no executor group left" wait_for 10 eval '[[ -z $(groups_of "$W1") ]]'
check "the worker logged no group left behind" \
  eval '! grep -q "left behind" "$T/w1.log"'

# --- B: restarted after SIGKILL -------------------------------------------
start_app hold --max-cores 1 --memory-mb 128 || exit 1
check "an executor runs" wait_for 15 grep -q '^EXECUTOR_REGISTERED' "$T/hold.out"
EX=$(awk '/^EXECUTOR_REGISTERED/{print $3; exit}' "$T/hold.out")
kill -KILL "$PID_w1"
wait "$PID_w1" 2>/dev/null
check "the killed worker left its executor running" kill -0 "$EX"
check "... in its group" test -n "$(groups_of "$W1")"
kill -TERM "$APP_PID"
wait "$APP_PID"
CORES=2 MEMORY=2G start_worker w1 --isolation cgroup --id "$W1" || exit 1
check "restarted: it removed the group left by the earlier worker" \
  grep -q 'removed 1 cgroups left in .* by an earlier worker' "$T/w1.log"
check "... no group of it is left" test -z "$(groups_of "$W1")"
check "... and the executor is gone" wait_for 5 eval '! kill -0 "$EX" 2>/dev/null'

# --- C: a worker stopped removes its directories ---------------------------
kill -TERM "$PID_w1"
wait "$PID_w1"
check "stopped: its directories are removed" test -z "$(worker_dirs "$W1")"
finish
