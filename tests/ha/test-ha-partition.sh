#!/usr/bin/env bash
# A network partition under standby masters (issue 17).  Four network
# namespaces joined by a bridge: ZooKeeper's host (the bridge, 10.214.0.1),
# master a's (.2), master b's (.3) and the host of the workers and the
# drivers (.4).  Applications keep arriving, each a driver given both
# masters' URLs and one executor; master a leads, and its host's cable is
# pulled (its port on the bridge goes down: no ZooKeeper, no workers, no
# b), then plugged in again.  Every LAUNCH_EXECUTOR a master sends is in
# its log ("launching executor APP/N on WORKER", with a timestamp), every
# executor a worker starts in the worker's, after the master it registered
# with.  Checked: a sends none from the moment it is cut off, b none
# before a's last (the two never send in the same interval), b's epoch is
# higher, each worker starts only executors of the master it registered
# with and never one of a lower epoch after a higher one, every
# application finishes with its exact output, and once healed a finds its
# leadership lost, re-executes itself and is a standby naming b that
# follows b's journal (a worker given a first that joins then registers
# with b).  Nothing uses an address outside loopback and these
# namespaces, which the test creates and deletes (trap), with every
# process in them.  Skipped (77) where network namespaces cannot be made.
#
# Peers are dead after 15 x 200 ms = 3 s of silence, longer than the 2 s
# (2/3 of the 3 s session) in which a leader cut off from ZooKeeper
# suspends itself: with a shorter one, the cut-off leader expires its
# workers first and places their lost executors elsewhere, on workers it
# has not yet expired, in the second before it suspends (seen: 0.8 s
# after the cut).  Harmless (nobody else leads before the session
# expires, and the message never reaches a worker, whose link to it is
# gone), but then "nothing from the moment it is cut off" would not hold.
LIVENESS=${LIVENESS:-15}
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/zk.sh"
. "$(dirname "$0")/../lib/netns.sh"
deadline 200
export TMPDIR=$T

zk_require
NS_Z=hearth-$$-z NS_A=hearth-$$-a NS_B=hearth-$$-b NS_W=hearth-$$-w
NET=10.214.0
declare -A NS=([z]=$NS_Z [a]=$NS_A [b]=$NS_B [w]=$NS_W)
declare -A ADDR=([z]=$NET.1 [a]=$NET.2 [b]=$NET.3 [w]=$NET.4)
netns_first "$NS_Z"
# The bridge "hbr" in ZooKeeper's namespace; each other host's eth0 is a
# veth whose other end, port pH of the bridge, is its cable.
net_setup() {
  local h
  ip -n "$NS_Z" link set lo up && ip -n "$NS_Z" link add name hbr type bridge &&
    ip -n "$NS_Z" addr add "${ADDR[z]}/24" dev hbr && ip -n "$NS_Z" link set hbr up ||
    return 1
  for h in a b w; do
    ip netns add "${NS[$h]}" && MADE+=("${NS[$h]}") &&
      ip -n "${NS[$h]}" link set lo up &&
      ip -n "$NS_Z" link add name "p$h" type veth peer name eth0 netns "${NS[$h]}" &&
      ip -n "$NS_Z" link set "p$h" master hbr && ip -n "$NS_Z" link set "p$h" up &&
      ip -n "${NS[$h]}" addr add "${ADDR[$h]}/24" dev eth0 &&
      ip -n "${NS[$h]}" link set eth0 up || return 1
  done
}
if ! net_setup 2>"$T/netns.err"; then
  fail "the namespaces' network: $(head -1 "$T/netns.err")"
  finish
  exit 1
fi
in_ns() { local h=$1; shift; ip netns exec "${NS[$h]}" "$@"; }
# reaches FROM URL: from host FROM, a TCP connection to URL's HOST:PORT
# opens within a second.
reaches() {
  local hp=${2#tcp://}
  in_ns "$1" timeout 1 bash -c "exec 3<>/dev/tcp/${hp%:*}/${hp##*:}" 2>/dev/null
}
pass "4 namespaces on one bridge"

SESSION=${SESSION:-3000}
ZKP=$(zk_free_port)
ZK_HOST=${ADDR[z]} ZK_WRAP="ip netns exec $NS_Z"
ZK=$ZK_HOST:$ZKP
. "$(dirname "$0")/../lib/hamasters.sh"
HA_ASK_WRAP="ip netns exec $NS_W" # what a client on the workers' host sees

start_zk z1 "$ZKP" || { fail "ZooKeeper starts on $ZK"; finish; exit 1; }
# A master beyond loopback without keys must say so (--insecure): standbys
# follow their leader only without CURVE (high-availability.md).
WRAP="ip netns exec $NS_A" start_ha a --host "${ADDR[a]}" --insecure ||
  { fail "master a starts"; finish; exit 1; }
check "(master a leads)" wait_for 30 eval '[[ $(role a) == LEADER ]]'
WRAP="ip netns exec $NS_B" start_ha b --host "${ADDR[b]}" --insecure ||
  { fail "master b starts"; finish; exit 1; }
check "(master b is its standby)" wait_for 30 settled
check "b follows a's journal" \
  wait_for 10 grep -q "follow: the leader's state is in journal" "$T/b.log"
E1=$(epoch a)
say "a ${URL[a]} leads with epoch $E1; b ${URL[b]}"
check "the workers' host reaches ZooKeeper and both masters" eval \
  'reaches w "$ZK" && reaches w "${URL[a]}" && reaches w "${URL[b]}"'
check "a reaches ZooKeeper and b" eval 'reaches a "$ZK" && reaches a "${URL[b]}"'
# Half the clients are given b first: were b to lead beside a, they would
# register with it there, and both would be launching executors.
LISTS=("${URL[a]},${URL[b]}" "${URL[b]},${URL[a]}")
WRAP="ip netns exec $NS_W" MASTER_URL=${LISTS[0]} CORES=8 start_worker w1 \
  --host "${ADDR[w]}" || { fail "worker w1 registers"; finish; exit 1; }
WRAP="ip netns exec $NS_W" MASTER_URL=${LISTS[1]} CORES=8 start_worker w2 \
  --host "${ADDR[w]}" || { fail "worker w2 registers"; finish; exit 1; }
check "both workers registered with a (w2 followed b's answer to a)" eval \
  'grep -q "registered with ${URL[a]} " "$T/w1.log" && grep -q "registered with ${URL[a]} " "$T/w2.log"'

# app NAME: a driver on the workers' host, in the background, given the
# masters in one order or the other in turn: 3 tasks of 0.3 s on one
# executor of one core (16 cores for at most a dozen at once: none waits
# for cores, so a master places only when an application arrives).
APPS=()
app() {
  local n=$1
  printf '%s\n' "{\"name\": \"$n\", \"stages\": [{\"name\": \"s\", \"tasks\": [
    {\"cmd\": [\"sh\", \"-c\", \"sleep 0.3; echo $n {i}\"], \"count\": 3}]}]}" >"$T/$n.json"
  # its exit status in NAME.rc: the shell may have forgotten a child that
  # ended long ago (its pid reused meanwhile)
  (
    in_ns w "$BIN/hearth-submit" --master "${LISTS[$((${#APPS[@]} % 2))]}" \
      --heartbeat-interval "${INTERVAL_MS}ms" --heartbeat-liveness "$LIVENESS" \
      --total-executor-cores 1 --executor-cores 1 --executor-memory 64M \
      --log-level info "$T/$n.json" >"$T/$n.out" 2>"$T/$n.err"
    echo $? >"$T/$n.rc"
  ) &
  PIDS+=($!)
  APPS+=("$n")
}
granted() { grep -q "executor .* granted" "$T/$1.err"; }

# --- before: a places the executors -------------------------------------
for i in 1 2 3 4; do
  app "before$i"
  check "(application before$i has its executor)" wait_for 20 granted "before$i"
  sleep 0.2
done

# --- the partition: a's cable is pulled while applications arrive ------
# The last application has its executor: nothing is in flight to a.
T_CUT=$(now_ms)
ip -n "$NS_Z" link set pa down
check "cut off: a reaches neither ZooKeeper nor b, the workers' host not a" eval \
  '! reaches a "$ZK" && ! reaches a "${URL[b]}" && ! reaches w "${URL[a]}"'
check "... while the workers' host still reaches ZooKeeper and b" eval \
  'reaches w "$ZK" && reaches w "${URL[b]}"'
# b_leads: b leads (as the workers' host sees it)
b_leads() { [[ $(role b) == LEADER ]]; }
for i in $(seq 1 14); do
  app "during$i"
  sleep 0.5
  # the partition lasts until b leads and has placed some of them
  if ((i >= 8)) && b_leads && [[ $(count_lines "$T/b.log" "launching executor") -ge 3 ]]; then
    break
  fi
done
check "during the partition, b leads" wait_for 20 b_leads
E2=$(epoch b)
check "... with a higher epoch ($E2 > $E1)" test "$E2" -gt "$E1"
check "a, cut off, suspended itself (its log)" grep -q "SUSPENDED (epoch $E1)" "$T/a.log"
T_HEAL=$(now_ms)
ip -n "$NS_Z" link set pa up
check "healed: a reaches ZooKeeper and b again" \
  wait_for 10 eval 'reaches a "$ZK" && reaches a "${URL[b]}"'
say "partition: $((T_HEAL - T_CUT)) ms, ${#APPS[@]} applications so far"

# --- healed: a comes back as a standby; a worker joins; applications go on
check "healed, a logs that its leadership of epoch $E1 is lost for good" \
  wait_for 20 grep -q "the leadership of epoch $E1 is lost for good" "$T/a.log"
check "... re-executes itself under the same pid" \
  wait_for 10 eval '[[ $(grep -c "master .* up (events" "$T/a.log") -ge 2 ]] && kill -0 '"${MPID[a]}"
check "... and is a standby naming b, the leader" \
  wait_for 20 eval 'settled && [[ $LEADER == b && $(role a) == "STANDBY:${URL[b]}" ]]'
check "... that follows b's journal (a new snapshot after its re-execution)" wait_for 10 \
  eval 'awk "/master .* up \\(events/ {n++} n >= 2 && /follow: the leader.s state is in journal/ {f = 1} END {exit !f}" "$T/a.log"'
# A worker given a first: a deposed leader that went on leading would
# take it, and place executors on it beside b.
WRAP="ip netns exec $NS_W" MASTER_URL=${LISTS[0]} CORES=8 start_worker w3 \
  --host "${ADDR[w]}" || fail "worker w3 registers"
check "worker w3, given a first, registers with b" \
  grep -q "registered with ${URL[b]} " "$T/w3.log"
for i in 1 2 3 4; do
  app "after$i"
  sleep 0.5
done

# --- every application finishes with its exact output -------------------
apps_over() {
  local n
  for n in "${APPS[@]}"; do [[ -s $T/$n.rc ]] || return 1; done
}
check "every application's driver exits" wait_for 60 apps_over
bad=()
for n in "${APPS[@]}"; do
  rc=$(cat "$T/$n.rc" 2>/dev/null) || rc=none
  if [[ $rc != 0 || $(cat "$T/$n.out") != "$(printf '%s 0\n%s 1\n%s 2' "$n" "$n" "$n")" ]]; then
    bad+=("$n (exit $rc)")
  fi
done
check "all ${#APPS[@]} applications finish with their exact output${bad[*]:+: not ${bad[*]}}" \
  test ${#bad[@]} = 0

# --- the LAUNCH_EXECUTORs of each master, in time -----------------------
# launches NAME: "MS KEY WORKER" per LAUNCH_EXECUTOR that master sent.
launches() {
  local stamp key worker
  grep -h "launching executor " "$T/$1.log" | awk '{print $1, $6, $8}' |
    while read -r stamp key worker; do
      echo "$(date -d "$stamp" +%s%3N) $key $worker"
    done
}
launches a >"$T/a.launches"
launches b >"$T/b.launches"
first() { head -1 "$1" | cut -d' ' -f1; }
last() { tail -1 "$1" | cut -d' ' -f1; }
NA=$(wc -l <"$T/a.launches") NB=$(wc -l <"$T/b.launches")
say "LAUNCH_EXECUTOR: a sent $NA (epoch $E1), b sent $NB (epoch $E2)"
check "a sent LAUNCH_EXECUTORs before the partition" test "$NA" -ge 4
check "a sent none from the moment it was cut off (its last at $(last "$T/a.launches"), cut at $T_CUT)" \
  test "$(last "$T/a.launches")" -lt "$T_CUT"
T_SUSP=$(log_ms "$T/a.log" "SUSPENDED (epoch $E1)")
check "... nor after it suspended itself (at ${T_SUSP:-never})" \
  test "$(last "$T/a.launches")" -lt "${T_SUSP:-0}"
check "b sent its first after a's last: the two never sent in the same interval" \
  test "$(first "$T/b.launches")" -gt "$(last "$T/a.launches")"
check "b sent LAUNCH_EXECUTORs during the partition" \
  awk -v c="$T_CUT" -v h="$T_HEAL" '$1 > c && $1 < h {n++} END {exit !n}' "$T/b.launches"
check "... and after it was healed" \
  awk -v h="$T_HEAL" '$1 > h {n++} END {exit !n}' "$T/b.launches"
check "a led once, with epoch $E1; b once, with epoch $E2" eval \
  '[[ $(grep -c "LEADER with epoch" "$T/a.log") == 1 && $(grep -c "LEADER with epoch" "$T/b.log") == 1 ]] &&
    grep -q "LEADER with epoch $E1 " "$T/a.log" && grep -q "LEADER with epoch $E2 " "$T/b.log"'
check "no executor was launched by both masters" \
  test -z "$(cat "$T/a.launches" "$T/b.launches" | awk '{print $2}' | sort | uniq -d)"

# --- what the workers received ------------------------------------------
# received W: "EPOCH KEY" per executor worker W started, EPOCH the one of
# the master it was registered with then (its link talks to one master at a
# time: a fresh socket per switch), or "? KEY" if that master did not send it.
received() {
  awk -v ua="${URL[a]}" -v ea="$E1" -v ub="${URL[b]}" -v eb="$E2" \
    -v la="$T/a.launches" -v lb="$T/b.launches" '
    BEGIN {
      while ((getline l < la) > 0) { split(l, f, " "); from[f[2]] = from[f[2]] " " ea }
      while ((getline l < lb) > 0) { split(l, f, " "); from[f[2]] = from[f[2]] " " eb }
    }
    / registered with / { u = $6; cur = u == ua ? ea : u == ub ? eb : "?" }
    / executor [^ ]* started: / {
      print (index(from[$5] " ", " " cur " ") ? cur : "?"), $5
    }' "$T/$1.log"
}
for w in w1 w2 w3; do
  received "$w" >"$T/$w.received"
  say "worker $w started $(wc -l <"$T/$w.received") executors, in order:" \
    "$(cut -d' ' -f1 "$T/$w.received" | uniq -c | awk '{printf "%s%s of epoch %s", (NR > 1 ? ", then " : ""), $1, $2}')"
  check "worker $w started only executors the master it was registered with launched" \
    eval '! grep -q "^?" "$T/$w.received"'
  check "... never one of a lower epoch after one of a higher" \
    eval 'cut -d" " -f1 "$T/$w.received" | sort -nc'
done
for w in w1 w2; do
  t=$(log_ms "$T/$w.log" "registered with ${URL[b]} ")
  check "worker $w registered with b during the partition (at ${t:-never})" \
    eval '[[ -n $t ]] && ((t > T_CUT && t < T_HEAL))'
done
check "the workers started executors of both epochs" eval \
  'cat "$T"/w?.received | cut -d" " -f1 | sort -u | tr "\n" " " | grep -qx "$E1 $E2 "'
say "the workers dropped $(cat "$T"/w?.log | grep -c "of an older epoch") messages of an older epoch"
finish
