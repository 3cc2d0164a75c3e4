#!/usr/bin/env bash
# /metrics on the master and a worker: `promtool check metrics` finds
# nothing wrong in either (before and after a job); the values are the
# cluster's: workers by state, cores and memory in bytes, heartbeats
# counted, executors' exits by reason, applications by state, the tasks
# of the drivers' progress summaries (6 finished, 1 failed attempt), the
# allocation passes and journal writes timed, the worker's own cores,
# exits and log bytes served.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
. "$(dirname "$0")/web.sh"
deadline 120
export TMPDIR=$T
command -v promtool >/dev/null || { say "no promtool (Debian's prometheus: scripts/install-deps)"; exit 1; }

BASE=$(free_port_range 4)
start_master --web-port "$BASE" --journal "$T/journal" || exit 1
CORES=2 MEMORY=2G start_worker w1 --web-port "$((BASE + 1))" || exit 1
M=http://127.0.0.1:$BASE/metrics
W=http://127.0.0.1:$((BASE + 1))/metrics

# metric FILE NAME_AND_LABELS: its value.
metric() { awk -v k="$2" '$1 == k { print $2 }' "$1"; }
# lint FILE: promtool's check passes and says nothing.
lint() { promtool check metrics <"$1" >"$1.lint" 2>&1 && test ! -s "$1.lint"; }

http_get "$M" "$T/m0"
check "master /metrics: 200, text/plain version 0.0.4" \
  eval 'test "$(http_status)" = 200 && http_header Content-Type | grep -q "text/plain; version=0.0.4"'
check "promtool check metrics: clean (master)" lint "$T/m0"
check "master: the bytes persisted stages keep in memory, 0 with no application" \
  grep -qx 'hearth_persisted_memory_bytes 0' "$T/m0"
check "1 worker ALIVE, 2 cores free, 2 GiB free in bytes" eval \
  '[[ $(metric "$T/m0" "hearth_workers{state=\"ALIVE\"}") == 1 &&
      $(metric "$T/m0" "hearth_cores{state=\"free\"}") == 2 &&
      $(metric "$T/m0" "hearth_memory_bytes{state=\"free\"}") == 2147483648 ]]'
http_get "$W" "$T/wm0"
check "promtool check metrics: clean (worker)" lint "$T/wm0"
check "the worker: registered, 2 cores free" eval \
  '[[ $(metric "$T/wm0" hearth_worker_registered) == 1 &&
      $(metric "$T/wm0" "hearth_worker_cores{state=\"free\"}") == 2 ]]'
sleep 1
http_get "$M" "$T/m1"
check "heartbeats received grow" eval \
  '(( $(metric "$T/m1" hearth_heartbeats_received_total) > $(metric "$T/m0" hearth_heartbeats_received_total) ))'

# 6 tasks, task 0 failing once: 6 finished, 1 failed attempt; each
# preferring the worker's host, so its 7 attempts run NODE_LOCAL.
WHOST=$(state_json | jq -r '.workers[0].host')
J=$(job six '{"name":"six","stages":[{"name":"s","tasks":[
  {"cmd":["sh","-c","if [ {i} = 0 ] && mkdir '"$T"'/failed-once 2>/dev/null; then exit 3; fi; sleep 0.3; echo {i}"],
   "count":6, "prefer":"'"$WHOST"'"}]}]}')
check "a job runs" submit --master "$MASTER_URL" "$J"
# its executor ends either way: KILLED by the master at the end, or
# EXITED on its own first when it hears its driver go (a race of a few ms)
check "... the application FINISHED and its executor ended (KILLED, or EXITED first)" wait_for 10 eval \
  'http_get "$M" "$T/m2" && [[ $(metric "$T/m2" "hearth_applications{state=\"FINISHED\"}") == 1 &&
    $(( $(metric "$T/m2" "hearth_executor_exits_total{reason=\"KILLED\"}") +
        $(metric "$T/m2" "hearth_executor_exits_total{reason=\"EXITED\"}") )) -ge 1 ]]'
check "promtool check metrics: clean after the job (master)" lint "$T/m2"
check "tasks: 6 finished, 1 failed (the progress summaries)" eval \
  '[[ $(metric "$T/m2" hearth_tasks_finished_total) == 6 && $(metric "$T/m2" hearth_tasks_failed_total) == 1 ]]'
http_get "$M" "$T/m3"
check "... counted once: the same at the next scrape" eval \
  '[[ $(metric "$T/m3" hearth_tasks_finished_total) == 6 ]]'
check "locality: the 7 attempts NODE_LOCAL, none RACK_LOCAL or ANY, once" eval \
  '[[ $(metric "$T/m2" "hearth_task_locality_total{level=\"node_local\"}") == 7 &&
      $(metric "$T/m2" "hearth_task_locality_total{level=\"rack_local\"}") == 0 &&
      $(metric "$T/m2" "hearth_task_locality_total{level=\"any\"}") == 0 &&
      $(metric "$T/m3" "hearth_task_locality_total{level=\"node_local\"}") == 7 ]]'
check "allocation passes and journal writes timed (histogram counts > 0)" eval \
  '(( $(metric "$T/m2" hearth_scheduling_pass_seconds_count) > 0 &&
      $(metric "$T/m2" hearth_journal_write_seconds_count) > 0 )) &&
   [[ $(metric "$T/m2" "hearth_scheduling_pass_seconds_bucket{le=\"+Inf\"}") == $(metric "$T/m2" hearth_scheduling_pass_seconds_count) ]]'
check "no label names a task, an application, a worker (label values are states, levels)" eval \
  '! grep -v "^#" "$T/m2" | grep -o "{[^}]*}" | grep -Evq "^\{(state|reason|status)=\"[A-Za-z]+\"\}\$|^\{level=\"[a-z_]+\"\}\$|^\{le=\"[0-9.e+Inf-]+\"\}\$"'
APP=$(state_json | jq -r '.apps[0].id')
http_get "http://127.0.0.1:$((BASE + 1))/log?app=$APP&exec=0&stream=stderr&length=100" "$T/log"
SERVED=$(stat -c %s "$T/log")
http_get "$W" "$T/wm1"
check "promtool check metrics: clean after the job (worker)" lint "$T/wm1"
# (its executor is KILLED by its worker, or EXITED by itself when its
# driver's STOP_EXECUTOR comes first: a loaded machine sees both)
check "the worker: its executor's exit, the log bytes it served" eval \
  '[[ $(($(metric "$T/wm1" "hearth_worker_executor_exits_total{reason=\"KILLED\"}") +
         $(metric "$T/wm1" "hearth_worker_executor_exits_total{reason=\"EXITED\"}"))) -ge 1 &&
      $(metric "$T/wm1" hearth_worker_log_bytes_served_total) == "$SERVED" ]] && ((SERVED > 0))'
finish
