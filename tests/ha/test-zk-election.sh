#!/usr/bin/env bash
# Leader election through a real ZooKeeper (libcore/zkelect.c, issue 17),
# with election candidates (tests/ha/zkelect-probe) as the masters will
# be: candidates started before ZooKeeper elect one leader once it comes
# up; kill -9 of the leader hands over after its session expires; a clean
# stop hands over at once; a ZooKeeper restart and a frozen ZooKeeper
# (SIGSTOP) suspend the leader before its session can expire, so that
# two candidates never lead at the same time (checked over the whole run
# from every candidate's timestamped roles); a three-server ensemble
# keeps one leader when a server is killed.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/zk.sh"
deadline 300

zk_require
PROBE=$BIN/tests/ha/zkelect-probe
SESSION=3000
ZKP=$(zk_free_port)
HOSTS=127.0.0.1:$ZKP
DIR=/hearth-test

declare -A PROBE_PID ENDED # ENDED[name]: unix ms its process ended
BAD_EXITS=() # candidates stopped with SIGTERM that did not exit 0
# start_probe NAME [HOSTS]
start_probe() {
  "$PROBE" "${2:-$HOSTS}" "$DIR" "$SESSION" "url-$1" >"$T/$1.out" 2>"$T/$1.err" &
  PROBE_PID[$1]=$!
  PIDS+=($!)
}
# role NAME: its last role (NONE before any)
role() {
  local r
  r=$(grep '^ROLE' "$T/$1.out" 2>/dev/null | tail -1 | cut -d' ' -f3)
  echo "${r:-NONE}"
}
# the candidates alive now
alive() {
  local n
  for n in "${!PROBE_PID[@]}"; do
    [[ -z ${ENDED[$n]:-} ]] && echo "$n"
  done | sort
}
# leaders: the live candidates whose last role is LEADER
leaders() {
  local n
  for n in $(alive); do [[ $(role "$n") == LEADER ]] && echo "$n"; done
}
# settled: exactly one live leader, and every other live candidate is a
# standby naming it
settled() {
  local l n
  l=$(leaders)
  [[ $(wc -w <<<"$l") == 1 ]] || return 1
  for n in $(alive); do
    [[ $n == "$l" ]] && continue
    [[ $(role "$n") == STANDBY ]] || return 1
    grep '^ROLE' "$T/$n.out" | tail -1 | grep -q " leader=url-$l " || return 1
  done
}
epoch() { grep '^ROLE' "$T/$1.out" | tail -1 | sed 's/.* epoch=\([0-9]*\).*/\1/'; }
# end NAME SIGNAL: stop a candidate, noting when
end_probe() {
  kill "-$2" "${PROBE_PID[$1]}" 2>/dev/null
  wait "${PROBE_PID[$1]}" 2>/dev/null
  local rc=$?
  ENDED[$1]=$(date +%s%3N)
  [[ $2 == TERM && $rc != 0 ]] && BAD_EXITS+=("$1:$rc")
}

# 1. Candidates before ZooKeeper: nobody leads; then it comes up.
for n in a b c; do start_probe $n; done
sleep 1.5
check "without ZooKeeper no candidate leads" \
  eval '! grep -q " LEADER " "$T"/a.out "$T"/b.out "$T"/c.out'
start_zk z1 "$ZKP" || { fail "ZooKeeper starts on $ZKP"; finish; exit 1; }
pass "ZooKeeper answers on 127.0.0.1:$ZKP"
check "once it is up, one leader and two standbys that name it" wait_for 30 settled
L1=$(leaders)
E1=$(epoch "$L1")
say "leader $L1, epoch $E1"

# 2. kill -9 of the leader: its node lives until its session expires.
t0=$(date +%s%3N)
end_probe "$L1" KILL
check "after kill -9 of the leader, another one leads" wait_for $((SESSION / 1000 + 10)) settled
L2=$(leaders)
took=$(($(date +%s%3N) - t0))
say "leader $L2 after $took ms (session $SESSION ms)"
check "... within the session time and a few seconds ($took ms)" test "$took" -le $((SESSION + 4000))
check "... with a higher epoch" test "$(epoch "$L2")" -gt "$E1"

# 3. A clean stop ends the session: the handover takes a round trip.
start_probe d
check "a new candidate joins as a standby" wait_for 15 settled
t0=$(date +%s%3N)
end_probe "$L2" TERM
check "the stopped leader said goodbye" grep -q '^BYE' "$T/$L2.out"
check "after SIGTERM of the leader, another one leads" wait_for 10 settled
took=$(($(date +%s%3N) - t0))
check "... well under the session time ($took ms < $((SESSION / 2)) ms)" test "$took" -lt $((SESSION / 2))
L3=$(leaders)

# 4. ZooKeeper restarted under them: the leader is suspended meanwhile,
# and afterwards there is one leader again.
stop_zk z1
check "with ZooKeeper stopped, the leader is suspended" \
  wait_for $((SESSION / 1000 + 5)) eval '[[ $(role '"$L3"') == SUSPENDED ]]'
start_zk z1 "$ZKP" || fail "ZooKeeper starts again"
check "after ZooKeeper's restart, one leader again" wait_for 30 settled

# 5. A frozen ZooKeeper: the leader suspends itself before its session can
# expire on the server.
L4=$(leaders)
t0=$(date +%s%3N)
kill -STOP "${ZK_PID[z1]}"
check "with ZooKeeper frozen, the leader suspends itself" \
  wait_for $((SESSION / 1000 + 5)) eval '[[ $(role '"$L4"') == SUSPENDED ]]'
took=$(($(date +%s%3N) - t0))
check "... before its session could expire ($took ms < $SESSION ms)" test "$took" -lt "$SESSION"
sleep $((SESSION / 1000 + 1))
kill -CONT "${ZK_PID[z1]}"
check "ZooKeeper thawed: one leader again" wait_for 30 settled

# Never two leaders at once, over everything above: each candidate's
# leading intervals (from a LEADER line to its next line or its end).
for n in "${!PROBE_PID[@]}"; do
  awk -v n="$n" -v end="${ENDED[$n]:-9999999999999}" '
    $1 == "ROLE" || $1 == "BYE" {
      if (open) { print n, start, $2; open = 0 }
      if ($1 == "ROLE" && $3 == "LEADER") { open = 1; start = $2 }
    }
    END { if (open) print n, start, end }' "$T/$n.out"
done | sort -k2,2n >"$T/intervals"
say "leading intervals: $(tr '\n' ';' <"$T/intervals")"
check "never two leaders at the same time" awk '
  NR > 1 && $2 < prev_end { bad = 1 }
  { if ($3 > prev_end) prev_end = $3 }
  END { exit bad }' "$T/intervals"
for n in $(alive); do end_probe "$n" TERM; done
check "every candidate stopped by SIGTERM exited 0 (no leak, no crash): ${BAD_EXITS[*]:-all}" \
  test ${#BAD_EXITS[@]} -eq 0
stop_zk z1

# 6. A three-server ensemble, one server killed: the candidates keep (or
# find again) exactly one leader.
P1=$(zk_free_port) P2=$(zk_free_port) P3=$(zk_free_port)
Q1=$(zk_free_port) Q2=$(zk_free_port) Q3=$(zk_free_port)
R1=$(zk_free_port) R2=$(zk_free_port) R3=$(zk_free_port)
SERVERS="1=127.0.0.1:$Q1:$R1,2=127.0.0.1:$Q2:$R2,3=127.0.0.1:$Q3:$R3"
ZK_NOWAIT=1 start_zk e1 "$P1" "$SERVERS"
ZK_NOWAIT=1 start_zk e2 "$P2" "$SERVERS"
ZK_NOWAIT=1 start_zk e3 "$P3" "$SERVERS"
check "a three-server ensemble answers" \
  wait_for 60 eval 'zk_ruok '"$P1"' && zk_ruok '"$P2"' && zk_ruok '"$P3"
ENSEMBLE=127.0.0.1:$P1,127.0.0.1:$P2,127.0.0.1:$P3
DIR=/hearth-ensemble
PROBE_PID=() ENDED=()
for n in f g; do start_probe $n "$ENSEMBLE"; done
check "one leader on the ensemble" wait_for 30 settled
stop_zk e1 KILL
check "with one of three servers killed, still one leader" wait_for $((SESSION / 1000 + 20)) settled
finish
