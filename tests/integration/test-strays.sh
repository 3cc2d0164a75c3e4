#!/usr/bin/env bash
# What a task leaves behind is found by where it is, not by what its
# environment says (issue 35 item 5; docs/failures.md, "Strays"): a
# command task starts a process that clears its environment (env -i: no
# marker left) and leaves its session and process group (setsid), then
# its executor is killed with SIGKILL:
# - without cgroups (--isolation none): the process, re-parented to the
#   worker (its subreaper), is killed and reaped;
# - with cgroups (as root, where they can be made): while the executor
#   runs, the process stays (it is in the executor's group); once the
#   executor is killed, it goes with the group, and is reaped.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 150
export TMPDIR=$T

start_master || exit 1

# stray_job NAME: a job whose task leaves a stray, writing its pid to
# $T/NAME.pid and the stray's shell's environment to $T/NAME.env.
stray_job() {
  job "$1" "{\"name\":\"$1\",\"stages\":[{\"name\":\"s\",\"tasks\":[{\"cmd\":[\"sh\",\"-c\",
    \"env -i setsid sh -c 'env >$T/$1.env; sleep 1000 & echo \$! >$T/$1.pid'; sleep 300\"]}]}]}"
}
# executor_of WORKER: the pid of the (one) executor running on it.
executor_of() {
  local p
  for p in $(procs_in "$T/$1"); do
    [[ $(cat "/proc/$p/comm" 2>/dev/null) == hearth-executor ]] && echo "$p"
  done
  return 0
}
# gone PID: not even a zombie (reaped).
gone() { [[ ! -e /proc/$1 ]]; }
# stray_case NAME WORKER: run the job on WORKER, wait for its stray; sets
# STRAY and EXEC.
stray_case() {
  rm -f "$T/$1.pid"
  "$BIN/hearth-submit" --heartbeat-interval "${INTERVAL_MS}ms" \
    --master "$MASTER_URL" --total-executor-cores 1 "$(stray_job "$1")" \
    >"$T/$1.out" 2>"$T/$1.err" &
  SUB=$!
  PIDS+=($SUB)
  wait_for 20 test -s "$T/$1.pid" || return 1
  STRAY=$(cat "$T/$1.pid")
  EXEC=$(executor_of "$2")
  [[ -n $EXEC ]]
}
# end_job: stop the job (its task would run again on a new executor),
# and wait for the master to have ended its application.
end_job() {
  kill -TERM "$SUB"
  wait "$SUB"
  wait_for 10 jq_state '[.apps[] | select(.state == "WAITING" or .state == "RUNNING")] | length == 0'
}

# --- without cgroups -------------------------------------------------------
CORES=1 start_worker w1 --isolation none || exit 1
check "a task leaves a stray" stray_case plain w1
check "... its environment has no marker (env -i)" \
  eval '! grep -q HEARTH_WORKER_ "$T/plain.env"'
check "... it left its session (setsid)" \
  test "$(ps -o sid= -p "$STRAY" 2>/dev/null | tr -d ' ')" != "$(ps -o sid= -p "$EXEC" | tr -d ' ')"
kill -KILL "$EXEC"
check "its executor killed, the stray is killed and reaped" wait_for 10 gone "$STRAY"
check "... and the worker says so" \
  wait_for 5 grep -q "killed [0-9]* processes that tasks left behind" "$T/w1.log"
end_job
pid_var=PID_w1
kill -INT "${!pid_var}"
wait "${!pid_var}"

# --- with cgroups ----------------------------------------------------------
if [[ $(id -u) != 0 ]] || ! grep -q ' - cgroup2\? ' /proc/self/mountinfo; then
  say "SKIP: the cgroup case needs root and a cgroup hierarchy"
  finish
  exit
fi
CORES=1 start_worker w2 --isolation cgroup || exit 1
check "a task leaves a stray in its executor's cgroup" stray_case grouped w2
sleep 2 # more than a sweep's period
check "... which stays while its executor runs: it is in the executor's group" \
  kill -0 "$STRAY"
kill -KILL "$EXEC"
check "its executor killed, the stray goes with its group, reaped" \
  wait_for 10 gone "$STRAY"
end_job
finish
