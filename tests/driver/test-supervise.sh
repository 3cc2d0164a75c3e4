#!/usr/bin/env bash
# Supervised cluster-mode drivers: a driver that fails its first two runs
# is relaunched under the same id with back-off and ends FINISHED; a
# supervised driver whose worker dies is relaunched on another worker; an
# unsupervised one then ends ERROR; --kill stops a supervised driver and
# its relaunches.  Also: cluster mode on a master with CURVE keys.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 150
export TMPDIR=$T

start_master --driver-relaunch-delay 200ms --driver-relaunch-max 2s ||
  { fail "master"; finish; exit 1; }
CORES=2 MEMORY=2G start_worker w1 || fail "worker w1"
CORES=2 MEMORY=2G start_worker w2 || fail "worker w2"
M=(--master "$MASTER_URL")
CM=("${M[@]}" --deploy-mode cluster --driver-memory 256M)

# status ID: --status of a driver into $T/status; prints its state.
status() {
  "$BIN/hearth-submit" "${M[@]}" --status "$1" >"$T/status" 2>/dev/null
  awk '$1 == "state:" {print $2}' "$T/status"
}
field() { awk -v k="$1:" '$1 == k {print $2}' "$T/status"; }
launches() { status "$1" >/dev/null; field launches; }
worker_of() { status "$1" >/dev/null; field worker; }

# --- fails twice, then succeeds -------------------------------------------
cat >"$T/flaky.sh" <<'PROG'
#!/bin/sh
# $1: a marker file counting the runs
n=$(cat "$1" 2>/dev/null || echo 0)
n=$((n + 1))
echo "$n" >"$1"
echo "run $n"
if [ "$n" -le 2 ]; then
  echo "run $n fails on purpose" >&2
  exit 1
fi
echo "run $n succeeds"
PROG
chmod +x "$T/flaky.sh"
start=$(now_ms)
check "a supervised driver that fails twice ends FINISHED (submit exits 0)" \
  submit "${CM[@]}" --supervise "$T/flaky.sh" "$T/marker"
FLAKY=$(head -1 "$T/out")
elapsed=$(($(now_ms) - start))
check "... after three runs" test "$(cat "$T/marker")" = 3
check "... all under one driver id, three launches" \
  test "$(launches "$FLAKY")" = 3
check "... shown as RELAUNCHING in between" grep -q "RELAUNCHING" "$T/err"
check "... with back-off between runs (200 ms, then 400 ms)" \
  test "$elapsed" -ge 600
"$BIN/hearth-submit" "${M[@]}" --logs "$FLAKY" >"$T/logs"
check "--logs shows the last run's output" grep -qx "run 3 succeeds" "$T/logs"

# --- a supervised driver whose worker dies --------------------------------
cat >"$T/sleeper.sh" <<'PROG'
#!/bin/sh
echo "running on $(pwd)"
exec sleep 600
PROG
chmod +x "$T/sleeper.sh"
check "a long supervised driver is submitted (--no-wait)" \
  submit "${CM[@]}" --supervise --no-wait "$T/sleeper.sh"
SUP=$(head -1 "$T/out")
check "... and runs" wait_for 20 eval '[[ $(status "$SUP") == RUNNING ]]'
FIRST=$(worker_of "$SUP")
if [[ $FIRST == "$ID_w1" ]]; then VICTIM=$PID_w1 OTHER=$ID_w2; else VICTIM=$PID_w2 OTHER=$ID_w1; fi
kill9 "$VICTIM"
check "when its worker is killed it is relaunched on the other worker" \
  wait_for 20 eval '[[ $(status "$SUP") == RUNNING && $(field worker) == "$OTHER" ]]'
check "... as its second launch" test "$(launches "$SUP")" = 2
check "the dead worker is DEAD" wait_for 10 eval '[[ $(worker_state "$FIRST") == DEAD ]]'
# (The first run outlived its worker, as kill -9 stops no children; the
# test's cleanup stops it with everything else that runs in $T.)

# --- an unsupervised driver whose worker dies -----------------------------
CORES=2 MEMORY=2G start_worker w3 || fail "worker w3"
check "an unsupervised long driver is submitted" \
  submit "${CM[@]}" --no-wait "$T/sleeper.sh"
UNSUP=$(head -1 "$T/out")
check "... and runs" wait_for 20 eval '[[ $(status "$UNSUP") == RUNNING ]]'
W=$(worker_of "$UNSUP")
if [[ $W == "$ID_w3" ]]; then kill9 "$PID_w3"; else
  [[ $W == "$ID_w1" ]] && kill9 "$PID_w1"
  [[ $W == "$ID_w2" ]] && kill9 "$PID_w2"
fi
check "when its worker is killed it ends ERROR" \
  wait_for 20 eval '[[ $(status "$UNSUP") == ERROR ]]'
check "... saying the worker was lost" \
  grep -Eq "^error: +its worker $W was lost" "$T/status"

# --- --kill stops a supervised driver for good ----------------------------
cat >"$T/always.sh" <<'PROG'
#!/bin/sh
sleep 0.3
exit 7
PROG
chmod +x "$T/always.sh"
check "an always-failing supervised driver is submitted" \
  submit "${CM[@]}" --supervise --no-wait "$T/always.sh"
ALWAYS=$(head -1 "$T/out")
check "... and is relaunched" wait_for 20 eval '(( $(launches "$ALWAYS") >= 2 ))'
check "--kill stops it" "$BIN/hearth-submit" "${M[@]}" --kill "$ALWAYS"
check "... KILLED" test "$(status "$ALWAYS")" = KILLED
n=$(launches "$ALWAYS")
sleep 1.5
check "... and never launched again" test "$(launches "$ALWAYS")" = "$n"
"$BIN/hearth-submit" "${M[@]}" --kill "$SUP" >/dev/null
check "the relaunched sleeper is killed too" test "$(status "$SUP")" = KILLED
finish
