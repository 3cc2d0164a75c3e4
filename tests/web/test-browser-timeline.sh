#!/usr/bin/env bash
# The live timeline of the master's application page (issue 42), in
# headless Chromium (tests/lib/browser.sh): while a client-mode
# application runs on one 2-core worker, its page holds an
# inline SVG with its executor's two core lanes; once it has ended (it
# stays listed), its page keeps the whole timeline: the two lanes, the
# attempt that failed in the failed colour, the others in their stage's,
# a dashed line where each of its two stages started, the executor's
# removal; hostile names escaped; no console error.  A screenshot is kept
# in tests/web/test-browser-artifacts/timeline.png of the build directory.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
. "$(dirname "$0")/../lib/browser.sh"
. "$(dirname "$0")/web.sh"
deadline 120
browser_available || { say "skipped: no chromedriver or chromium"; exit 77; }
trap 'browser_stop; cleanup' EXIT
ART=$BIN/tests/web/test-browser-artifacts
mkdir -p "$ART"
export TMPDIR=$T

BASE=$(free_port_range 4)
start_master --web-port "$BASE" || exit 1
CORES=2
start_worker w1 --web-port $((BASE + 1)) || exit 1
check "the worker is ALIVE" wait_for 10 jq_state \
  '[.workers[] | select(.state == "ALIVE")] | length == 1'
WEB=$(state_json | jq -r .web_url)

# Stage "map <&>" of six tasks; its task 3 fails on its first attempt
# (then succeeds); stage "sum" of two tasks after it, whose first waits
# for a file the test writes once it has seen the page while it runs.
J=$(job tl '{"name":"tl","stages":[
 {"name":"map <&>","tasks":[{"cmd":["sh","-c","sleep 0.3; if [ {i} = 3 ] && mkdir '"$T"'/failed-once 2>/dev/null; then exit 7; fi; echo {i}"],"count":6}]},
 {"name":"sum","after":["map <&>"],"tasks":[{"cmd":["sh","-c","if [ {i} = 0 ]; then while [ ! -e '"$T"'/go ]; do sleep 0.1; done; fi; echo s{i}"],"count":2}]}]}')
"$BIN/hearth-submit" --master "$MASTER_URL" --heartbeat-interval "${INTERVAL_MS}ms" \
  --heartbeat-liveness "$LIVENESS" --executor-cores 2 --executor-memory 256 \
  "$J" >"$T/job.out" 2>"$T/job.err" &
JOB_PID=$!
PIDS+=($JOB_PID)
check "the application runs" wait_for 10 jq_state \
  '[.apps[] | select(.state == "RUNNING")] | length == 1'
APP_ID=$(state_json | jq -r '.apps[] | select(.state == "RUNNING") | .id')
# the map stage is over when the sum stage is the active one
check "... its map stage ends" wait_for 30 jq_state \
  '[.apps[] | select(.state == "RUNNING") | .progress.stages[]? | select(.name == "sum")] | length == 1'

check "a WebDriver session starts" browser_start || exit 1
check "the master's page loads" \
  browser_go "$("$BIN/hearth-admin" --master "$MASTER_URL" web-url)"
svg_ok() {
  browser_go "$WEB/app/$APP_ID" && browser_is_true \
    'var s = document.getElementById("timeline");
     return !!s && s.namespaceURI === "http://www.w3.org/2000/svg"
       && s.querySelectorAll("g.exec rect.lane").length === 2
       && s.querySelectorAll("rect.task.failed").length === 1;'
}
check "the running application's page: an SVG with the executor's 2 lanes and the failed attempt" \
  wait_for 10 svg_ok
browser_screenshot "$ART/timeline-running.png"
touch "$T/go"
check "the job succeeds" wait_for 30 eval '! kill -0 "$JOB_PID" 2>/dev/null'
wait "$JOB_PID"
check "... exit status 0" test $? -eq 0
check "... FINISHED, listed" wait_for 10 jq_state \
  '[.apps[] | select(.id == "'"$APP_ID"'" and .state == "FINISHED")] | length == 1'

check "the completed application's page loads" browser_go "$WEB/app/$APP_ID"
check "... its timeline: an SVG with the executor's 2 lanes" test "$(browser_js \
  'var s = document.getElementById("timeline");
   return !!s && s.namespaceURI === "http://www.w3.org/2000/svg"
     && s.querySelectorAll("g.exec rect.lane").length === 2
     && s.getBoundingClientRect().height > 60;')" = true
check "... the failed attempt in the failed colour" test "$(browser_js \
  'var r = document.querySelectorAll("#timeline rect.task.failed");
   return r.length === 1 && getComputedStyle(r[0]).fill === "rgb(214, 39, 40)"
     && r[0].getBoundingClientRect().width > 0;')" = true
check "... the 8 taken attempts in their stages' colours" test "$(browser_js \
  'var r = document.querySelectorAll("#timeline rect.task.ok");
   return r.length === 8 && Array.prototype.every.call(r, function (e) {
     return getComputedStyle(e).fill !== "rgb(214, 39, 40)"; });')" = true
check "... both stages' boundaries" test "$(browser_js \
  'return document.querySelectorAll("#timeline line.stage-start").length;')" = 2
check "... the stage's name as text, escaped" test "$(browser_js \
  'return Array.from(document.querySelectorAll("#timeline g.stage title"),
     function (t) { return t.textContent; }).join("|").indexOf("map <&>") >= 0;')" = true
check "... no note of attempts left out" test "$(browser_js \
  'return document.getElementById("timeline-note") === null;')" = true
browser_screenshot "$ART/timeline.png"

errors=$(browser_errors)
check "no error in the browser's console${errors:+: $errors}" test -z "$errors"
say "screenshots in $ART"
finish
