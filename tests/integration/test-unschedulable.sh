#!/usr/bin/env bash
# Why an application waits (issue 42 item 13, issue 41's "a reason for
# every wait"), with real workers of 2 cores and 2 GiB on loopback: no
# worker alive, 64 GiB per executor, 8 cores per executor, a custom
# resource nobody offers, a cluster-mode driver too large for any
# worker, and the cores held by another application.  Each reason is
# checked field by field ({code, reason}) in hearth-tail --state --json,
# hearth-admin apps (--json and its table), the master's /json, and
# where the driver hears it.  Then --unschedulable-timeout: at 2s an
# application of 64 GiB fails with the reason (hearth-submit exits 1
# printing it), and so does a cluster-mode driver of 64 GiB; with time
# to spare, a worker large enough registering lets the application run.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
. "$(dirname "$0")/../web/web.sh"
deadline 170

J=$(job quick '{"name":"quick","stages":[{"name":"s","tasks":[{"cmd":["echo","done"]}]}]}')

# submit_bg NAME ARGS...: hearth-submit of the job as application NAME
# in the background, output in $T/NAME.out and .err; sets SUBMIT_PID and
# PID_NAME.
submit_bg() {
  local name=$1; shift
  "$BIN/hearth-submit" --master "$MASTER_URL" --name "$name" \
    --heartbeat-interval "${INTERVAL_MS}ms" --heartbeat-liveness "$LIVENESS" \
    "$@" "$J" >"$T/$name.out" 2>"$T/$name.err" &
  SUBMIT_PID=$!
  PIDS+=($SUBMIT_PID)
  printf -v "PID_$name" '%s' "$SUBMIT_PID"
}
# driver_bg NAME ARGS...: a cluster-mode driver of the job as NAME, not
# followed (--no-wait); prints its id.
driver_bg() {
  local name=$1; shift
  "$BIN/hearth-submit" --master "$MASTER_URL" --deploy-mode cluster --no-wait \
    --name "$name" "$@" "$J" 2>"$T/$name.err"
}
# jqs ARGS... FILTER: true when jq's filter yields true on the state.
jqs() { state_json | jq -e "$@" >/dev/null; }
# waiting_is NAME CODE REASON: application NAME is WAITING with that
# waiting object, field by field, in hearth-tail --state --json.
waiting_is() {
  jqs --arg n "$1" --arg c "$2" --arg r "$3" \
    '[.apps[] | select(.name == $n)] | length == 1 and (.[0] |
      .state == "WAITING" and .waiting.code == $c and .waiting.reason == $r
      and (.waiting | keys) == ["code", "reason"])'
}
# driver_waits ID CODE REASON: the cluster-mode driver is SUBMITTED with
# that waiting object.
driver_waits() {
  jqs --arg id "$1" --arg c "$2" --arg r "$3" \
    '.drivers[] | select(.id == $id) | .state == "SUBMITTED"
      and .waiting == {code: $c, reason: $r}'
}
admin() { "$BIN/hearth-admin" --master "$MASTER_URL" "$@"; }
# admin_json_is LIST NAME CODE REASON: hearth-admin LIST --json's row.
admin_json_is() {
  admin "$1" --name "$2" --json |
    jq -e --arg c "$3" --arg r "$4" '.waiting == {code: $c, reason: $r}' >/dev/null
}
# admin_table_has LIST NAME CODE REASON: "  waiting: REASON (CODE)" under
# the row of hearth-admin LIST.
admin_table_has() { admin "$1" --name "$2" | grep -qxF "  waiting: $4 ($3)"; }
# spark_is LIST NAME CODE REASON: the entry NAME of /json's LIST.
spark_is() {
  web_curl -sf "$(state_json | jq -r .web_url)/json" |
    jq -e --arg l "$1" --arg n "$2" --arg c "$3" --arg r "$4" \
      '[.[$l][] | select(.name == $n or .mainclass == $n)][0].waiting
        == {code: $c, reason: $r}' >/dev/null
}
# shown NAME CODE REASON [apps|drivers]: the same waiting in hearth-admin
# (--json and its table) and in /json.
shown() {
  local what=${4:-apps} list=activeapps
  [[ $what == drivers ]] && list=activedrivers
  check "... in hearth-admin $what --json" admin_json_is "$what" "$1" "$2" "$3"
  check "... in hearth-admin $what's table" admin_table_has "$what" "$1" "$2" "$3"
  check "... in /json's $list" spark_is "$list" "$1" "$2" "$3"
}

# --- never: each cause, on a master that never gives up (0) ----------------
start_master --unschedulable-timeout 0 || exit 1
# (--log-level info: the driver says a wait for workers at INFO at once,
# at WARN when it lasts)
submit_bg big --executor-memory 64G --log-level info
R="no worker is alive"
check "no worker alive: the application waits, saying so" \
  wait_for 10 waiting_is big no_worker "$R"
shown big no_worker "$R"
check "... and its driver hears it (APPLICATION_WAITING)" wait_for 5 grep -qF \
  "the master holds the application back: $R (no_worker)" "$T/big.err"

CORES=2 MEMORY=2G start_worker w1 || exit 1
CORES=2 MEMORY=2G start_worker w2 || exit 1
R="asks 64 GiB per executor; the largest worker offers 2 GiB"
check "64 GiB per executor on 2 GiB workers: it says so" \
  wait_for 10 waiting_is big too_much_memory "$R"
shown big too_much_memory "$R"
check "... its driver hears the new reason" wait_for 5 grep -qF \
  "the master holds the application back: $R (too_much_memory)" "$T/big.err"
check "... in the master's log" \
  grep -qF "waits: $R (too_much_memory)" "$T/master.log"

submit_bg wide --executor-cores 8 --executor-memory 256M
R="asks 8 cores per executor; the most any worker has is 2"
check "8 cores per executor on 2-core workers: it says so" \
  wait_for 10 waiting_is wide too_many_cores "$R"
shown wide too_many_cores "$R"

submit_bg gpu --executor-resource gpu=1 --executor-memory 256M
R="each executor asks for 1 gpu; the most any live worker has is 0"
check "a custom resource nobody offers: it says so" \
  wait_for 10 waiting_is gpu resource_missing "$R"
shown gpu resource_missing "$R"

# A cluster-mode driver larger than any worker: SUBMITTED, saying why.
D=$(driver_bg bigdriver --driver-memory 64G)
R="asks 64 GiB for the driver; the largest worker offers 2 GiB"
check "a 64 GiB cluster-mode driver waits, saying so" \
  wait_for 10 driver_waits "$D" too_much_memory "$R"
shown bigdriver too_much_memory "$R" drivers
check "... and --status says it" eval '"$BIN/hearth-submit" --master "$MASTER_URL" \
  --status "$D" 2>&1 | grep -qF "$R (too_much_memory)"'
D=$(driver_bg widedriver --driver-cores 8 --driver-memory 256M)
check "an 8-core cluster-mode driver waits, saying so" wait_for 10 driver_waits \
  "$D" too_many_cores "asks 8 cores for the driver; the most any worker has is 2"

# Every core held by another application: it waits for them, naming it.
start_app hog --max-cores 4 --cores-per-executor 1 --memory-mb 256 || exit 1
HOG=$APP_ID
check "another application takes the 4 cores" wait_for 10 \
  jq_state '[.workers[].cores_used] | add == 4'
submit_bg late --executor-memory 256M
LATE_PID=$SUBMIT_PID
R="no worker has room for one executor (1 core, 256 MiB) now: it waits for the cores held by $HOG (hog)"
check "a later application waits for the cores the first holds, naming it" \
  wait_for 10 waiting_is late cluster_full "$R"
shown late cluster_full "$R"
kill -TERM "$APP_PID"
check "the first ends: the later one runs its job (exit 0)" \
  wait_for 30 bash -c "! kill -0 $LATE_PID"
wait "$LATE_PID"
check "... exit 0" test $? -eq 0
check "... with its result" grep -qx done "$T/late.out"
check "... and no waiting once it ran" jq_state \
  '[.apps[] | select(.name == "late")][0] | .state == "FINISHED" and (has("waiting") | not)'

R="asks 64 GiB per executor; the largest worker offers 2 GiB"
check "its driver's warning of no executor after 10 s repeats the reason" \
  wait_for 15 grep -qE "no executor after [0-9]+ s: the master says asks 64 GiB per executor; the largest worker offers 2 GiB \(too_much_memory\)" "$T/big.err"
check "--unschedulable-timeout 0: the application still waits" \
  waiting_is big too_much_memory "$R"
kill -TERM "$MASTER_PID" "$PID_w1" "$PID_w2" "$PID_big" "$PID_wide" "$PID_gpu"
wait "$MASTER_PID" "$PID_w1" "$PID_w2" "$PID_big" "$PID_wide" "$PID_gpu" 2>/dev/null

# --- --unschedulable-timeout 2s: it fails with the reason -------------------
start_master --unschedulable-timeout 2s || exit 1
CORES=2 MEMORY=2G start_worker w3 || exit 1
submit --master "$MASTER_URL" --name doomed --executor-memory 64G "$J"
check "an application of 64 GiB on 2 GiB workers: hearth-submit exits 1" test $? -eq 1
END="unschedulable for 2s (--unschedulable-timeout): $R"
check "... printing why" grep -qF "$END" "$T/err"
check "... the application FAILED with that reason" jqs --arg r "$END" \
  '[.apps[] | select(.name == "doomed")][0] | .state == "FAILED" and .reason == $r'
check "... as the master logs" grep -qF "FAILED: $END" "$T/master.log"

submit --master "$MASTER_URL" --deploy-mode cluster --name doomeddriver \
  --driver-memory 64G "$J"
check "a cluster-mode driver of 64 GiB: hearth-submit exits 1" test $? -eq 1
END="unschedulable for 2s (--unschedulable-timeout): asks 64 GiB for the driver; the largest worker offers 2 GiB"
check "... printing why" grep -qF "FAILED: $END" "$T/err"
check "... the driver FAILED with that error, never launched" jqs --arg r "$END" \
  '[.drivers[] | select(.name == "doomeddriver")][0]
    | .state == "FAILED" and .error == $r and .launches == 0'
kill -TERM "$MASTER_PID" "$PID_w3"
wait "$MASTER_PID" "$PID_w3" 2>/dev/null

# --- a worker that could hold it registers in time: it runs -----------------
start_master --unschedulable-timeout 60s || exit 1
CORES=2 MEMORY=2G start_worker w4 || exit 1
submit_bg saved --executor-memory 64G
check "an application of 64 GiB waits on 2 GiB workers" \
  wait_for 10 waiting_is saved too_much_memory "$R"
CORES=2 MEMORY=64G start_worker w5 || exit 1
check "a 64 GiB worker registers: the application runs its job" \
  wait_for 30 bash -c "! kill -0 $SUBMIT_PID"
wait "$SUBMIT_PID"
check "... exit 0" test $? -eq 0
check "... with its result" grep -qx done "$T/saved.out"
finish
