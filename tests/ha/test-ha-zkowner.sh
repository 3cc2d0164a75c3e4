#!/usr/bin/env bash
# With credentials (--zookeeper-auth), nobody else may delete the leader's
# node or add a node that sorts lowest (docs/security.md, "ZooKeeper";
# docs/high-availability.md, "Securing ZooKeeper") -- also when the
# cluster's directory was made before the masters' first start by someone
# else who reaches the ensemble (a shared ZooKeeper, a predictable
# --zookeeper-dir).  In ZooKeeper the right to delete a node is the
# right DELETE on its parent, and to add one, CREATE on the parent: here
# a stranger (digest identity evil) made the directory and its election
# with every right for itself, READ for everyone and CREATE for the
# masters' address (ip:127.0.0.1), so that the masters can join.  Then,
# whatever the masters do about such a directory (refuse it, or lead in
# it, saying whose it is), the stranger must not be able to delete the
# leader's node nor to add a lowest one; before, it could both (no master
# led any more), and no master said a word about the directory.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/zk.sh"
deadline 180

zk_require
SESSION=${SESSION:-3000}
ZKP=$(zk_free_port)
ZK=127.0.0.1:$ZKP
ZKDIR=/hearth-owned
. "$(dirname "$0")/../lib/hamasters.sh"

PA=$(zk_free_port) PB=$(zk_free_port)
URL[a]=tcp://127.0.0.1:$PA URL[b]=tcp://127.0.0.1:$PB
HA_SAME_PORT=1
CRED=hearth:$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')
(umask 077 && printf '%s\n' "$CRED" >"$T/zk.auth")
HA_MASTER_ARGS="--zookeeper-auth $T/zk.auth --masters ${URL[a]},${URL[b]}"
start_zk z1 "$ZKP" || { fail "ZooKeeper starts on $ZKP"; finish; exit 1; }

# The stranger's directory, made first.
EVIL=evil:$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')
HASH=$(printf '%s' "$EVIL" | openssl dgst -binary -sha1 | base64)
OWNED="digest:evil:$HASH:cdrwa,world:anyone:r,ip:127.0.0.1:c"
zkcli_as "$EVIL" "create $ZKDIR x $OWNED" "create $ZKDIR/election x $OWNED" \
  >"$T/made.out"
check "a stranger makes the cluster's directory and election first" \
  test "$(grep -c '^Created' "$T/made.out")" -eq 2

start_ha a || { fail "master a starts"; finish; exit 1; }
start_ha b || { fail "master b starts"; finish; exit 1; }
# led: one master leads; refusing: both stay standbys naming no leader,
# and each has said whose directory it is (the stranger's identity)
led() { settled; }
refusing() {
  [[ $(role a) == STANDBY:none && $(role b) == STANDBY:none ]] &&
    grep -q "$ZKDIR.*evil" "$T/a.log" && grep -q "$ZKDIR.*evil" "$T/b.log"
}
check "the masters settle: one leads, or neither uses the directory" \
  wait_for 30 eval 'led || refusing'
N=$(leader_node)
say "leader's node: ${N:-none}"

# stranger COMMAND: the stranger's zkCli is refused COMMAND (or there is
# no leader's node to touch: the masters refused the directory).
stranger_refused() {
  [[ -z $N ]] || zkcli_as "$EVIL" "$1" | grep -q "Insufficient permission"
}
check "the stranger may not delete the leader's node" \
  stranger_refused "delete $ZKDIR/election/$N"
check "... nor add a node that sorts lowest" \
  stranger_refused "create $ZKDIR/election/n_fake_0000000000 {\"url\":\"tcp://127.0.0.1:1\"}"
check "... and a master leads still, or none used the directory" \
  eval '[[ -z $N ]] || wait_for 10 led'
finish
