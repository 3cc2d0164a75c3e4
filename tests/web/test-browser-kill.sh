#!/usr/bin/env bash
# The kill action of the master's pages in a real browser (issue 42 item
# 11): headless Chromium (tests/lib/browser.sh) opens a RUNNING
# application's page, clicks its Kill button, lands on the confirmation
# page, clicks its Kill button (the browser POSTs the form, with its own
# Origin and Sec-Fetch-Site) and lands on a page saying the application
# is KILLED, which links back to the application's page, now without a
# Kill button.  The application is KILLED at the master and its driver
# exits saying so; the master's page lists it among the completed ones,
# with no (kill) link.  The console has no error.
# Heartbeats of 1 s in all (cluster.sh's 200 ms x 5) are lost while
# Chromium starts on a loaded machine: 5 s here.
INTERVAL_MS=${INTERVAL_MS:-500} LIVENESS=${LIVENESS:-10}
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

check "a WebDriver session starts" browser_start || exit 1
BASE=$(free_port_range 4)
start_master --web-port "$BASE" || exit 1
CORES=2 start_worker w1 || exit 1
J=$(job forever '{"name":"forever","stages":[{"name":"s","tasks":[
  {"cmd":["sleep","60"],"count":2}]}]}')
submit --master "$MASTER_URL" --name "click <kill>" "$J" &
SUB=$!
PIDS+=($SUB)
check "a client-mode job runs" wait_for 30 jq_state \
  '[.apps[] | select(.state == "RUNNING")] | length == 1'
APP=$(state_json | jq -r '.apps[] | select(.state == "RUNNING") | .id')
WEB=$(state_json | jq -r .web_url)

check "the master's page loads (web-url's address sets the cookie)" \
  browser_go "$("$BIN/hearth-admin" --master "$MASTER_URL" web-url)"
kill_link="#apps-running tr[data-id=\"$APP\"] a.kill"
check "its running application has a (kill) link" browser_until 10 \
  'return !!document.querySelector(arguments[0]);' "$kill_link"
check "... still there once the script rebuilt the table" browser_until 10 \
  'return Number(document.body.getAttribute("data-polls")) >= 1 &&
     !!document.querySelector(arguments[0]);' "$kill_link"
check "the application's page loads" browser_go "$WEB/app/$APP"
check "... with a Kill button" browser_until 10 \
  'return !!document.querySelector("#actions button.kill");'
browser_screenshot "$ART/kill-app.png"
check "clicking it" browser_click "#actions button.kill"
check "... leads to the confirmation page, its form and its button" browser_until 10 \
  'return location.pathname === arguments[0] &&
     !!document.querySelector("#kill-form input[name=csrf]") &&
     !!document.getElementById("kill");' "/app/$APP/confirm-kill"
browser_screenshot "$ART/kill-confirm.png"
check "the application is still RUNNING" jq_state \
  ".apps[] | select(.id == \"$APP\") | .state == \"RUNNING\""
check "clicking Kill" browser_click "#kill"
check "... leads to the result: the application is KILLED" browser_until 10 \
  'var r = document.getElementById("result");
   return location.pathname === arguments[0] && !!r &&
     r.textContent.indexOf("Application " + arguments[1] + " is KILLED") === 0;' \
  "/app/$APP/kill" "$APP"
browser_screenshot "$ART/kill-done.png"
check "the master says KILLED, killed by request" jq_state \
  ".apps[] | select(.id == \"$APP\") | .state == \"KILLED\" and .reason == \"killed by request\""
check "its driver exits non-zero" wait_for 20 eval '! kill -0 "$SUB" 2>/dev/null'
wait "$SUB"
rc=$?
check "... ($rc), saying it was killed by request" eval \
  '((rc != 0)) && grep -q "killed by request" "$T/err"'
back_to_app() {
  browser_click "#back" && browser_until 10 \
    'return location.pathname === arguments[0] && !!document.getElementById("summary") &&
       !document.getElementById("actions");' "/app/$APP"
}
check "the link back leads to its page, without a Kill button now" back_to_app
master_without_kill() {
  browser_go "$WEB/" && browser_until 10 \
    'return !!document.querySelector("#apps-completed tr[data-id=\"" + arguments[0] + "\"]") &&
       !document.querySelector("a.kill");' "$APP"
}
check "the master's page lists it completed, with no (kill) link" master_without_kill
errors=$(browser_errors)
check "no error in the browser's console${errors:+: $errors}" test -z "$errors"
finish
