#!/usr/bin/env bash
# Twenty failovers in a row (issue 17): two masters on one ZooKeeper with
# 1 s sessions, two workers.  Twenty times: stop the leader (kill -9 on
# odd rounds, SIGTERM on even ones), wait until the other leads with a
# higher epoch, start the stopped one again (same journal, same port),
# and check that both workers are ALIVE at the new leader and that a
# one-task job submitted with the list of URLs succeeds.  Nothing leaks:
# the workers' open files and threads do not grow across the twenty, the
# election holds no more nodes than there are live masters, the masters'
# journals stay bounded, and every master stopped by SIGTERM exits 0
# with no sanitizer report.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
. "$(dirname "$0")/../lib/zk.sh"
deadline 300

zk_require
SESSION=${SESSION:-1000}
ROUNDS=${ROUNDS:-20}
ZKP=$(zk_free_port)
ZK=127.0.0.1:$ZKP
ASK_TIMEOUT=1s # a standby naming the killed leader: polled sooner again
HA_SAME_PORT=1 # the list of URLs the clients were given stays true
# a master keeps 3 finished applications: past round 3 its state, and so
# its journal, no longer grows
HA_MASTER_ARGS="--retained-apps 3"
. "$(dirname "$0")/../lib/hamasters.sh"
# what may grow over the rounds: a few descriptors (a socket being
# replaced at the moment of the count), no thread, a journal by 1 KiB
# over its largest size in rounds 4 to 8 (its records are of one size
# from round to round, but a round's records land before or after a
# compaction)
fd_slack=3
thread_slack=0
journal_slack_bytes=1024

ha_pair 1 || { finish; exit 1; }

count() { ls "/proc/$1/$2" 2>/dev/null | wc -l; }
journal_bytes() { du -sb "$T/$1.journal" | cut -f1; }
# measure ROUND: the workers' descriptors and threads and the journals'
# sizes, once no executor runs any more, one line to $T/figures.
measure() {
  wait_for 10 eval 'none_in "$T/w1" && none_in "$T/w2"'
  echo "$1 $(count "$PID_w1" fd) $(count "$PID_w2" fd)" \
    "$(count "$PID_w1" task) $(count "$PID_w2" task)" \
    "$(journal_bytes a) $(journal_bytes b)" >>"$T/figures"
}
# workers_follow: both workers, by id, are ALIVE at the leader.
workers_follow() {
  MASTER_URL=${URL[$LEADER]} state_json | jq -e --arg a "$ID_w1" --arg b "$ID_w2" \
    '[.workers[] | select((.id == $a or .id == $b) and .state == "ALIVE")] | length == 2' >/dev/null
}
# new_leader OLD EPOCH: settled, another master than OLD leads, epoch
# higher than EPOCH.
new_leader() {
  settled && [[ $LEADER != "$1" ]] && (($(epoch "$LEADER") > $2))
}
# round I: one failover and its checks; says what failed.
round() {
  local i=$1 sig=KILL old=$LEADER e t0=$(now_ms) t1 t2 t3 other led
  ((i % 2 == 0)) && sig=TERM
  e=$(epoch "$old")
  other=$(alive | grep -vx "$old")
  led=$(grep -c "LEADER with epoch" "$T/$other.log")
  stop_ha "$old" "$sig"
  if [[ $sig == TERM && $RC != 0 ]]; then say "round $i: $old exited $RC on SIGTERM"; return 1; fi
  # its log first: asked too early, the standby would send hearth-tail
  # to the dead leader, and the answer would wait for a timeout
  wait_for $((SESSION / 1000 + 15)) eval \
    '[[ $(grep -c "LEADER with epoch" "$T/$other.log") -gt $led ]]'
  wait_for $((SESSION / 1000 + 15)) new_leader "$old" "$e" ||
    { say "round $i: no new leader after $sig of $old (epoch $e)"; return 1; }
  t1=$(now_ms)
  # the handover itself, from the new leader's log: the polls above
  # may wait on the dead leader
  echo "$sig $(($(log_ms "$T/$LEADER.log" "LEADER with epoch $(epoch "$LEADER") ") - t0))" \
    >>"$T/handovers"
  start_ha "$old" || { say "round $i: $old does not start again"; return 1; }
  wait_for 20 eval 'settled && [[ $LEADER != '"$old"' ]]' ||
    { say "round $i: $old is not the standby of the new leader"; return 1; }
  t2=$(now_ms)
  wait_for 20 workers_follow ||
    { say "round $i: the workers are not ALIVE at $LEADER"; return 1; }
  t3=$(now_ms)
  submit --master "$LIST" --log-level info "$(job "r$i" \
    "{\"name\": \"r$i\", \"stages\": [{\"name\": \"s\", \"tasks\": [{\"cmd\": [\"echo\", \"round $i\"]}]}]}")" ||
    { say "round $i: the job failed: $(tail -3 "$T/err")"; return 1; }
  [[ $(cat "$T/out") == "round $i" ]] ||
    { say "round $i: the job printed '$(cat "$T/out")'"; return 1; }
  say "round $i: $sig of $old (epoch $e): $LEADER leads with epoch" \
    "$(epoch "$LEADER") after $((t1 - t0)) ms; $old its standby after" \
    "$((t2 - t1)) ms, the workers follow after $((t3 - t2)) ms, the job" \
    "takes $(($(now_ms) - t3)) ms"
}

t0=$(now_ms)
E0=$(epoch "$LEADER")
for i in $(seq 1 "$ROUNDS"); do
  check "failover $i of $ROUNDS: a new leader, the workers follow, a job runs" round "$i"
  measure "$i"
done
took=$(($(now_ms) - t0))
say "$ROUNDS failovers in $took ms; epoch $E0 to $(epoch "$LEADER")"
for sig in KILL TERM; do
  say "handover after $sig (ms from the signal to the new leader's log line):" \
    "$(awk -v s=$sig '$1 == s {print $2}' "$T/handovers" | sort -n |
      awk '{v[NR] = $1} END {printf "median %d min %d max %d n %d", v[int((NR + 1) / 2)], v[1], v[NR], NR}')"
done
say "round fds(w1 w2) threads(w1 w2) journal bytes(a b):"
sed 's/^/    /' "$T/figures"

# the first round's figures against the last's
read -r _ f1 f2 t1 t2 ja jb <<<"$(sed -n 1p "$T/figures")"
read -r _ g1 g2 u1 u2 ka kb <<<"$(tail -1 "$T/figures")"
read -r ja5 jb5 <<<"$(sed -n 4,8p "$T/figures" | sort -n -k6 | tail -1 | cut -d' ' -f6) $(sed -n 4,8p "$T/figures" | sort -n -k7 | tail -1 | cut -d' ' -f7)"
check "the workers' open files do not grow ($f1 $f2 to $g1 $g2)" \
  test $((g1 - f1)) -le $fd_slack -a $((g2 - f2)) -le $fd_slack
check "the workers' threads do not grow ($t1 $t2 to $u1 $u2)" \
  test $((u1 - t1)) -le $thread_slack -a $((u2 - t2)) -le $thread_slack
check "the masters' journals stay bounded (rounds 4-8 at most $ja5 $jb5 bytes, end $ka $kb)" \
  test "$ka" -le $((ja5 + journal_slack_bytes)) -a "$kb" -le $((jb5 + journal_slack_bytes))

# hearth-tail follows too: streaming the leader's events, the leader
# killed -9 and started again at once at its address (as systemd would):
# the master that answers there is a standby now, so hearth-tail must
# ask and move to the new leader's events rather than stay on the
# standby's (it once did).
"$BIN/hearth-tail" --master "$LIST" --timeout 1s --topic app --json >"$T/tail.out" 2>&1 &
TAIL=$!
PIDS+=($TAIL)
sleep 2 # it asks, then subscribes (a slow joiner)
old=$LEADER e=$(epoch "$old")
stop_ha "$old" KILL
start_ha "$old"
check "(hearth-tail) after kill -9 and a quick restart of the leader, another leads" \
  wait_for $((SESSION / 1000 + 15)) new_leader "$old" "$e"
wait_for 20 workers_follow
# the application only once hearth-tail has moved (its events, a one-task
# job's, can all be over before hearth-tail's next look, and a
# subscriber sees nothing of what came before it)
wait_for 20 grep -q '"event":"back"' "$T/tail.out"
submit --master "$LIST" "$(job tailed '{"name": "tailed", "stages": [{"name": "s", "tasks": [{"cmd": ["true"]}]}]}')"
check "(hearth-tail) follows the new leader's events (the application after the restart)" \
  wait_for 15 grep -q 'tailed' "$T/tail.out"
kill "$TAIL" 2>/dev/null
wait "$TAIL" 2>/dev/null

# election_nodes: how many candidates' nodes the election holds
election_nodes() {
  local out
  out=$(ZOO_LOG_DIR=$T ZOO_LOG4J_PROP=ERROR,CONSOLE timeout 30 \
    /usr/share/zookeeper/bin/zkCli.sh -server "$ZK" ls "${ZKDIR:-/hearth-test}/election" 2>&1 |
    grep '^\[') || return 1
  out=${out#[} out=${out%]}
  tr ',' '\n' <<<"$out" | grep -c 'n_'
}
nodes=$(election_nodes)
check "the election holds at most one node per live master (${nodes:-?} for $(alive | wc -l))" \
  test "${nodes:-99}" -le "$(alive | wc -l)"
for n in $(alive); do
  stop_ha "$n" TERM
  check "master $n stopped by SIGTERM exits 0" test "$RC" -eq 0
done
nodes=$(election_nodes)
check "with every master stopped, the election is empty (${nodes:-?} nodes)" test "${nodes:-99}" -eq 0
for n in w1 w2; do
  eval "pid=\$PID_$n"
  kill -TERM "$pid"
  wait "$pid"
  check "worker $n stopped by SIGTERM exits 0" test $? -eq 0
done
check "no sanitizer report in the masters' and workers' logs" \
  eval '! grep -l "Sanitizer\|runtime error" "$T"/a.log "$T"/b.log "$T"/w1.log "$T"/w2.log'
finish
