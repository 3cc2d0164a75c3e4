#!/usr/bin/env bash
# ZooKeeper's nodes are not the cluster's weak point (issue 35 item 4):
# two real masters on a real ZooKeeper with credentials
# (--zookeeper-auth), a worker given both.
#  (0) A readable, empty or missing auth file stops the master at start,
#      as does a --masters list without the master's own URL.
#  (1) The nodes are the masters' (digest identity: cdrwa) and READ for
#      everyone: anonymous zkCli may not set, delete or add nodes; a
#      master without the credentials cannot join and says why.
#  (a) The leader watches its own node: deleted (zkCli, as the masters'
#      identity), the leader stops leading at once and the other master
#      leads: one LEADER again, not two.
#  (b) Rewritten to a foreign URL (a stand-in master, standby-peer's
#      "stale" leader, that records what it is sent): the leader stops
#      leading; the stand-in is sent nothing by the masters or the worker.
#  (c) A node that sorts lowest, naming the stand-in (added as the
#      masters' identity): nobody leads while it is there, and nobody
#      follows its URL (the masters' --masters, the worker's list); gone,
#      one master leads again.
#  (d) Without credentials a master warns once at start, makes its node
#      READ for everyone and its directory READ and CREATE (anonymous zkCli
#      may neither set nor delete its node), and narrows a directory made
#      open for everyone before it.
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

# refused COMMAND: anonymous zkCli is refused COMMAND.
refused() { zkcli "$1" | grep -q "Insufficient permission"; }

# --- (0) bad auth files: a clear error and exit 1 -----------------------------
# bad_auth MESSAGE [FILE CONTENT MODE]: hearth-master with that auth file
# exits 1 saying MESSAGE.
bad_auth() {
  local msg=$1 f=$T/bad.auth out rc
  rm -f "$f"
  if [[ $# -gt 1 ]]; then printf '%s' "$2" >"$f" && chmod "$3" "$f"; fi
  out=$(timeout 20 "$BIN/hearth-master" --port 0 --events-port 0 --web-port 0 \
    --zookeeper "$ZK" --journal "$T/bad.journal" --zookeeper-auth "$f" 2>&1)
  rc=$?
  [[ $rc == 1 && $out == *"$msg"* ]] || { say "exit $rc: $out"; return 1; }
}
check "(0) an auth file others may read is refused" \
  bad_auth "the ZooKeeper auth file $T/bad.auth may be read by others (mode 0644): refused; chmod 600" 'hearth:s3cret' 644
check "(0) an empty auth file is refused" \
  bad_auth "holds no credentials: its first line must be user:password" '' 600
check "(0) an auth file without user:password is refused" \
  bad_auth "holds no credentials" 's3cret' 600
check "(0) a missing auth file is refused" \
  bad_auth "bad value for zookeeper-auth: cannot read the ZooKeeper auth file $T/bad.auth: No such file"
check "(0) HEARTH_ZOOKEEPER_AUTH is read like the flag" eval \
  'out=$(HEARTH_ZOOKEEPER_AUTH=$T/none timeout 20 "$BIN/hearth-master" --port 0 --events-port 0 \
    --web-port 0 --zookeeper "$ZK" --journal "$T/bad.journal" 2>&1);
   [[ $? == 1 && $out == *"cannot read the ZooKeeper auth file $T/none"* ]]'

# bad_masters MESSAGE ARGS...: hearth-master ARGS exits 1 saying MESSAGE.
bad_masters() {
  local msg=$1 out rc; shift
  out=$(timeout 20 "$BIN/hearth-master" --events-port 0 --web-port 0 \
    --journal "$T/bad.journal" "$@" 2>&1)
  rc=$?
  [[ $rc == 1 && $out == *"$msg"* ]] || { say "exit $rc: $out"; return 1; }
}
P0=$(zk_free_port)
check "(0) a --masters list without the master's own URL is refused" \
  bad_masters "--masters does not list this master's own URL, tcp://127.0.0.1:$P0" \
  --port "$P0" --zookeeper "$ZK" --masters tcp://127.0.0.1:1,tcp://127.0.0.1:2
check "(0) --masters without --zookeeper is refused" \
  bad_masters "--masters is for standby masters: it needs --zookeeper" \
  --port 0 --masters "tcp://127.0.0.1:$P0"
check "(0) a bad --masters is refused" \
  bad_masters "bad value for masters: element 2 of the list: 'tcp://nohost': missing port" \
  --port 0 --zookeeper "$ZK" --masters "tcp://127.0.0.1:$P0,nohost"

# Fixed ports: the list of masters stays true across re-executions.
PA=$(zk_free_port) PB=$(zk_free_port)
URL[a]=tcp://127.0.0.1:$PA URL[b]=tcp://127.0.0.1:$PB
HA_SAME_PORT=1
LIST="${URL[a]},${URL[b]}"

# The masters' credentials, and their list.
CRED=hearth:$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')
(umask 077 && printf '%s\n' "$CRED" >"$T/zk.auth")
HA_MASTER_ARGS="--zookeeper-auth $T/zk.auth --masters $LIST"

start_zk z1 "$ZKP" || { fail "ZooKeeper starts on $ZKP"; finish; exit 1; }
start_ha a || { fail "master a starts"; finish; exit 1; }
check "(master a leads)" wait_for 30 eval '[[ $(role a) == LEADER ]]'
start_ha b || { fail "master b starts"; finish; exit 1; }
check "(master b is its standby)" wait_for 30 settled
MASTER_URL=$LIST CORES=1 start_worker w1 || { finish; exit 1; }

# --- (1) the nodes' ACLs -----------------------------------------------------
MASTERS_ACL=$'digest,hearth: cdrwa\nworld,anyone: r'
N=$(leader_node) L=$LEADER E=$(epoch "$LEADER")
check "(1) the cluster's directory is the masters', READ for everyone" \
  test "$(acl "$ZKDIR")" = "$MASTERS_ACL"
check "... the election's too" test "$(acl "$ZKDIR/election")" = "$MASTERS_ACL"
check "... and the leader's node ($N)" test "$(acl "$ZKDIR/election/$N")" = "$MASTERS_ACL"
check "(1) anonymous zkCli may not rewrite the leader's node" \
  refused "set $ZKDIR/election/$N {\"url\":\"tcp://127.0.0.1:1\"}"
check "... nor delete it" refused "delete $ZKDIR/election/$N"
check "... nor add a node to the election" refused "create $ZKDIR/election/n_x_0000000000 x"
check "... and the same master leads with the same epoch" \
  eval 'settled && [[ $LEADER == '"$L"' && $(epoch '"$L"') == '"$E"' ]]'
HA_MASTER_ARGS= start_ha c || fail "master c (no credentials) starts"
check "(1) a master without the credentials cannot join, and says why" \
  wait_for 10 grep -q "election at $ZKDIR/election: not authenticated: its ACL lets only the masters' credentials in; give this master theirs (--zookeeper-auth)" "$T/c.log"
check "... it leads nothing and names no leader" test "$(role c)" = STANDBY:none
stop_ha c TERM
check "... and still one master leads" settled

# --- (a) the leader's node deleted -------------------------------------------
L=$LEADER E=$(epoch "$LEADER") N=$(leader_node)
say "leader $L (epoch $E), node $N"
zkcli_as "$CRED" "delete $ZKDIR/election/$N" >"$T/delete.out"
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
zkcli_as "$CRED" "set $ZKDIR/election/$N {\"url\":\"$FOREIGN\",\"events_url\":\"$FOREIGN\"}" >"$T/set.out"
check "(b) after its node is rewritten, the leader stops leading" \
  wait_for 10 grep -q "SUSPENDED (epoch $E): the data of the election's node of this candidate was changed" "$T/$L.log"
check "... and one master leads again" wait_for $((SESSION / 1000 + 10)) settled
check "(b) the worker is ALIVE at the leader" \
  wait_for 20 eval 'MASTER_URL=${URL[$LEADER]} jq_state "[.workers[] | select(.state == \"ALIVE\")] | length == 1"'
check "... and nobody sent the foreign URL anything" \
  eval '! grep -q "^GOT" "$T/foreign.out"'

# --- (c) a fake lowest node naming a foreign URL ------------------------------
L=$LEADER E=$(epoch "$LEADER")
zkcli_as "$CRED" "create $ZKDIR/election/n_fake_0000000000 {\"url\":\"$FOREIGN\"}" >"$T/fake.out"
check "(c) with a fake lowest node, the leader stops leading" \
  wait_for 10 grep -q "the leadership of epoch $E is lost for good (another candidate's node is the lowest" "$T/$L.log"
# none_leads: every master is a standby that names no leader
none_leads() { [[ $(role a) == STANDBY:none && $(role b) == STANDBY:none ]]; }
check "... and both masters are standbys that name no leader" wait_for 15 none_leads
for n in a b; do
  check "... $n says why it does not follow the node's URL" \
    grep -qF "STANDBY: the election names the leader $FOREIGN, which is not one of --masters (${URL[a]}, ${URL[b]}): not followed" "$T/$n.log"
done
check "... the worker goes round its list" \
  wait_for 10 grep -q "is a standby (no leader named)" "$T/w1.log"
zkcli_as "$CRED" "delete $ZKDIR/election/n_fake_0000000000" >"$T/unfake.out"
check "(c) the fake node deleted, one master leads again" wait_for 15 settled
check "... the worker is ALIVE at it" \
  wait_for 20 eval 'MASTER_URL=${URL[$LEADER]} jq_state "[.workers[] | select(.state == \"ALIVE\")] | length == 1"'
check "(c) nobody sent the foreign URL anything" \
  eval '! grep -q "^GOT" "$T/foreign.out"'

# --- (d) without credentials --------------------------------------------------
# A directory made open for everyone before (zkCli's default ACL), as an
# older Hearth made them.
zkcli "create /hearth-open x" "create /hearth-open/election x" >"$T/open.out"
ZKDIR=/hearth-open HA_MASTER_ARGS= start_ha d || fail "master d (no credentials) starts"
check "(d) without credentials the master warns at start" \
  grep -q "INSECURE: no --zookeeper-auth: the election's nodes under /hearth-open are made as closed as ZooKeeper allows" "$T/d.log"
check "(d) it leads its own directory" wait_for 30 eval '[[ $(role d) == LEADER ]]'
N=$(ZKDIR=/hearth-open leader_node)
check "... its node is READ for everyone" test "$(acl "/hearth-open/election/$N")" = "world,anyone: r"
check "... anonymous zkCli may not rewrite it" refused "set /hearth-open/election/$N {}"
check "... nor delete it" refused "delete /hearth-open/election/$N"
check "(d) the directories made open before are narrowed to READ and CREATE" \
  eval '[[ $(acl /hearth-open) == "world,anyone: cr" && $(acl /hearth-open/election) == "world,anyone: cr" ]]'
check "... which it logs" grep -q "zookeeper: /hearth-open/election gave everyone the rights 'dwa' .*: narrowed to READ and CREATE for everyone" "$T/d.log"
check "(d) it still leads" test "$(role d)" = LEADER

for n in $(alive); do
  stop_ha "$n" TERM
  check "master $n stopped by SIGTERM exits 0" test "$RC" -eq 0
done
check "(d) its node went with its session, whatever its ACL" \
  eval '[[ $(zkcli "ls /hearth-open/election") == *"[]"* ]]'
stop_zk z1
finish
