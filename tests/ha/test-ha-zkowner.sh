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
#  What the masters do (zkowner.h): with credentials they refuse such a
#  directory, and
#  (2) name the stranger and the setAcl that makes it theirs; once the
#      owner has run it, one leads without a restart, and the stranger
#      can do nothing more;
#  (3) a stranger's directory that gives the masters every right, ADMIN
#      too, is refused all the same, its ACL left as it is (not repaired);
#  (4) so is one where everyone may add nodes (READ and CREATE for all,
#      as a master without credentials leaves it);
#  (5) without credentials a stranger's directory is used, with a warning
#      naming who else may delete and add nodes;
#  (6) with credentials a directory open to everyone (an older Hearth's)
#      is narrowed to the masters' and used.
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

# --- What the masters do about it (docs/high-availability.md, "Securing
# ZooKeeper"): with credentials they refuse a directory that gives anyone
# but them more than READ, say whose it is and the setAcl that makes it
# theirs, and join once it is; they repair no stranger's ACL, even where
# they could; without credentials they warn and use it. -------------------
ME=hearth:$(printf '%s' "$CRED" | openssl dgst -binary -sha1 | base64)
FIX="digest:$ME:cdrwa,world:anyone:r"
MASTERS_ACL=$'digest,hearth: cdrwa\nworld,anyone: r'
for n in a b; do
  check "(2) $n names the setAcl that makes the directory the masters'" \
    grep -qF "setAcl $ZKDIR $FIX, setAcl $ZKDIR/election $FIX" "$T/$n.log"
done
check "... and neither made a node there" test -z "$(leader_node)"
zkcli_as "$EVIL" "setAcl $ZKDIR $FIX" "setAcl $ZKDIR/election $FIX" >"$T/fix.out"
check "(2) once the owner has run it, one master leads, without a restart" \
  wait_for 30 settled
N=$(leader_node)
check "... and the stranger may not delete the leader's node ($N)" \
  stranger_refused "delete $ZKDIR/election/$N"
check "... nor add a node that sorts lowest" \
  stranger_refused "create $ZKDIR/election/n_fake_0000000000 x"
check "... nor take its rights back" \
  stranger_refused "setAcl $ZKDIR/election world:anyone:cdrwa"
for n in a b; do stop_ha "$n" TERM; done

# Four more directories, made before their masters start, each master on
# its own (no --masters: they are not one cluster).
EVIL_ID=${EVIL%%:*}:$HASH
SHARED="digest:$EVIL_ID:cdrwa,digest:$ME:cdrwa,world:anyone:r"
zkcli_as "$EVIL" "create /hearth-shared x $SHARED" \
  "create /hearth-shared/election x $SHARED" \
  "create /hearth-stranger x $OWNED" "create /hearth-stranger/election x $OWNED" \
  >"$T/more.out"
zkcli "create /hearth-cr x world:anyone:cr" \
  "create /hearth-cr/election x world:anyone:cr" \
  "create /hearth-open x" "create /hearth-open/election x" >>"$T/more.out"
check "(the four directories are made)" \
  test "$(grep -c '^Created' "$T/more.out")" -eq 8
AUTH="--zookeeper-auth $T/zk.auth"
ZKDIR=/hearth-shared HA_MASTER_ARGS=$AUTH start_ha c || fail "master c starts"
ZKDIR=/hearth-cr HA_MASTER_ARGS=$AUTH start_ha d || fail "master d starts"
ZKDIR=/hearth-stranger HA_MASTER_ARGS= start_ha e || fail "master e starts"
ZKDIR=/hearth-open HA_MASTER_ARGS=$AUTH start_ha f || fail "master f starts"
# (3) /hearth-shared gives the masters every right, ADMIN too, and the
# stranger as much: the master could change its ACL, and does not.
check "(3) a stranger's directory that gives the masters ADMIN is refused too" \
  wait_for 10 grep -qF "/hearth-shared gives digest:$EVIL_ID 'cdrwa'" "$T/c.log"
check "... not repaired: the stranger keeps its rights" \
  eval '[[ $(acl /hearth-shared/election) == *"digest,evil: cdrwa"* ]]'
check "... and the master made no node there" \
  eval '[[ $(zkcli "ls /hearth-shared/election") == *"[]"* && $(role c) == STANDBY:none ]]'
# (4) /hearth-cr is what a master without credentials leaves: READ and
# CREATE for everyone, and nobody may change it.
check "(4) with credentials, a directory where anyone may add nodes is refused" \
  wait_for 10 grep -qF "/hearth-cr gives world:anyone 'cr'" "$T/d.log"
check "... and the master made no node there" \
  eval '[[ $(zkcli "ls /hearth-cr/election") == *"[]"* && $(role d) == STANDBY:none ]]'
# (5) Without credentials the masters have no identity of their own.
check "(5) without credentials a stranger's directory is used" \
  wait_for 30 eval '[[ $(role e) == LEADER ]]'
check "... and the master said who else may delete and add nodes there" \
  grep -q "zookeeper: /hearth-stranger gives digest:evil:x 'cdrwa', ip:127.0.0.1 'c': beyond READ; whoever holds that may delete the leader's node" "$T/e.log"
# (6) A directory open to everyone, as an older Hearth made it: narrowed.
check "(6) with credentials, a directory open to everyone is narrowed, and used" \
  wait_for 30 eval '[[ $(role f) == LEADER ]]'
check "... to the masters' identity, and READ for everyone" \
  eval '[[ $(acl /hearth-open) == "$MASTERS_ACL" && $(acl /hearth-open/election) == "$MASTERS_ACL" ]]'
for n in c d e f; do
  stop_ha "$n" TERM
  check "master $n stopped by SIGTERM exits 0" test "$RC" -eq 0
done
finish
