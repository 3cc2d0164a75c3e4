#!/usr/bin/env bash
# kill -9 of an executor mid-job: the job still completes, with every
# result exactly once (local mode: the driver starts a new executor;
# local-cluster: the master launches a replacement on a worker).
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 240
export TMPDIR=$T

J=$(job slow '{"name":"slow","stages":[{"name":"s","tasks":[{"cmd":["sh","-c","sleep 0.02; echo {i}"],"count":300}]}]}')
seq 0 299 >"$T/expected"

# run_and_kill MASTER: start the job, kill -9 one executor once it runs
# tasks, while the job is still running.
run_and_kill() {
  submit --master "$1" --log-level info "$J" &
  local job=$!
  if wait_for 30 executors_running && sleep 0.5; then
    local victim
    victim=$(test_pids hearth-executor | head -1)
    if [[ -n $victim ]] && kill -0 "$job" && kill -9 "$victim"; then
      pass "killed executor $victim mid-job ($1)"
    else
      fail "killed an executor mid-job ($1): executor '$victim', job $job"
    fi
  else
    fail "no executor started ($1)"
  fi
  wait "$job"
}
# requeued: the driver re-queued the killed executor's tasks (it had some:
# 300 tasks of 20 ms keep every executor busy).
requeued() {
  grep -Eq 'executor [0-9]+ lost .*: [1-9][0-9]* tasks to run again' "$T/err"
}

run_and_kill 'local[2]'
check "the job survives (local)" test $? -eq 0
check "... the killed executor's tasks ran again" requeued
check "... with every result once, in order" same "$T/out" "$T/expected"

run_and_kill 'local-cluster[2,1,512]'
check "the job survives (local-cluster)" test $? -eq 0
check "... the killed executor's tasks ran again" requeued
check "... with every result once, in order" same "$T/out" "$T/expected"

check "nothing is left running" no_leftovers
finish
