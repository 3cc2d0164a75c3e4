#!/usr/bin/env bash
# ZooKeeper failing under a running cluster of real masters (issue 17):
# two masters, two 1-core workers and a driver given both URLs, a
# two-stage job running while (a) the standalone ZooKeeper is stopped
# and started again: the leader suspends meanwhile, afterwards exactly
# one master leads, the job finishes with its exact output, no task run
# twice, no executor killed, and a new application gets executors;
# (b) on a three-server ensemble, the server the leader is connected to
# is killed -9: exactly one leader remains, the job finishes the same
# way and a new submission works.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
. "$(dirname "$0")/../lib/zk.sh"
deadline 240

zk_require
SESSION=${SESSION:-4000}
ZKP=$(zk_free_port)
ZK=127.0.0.1:$ZKP
HA_SAME_PORT=1 # (b) restarts the masters on another ZooKeeper, same URLs
. "$(dirname "$0")/../lib/hamasters.sh"

# start_job NAME N: two_stages NAME N submitted in the background to
# both masters (event log in $T/ev-NAME); sets JOB; waits for its two
# executors (one per 1-core worker).
start_job() {
  submit --master "$LIST" --event-log "$T/ev-$1" --log-level info "$(two_stages "$1" "$2")" &
  JOB=$!
  PIDS+=($JOB)
  check "($1 has its two executors)" \
    wait_for 30 eval '[[ $(grep -c "executor .* granted" "$T/err") -ge 2 ]]'
}
# job_done NAME N: the job started by start_job finishes with its exact
# output, every task started once, no executor killed.
job_done() {
  wait "$JOB"
  check "$1 finishes" test $? -eq 0
  check "... with its exact output" test "$(cat "$T/out")" = "$(seq 0 $(($2 - 1)) | tr '\n' ' ')"
  check "... each of its $(($2 + 1)) tasks started once, attempt 0" test \
    "$(events "$T/ev-$1" '.event == "task_start" and .attempt == 0')/$(events "$T/ev-$1" '.event == "task_start"')" = "$(($2 + 1))/$(($2 + 1))"
  check "... no executor killed: each ended with the application" \
    test "$(events "$T/ev-$1" '.event == "executor_removed" and .reason != "the application is over"')" = 0
}
# fresh_app NAME: a small job submitted now gets executors and finishes.
fresh_app() {
  submit --master "$LIST" --log-level info "$(two_stages "$1" 4)"
  check "a new application ($1) finishes" test $? -eq 0
  check "... with its exact output" test "$(cat "$T/out")" = "0 1 2 3 "
  check "... on executors granted to it" grep -q "executor .* granted" "$T/err"
}
# after_outage NAME N APP: still one leader, the job NAME of N tasks
# done (job_done), both workers ALIVE at the leader, a new application
# APP runs.
after_outage() {
  check "... and still exactly one leader" eval '[[ $(leaders) == 1 ]]'
  job_done "$1" "$2"
  MASTER_URL=${URL[$LEADER]}
  check "both workers are ALIVE at the leader" \
    wait_for 20 jq_state '[.workers[] | select(.state == "ALIVE")] | length == 2'
  fresh_app "$3"
}
# leaders: how many live masters answer LEADER (exactly one when settled)
leaders() {
  local n c=0
  for n in $(alive); do [[ $(role "$n") == LEADER ]] && c=$((c + 1)); done
  echo "$c"
}

ha_pair 1 || { finish; exit 1; }

# --- (a) the standalone ZooKeeper stopped and started again ---------------
L=$LEADER E=$(epoch "$LEADER")
start_job zk-restart 50
stop_zk z1
check "with ZooKeeper stopped, the leader ($L) is suspended" \
  wait_for $((SESSION / 1000 + 5)) grep -q "SUSPENDED (epoch $E)" "$T/$L.log"
check "... while the job still runs" kill -0 "$JOB" 2>/dev/null
start_zk z1 "$ZKP" || fail "ZooKeeper starts again"
check "after ZooKeeper's restart, exactly one master leads, the other names it" \
  wait_for $((SESSION / 1000 + 20)) settled
say "after the restart $LEADER leads with epoch $(epoch "$LEADER") (before: $L, epoch $E)"
after_outage zk-restart 50 after-restart

# --- (b) a three-server ensemble, the leader's server killed -9 -----------
for n in a b; do
  stop_ha "$n" TERM
  check "(master $n stopped by SIGTERM exits 0)" test "$RC" -eq 0
done
stop_zk z1
P1=$(zk_free_port) P2=$(zk_free_port) P3=$(zk_free_port)
Q1=$(zk_free_port) Q2=$(zk_free_port) Q3=$(zk_free_port)
R1=$(zk_free_port) R2=$(zk_free_port) R3=$(zk_free_port)
SERVERS="1=127.0.0.1:$Q1:$R1,2=127.0.0.1:$Q2:$R2,3=127.0.0.1:$Q3:$R3"
for i in 1 2 3; do
  eval "p=\$P$i"
  ZK_NOWAIT=1 start_zk "e$i" "$p" "$SERVERS"
done
check "a three-server ensemble answers" \
  wait_for 60 eval 'zk_ruok '"$P1"' && zk_ruok '"$P2"' && zk_ruok '"$P3"
ZK=127.0.0.1:$P1,127.0.0.1:$P2,127.0.0.1:$P3
ZKDIR=/hearth-ensemble
start_ha a || { fail "master a starts on the ensemble"; finish; exit 1; }
start_ha b || { fail "master b starts on the ensemble"; finish; exit 1; }
check "one master leads on the ensemble, the other names it" wait_for 30 settled
check "(they kept their URLs)" test "${URL[a]},${URL[b]}" = "$LIST"
MASTER_URL=${URL[$LEADER]}
check "(both workers are ALIVE at it)" \
  wait_for 20 jq_state '[.workers[] | select(.state == "ALIVE")] | length == 2'
L=$LEADER E=$(epoch "$LEADER")
start_job ensemble 40
# the ensemble member the leader's ZooKeeper client is connected to
port=$(ss -tnpH state established "( dport = :$P1 or dport = :$P2 or dport = :$P3 )" |
  grep "pid=${MPID[$L]}," | awk '{print $4}' | head -1)
port=${port##*:}
victim=
for i in 1 2 3; do eval "[[ \$P$i == \"$port\" ]]" && victim=e$i; done
check "(the leader $L is connected to ensemble member ${victim:-?} on port ${port:-?})" test -n "$victim"
suspended=$(grep -c "SUSPENDED (epoch $E)" "$T/$L.log")
stop_zk "${victim:-e1}" KILL
check "with ${victim:-e1} killed -9, the leader suspends (its link is gone)" \
  wait_for 10 eval '[[ $(grep -c "SUSPENDED (epoch $E)" "$T/$L.log") -gt $suspended ]]'
check "... then exactly one master leads, the other names it" \
  wait_for $((SESSION / 1000 + 20)) settled
say "after the kill $LEADER leads with epoch $(epoch "$LEADER") (before: $L, epoch $E)"
check "... and the job is still running through it" kill -0 "$JOB" 2>/dev/null
after_outage ensemble 40 after-kill

for n in a b; do
  stop_ha "$n" TERM
  check "master $n stopped by SIGTERM exits 0" test "$RC" -eq 0
done
check "no sanitizer report in the masters' logs" \
  eval '! grep -l "Sanitizer\|runtime error" "$T"/a.log "$T"/b.log'
finish
