#!/usr/bin/env bash
# Every client follows the leader (issue 17, the clients' side): lists of
# master URLs (tcp://m1,tcp://m2) in the worker, the driver, the
# cluster-mode driver a worker launches, hearth-submit's requests,
# hearth-tail and hearth-admin.
#  (a) a list whose first URL has no master (a closed port): all reach the
#      second; a real job gives exactly its output; hearth-tail --state
#      shows each master's role; a tool fails naming every URL tried.
#  (b) the master killed with kill -9 under a running job, and started on
#      the same journal at the list's second URL: the worker and the
#      driver move to it and the job ends with exactly its output.
#  (c) a stand-in master (tests/ha/standby-peer): a standby naming the
#      leader is followed to the real master (worker, driver, tools) when
#      the leader is one of the client's list, and ignored, with a
#      warning, when it is not (issue 35: a foreign URL written into
#      ZooKeeper must not take the clients away); a standby naming none
#      sends the worker to the next URL; a message of an older epoch than
#      the one seen is dropped and logged.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
. "$(dirname "$0")/../lib/zk.sh" # zk_free_port: a port nobody listens on
deadline 240
export TMPDIR=$T
PEER=${HEARTH_PEER:-$BIN/tests/ha/standby-peer}
JOURNAL=$T/journal

# start_peer NAME MODE [LEADER]: a stand-in master; sets PEER_URL.
start_peer() {
  local name=$1; shift
  "$PEER" "$@" >"$T/$name.out" 2>"$T/$name.err" &
  PIDS+=($!)
  wait_for 5 grep -q '^READY ' "$T/$name.out" || return 1
  PEER_URL=$(awk '/^READY /{print $2; exit}' "$T/$name.out")
}
# job_file NAME N: a job of N echo tasks; its output expected in
# $T/NAME.expected.
job_file() {
  seq 0 $(($2 - 1)) >"$T/$1.expected"
  job "$1" "{\"name\":\"$1\",\"stages\":[{\"name\":\"s\",\"tasks\":[
    {\"cmd\":[\"sh\",\"-c\",\"sleep ${3:-0}; echo {i}\"],\"count\":$2}]}]}"
}

CLOSED=tcp://127.0.0.1:$(zk_free_port)
start_master --journal "$JOURNAL" || exit 1
M1=$MASTER_URL
LIST="$CLOSED,$M1"

# --- (a) the first URL has no master ---------------------------------------
MASTER_URL=$LIST CORES=2 start_worker w1
check "(a) a worker with a dead first URL registers with the second" \
  grep -q "registered with $M1" "$T/w1.log"
check "... saying it moved on" grep -q "master $CLOSED did not answer; trying $M1" "$T/w1.log"
J=$(job_file a 40)
submit --master "$LIST" --log-level info "$J"
check "(a) a driver with a dead first URL runs its job" test $? -eq 0
check "... with exactly its output" same "$T/out" "$T/a.expected"
check "... registered with the second" grep -q "registered with $M1" "$T/err"

submit --master "$LIST" --timeout 2s --deploy-mode cluster "$J"
check "(a) hearth-submit --deploy-mode cluster reaches the second" test $? -eq 0
ID=$(head -1 "$T/out")
check "... and its driver (given the whole list by the worker) FINISHED" \
  grep -q "driver $ID FINISHED" "$T/err"
"$BIN/hearth-submit" --master "$LIST" --timeout 2s --status "$ID" >"$T/status" 2>&1
check "(a) hearth-submit --status reaches the second" grep -q FINISHED "$T/status"
"$BIN/hearth-submit" --master "$LIST" --timeout 2s --logs "$ID" >"$T/logs" 2>&1
check "(a) hearth-submit --logs reaches the second" same "$T/logs" "$T/a.expected"
"$BIN/hearth-admin" --master "$LIST" --timeout 2s workers >"$T/admin" 2>&1
check "(a) hearth-admin reaches the second" grep -q "ALIVE" "$T/admin"
"$BIN/hearth-tail" --master "$LIST" --timeout 2s --state >"$T/state.txt" 2>&1
check "(a) hearth-tail --state shows the dead URL unreachable" \
  grep -q "^$CLOSED  unreachable" "$T/state.txt"
check "... the second ALIVE" grep -q "^$M1  ALIVE" "$T/state.txt"
check "... then the leader's state as with one URL" \
  grep -q "^MASTER $M1  ALIVE" "$T/state.txt"
"$BIN/hearth-tail" --master "$LIST" --timeout 1s --topic app --count 1 \
  >"$T/events" 2>&1 &
TAIL=$!
PIDS+=($TAIL)
sleep 2.5 # the dead URL's --timeout, then it subscribes (slow joiner)
submit --master "$LIST" "$J"
check "(a) hearth-tail follows the events of the second" wait_for 10 grep -q "app" "$T/events"
CLOSED2=tcp://127.0.0.1:$(zk_free_port)
"$BIN/hearth-admin" --master "$CLOSED,$CLOSED2" --timeout 1s workers >"$T/none" 2>&1
check "(a) a tool with no master at all fails naming every URL tried" \
  grep -qF "tried $CLOSED (no answer within 1000 ms: connection refused); $CLOSED2 (no answer within 1000 ms: connection refused)" "$T/none"
"$BIN/hearth-worker" --master "$M1,tcp://nohost" --work-dir "$T/bad" >"$T/bad.log" 2>&1
check "(a) a bad element of a list is refused, named" \
  grep -q "element 2 of the list: 'tcp://nohost': missing port" "$T/bad.log"

# --- (b) the master killed under a job, back at the list's second URL -------
M2=tcp://127.0.0.1:$(zk_free_port)
LIST2="$M1,$M2"
MASTER_URL=$LIST2 CORES=2 start_worker w2
kill -TERM "$PID_w1"
J=$(job_file b 300 0.05)
submit --master "$LIST2" --log-level info "$J" &
SUBMIT=$!
PIDS+=($SUBMIT)
check "(b) the job runs" wait_for 30 grep -q "executor .* granted" "$T/err"
sleep 1
kill9 "$MASTER_PID"
PORT=${M2##*:} start_master --journal "$JOURNAL" || exit 1
check "(b) the worker moves to the restarted master" \
  wait_for 20 grep -q "registered with $M2" "$T/w2.log"
check "... saying why" grep -q "master $M1 is silent; trying $M2" "$T/w2.log"
wait "$SUBMIT"
check "(b) the job succeeds" test $? -eq 0
check "... with exactly its output" same "$T/out" "$T/b.expected"
check "... its driver moved to the restarted master" \
  grep -q "registered again with $M2" "$T/err"
MASTER_URL=$M2

# --- (c) a stand-in standby, and a deposed leader ----------------------------
start_peer standby standby "$M2" || exit 1
SB=$PEER_URL
MASTER_URL="$SB,$M2" CORES=2 start_worker w3
check "(c) a worker follows a standby's leader (one of its list) to the real master" \
  grep -q "master $SB is a standby; following the leader $M2" "$T/w3.log"
check "... and registers there" grep -q "registered with $M2" "$T/w3.log"
J=$(job_file c 40)
submit --master "$SB,$M2" --log-level info "$J"
check "(c) a driver follows a standby's leader: its job runs" test $? -eq 0
check "... with exactly its output" same "$T/out" "$T/c.expected"
check "... saying so" grep -q "master $SB is a standby; following the leader $M2" "$T/err"
"$BIN/hearth-admin" --master "$SB,$M2" --timeout 2s workers >"$T/admin" 2>&1
check "(c) hearth-admin follows a standby's leader" grep -q "ALIVE" "$T/admin"

# A standby naming a leader that is not one of the client's masters: the
# worker, a driver and a tool warn and do not go there.
NOT_LISTED="which is not one of the masters given ($SB): ignored"
HEARTH_BIN_DIR="$T/bin" "$BIN/hearth-worker" --master "$SB" --work-dir "$T/w6" \
  --ready-file "$T/w6.ready" --heartbeat-interval "${INTERVAL_MS}ms" \
  --cores 1 --memory 1G --log-level info >"$T/w6.log" 2>&1 &
W6=$!
PIDS+=($W6)
check "(c) a worker given only a standby that names an unlisted leader warns" \
  wait_for 10 grep -qF "WARN master $SB is a standby (it names the leader $M2, $NOT_LISTED)" "$T/w6.log"
check "... and asks that standby again, not the leader" \
  wait_for 10 eval '[[ $(count_lines "$T/standby.out" "^GOT REGISTER_WORKER") -ge 4 ]]'
check "... where it never registers" eval '! grep -q "registered with" "$T/w6.log" && ! test -s "$T/w6.ready"'
kill -TERM "$W6" 2>/dev/null
"$BIN/hearth-admin" --master "$SB" --timeout 2s workers >"$T/admin" 2>&1
check "(c) hearth-admin does not follow an unlisted leader: it fails saying so" \
  eval '! grep -q "ALIVE" "$T/admin" && grep -qF "the leader is $M2, not one of the masters given" "$T/admin"'
"$BIN/hearth-tail" --master "$SB" --timeout 2s --state >"$T/state.txt" 2>&1
check "(c) hearth-tail --state does not follow it either" \
  eval '! grep -q "^MASTER $M2" "$T/state.txt" && grep -qF "the leader is $M2, not one of the masters given" "$T/state.txt"'
submit --master "$SB" --register-timeout 3s --log-level info "$J"
check "(c) nor does a driver: its registration gives up" test $? -ne 0
check "... warning about the unlisted leader" grep -qF "it names the leader $M2, $NOT_LISTED" "$T/err"
"$BIN/hearth-tail" --master "$SB,$M2" --timeout 2s --state >"$T/state.txt" 2>&1
check "(c) hearth-tail --state shows the standby and its leader" \
  grep -q "^$SB  STANDBY (leader $M2)" "$T/state.txt"

start_peer nolead standby || exit 1
NL=$PEER_URL
MASTER_URL="$NL,$M2" CORES=2 start_worker w4
check "(c) a standby naming no leader sends the worker to the next URL" \
  grep -q "registered with $M2" "$T/w4.log"

start_peer stale stale || exit 1
ST=$PEER_URL
MASTER_URL=$ST CORES=2 start_worker w5
check "(c) the stand-in leader (epoch 5) sends an older epoch's RECONNECT_WORKER" \
  wait_for 10 grep -q "SENT_STALE RECONNECT_WORKER" "$T/stale.out"
sleep 0.5
check "... which the worker drops, logged" \
  grep -q "dropped RECONNECT_WORKER from a master of epoch 3: the leader's epoch is 5" "$T/w5.log"
check "... and does not obey (one REGISTER_WORKER)" \
  test "$(count_lines "$T/stale.out" '^GOT REGISTER_WORKER')" -eq 1
J=$(job_file d 4)
submit --master "$ST" --log-level info "$J" &
SUBMIT=$!
PIDS+=($SUBMIT)
check "(c) ... RECONNECT_APPLICATION of an older epoch to the driver" \
  wait_for 10 grep -q "SENT_STALE RECONNECT_APPLICATION" "$T/stale.out"
sleep 0.5
check "... which the driver drops, logged" \
  grep -q "dropped RECONNECT_APPLICATION from a master of epoch 3: the leader's epoch is 5" "$T/err"
check "... and does not obey (one REGISTER_APPLICATION)" \
  test "$(count_lines "$T/stale.out" '^GOT REGISTER_APPLICATION')" -eq 1
kill -TERM "$SUBMIT" 2>/dev/null
finish
