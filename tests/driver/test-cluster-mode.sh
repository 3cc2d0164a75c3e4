#!/usr/bin/env bash
# Cluster deploy mode on a real master and two workers: a job file and a
# program handed to the master run on a worker, in WORK_DIR/DRIVER_ID/
# with their output there; --status, --logs, --kill (nothing of the
# driver left running), --no-wait, the size bound of SUBMIT_DRIVER, the
# progress said while it runs, and the drivers in hearth-tail --state.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 150
export TMPDIR=$T

start_master --max-submit-size 1M || { fail "master"; finish; exit 1; }
CORES=2 MEMORY=2G start_worker w1 || fail "worker w1"
CORES=2 MEMORY=2G start_worker w2 || fail "worker w2"
M=(--master "$MASTER_URL")
CM=("${M[@]}" --deploy-mode cluster --executor-memory 512M)

# state_of ID: the driver's state as --status prints it.
state_of() {
  "$BIN/hearth-submit" "${M[@]}" --status "$1" 2>/dev/null |
    awk '$1 == "state:" {print $2}'
}
# driver_dir ID: its directory on whichever worker ran it.
driver_dir() { ls -d "$T"/w[12]/"$1" 2>/dev/null | head -1; }

# --- a job file ----------------------------------------------------------
J=$(job count '{"name":"count","stages":[
  {"name":"map","tasks":[{"cmd":["sh","-c","echo {i}"],"count":40}]},
  {"name":"count","tasks":[{"cmd":["wc","-l"],"input":"map"}]}]}')
check "a job file submitted in cluster mode ends, submit exiting 0" \
  submit "${CM[@]}" "$J"
ID=$(head -1 "$T/out")
check "... and submit printed the driver id first" \
  grep -Eqx 'driver-[0-9]{14}-[0-9]{4,}' <<<"$ID"
check "... and followed it to FINISHED" grep -q "driver $ID FINISHED" "$T/err"
check "--status says FINISHED" test "$(state_of "$ID")" = FINISHED
"$BIN/hearth-submit" "${M[@]}" --status "$ID" >"$T/status"
check "... names its worker" \
  grep -Eq "^worker: +worker-[^ ]+ \(127\.0\.0\.1\)" "$T/status"
check "... and its exit status" grep -Eq '^exit status: +0$' "$T/status"
D=$(driver_dir "$ID")
check "it ran in WORK_DIR/DRIVER_ID on a worker" test -d "$D"
check "... made mode 0700" test "$(stat -c %a "$D")" = 700
check "... with the job file, stdout and stderr there" \
  test -f "$D/count.json" -a -f "$D/stdout" -a -f "$D/stderr"
check "... its result in stdout" grep -qx 40 "$D/stdout"

# While it follows a running driver, submit says its application's
# progress (DRIVER_STATUS's progress: the master's copy of the driver's
# APPLICATION_PROGRESS), one line when it changed, at most each 5 s.
J=$(job slow '{"name":"slow","stages":[
  {"name":"naps","tasks":[{"cmd":["sh","-c","sleep 1; echo {i}"],"count":12}]}]}')
check "a slower job in cluster mode ends, submit exiting 0" submit "${CM[@]}" "$J"
SID=$(head -1 "$T/out")
check "... and submit said its progress as it ran" \
  grep -Eq "^hearth-submit: driver $SID: [0-9]+ of 12 tasks finished, [0-9]+ running(, [0-9]+ failed attempts)?; stage naps [0-9]+/12\$" "$T/err"
"$BIN/hearth-submit" "${M[@]}" --logs "$ID" >"$T/logs"
check "--logs fetches that output through the master" same "$T/logs" "$D/stdout"
"$BIN/hearth-submit" "${M[@]}" --logs "$ID" --log-stream stderr >"$T/logs2"
check "... and --log-stream stderr its stderr" same "$T/logs2" "$D/stderr"
# jq_driver ID FILTER: the filter is true on that driver in MASTER_STATE.
jq_driver() {
  state_json | jq -e --arg id "$1" ".drivers[] | select(.id == \$id) | $2" >/dev/null
}
APP=$(state_json | jq -r --arg id "$ID" '.drivers[] | select(.id == $id) | .app_id')
check "the driver's application is linked to it" grep -q '^app-' <<<"$APP"
check "... and ended FINISHED" wait_for 5 jq_state \
  "[.apps[] | select(.id == \"$APP\" and .state == \"FINISHED\")] | length == 1"

# --- shipped libraries ---------------------------------------------------
check "the pi job runs in cluster mode, shipping libpi.so" \
  submit "${CM[@]}" --lib "$BIN/examples/libpi.so" "$SRC/examples/pi.json"
PI=$(head -1 "$T/out")
"$BIN/hearth-submit" "${M[@]}" --logs "$PI" >"$T/pi"
check "... and estimates pi on a worker" \
  grep -Eq '^Pi is roughly 3\.1[34][0-9]* \(20000000 darts' "$T/pi"

# --- a program, its arguments and environment, a failure ----------------
cat >"$T/prog.sh" <<'PROG'
#!/bin/sh
echo "id=$HEARTH_DRIVER_ID master=$HEARTH_MASTER args=$*"
echo "cwd=$(pwd)"
echo "something went wrong" >&2
exit 3
PROG
chmod +x "$T/prog.sh"
submit "${CM[@]}" "$T/prog.sh" one two
check "a failing program exits submit non-zero" test $? -ne 0
PROG=$(head -1 "$T/out")
check "... its driver FAILED" test "$(state_of "$PROG")" = FAILED
"$BIN/hearth-submit" "${M[@]}" --status "$PROG" >"$T/status"
check "... --status shows its exit status" grep -Eq '^exit status: +3$' "$T/status"
check "... and its error, with the last line of its stderr" \
  grep -Eq '^error: +exited with status 3: something went wrong' "$T/status"
"$BIN/hearth-submit" "${M[@]}" --logs "$PROG" >"$T/logs"
check "a program gets its id, the master URL and its arguments" \
  grep -qx "id=$PROG master=$MASTER_URL args=one two" "$T/logs"
check "... and runs in its directory" \
  grep -qx "cwd=$(driver_dir "$PROG")" "$T/logs"

# --- --no-wait and --kill ------------------------------------------------
L=$(job long '{"name":"long","stages":[
  {"name":"s","tasks":[{"cmd":["sleep","600"],"count":2}]}]}')
check "--no-wait returns after printing the id" \
  submit "${CM[@]}" --no-wait "$L"
LONG=$(head -1 "$T/out")
check "... and the driver runs" wait_for 20 eval '[[ $(state_of "$LONG") == RUNNING ]]'
check "... with its tasks running" wait_for 20 eval '[[ -n $(test_pids sleep) ]]'
check "--kill kills it" "$BIN/hearth-submit" "${M[@]}" --kill "$LONG"
check "... and it is KILLED" test "$(state_of "$LONG")" = KILLED
check "... with no driver, executor or task of it left running" \
  wait_for 15 eval '[[ -z $(test_pids hearth-driver; test_pids hearth-executor; test_pids sleep) ]]'
check "... and its application KILLED" wait_for 5 jq_state \
  '[.apps[] | select(.name == "long" and .state == "KILLED")] | length == 1'
"$BIN/hearth-submit" "${M[@]}" --status "$LONG" >"$T/killed.status" 2>&1
check "... its status says it was killed on request, not a line of its log" \
  grep -Eq "killed on request \(.*(signal|status)" "$T/killed.status"
check "... (no log line in it)" eval '! grep -q "hearth-driver\[" "$T/killed.status"'
"$BIN/hearth-submit" "${M[@]}" --kill "$LONG" 2>"$T/err"
check "a second --kill says it has ended" grep -q "already ended: KILLED" "$T/err"

# --- the state, as hearth-tail shows it ----------------------------------
"$BIN/hearth-tail" "${M[@]}" --state --full-ids >"$T/state"
check "hearth-tail --state lists the drivers" \
  grep -Eq "^$ID +\S+ +FINISHED .*worker-" "$T/state"
check "... and --state --json too" jq_driver "$LONG" '.state == "KILLED"'

# --- refusals --------------------------------------------------------------
head -c 2M /dev/urandom >"$T/big.so"
submit "${CM[@]}" --lib "$T/big.so" "$J"
check "an application past the master's --max-submit-size is refused" \
  grep -q "the master refused the application: the application's files are [0-9]* bytes, more than this master accepts" "$T/err"
submit "${CM[@]}" --max-submit-size 100K --lib "$T/big.so" "$J"
check "... and past submit's own bound, before sending" \
  grep -q "more than --max-submit-size" "$T/err"
"$BIN/hearth-submit" "${M[@]}" --status driver-20200101000000-9999 2>"$T/err"
check "--status of an unknown driver fails" test $? -eq 1
check "... saying so" grep -q "no such driver" "$T/err"
"$BIN/hearth-submit" "${M[@]}" --status nonsense 2>"$T/err"
check "--status of a malformed id is a usage error" test $? -eq 2
"$BIN/hearth-submit" --supervise "$J" 2>"$T/err"
check "--supervise without cluster mode is a usage error" test $? -eq 2

check "the master and workers still run" \
  kill -0 "$MASTER_PID" "$PID_w1" "$PID_w2"
finish
