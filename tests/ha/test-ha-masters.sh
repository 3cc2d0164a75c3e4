#!/usr/bin/env bash
# Standby masters elected through a real ZooKeeper (master/ha.c, issue
# 17): three hearth-master processes with --zookeeper on random ports.
# Masters started before ZooKeeper elect one leader once it is up; the
# standbys answer `standby` naming the leader's URL (MASTER_STATE, the
# web page and /api/v1/state); kill -9 of the leader: another leads
# after the session expires, with a higher epoch (in its answers and its
# log), and its state holds the worker and application registered with
# the old leader (the journal streamed to the standbys); SIGTERM hands over in a round trip; a frozen
# ZooKeeper (SIGSTOP) suspends the leader, which then places nothing (a
# registered worker gets no executor for a new application); a leader
# frozen past its session re-executes itself (same pid) and comes back
# as a standby.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/zk.sh"
deadline 300

zk_require
SESSION=${SESSION:-3000}
ZKP=$(zk_free_port)
ZK=127.0.0.1:$ZKP

. "$(dirname "$0")/../lib/hamasters.sh"
. "$(dirname "$0")/../web/web.sh"
quiet_jq() { jq -e "$@" >/dev/null; }

# 0. Bad options: a clear error and exit 1, before anything starts.
# bad_opts MESSAGE ARGS...: hearth-master ARGS exits 1 saying MESSAGE.
bad_opts() {
  local msg=$1 out rc; shift
  out=$("$BIN/hearth-master" --port 0 --events-port 0 --web-port 0 "$@" 2>&1)
  rc=$?
  [[ $rc == 1 && $out == *"$msg"* ]] || { say "exit $rc: $out"; return 1; }
}
check "--zookeeper without --journal is refused" \
  bad_opts "--zookeeper needs --journal DIR" --zookeeper "$ZK"
check "a bad --zookeeper is refused" \
  bad_opts "bad value for zookeeper: 'nohost'" --zookeeper nohost --journal "$T/j"
check "a bad --zookeeper-dir is refused" \
  bad_opts "bad value for zookeeper-dir" --zookeeper "$ZK" --zookeeper-dir rel --journal "$T/j"
check "a bad --zookeeper-session is refused" \
  bad_opts "bad value for zookeeper-session" --zookeeper "$ZK" --zookeeper-session 10ms --journal "$T/j"
HEARTH_ZOOKEEPER=bad:port check "HEARTH_ZOOKEEPER is read like the flag" \
  bad_opts "bad value for zookeeper: 'bad:port'" --journal "$T/j"

# 1. Masters before ZooKeeper: nobody leads, everyone is a standby that
# knows no leader; then ZooKeeper comes up and they elect one.
for n in a b c; do start_ha $n || { fail "master $n starts"; finish; exit 1; }; done
check "without ZooKeeper, every master answers 'standby; no leader is known'" \
  eval '[[ $(role a) == STANDBY:none && $(role b) == STANDBY:none && $(role c) == STANDBY:none ]]'
start_zk z1 "$ZKP" || { fail "ZooKeeper starts on $ZKP"; finish; exit 1; }
check "once ZooKeeper is up, exactly one master leads and the others name its URL" \
  wait_for 30 settled
L1=$LEADER E1=$(epoch "$LEADER")
say "leader $L1 (${URL[$L1]}), epoch $E1"
check "its MASTER_STATE_RESPONSE carries its epoch ($E1)" test "$E1" -ge 1
check "its log says it leads with that epoch" grep -q "LEADER with epoch $E1 " "$T/$L1.log"
S=$(for n in a b c; do [[ $n != "$L1" ]] && echo $n; done | head -1)
check "a standby's /api/v1/state says STANDBY and names the leader" eval \
  'web_curl -sf "http://127.0.0.1:${WEB[$S]}/api/v1/state" | jq -e --arg l "${URL[$L1]}" ".status == \"STANDBY\" and .leader == \$l" >/dev/null'
check "a standby's web page says STANDBY and names the leader" eval \
  'web_curl -sf "http://127.0.0.1:${WEB[$S]}/" | grep -q STANDBY && web_curl -sf "http://127.0.0.1:${WEB[$S]}/" | grep -qF "${URL[$L1]}"'
check "the leader's /api/v1/state says ALIVE, role LEADER" eval \
  'web_curl -sf "http://127.0.0.1:${WEB[$L1]}/api/v1/state" | jq -e ".status == \"ALIVE\" and .role == \"LEADER\"" >/dev/null'

# 2. The standbys follow the leader's journal: a worker and a running
# application registered with the leader are in the new leader's state
# right after a kill -9 (they point at the old URL, so none of it comes
# from a re-registration).
MASTER_URL=${URL[$L1]}
start_worker w0 || fail "a worker registers with the leader"
KEPT_WORKER=$WORKER_ID
start_app kept --max-cores 1 --memory-mb 128 || fail "an application registers with the leader"
KEPT_APP=$APP_ID
check "its executor runs" wait_for 15 grep -q '^EXECUTOR_REGISTERED 0 ' "$T/kept.out"
for n in a b c; do
  [[ $n == "$L1" ]] && continue
  check "standby $n wrote the leader's state into its journal" \
    wait_for 10 grep -q "follow: the leader's state is in journal" "$T/$n.log"
done
check "the leader streams its journal to both standbys" \
  test "$(grep -c 'follows the journal: stream' "$T/$L1.log")" -ge 2
sleep 0.5 # the executor's record reaches the standbys with the next turn

# kill -9 of the leader: its node lives until its session expires.
t0=$(now_ms)
stop_ha "$L1" KILL
check "after kill -9 of the leader, another one leads" wait_for $((SESSION / 1000 + 10)) settled
took=$(($(now_ms) - t0))
L2=$LEADER E2=$(epoch "$LEADER")
say "failover after kill -9: $L2 leads after $took ms (session $SESSION ms), epoch $E2"
check "... within the session time and a margin ($took ms <= $((SESSION + 4000)))" test "$took" -le $((SESSION + 4000))
check "... with a higher epoch ($E2 > $E1)" test "$E2" -gt "$E1"
check "... which its log names" grep -q "LEADER with epoch $E2 " "$T/$L2.log"
ask "$L2" >"$T/after.json"
check "the new leader's state lists the worker of the old one (UNKNOWN)" \
  quiet_jq --arg w "$KEPT_WORKER" '[.workers[] | select(.id == $w and .state == "UNKNOWN")] | length == 1' "$T/after.json"
check "... and its running application" \
  quiet_jq --arg a "$KEPT_APP" '[.apps[] | select(.id == $a and .state == "RUNNING")] | length == 1' "$T/after.json"
check "... and is RECOVERING, waiting for them" quiet_jq '.status == "RECOVERING"' "$T/after.json"
check "... with the executor counted on the worker" \
  quiet_jq --arg w "$KEPT_WORKER" '[.workers[] | select(.id == $w)][0].cores_used == 1' "$T/after.json"
start_ha "$L1" || fail "the killed master starts again"
check "the killed master, started again, is a standby naming the new leader" wait_for 15 settled

# 3. SIGTERM of the leader: it closes its session, the next leads in a
# round trip.
t0=$(now_ms)
stop_ha "$L2" TERM
check "the leader stopped by SIGTERM exits 0" test "$RC" -eq 0
check "after SIGTERM of the leader, another one leads" wait_for 10 settled
took=$(($(now_ms) - t0))
say "handover after SIGTERM: $LEADER leads after $took ms"
check "... well under the session time ($took ms < $((SESSION / 2)) ms)" test "$took" -lt $((SESSION / 2))
start_ha "$L2" || fail "the stopped master starts again"
check "three masters again, one leading" wait_for 15 settled

# 4. ZooKeeper frozen: the leader suspends itself and places nothing; a
# worker registered with it gets no executor for a new application.
L3=$LEADER E3=$(epoch "$LEADER")
MASTER_URL=${URL[$L3]}
start_worker w1 || fail "a worker registers with the leader"
kill -STOP "${ZK_PID[z1]}"
check "with ZooKeeper frozen, the leader logs that it is suspended" \
  wait_for $((SESSION / 1000 + 5)) grep -q "SUSPENDED (epoch $E3)" "$T/$L3.log"
start_app frozen --max-cores 1 --memory-mb 128 || fail "an application registers with the suspended leader"
sleep 1
check "while suspended, no executor is launched for it" \
  eval '! grep -q "launching executor $APP_ID/" "$T/$L3.log" && ! grep -q "^EXECUTOR_ADDED" "$T/frozen.out"'
kill -CONT "${ZK_PID[z1]}"
check "ZooKeeper thawed: one leader again" wait_for 30 settled
if [[ $LEADER == "$L3" && $(epoch "$L3") == "$E3" ]]; then
  check "the same leader, back on its session, launches the executor" \
    wait_for 10 grep -q "^EXECUTOR_ADDED" "$T/frozen.out"
else
  say "the leader's session expired while ZooKeeper was frozen: $LEADER leads now"
fi
kill -TERM "$APP_PID" 2>/dev/null

# 5. A leader frozen past its session (SIGSTOP of the process) is
# replaced; thawed, it finds its role lost for good, re-executes itself
# in the same process and is a standby of the new leader.
L4=$LEADER E4=$(epoch "$LEADER")
kill -STOP "${MPID[$L4]}"
# another_leads NAME: a live master other than NAME leads
another_leads() {
  local n
  for n in $(alive); do [[ $n != "$1" && $(role "$n") == LEADER ]] && return 0; done
  return 1
}
check "with the leader frozen, another one leads" \
  wait_for $((SESSION / 1000 + 10)) another_leads "$L4"
kill -CONT "${MPID[$L4]}"
check "thawed, the old leader logs that its leadership is lost for good" \
  wait_for 10 grep -q "the leadership of epoch $E4 is lost for good" "$T/$L4.log"
check "... re-executes itself under the same pid" \
  wait_for 10 eval '[[ $(grep -c "master .* up (events" "$T/$L4.log") -ge 2 ]] && kill -0 '"${MPID[$L4]}"
check "... and is a standby of the new leader" wait_for 15 settled
check "the new leader's epoch is higher ($(epoch "$LEADER") > $E4)" test "$(epoch "$LEADER")" -gt "$E4"

for n in $(alive); do
  stop_ha "$n" TERM
  check "master $n stopped by SIGTERM exits 0" test "$RC" -eq 0
done
stop_zk z1
finish
