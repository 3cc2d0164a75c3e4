#!/usr/bin/env bash
# What a new leader still lacked (issue 17): a supervised cluster-mode
# driver's files, streamed to the standby with the journal, so that the
# new leader relaunches the driver when its worker dies after a failover
# and the driver finishes with its exact output; the same on a CURVE
# cluster, where only the masters' shared key pair may follow the
# journal (a client key is refused, a foreign key pair fails the
# handshake), the standby's journal holds each worker's key, and the new
# leader admits the key the old one made for the driver's launch; and a
# standby that never got a snapshot, elected, says loudly that it leads
# without the last leader's state.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
. "$(dirname "$0")/../lib/zk.sh"
deadline 150

zk_require
SESSION=${SESSION:-3000}
. "$(dirname "$0")/../lib/hamasters.sh"
PROBE=$BIN/tests/ha/follow-probe
export HEARTH_DRIVER_RELAUNCH_DELAY=200ms

# The driver: a program shipped as its file, that waits for $T/go and
# prints what the test expects.
cat >"$T/prog.sh" <<'PROG'
#!/bin/sh
while [ ! -e "$1" ]; do sleep 0.1; done
echo "the driver's output"
seq 1 5
PROG
chmod +x "$T/prog.sh"
EXPECTED=$(printf '%s\n' "the driver's output" 1 2 3 4 5)

# status ID: --status of a driver (any master of the list) into $T/status;
# prints its state.  field KEY: a field of it.
status() {
  "$BIN/hearth-submit" --master "$LIST" --status "$1" >"$T/status" 2>/dev/null
  awk '$1 == "state:" {print $2}' "$T/status"
}
field() { awk -v k="$1:" '$1 == k {print $2}' "$T/status"; }
alive_workers() {
  jq_state '[.workers[] | select(.state == "ALIVE")] | length == 2'
}

# start_w NAME: a worker given every master (with its key on CURVE).
start_w() {
  if [[ -n ${K:-} ]]; then
    HEARTH_CURVE_SECRET=$K/$1.key_secret MASTER_URL=$LIST CORES=2 MEMORY=2G \
      start_worker "$1"
  else
    MASTER_URL=$LIST CORES=2 MEMORY=2G start_worker "$1"
  fi
}
START=start_ha

# scenario A B W1 W2 PROBE_KEYS...: masters A (the leader) and B (its
# standby), workers W1 and W2 given both; the supervised driver placed,
# its files in B's journal; kill -9 of A; once B leads and the workers
# are back, kill -9 of the driver's worker and of its run: B relaunches
# it on the other worker from its own files, and it finishes exactly.
scenario() {
  local a=$1 b=$2 w1=$3 w2=$4
  shift 4
  $START "$a" || { fail "master $a starts"; return 1; }
  check "(master $a leads)" wait_for 30 eval '[[ $(role '"$a"') == LEADER ]]'
  $START "$b" || { fail "master $b starts"; return 1; }
  check "(master $b is its standby)" wait_for 30 settled
  LIST="${URL[$a]},${URL[$b]}"
  start_w "$w1" || return 1
  start_w "$w2" || return 1
  rm -f "$T/go"
  check "a supervised cluster-mode driver is submitted" \
    submit --master "$LIST" --deploy-mode cluster --driver-memory 256M \
    --supervise --no-wait "$T/prog.sh" "$T/go"
  local id
  id=$(head -1 "$T/out")
  check "... and runs" wait_for 20 eval '[[ $(status '"$id"') == RUNNING ]]'
  local size
  size=$(stat -c %s "$T/prog.sh")
  "$PROBE" "${URL[$a]}" "$@" >"$T/probe" 2>&1
  check "the leader's snapshot carries the driver's file ($size bytes)" \
    grep -qx "FILE $id 1 $size" "$T/probe"
  check "the standby keeps it beside its journal, byte for byte" \
    wait_for 10 cmp -s "$T/prog.sh" "$T/$b.journal/files/$id/0"
  if [[ -n ${K:-} ]]; then
    # the key each worker's id belongs to (docs/security.md, "Worker ids
    # and keys"): a new leader admits under the id only that key
    local wk
    wk=$(sed -n 's/.*public-key = "\(.*\)"/\1/p' "$K/$w1.key")
    check "the standby's journal holds the key $w1 registered with" \
      wait_for 10 eval 'cat "$T/$b.journal"/snapshot "$T/$b.journal"/journal.* | grep -qF -e "$wk"'
  fi

  stop_ha "$a" KILL
  check "after kill -9 of the leader $a, $b leads" \
    wait_for $((SESSION / 1000 + 15)) eval '[[ $(role '"$b"') == LEADER ]]'
  # (the tools try the list in order, the dead master up to its timeout)
  LIST="${URL[$b]},${URL[$a]}" MASTER_URL=${URL[$b]}
  check "both workers registered with the new leader" wait_for 20 alive_workers
  check "the new leader knows the driver RUNNING" \
    wait_for 10 eval '[[ $(status '"$id"') == RUNNING ]]'
  local first victim vname other wid p
  first=$(field worker)
  for wid in "$w1" "$w2"; do
    local idv=ID_$wid pidv=PID_$wid
    if [[ ${!idv} == "$first" ]]; then victim=${!pidv} vname=$wid; else other=${!idv}; fi
  done
  if [[ -n ${K:-} ]]; then
    # its own key, as its user could copy it out of its directory
    cp "$T/$vname/$id/.driver.key_secret" "$T/drv.key_secret" &&
      chmod 600 "$T/drv.key_secret"
    check "the new leader admits the driver's own key (its journal's)" \
      "$BIN/hearth-tail" --master "${URL[$b]}" --state --timeout 2s \
      --curve-secret "$T/drv.key_secret" --master-key "$K/master.key"
  fi
  kill9 "$victim"
  for p in $(procs_in "$T/$vname"); do kill -9 "$p" 2>/dev/null; done
  check "when its worker dies, the new leader relaunches it on the other one" \
    wait_for 20 eval '[[ $(status '"$id"') == RUNNING && $(field worker) == "$other" ]]'
  check "... as its second launch" test "$(field launches)" = 2
  touch "$T/go"
  check "... and it finishes" wait_for 20 eval '[[ $(status '"$id"') == FINISHED ]]'
  "$BIN/hearth-submit" --master "$LIST" --logs "$id" >"$T/logs" 2>&1
  check "... with its exact output" test "$(cat "$T/logs")" = "$EXPECTED"
  check "the ended driver's files are gone from the leader's journal" \
    wait_for 5 test ! -e "$T/$b.journal/files/$id"
}

# --- without CURVE ---------------------------------------------------------
ZKP=$(zk_free_port)
ZK=127.0.0.1:$ZKP
start_zk z1 "$ZKP" || { fail "ZooKeeper starts on $ZKP"; finish; exit 1; }
scenario a b w1 w2
check "b's log: elected with the last leader's state" \
  grep -q "LEADER: the journal holds the state of the leader of epoch" "$T/b.log"
stop_ha b TERM
for w in "$PID_w2" "$PID_w1"; do kill9 "$w"; done
for p in $(procs_in "$T/w1") $(procs_in "$T/w2"); do kill -9 "$p" 2>/dev/null; done

# --- with CURVE -------------------------------------------------------------
K=$T/keys K2=$T/foreign
{ "$BIN/hearth-keygen" "$K" && "$BIN/hearth-keygen" "$K2" &&
  "$BIN/hearth-keygen" --worker sw1 "$K" &&
  "$BIN/hearth-keygen" --worker sw2 "$K"; } >/dev/null || fail "hearth-keygen"
# The clients' keys (hearth-tail, hearth-submit) come from the
# environment; each master and worker is given its own.
export HEARTH_CURVE_SECRET=$K/client.key_secret HEARTH_MASTER_KEY=$K/master.key
START=secure_ha
secure_ha() {
  HEARTH_CURVE_SECRET=$K/master.key_secret HEARTH_CURVE_ALLOW=$K/clients \
    HEARTH_CURVE_ALLOW_WORKERS=$K/workers start_ha "$@"
}
ZKP=$(zk_free_port)
ZK=127.0.0.1:$ZKP
start_zk z2 "$ZKP" || { fail "ZooKeeper starts on $ZKP"; finish; exit 1; }
scenario sa sb sw1 sw2 "$K/master.key_secret" "$K/master.key"
check "sb's standby DEALER was a CURVE client the leader admitted" \
  grep -q "the leader's state is in journal" "$T/sb.log"
"$PROBE" "${URL[sb]}" "$K/client.key_secret" "$K/master.key" >"$T/probe" 2>&1
check "a client key cannot follow the journal (ERROR not_allowed)" \
  grep -q "^ERROR not_allowed .*FOLLOW_JOURNAL needs the masters' key" "$T/probe"
"$PROBE" "${URL[sb]}" "$K2/master.key_secret" "$K/master.key" >"$T/probe" 2>&1
check "an unadmitted key pair gets nothing (its handshake is refused)" \
  grep -qx TIMEOUT "$T/probe"
# A master of another key pair: a candidate, but its DEALER to the leader
# fails the handshake, so it never gets a snapshot.
HEARTH_CURVE_SECRET=$K2/master.key_secret HEARTH_CURVE_ALLOW=$K2/clients \
  start_ha sc || fail "master sc starts"
check "a master of a foreign key pair follows nothing" \
  wait_for 15 grep -q "no word from the leader ${URL[sb]}.*same --curve-secret" "$T/sc.log"
check "... and writes no snapshot" eval '! grep -q "the leader.s state is in journal" "$T/sc.log"'
stop_ha sb TERM
check "elected without a snapshot, it says loudly that it lacks the last leader's state" \
  wait_for 15 grep -q "LEADER WITHOUT THE LAST LEADER'S STATE: no snapshot came from the leader of epoch" "$T/sc.log"
finish
