#!/usr/bin/env bash
# The pages in a real browser (issue 20): headless Chromium, driven over
# WebDriver (tests/lib/browser.sh), keeps the master's page of a running
# 3-worker cluster open, never reloading it, while the script of the page
# polls /api/v1/state: the DOM holds every worker id; an application
# submitted after the load appears, its progress advances, and once it
# ends it shows FINISHED among the completed ones; a worker killed with
# kill -9 turns DEAD.  The application's page links each executor's log
# on its worker, and that page shows the line a task printed.  The
# browser's console has no error; screenshots are kept as artifacts in
# tests/web/test-browser-artifacts/ of the build directory.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
. "$(dirname "$0")/../lib/browser.sh"
. "$(dirname "$0")/web.sh"
deadline 120
browser_available || { say "skipped: no chromedriver or chromium"; exit 77; }
trap 'browser_stop; cleanup' EXIT
ART=$BIN/tests/web/test-browser-artifacts
rm -rf "$ART" && mkdir -p "$ART"
export TMPDIR=$T

BASE=$(free_port_range 20)
start_master --web-port "$BASE" || exit 1
CORES=2
for w in w1 w2 w3; do start_worker "$w" --web-port $((BASE + 1)) || exit 1; done
WORKERS=$(printf '%s\n' "$ID_w1" "$ID_w2" "$ID_w3" | sort | jq -Rsc 'split("\n")[:-1]')
check "the 3 workers are ALIVE with their pages" wait_for 10 jq_state \
  '[.workers[] | select(.state == "ALIVE" and (.web_url | type) == "string")] | length == 3'
WEB=$(state_json | jq -r .web_url)
w1_web=$(state_json | jq -r --arg id "$ID_w1" '.workers[] | select(.id == $id) | .web_url')

check "a WebDriver session starts" browser_start || exit 1
# the address hearth-admin web-url gives (the pages take this user's
# token); the cookie it sets carries every later navigation, the workers'
# pages too (the same user's token, the same host)
check "the master's page loads" \
  browser_go "$("$BIN/hearth-admin" --master "$MASTER_URL" web-url)"
# A mark that a reload would lose: every later check also proves the page
# was updated in place.
browser_js 'window.hearthMark = 4711; return true;' >/dev/null
in_place() { [[ $(browser_js 'return window.hearthMark === 4711;') == true ]]; }
worker_ids() {
  browser_js 'return Array.from(document.querySelectorAll("#workers tbody tr[data-id]"),
    function (r) { return r.cells[0].textContent; }).sort();'
}
check "the DOM holds every worker id, as served" test "$(worker_ids)" = "$WORKERS"
check "the page polls /api/v1/state (data-polls grows)" browser_until 10 \
  'return Number(document.body.getAttribute("data-polls")) >= 2;'
check "... and every worker id once its script rebuilt the table" \
  test "$(worker_ids)" = "$WORKERS"

# Five stages of twelve 1-second tasks on 6 cores: about ten seconds,
# each task printing a line to its stderr (its executor's log).
J=$(job slow '{"name":"slow","stages":[
 {"name":"one","tasks":[{"cmd":["sh","-c","sleep 1; echo browser-task-line-{i} >&2; echo {i}"],"count":12}]},
 {"name":"two","after":["one"],"tasks":[{"cmd":["sh","-c","sleep 1; echo {i}"],"count":12}]},
 {"name":"three","after":["two"],"tasks":[{"cmd":["sh","-c","sleep 1; echo {i}"],"count":12}]},
 {"name":"four","after":["three"],"tasks":[{"cmd":["sh","-c","sleep 1; echo {i}"],"count":12}]},
 {"name":"five","after":["four"],"tasks":[{"cmd":["sh","-c","sleep 1; echo {i}"],"count":12}]}]}')
"$BIN/hearth-submit" --master "$MASTER_URL" --heartbeat-interval "${INTERVAL_MS}ms" \
  --heartbeat-liveness "$LIVENESS" --executor-cores 2 --executor-memory 256 \
  --name "slow <&\"job\">" "$J" >"$T/job.out" 2>"$T/job.err" &
JOB_PID=$!
PIDS+=($JOB_PID)
wait_for 10 jq_state '[.apps[] | select(.state == "RUNNING")] | length == 1'
APP_ID=$(state_json | jq -r '.apps[] | select(.state == "RUNNING") | .id')
app_row="#apps-running tr[data-id=\"$APP_ID\"]"
check "the application appears among the running ones without a reload" \
  browser_until 10 'return !!document.querySelector(arguments[0]);' "$app_row"
check "... its name as text, escaped" test "$(browser_js \
  'return document.querySelector(arguments[0]).cells[1].textContent;' "$app_row")" \
  = '"slow <&\"job\">"'

# Progress: the driver's summaries (APPLICATION_PROGRESS), when this
# build has them.
if wait_for 5 jq_state '[.apps[] | select(has("progress"))] | length == 1'; then
  done_now() { browser_js 'var d = document.querySelector(arguments[0] + " .done");
    return d ? Number(d.textContent) : -1;' "$app_row"; }
  check "the progress is shown" browser_until 10 \
    'return !!document.querySelector(arguments[0] + " .done");' "$app_row"
  first=$(done_now)
  check "... and advances on the open page (from $first tasks done)" browser_until 20 \
    'var d = document.querySelector(arguments[0] + " .done");
     return !!d && Number(d.textContent) > Number(arguments[1]);' "$app_row" "$first"
else
  say "skipped: no progress reports (this build's master has no progress of applications)"
  check "... its progress shows \"-\"" test "$(browser_js \
    'return document.querySelector(arguments[0]).cells[8].textContent;' "$app_row")" = '"-"'
fi
browser_screenshot "$ART/master-running.png"

# A worker killed: DEAD on the open page.
kill9 "$PID_w3"
check "a worker killed with kill -9 turns DEAD on the open page" browser_until 20 \
  'var r = document.querySelector("#workers tr[data-id=\"" + arguments[0] + "\"]");
   return !!r && r.cells[2].textContent === "DEAD";' "$ID_w3"
check "... the page was never reloaded" in_place
browser_screenshot "$ART/master-worker-dead.png"

# The application's page: an executor on w1 and its log link.
check "the application's page loads" browser_go "$WEB/app/$APP_ID"
check "... with an executor on w1" browser_until 10 \
  'var id = arguments[0];
   return Array.from(document.querySelectorAll("#executors tbody tr")).some(function (r) {
     return r.cells.length > 1 && r.cells[1].textContent === id; });' "$ID_w1"
href=$(browser_js 'var rows = Array.from(document.querySelectorAll("#executors tbody tr"));
  for (var i = 0; i < rows.length; i++)
    if (rows[i].cells[1].textContent === arguments[0])
      return rows[i].querySelector("a[href*=\"stream=stderr\"]").href;
  return null;' "$ID_w1" | jq -r .)
check "... its stderr link is on w1's pages ($href)" \
  eval '[[ $href == "$w1_web/logpage?app=$APP_ID&exec="*"&stream=stderr" ]]'
browser_screenshot "$ART/app.png"
log_line() {
  browser_go "$href" &&
    browser_is_true 'var p = document.getElementById("log");
      return !!p && /browser-task-line-[0-9]+/.test(p.textContent);'
}
check "... that log's page shows the line a task printed" wait_for 20 log_line
browser_screenshot "$ART/log.png"
check "w1's page loads" browser_go "$w1_web/"
check "... listing the application's executor with its log links" browser_until 10 \
  'var id = arguments[0];
   return Array.from(document.querySelectorAll("#executors tbody tr[data-id]")).some(function (r) {
     return r.getAttribute("data-id").indexOf(id + "/") === 0
       && !!r.querySelector("a[href^=\"/logpage?app=\"]"); });' "$APP_ID"
check "... and polls its own /api/v1/state" browser_until 10 \
  'return Number(document.body.getAttribute("data-polls")) >= 1;'
browser_screenshot "$ART/worker.png"

# The end: FINISHED among the completed applications.
check "the master's page again" browser_go "$WEB/"
browser_js 'window.hearthMark = 4711; return true;' >/dev/null
check "the job succeeds" wait_for 40 eval '! kill -0 "$JOB_PID" 2>/dev/null'
wait "$JOB_PID"
check "... exit status 0" test $? -eq 0
check "... FINISHED among the completed applications, without a reload" browser_until 10 \
  'var r = document.querySelector("#apps-completed tr[data-id=\"" + arguments[0] + "\"]");
   var h = Array.from(document.querySelectorAll("#apps-completed th")).map(function (c) { return c.textContent; });
   return !!r && r.cells[h.indexOf("Final state")].textContent === "FINISHED"
     && r.cells[h.indexOf("Cores")].textContent !== "0";' "$APP_ID"
check "... the page was never reloaded" in_place
browser_screenshot "$ART/master-finished.png"

errors=$(browser_errors)
check "no error in the browser's console${errors:+: $errors}" test -z "$errors"
cp "$T/browser-console.log" "$ART/console.log" 2>/dev/null
say "screenshots in $ART"
finish
