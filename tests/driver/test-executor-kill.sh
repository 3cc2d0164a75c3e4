#!/usr/bin/env bash
# kill -9 of an executor mid-job: the job still completes, with every
# result exactly once (local mode: the driver starts a new executor;
# local-cluster: the master launches a replacement on a worker).
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/lib-driver.sh"
deadline 240
export TMPDIR=$T

J=$(job slow '{"name":"slow","stages":[{"name":"s","tasks":[{"cmd":["sh","-c","sleep 0.02; echo {i}"],"count":300}]}]}')
seq 0 299 >"$T/expected"

# run_and_kill MASTER: start the job, kill -9 one executor once it runs.
run_and_kill() {
  submit --master "$1" "$J" &
  local job=$!
  if wait_for 30 executors_running; then
    sleep 0.5
    local victim
    victim=$(test_pids hearth-executor | head -1)
    kill -9 "$victim" && pass "killed executor $victim mid-job ($1)"
  else
    fail "no executor started ($1)"
  fi
  wait "$job"
}

run_and_kill 'local[2]'
check "the job survives (local)" test $? -eq 0
check "... with every result once, in order" same "$T/out" "$T/expected"

run_and_kill 'local-cluster[2,1,512]'
check "the job survives (local-cluster)" test $? -eq 0
check "... with every result once, in order" same "$T/out" "$T/expected"

check "nothing is left running" no_leftovers
finish
