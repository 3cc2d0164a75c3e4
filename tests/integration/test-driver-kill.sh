#!/usr/bin/env bash
# A driver killed with kill -9 (docs/failures.md): the master ends its
# application FAILED ("driver lost"), the workers kill its executors, and
# within liveness x interval + one interval + the kill grace nothing of
# the application is left on any worker: no executor, no command task, no
# function task.  Executors that lose their driver also exit by
# themselves: with the master gone too, they are gone within liveness x
# interval + one interval (+ 2 s for a running function task).
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 120
export TMPDIR=$T
GRACE_MS=500 # the workers' --kill-grace
SLACK=300

# --resume-window 0: the application of a lost driver ends FAILED at once,
# as before issue 39 (test-resume-window.sh tests the window)
start_master --resume-window 0 || exit 1
CORES=2 start_worker w1 --kill-grace ${GRACE_MS}ms || exit 1
CORES=2 start_worker w2 --kill-grace ${GRACE_MS}ms || exit 1

J=$(job stuck '{"name":"stuck","lib":"libtesttasks.so","stages":[{"name":"s",
  "tasks":[{"cmd":["sleep","300"],"count":3},{"fn":"sleep_ms","arg":"300000"}]}]}')
# start_stuck NAME: the job on 4 one-core executors, 2 per worker, one
# task each (--task-prefetch 0); sets DRIVER and APP once all 4 run.
start_stuck() {
  "$BIN/hearth-submit" --master "$MASTER_URL" --lib "$TASKS_LIB" \
    --heartbeat-interval "${INTERVAL_MS}ms" --heartbeat-liveness "$LIVENESS" \
    --executor-cores 1 --task-prefetch 0 --log-level info "$J" \
    >"$T/$1.out" 2>"$T/$1.err" &
  DRIVER=$!
  PIDS+=($DRIVER)
  all_run() {
    [[ $(test_pids hearth-executor | wc -l) -eq 4 && $(test_pids sleep | wc -l) -eq 3 ]]
  }
  wait_for 30 all_run || return 1
  APP=$(state_json | jq -r '.apps[] | select(.state == "RUNNING") | .id')
}
app_left() { [[ -n $(procs_in "$T/w1/$APP") || -n $(procs_in "$T/w2/$APP") ]]; }
# reaped_after T0: ms from T0 until the workers reaped the last executor
# of $APP (their logs' time: polling /proc would add its own slowness);
# "missing" when fewer than the 4 first executors' reapings are logged
# (replacements the master started meanwhile are reaped too).
reaped_after() {
  local lines
  lines=$(grep -h "executor $APP/[0-9]* (pid [0-9]*) [A-Z]*:" "$T"/w1.log "$T"/w2.log | sort)
  [[ -n $lines && $(wc -l <<<"$lines") -ge 4 ]] || { echo "missing"; return; }
  echo $(($(tail -1 <<<"$lines" | cut -d' ' -f1 | xargs -I{} date -d {} +%s%3N) - $1))
}
# within MS LIMIT: MS is a measured time, 0 <= MS <= LIMIT.
within() { [[ $1 =~ ^[0-9]+$ ]] && [[ $1 -le $2 ]]; }

check "4 executors run long command and function tasks" start_stuck one
say "$(procs_in "$T/w1/$APP" | wc -l) + $(procs_in "$T/w2/$APP" | wc -l) processes of $APP on the workers"
kill9 "$DRIVER"
t_kill=$(now_ms)
check "no executor or task of the application is left on any worker" \
  wait_for 10 eval '! app_left'
took=$(reaped_after "$t_kill")
LIMIT=$((LIVENESS * INTERVAL_MS + INTERVAL_MS + GRACE_MS))
say "the killed driver's last executor reaped $took ms after the kill (limit $LIMIT ms)"
check "... within liveness x interval + one interval + the kill grace" \
  within "$took" $((LIMIT + SLACK))
check "the master ended the application FAILED: driver lost" jq_state \
  ".apps[] | select(.id == \"$APP\") | .state == \"FAILED\"
    and (.reason | startswith(\"driver lost\"))"
check "its cores are free again" wait_for 5 jq_state '[.workers[].cores_used] | add == 0'

# The master gone as well: the executors leave by themselves.
check "a second application runs" start_stuck two
kill9 "$MASTER_PID"
kill9 "$DRIVER"
t_kill=$(now_ms)
check "executors that lose their driver exit by themselves" wait_for 10 eval '! app_left'
took=$(reaped_after "$t_kill")
# the executor running the function task waits 2 s for it at exit
# (executor/fnpool.c), then exits anyway
LIMIT=$((LIVENESS * INTERVAL_MS + INTERVAL_MS + 2000))
say "executors without driver nor master: the last reaped after $took ms (limit $LIMIT ms: the function task keeps one for up to 2 s)"
check "... within liveness x interval + one interval (+ 2 s for a function task)" \
  within "$took" $((LIMIT + SLACK))
grep -qh 'the driver has been silent' "$T"/w*/"$APP"/*/stderr &&
  pass "... saying that the driver has been silent" ||
  fail "... saying that the driver has been silent"
finish
