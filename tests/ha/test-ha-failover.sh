#!/usr/bin/env bash
# A failover under a running job (issue 17), both sides together: two
# masters elected through a real ZooKeeper, two workers and a driver
# given both URLs.  kill -9 of the leader while a two-stage job runs:
# the standby leads with a higher epoch, the workers and the driver
# follow it, and the job finishes with its exact output, no task run
# again (every attempt 0) and no executor killed (each ends with the
# application).  Then SIGTERM of the new leader under a second job: the
# restarted first master takes over and that job finishes too.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
. "$(dirname "$0")/../lib/zk.sh"
deadline 240

zk_require
SESSION=${SESSION:-3000}
ZKP=$(zk_free_port)
ZK=127.0.0.1:$ZKP
. "$(dirname "$0")/../lib/hamasters.sh"

start_zk z1 "$ZKP" || { fail "ZooKeeper starts on $ZKP"; finish; exit 1; }
start_ha a || { fail "master a starts"; finish; exit 1; }
check "(master a leads)" wait_for 30 eval '[[ $(role a) == LEADER ]]'
start_ha b || { fail "master b starts"; finish; exit 1; }
check "(master b is its standby)" wait_for 30 settled
E1=$(epoch a)
LIST="${URL[a]},${URL[b]}"
MASTER_URL=$LIST CORES=2 start_worker w1 || { finish; exit 1; }
MASTER_URL=$LIST CORES=2 start_worker w2 || { finish; exit 1; }

# --- kill -9 of the leader under a running job ------------------------------
J=$(two_stages one 60)
submit --master "$LIST" --event-log "$T/ev1" --log-level info "$J" &
JOB=$!
PIDS+=($JOB)
check "(the job has its executors)" \
  wait_for 30 eval '[[ $(grep -c "executor .* granted" "$T/err") -ge 2 ]]'
sleep 0.5
stop_ha a KILL
check "after kill -9 of the leader, b leads" \
  wait_for $((SESSION / 1000 + 15)) eval '[[ $(role b) == LEADER ]]'
E2=$(epoch b)
check "... with a higher epoch ($E1 < $E2)" test "$E2" -gt "$E1"
wait "$JOB"
check "the job finishes" test $? -eq 0
check "... with its exact output" test "$(cat "$T/out")" = "$(seq 0 59 | tr '\n' ' ')"
check "... no task run again (every attempt is attempt 0)" \
  test "$(events "$T/ev1" '.event == "task_start" and .attempt > 0')" = 0
check "... each of its 61 tasks started once" \
  test "$(events "$T/ev1" '.event == "task_start"')" = 61
check "... no executor killed: each ended with the application" \
  test "$(events "$T/ev1" '.event == "executor_removed" and .reason != "the application is over"')" = 0
check "... and none failed" \
  test "$(jq -r 'select(.event == "app_end") | .tasks_failed' "$T"/ev1/*.events)" = 0
MASTER_URL=${URL[b]}
check "both workers registered with the new leader" \
  wait_for 20 jq_state '[.workers[] | select(.state == "ALIVE")] | length == 2'
check "the driver registered with it (its application FINISHED there)" \
  wait_for 10 jq_state '[.apps[] | select(.name == "one" and .state == "FINISHED")] | length == 1'
check "the workers' logs say they followed it" \
  grep -qE "following the leader|standby" "$T/w1.log"

# --- SIGTERM of the new leader under a second job ---------------------------
start_ha a || { fail "master a starts again"; finish; exit 1; }
check "(a is now b's standby)" wait_for 30 eval 'settled && [[ $LEADER == b ]]'
J=$(two_stages two 40)
submit --master "$LIST" --event-log "$T/ev2" --log-level info "$J" &
JOB=$!
PIDS+=($JOB)
check "(the second job has its executors)" \
  wait_for 30 eval '[[ $(grep -c "executor .* granted" "$T/err") -ge 2 ]]'
t0=$(date +%s%N)
stop_ha b TERM
check "after SIGTERM of the leader, a leads" wait_for 10 eval '[[ $(role a) == LEADER ]]'
ms=$((($(date +%s%N) - t0) / 1000000))
say "SIGTERM handover seen after $ms ms"
check "... well under the session time ($ms < $SESSION ms)" test "$ms" -lt "$SESSION"
wait "$JOB"
check "the second job finishes with its exact output" \
  test "$(cat "$T/out")" = "$(seq 0 39 | tr '\n' ' ')"
check "... no task run again" \
  test "$(events "$T/ev2" '.event == "task_start" and .attempt > 0')" = 0
finish
