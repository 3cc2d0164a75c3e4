#!/usr/bin/env bash
# The cores of an application's executors after it ends (issue 14.4,
# docs/cluster.md "Cores in use"): they stay counted as used on their
# worker until the worker reports the executors ended, in the master's
# books as in the worker's heartbeats.  An executor running a function
# task takes up to --kill-grace to stop, the window where the books used
# to say 0, then 4 again (the worker's heartbeat), then 0.
# - An application ends: the worker's cores_used never goes back up.
# - An application waiting for those cores is placed only once they are
#   free: never offered cores the worker does not have.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 120
export TMPDIR=$T
# Heartbeats of 1 s: the books' dip to 0 (before the fix) lasted until the
# worker's next heartbeat, long enough for MASTER_STATE polls to see it.
INTERVAL_MS=1000

start_master || exit 1
CORES=4 start_worker w1 || exit 1
W=$ID_w1
"$BIN/hearth-tail" --master "$MASTER_URL" --topic heartbeat --json \
  >"$T/heartbeats" 2>/dev/null &
PIDS+=($!)

J=$(job slow '{"name":"slow","stages":[{"name":"s","tasks":[
  {"fn":"sleep_ms","arg":"60000","count":4}]}]}')
# start_slow NAME: the job as application NAME, on every core; sets APP.
start_slow() {
  sed "s/\"slow\"/\"$1\"/" "$J" >"$T/$1.json"
  "$BIN/hearth-submit" --master "$MASTER_URL" --lib "$TASKS_LIB" \
    --heartbeat-interval "${INTERVAL_MS}ms" --heartbeat-liveness "$LIVENESS" \
    --executor-cores 2 "$T/$1.json" >"$T/$1.out" 2>"$T/$1.err" &
  PIDS+=($!)
  local n=$1
  busy() {
    jq_state "[.apps[] | select(.name == \"$n\" and .state == \"RUNNING\")
      | .executors[] | select(.state == \"RUNNING\")] | length == 2"
  }
  wait_for 30 busy || return 1
  APP=$(state_json | jq -r --arg n "$1" '.apps[] | select(.name == $n) | .id')
  # its driver says its tasks run, on both executors (the progress
  # summary it sends the master): hearth-submit's stderr, grepped for
  # "task" here before, says nothing until the end, and the wait ran
  # its 10 s out each time
  tasks_run() {
    jq_state ".apps[] | select(.name == \"$n\") | .progress.tasks_running >= 2"
  }
  wait_for 10 tasks_run
  sleep 0.5 # its tasks run
}
# poll_cores SECONDS FILE: the worker's cores_used in MASTER_STATE, every
# 50 ms, one line each.
poll_cores() {
  local end=$(($(now_ms) + $1 * 1000))
  while (($(now_ms) < end)); do
    state_json 2>/dev/null | jq -r --arg w "$W" \
      '.workers[] | select(.id == $w) | .cores_used' >>"$2"
    sleep 0.05
  done
}
# never_up FILE: the numbers in FILE never go up.
never_up() {
  awk 'NR > 1 && $1 > prev { print "up at line " NR ": " prev " -> " $1; bad = 1 }
    { prev = $1 } END { exit bad }' "$1"
}

# --- an application ends ----------------------------------------------------
check "an application runs on the worker's 4 cores" start_slow first
FIRST=$APP
"$BIN/hearth-submit" --master "$MASTER_URL" --kill "$FIRST" >/dev/null 2>&1
t_end=$(now_ms)
poll_cores 3 "$T/cores.first"
say "cores_used after the end: $(uniq "$T/cores.first" | tr '\n' ' ')"
check "the executors were reaped by the worker" \
  grep -q "executor $FIRST/1 (pid [0-9]*) KILLED" "$T/w1.log"
reaped=$(($(log_ms "$T/w1.log" "executor $FIRST/[01] (pid [0-9]*) KILLED") - t_end))
say "first executor reaped $reaped ms after the kill"
check "cores_used never goes back up after the end" never_up "$T/cores.first"
check "... and reaches 0" test "$(tail -1 "$T/cores.first")" = 0
check "heartbeat events were seen" test -s "$T/heartbeats"
check "no heartbeat shows it back up" eval "jq -r --arg w '$W' \
  'select(.kind == \"worker\" and .worker.id == \$w and .time_ms > $t_end)
   | .worker.cores_used' '$T/heartbeats' >'$T/hb.first' && never_up '$T/hb.first'"

# --- an application placed in that window -----------------------------------
check "a second application holds the 4 cores" start_slow second
SECOND=$APP
start_app waiting --max-cores 4 --cores-per-executor 4 --memory-mb 64 || exit 1
WAITING=$APP_ID
check "a third waits for them" \
  jq_state ".apps[] | select(.id == \"$WAITING\") | .state == \"WAITING\""
"$BIN/hearth-submit" --master "$MASTER_URL" --kill "$SECOND" >/dev/null 2>&1
check "the waiting one is placed" \
  wait_for 10 grep -q "launching executor $WAITING/0" "$T/master.log"
for x in 0 1; do
  check "executor $x of the ended application reaped" wait_for 10 \
    grep -q "executor $SECOND/$x (pid [0-9]*) KILLED" "$T/w1.log"
done
launched=$(log_ms "$T/master.log" "launching executor $WAITING/0")
last_reap=0
for x in 0 1; do
  t=$(log_ms "$T/w1.log" "executor $SECOND/$x (pid [0-9]*) KILLED")
  ((t > last_reap)) && last_reap=$t
done
say "the waiting application placed $((launched - last_reap)) ms after the last executor of the ended one was reaped"
check "... only once the worker reported the ended executors gone" \
  test "$launched" -ge "$last_reap"
over() {
  jq -c 'select(.kind == "worker" and .worker.cores_used > .worker.cores)
    | [.time_ms, .worker.cores_used]' "$T/heartbeats" | head -3 | grep .
}
check "no heartbeat ever showed more cores used than the worker has" eval '! over'
finish
