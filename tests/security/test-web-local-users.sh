#!/usr/bin/env bash
# The web pages bound to loopback serve no other local user what the
# cluster keeps from it (docs/security.md, "Local users", "Tasks run as
# their submitter"):
# - on a keyed cluster whose root worker runs each task as its key's user,
#   a task of alice's (user nobody) cannot read bob's (user daemon)
#   executor log through the worker's own pages on 127.0.0.1 (/log), when
#   it cannot read the file itself;
# - on a keyless loopback cluster, which admits only its user's tools
#   (the local cookie), the user nobody reads neither the master's state
#   (/api/v1/state) nor an executor's log (/log) through the pages.
# Root only: its tasks and tools run as nobody and daemon.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
. "$(dirname "$0")/../lib/security.sh"
. "$(dirname "$0")/../web/web.sh"
need_nobody "its tasks run as nobody and daemon"
id -u daemon >/dev/null 2>&1 || { echo "$TEST_NAME: SKIPPED: no user daemon"; exit 77; }
deadline 180
export TMPDIR=$T
SECRET=bob-secret-$RANDOM$RANDOM
BASE=$(free_port_range 4)
W=http://127.0.0.1:$((BASE + 1))

# --- a keyed cluster: alice's task, bob's log -------------------------------
user_cluster "alice=nobody bob=daemon" --web-port "$BASE" ||
  { fail "keys and a master"; finish; exit 1; }
# shellcheck disable=SC2046
CORES=2 start_worker w1 $(client_keys w1) --conf allow-root-tasks=false \
  --web-port "$((BASE + 1))" || exit 1
# as KEY ARGS...: hearth-submit as KEY (stdout $T/out, stderr $T/err).
as() {
  local key=$1; shift
  # shellcheck disable=SC2046
  submit --master "$MASTER_URL" $(client_keys "$key") --log-level info "$@"
}
BOB=$(job bob "{\"name\":\"bob\",\"stages\":[{\"name\":\"s\",\"tasks\":[
  {\"cmd\":[\"sh\",\"-c\",\"echo $SECRET >&2\"]}]}]}")
check "bob's job runs" as bob --total-executor-cores 1 "$BOB"
B_APP=$(sed -n 's/.*application \(app-[0-9-]*\) registered.*/\1/p' "$T/err" | head -1)
check "... its task's stderr is in his executor's log" \
  grep -q "$SECRET" "$T/w1/$B_APP/0/stderr"
LOG="$W/log?app=$B_APP&exec=0&stream=stderr"
PEEK=$(job peek "{\"name\":\"peek\",\"stages\":[{\"name\":\"s\",\"tasks\":[
  {\"cmd\":[\"sh\",\"-c\",\"id -u; cat $T/w1/$B_APP/0/stderr || echo NO-FILE; curl -s '$LOG'\"]}]}]}")
check "alice's job runs beside it" as alice --total-executor-cores 1 "$PEEK"
check "... its task runs as nobody" grep -qx "$(id -u nobody)" "$T/out"
check "... and cannot read bob's log file" grep -qx NO-FILE "$T/out"
check "... nor read it through the worker's pages" eval "! grep -q '$SECRET' '$T/out'"
kill -TERM "$MASTER_PID" "$PID_w1"
wait "$MASTER_PID" "$PID_w1"

# --- a keyless loopback cluster: nobody and the pages ------------------------
start_master --web-port "$((BASE + 2))" || exit 1
CORES=2 start_worker w2 --web-port "$((BASE + 3))" || exit 1
ROOTS=$(job roots "{\"name\":\"roots-job\",\"stages\":[{\"name\":\"s\",\"tasks\":[
  {\"cmd\":[\"sh\",\"-c\",\"echo $SECRET >&2\"]}]}]}")
check "root's job runs on the keyless cluster" \
  submit --master "$MASTER_URL" --log-level info "$ROOTS"
R_APP=$(sed -n 's/.*application \(app-[0-9-]*\) registered.*/\1/p' "$T/err" | head -1)
as_nobody "$BIN/hearth-tail" --master "$MASTER_URL" --state --timeout 2s \
  >"$T/tail.out" 2>&1
check "nobody cannot read the state through the master (the cookie)" \
  eval "! grep -q roots-job '$T/tail.out'"
as_nobody curl -s "http://127.0.0.1:$((BASE + 2))/api/v1/state" >"$T/state.out"
check "... nor through the master's pages" eval "! grep -q roots-job '$T/state.out'"
as_nobody curl -s "http://127.0.0.1:$((BASE + 3))/log?app=$R_APP&exec=0&stream=stderr" \
  >"$T/log.out"
check "nobody cannot read root's executor log through the worker's pages" \
  eval "! grep -q '$SECRET' '$T/log.out'"
finish
