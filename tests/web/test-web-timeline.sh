#!/usr/bin/env bash
# The live timeline across a restart of the master (issue 42): the
# application's page draws its executor's 2 core lanes and the attempts
# that ended; the master is killed with kill -9 and started again on its
# journal; the driver registers again, and the new master's page draws
# the executor again (the driver tells a master that registered it again
# of its executors once more) with the attempts that ended since, which
# only that master saw.  The page of an application the master does not
# know is a 404 without a timeline.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
. "$(dirname "$0")/web.sh"
deadline 120
export TMPDIR=$T

BASE=$(free_port_range 2)
master() { PORT=$BASE start_master --journal "$T/journal" --web-port $((BASE + 1)); }
master || exit 1
CORES=2 start_worker w1 || exit 1
WEB=$(state_json | jq -r .web_url)

# Stage "one" of four quick tasks; stage "two" of two tasks, each waiting
# for its file (go0, go1) that the test writes after the restart.
J=$(job tl '{"name":"tl","stages":[
 {"name":"one","tasks":[{"cmd":["sh","-c","sleep 0.2; echo {i}"],"count":4}]},
 {"name":"two","after":["one"],"tasks":[{"cmd":["sh","-c","while [ ! -e '"$T"'/go{i} ]; do sleep 0.1; done; echo {i}"],"count":2}]}]}')
"$BIN/hearth-submit" --master "$MASTER_URL" --heartbeat-interval "${INTERVAL_MS}ms" \
  --heartbeat-liveness "$LIVENESS" --executor-cores 2 --executor-memory 256 \
  "$J" >"$T/job.out" 2>"$T/job.err" &
JOB_PID=$!
PIDS+=($JOB_PID)
check "the application runs" wait_for 10 jq_state \
  '[.apps[] | select(.state == "RUNNING")] | length == 1'
APP_ID=$(state_json | jq -r '.apps[] | select(.state == "RUNNING") | .id')

# count WHAT: how often WHAT is in the application's page as served.
count() { http_get "$WEB/app/$APP_ID" "$T/page.html" && grep -o "$1" "$T/page.html" | wc -l; }
drawn() { [[ $(count 'class="lane"') == "$1" && $(count 'class="task ok"') == "$2" ]]; }
check "its page draws the executor's 2 lanes and stage one's 4 attempts" \
  wait_for 20 drawn 2 4

kill9 "$MASTER_PID"
master || exit 1
check "the restarted master has the application RUNNING again" wait_for 20 jq_state \
  '[.apps[] | select(.id == "'"$APP_ID"'" and .state == "RUNNING" and has("progress"))] | length == 1'
touch "$T/go0"
check "the new master's page draws the executor's 2 lanes and the attempt since" \
  wait_for 10 drawn 2 1
touch "$T/go1"
check "the job succeeds" wait_for 30 eval '! kill -0 "$JOB_PID" 2>/dev/null'
wait "$JOB_PID"
check "... exit status 0" test $? -eq 0
check "... and once it has ended, the 2 attempts since" wait_for 10 drawn 2 2
check "... and no attempt it did not see" test "$(count 'class="task failed"')" = 0

http_get "$WEB/app/app-20200101000000-9999" "$T/none.html"
check "an unknown application's page: 404" test "$(http_status)" = 404
check "... without a timeline" bash -c "! grep -q 'timeline' '$T/none.html'"
check "no sanitizer report in the master's log" \
  bash -c "! grep -q 'Sanitizer' '$T/master.log'"
finish
