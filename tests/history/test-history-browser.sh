#!/usr/bin/env bash
# hearth-history's pages in a real browser (headless Chromium over
# WebDriver, tests/lib/browser.sh): the listing of a directory with a
# finished and a failed application (real drivers, local[2]) holds every
# application id (those of /api/v1/apps) and the failed one's reason in
# its row; clicking its link opens its summary, whose stage table has the
# failed stage and whose failures table has the last error, and whose
# timeline (inline SVG) has the executor's lanes and the failed attempts in
# their colour; the browser's console has no error.  Screenshots are kept in
# tests/history/test-history-browser-artifacts/ of the build directory.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
. "$(dirname "$0")/../lib/browser.sh"
. "$(dirname "$0")/../web/web.sh"
deadline 120
browser_available || { say "skipped: no chromedriver or chromium"; exit 77; }
trap 'browser_stop; cleanup' EXIT
ART=$BIN/tests/history/test-history-browser-artifacts
rm -rf "$ART" && mkdir -p "$ART"
export TMPDIR=$T
EV=$T/ev

J=$(job ok '{"name":"etl-daily","stages":[{"name":"scan","tasks":[{"cmd":["sh","-c","echo {i}"],"count":4}]}]}')
check "(an application that finishes)" submit --master 'local[2]' --event-log "$EV" "$J"
sleep 1.1 # a later start, to the second
J=$(job bad '{"name":"nightly","stages":[{"name":"ok","tasks":[{"cmd":["echo","fine"]}]},
  {"name":"bad","tasks":[{"cmd":["sh","-c","cat >/dev/null; echo browser-boom >&2; exit 7"],"input":"ok"}]}]}')
submit --master 'local[2]' --max-failures 2 --event-log "$EV" "$J"
check "(an application that fails)" test $? -eq 1

BASE=$(free_port_range 16)
"$BIN/hearth-history" --dir "$EV" --web-port "$BASE" >"$T/web.out" 2>"$T/web.err" &
PIDS+=($!)
check "hearth-history --web-port serves" wait_for 10 test -s "$T/web.out"
URL=$(head -1 "$T/web.out")
web_curl -s -m 10 "$URL/api/v1/apps" >"$T/apps.json"
IDS=$(jq -c '[.applications[].id] | sort' "$T/apps.json")
BAD=$(jq -r '.applications[] | select(.state == "FAILED") | .id' "$T/apps.json")
REASON=$(jq -r '.applications[] | select(.state == "FAILED") | .reason' "$T/apps.json")
check "(two applications, one FAILED)" eval '[[ $(jq length <<<"$IDS") == 2 && -n $BAD ]]'

check "a WebDriver session starts" browser_start || exit 1
# the address hearth-admin web-url gives (the pages take this user's
# token); the cookie it sets carries the later navigations
check "the listing loads" browser_go "$("$BIN/hearth-admin" web-url "$URL/")"
check "... the DOM holds every application id" test "$(browser_js \
  'return Array.from(document.querySelectorAll("#apps tbody tr[data-id]"),
     function (r) { return r.cells[0].textContent; }).sort();')" = "$IDS"
check "... the failed one's row: FAILED and its reason" test "$(browser_js \
  'var r = document.querySelector("#apps tr[data-id=\"" + arguments[0] + "\"]");
   return !!r && r.cells[3].textContent === "FAILED" && r.cells[9].textContent === arguments[1];' \
  "$BAD" "$REASON")" = true
browser_screenshot "$ART/listing.png"

check "its link opens its summary" browser_js \
  'document.querySelector("#apps tr[data-id=\"" + arguments[0] + "\"] a").click(); return true;' "$BAD"
check "... (the summary's title)" browser_until 10 \
  'return document.title === "Application " + arguments[0] && document.readyState === "complete";' "$BAD"
check "... at /app/ID" test "$(browser_js 'return location.pathname;')" = "\"/app/$BAD\""
check "... its stage table: the failed stage bad" test "$(browser_js \
  'return Array.from(document.querySelectorAll("#stages tbody tr"), function (r) {
     return r.cells[2].textContent + " " + r.cells[3].textContent; }).join(",");')" = '"ok SUCCEEDED,bad FAILED"'
check "... its failures table: the last error" test "$(browser_js \
  'return document.querySelector("#failures tbody").textContent.indexOf("browser-boom") >= 0;')" = true
check "... its state FAILED" test "$(browser_js 'return document.getElementById("state").textContent;')" = '"FAILED"'
# the timeline: inline SVG, the executor's two core lanes, both failed
# attempts of stage bad drawn in the failed colour, the ok attempt in its
# stage's, a dashed line where each stage started
check "... its timeline: an SVG with the executor's lanes" test "$(browser_js \
  'var s = document.getElementById("timeline");
   return !!s && s.namespaceURI === "http://www.w3.org/2000/svg"
     && s.querySelectorAll("g.exec rect.lane").length === 2
     && s.getBoundingClientRect().height > 60;')" = true
check "... the failed attempts in their own colour" test "$(browser_js \
  'var r = document.querySelectorAll("#timeline rect.task.failed");
   return r.length === 2 && Array.prototype.every.call(r, function (e) {
     return getComputedStyle(e).fill === "rgb(214, 39, 40)"
       && e.getBoundingClientRect().width > 0; });')" = true
check "... the other attempt in its stage's colour" test "$(browser_js \
  'var r = document.querySelectorAll("#timeline rect.task.ok");
   return r.length === 1 && getComputedStyle(r[0]).fill !== "rgb(214, 39, 40)";')" = true
check "... the two stages' boundaries" test "$(browser_js \
  'return document.querySelectorAll("#timeline line.stage-start").length;')" = 2
browser_screenshot "$ART/summary.png"
check "the link back opens the listing" browser_js \
  'document.querySelector(".nav a").click(); return true;'
check "... (the listing again)" browser_until 10 \
  'return document.title === "Hearth history" && document.querySelectorAll("#apps tr[data-id]").length === 2;'

errors=$(browser_errors)
check "no error in the browser's console${errors:+: $errors}" test -z "$errors"
cp "$T/browser-console.log" "$ART/console.log" 2>/dev/null
say "screenshots in $ART"
finish
