#!/usr/bin/env bash
# Executors really start: the worker spawns hearth-executor in
# WORK_DIR/APP/EXEC (mode 0700) with the documented flags, its stdout and
# stderr land there, it registers with the driver; killing the
# application stops it and the directory goes after the retention; a
# worker stopped with SIGTERM stops its executors first.
. "$(dirname "$0")/../lib/cluster.sh"
deadline 90

start_master || exit 1
start_worker w1 --app-retention 1s || exit 1
start_app exec --max-cores 2 --cores-per-executor 1 --memory-mb 256 \
  --token secret-token --conf hearth.test=yes || exit 1
registered() { test "$(count_lines "$T/exec.out" '^EXECUTOR_REGISTERED ')" -ge "$1"; }
check "2 executors registered with the driver" wait_for 15 registered 2
check "both RUNNING in MASTER_STATE" wait_for 5 jq_state ".apps[] |
  select(.id == \"$APP_ID\") | [.executors[] | select(.state == \"RUNNING\")]
  | length == 2"
check "driver heard RUNNING" \
  wait_for 5 grep -q '^EXECUTOR_UPDATED 0 RUNNING worker_lost=0' "$T/exec.out"

dir=$T/w1/$APP_ID/0
check "work dir WORK_DIR/APP/EXEC exists" test -d "$dir"
check "executor dir mode 0700" test "$(stat -c %a "$dir")" = 700
check "stdout file there" test -f "$dir/stdout"
check "stderr file there" test -f "$dir/stderr"
check "stderr has the executor's log" test -s "$dir/stderr"
pid0=$(awk '/^EXECUTOR_REGISTERED 0 /{print $3}' "$T/exec.out")
args=$(tr '\0' ' ' <"/proc/$pid0/cmdline")
for want in "--driver-url tcp://127.0.0.1:" "--app-id $APP_ID" \
  "--exec-id 0" "--cores 1" "--memory-mb 256" "--host 127.0.0.1" \
  "--conf hearth.test=yes"; do
  check "executor argv has '$want'" grep -qF -- "$want" <<<"$args"
done
check "the token is not on its command line" eval '! grep -qF secret-token <<<"$args"'
check "... but in its environment" \
  grep -qxF HEARTH_TOKEN=secret-token < <(tr '\0' '\n' <"/proc/$pid0/environ")
check "its cwd is its work dir" test "$(readlink "/proc/$pid0/cwd")" = "$dir"
pids=$(awk '/^EXECUTOR_REGISTERED/{print $3}' "$T/exec.out")
gone() { local p; for p in $pids; do kill -0 "$p" 2>/dev/null && return 1; done; return 0; }
running() { local p; for p in $pids; do kill -0 "$p" 2>/dev/null || return 1; done; }
check "executor processes are running" running

"$TBIN/test-app" --master "$MASTER_URL" --kill "$APP_ID" >"$T/kill.out"
check "KILL_APPLICATION answered ok" grep -q '^KILL ok=1' "$T/kill.out"
check "driver told APPLICATION_REMOVED KILLED" \
  wait_for 5 grep -q '^APPLICATION_REMOVED KILLED' "$T/exec.out"
check "executors stopped" wait_for 5 gone
check "app KILLED in MASTER_STATE" jq_state ".apps[] | select(.id ==
  \"$APP_ID\") | .state == \"KILLED\""
check "worker cores free" wait_for 5 jq_state '.workers[0].cores_used == 0'
check "app directory removed after the retention" \
  wait_for 10 test ! -e "$T/w1/$APP_ID"
check "killing it again is refused" bash -c "'$TBIN/test-app' --master \
  '$MASTER_URL' --kill '$APP_ID' | grep -q '^KILL ok=0'"

# A clean finish: the driver unregisters, its executors are killed.
start_app fin --max-cores 1 --memory-mb 128 || exit 1
check "executor of the second app registered" wait_for 15 \
  grep -q '^EXECUTOR_REGISTERED' "$T/fin.out"
pids=$(awk '/^EXECUTOR_REGISTERED/{print $3}' "$T/fin.out")
kill -TERM "$APP_PID"; wait "$APP_PID"
check "unregistered app FINISHED" wait_for 5 jq_state ".apps[] | select(.id
  == \"$APP_ID\") | .state == \"FINISHED\""
check "its executor stopped" wait_for 5 gone

# No orphans: SIGTERM to the worker stops its executors before it exits.
start_app orphan --max-cores 2 --cores-per-executor 1 --memory-mb 128 || exit 1
check "executors of the third app registered" wait_for 15 bash -c \
  "[[ \$(grep -c '^EXECUTOR_REGISTERED' '$T/orphan.out') == 2 ]]"
pids=$(awk '/^EXECUTOR_REGISTERED/{print $3}' "$T/orphan.out")
kill -TERM "$PID_w1"; wait "$PID_w1"
check "worker exits 0 after stopping its executors" test $? -eq 0
check "no executor left behind" gone
# The worker said it was stopping (WORKER_STOPPING): the master closed its
# executors LOST at once, without waiting for their ends.
check "driver heard LOST" grep -q '^EXECUTOR_UPDATED [01] LOST' "$T/orphan.out"
finish
