#!/usr/bin/env bash
# ZooKeeper's nodes are not the cluster's weak point (issue 35 item 4):
# two real masters on a real ZooKeeper, a worker given both.
#  (a) The leader watches its own node: deleted (zkCli, as the masters'
#      identity), the leader stops leading at once and the other master
#      leads: one LEADER again, not two.
#  (b) Rewritten to a foreign URL (a stand-in master, standby-peer's
#      "stale" leader, that records what it is sent): the leader stops
#      leading; the stand-in is sent nothing by the masters or the worker.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/zk.sh"
deadline 240

zk_require
SESSION=${SESSION:-3000}
ZKP=$(zk_free_port)
ZK=127.0.0.1:$ZKP
ZKDIR=/hearth-guard
. "$(dirname "$0")/../lib/hamasters.sh"
PEER=${HEARTH_PEER:-$BIN/tests/ha/standby-peer}

# zkcli COMMAND...: one zkCli.sh session running the commands (one per
# argument); its output, without the client's chatter.
zkcli() {
  printf '%s\n' "$@" quit |
    ZOO_LOG_DIR=$T ZOO_LOG4J_PROP=ERROR,CONSOLE timeout 30 \
      /usr/share/zookeeper/bin/zkCli.sh -server "$ZK" 2>&1 |
    grep -v -e SLF4J -e WATCHER -e WatchedEvent -e '^Connecting' \
      -e '^Welcome' -e '^JLine' -e '^$'
}
# leader_node: the election's lowest node (the leader's), by sequence.
leader_node() {
  zkcli "ls $ZKDIR/election" | grep '^\[' | tr -d '[] ' | tr ',' '\n' |
    sort -t_ -k3 | head -1
}

# Fixed ports: the list the worker is given stays true across
# re-executions.
PA=$(zk_free_port) PB=$(zk_free_port)
URL[a]=tcp://127.0.0.1:$PA URL[b]=tcp://127.0.0.1:$PB
HA_SAME_PORT=1
LIST="${URL[a]},${URL[b]}"

start_zk z1 "$ZKP" || { fail "ZooKeeper starts on $ZKP"; finish; exit 1; }
start_ha a || { fail "master a starts"; finish; exit 1; }
check "(master a leads)" wait_for 30 eval '[[ $(role a) == LEADER ]]'
start_ha b || { fail "master b starts"; finish; exit 1; }
check "(master b is its standby)" wait_for 30 settled
MASTER_URL=$LIST CORES=1 start_worker w1 || { finish; exit 1; }

# --- (a) the leader's node deleted -------------------------------------------
L=$LEADER E=$(epoch "$LEADER") N=$(leader_node)
say "leader $L (epoch $E), node $N"
zkcli "delete $ZKDIR/election/$N" >"$T/delete.out"
check "(a) after its node is deleted, exactly one master leads again" \
  wait_for 5 eval 'settled && [[ $LEADER != '"$L"' ]]'
check "... the other one, with a higher epoch" test "$(epoch "$LEADER")" -gt "$E"
check "... the old leader said why it stopped leading" \
  grep -q "SUSPENDED (epoch $E): the election's node of this candidate is gone" "$T/$L.log"
check "... and is a standby naming the new leader" wait_for 15 settled

# --- (b) the leader's node rewritten to a foreign URL ------------------------
"$PEER" stale >"$T/foreign.out" 2>"$T/foreign.err" &
PIDS+=($!)
wait_for 5 grep -q '^READY ' "$T/foreign.out" || { fail "the stand-in starts"; finish; exit 1; }
FOREIGN=$(awk '/^READY /{print $2; exit}' "$T/foreign.out")
L=$LEADER E=$(epoch "$LEADER") N=$(leader_node)
zkcli "set $ZKDIR/election/$N {\"url\":\"$FOREIGN\",\"events_url\":\"$FOREIGN\"}" >"$T/set.out"
check "(b) after its node is rewritten, the leader stops leading" \
  wait_for 10 grep -q "SUSPENDED (epoch $E): the data of the election's node of this candidate was changed" "$T/$L.log"
check "... and one master leads again" wait_for $((SESSION / 1000 + 10)) settled
check "(b) the worker is ALIVE at the leader" \
  wait_for 20 eval 'MASTER_URL=${URL[$LEADER]} jq_state "[.workers[] | select(.state == \"ALIVE\")] | length == 1"'
check "... and nobody sent the foreign URL anything" \
  eval '! grep -q "^GOT" "$T/foreign.out"'

for n in $(alive); do
  stop_ha "$n" TERM
  check "master $n stopped by SIGTERM exits 0" test "$RC" -eq 0
done
stop_zk z1
finish
