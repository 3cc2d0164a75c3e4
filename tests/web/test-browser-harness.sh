#!/bin/bash
# The browser harness (tests/lib/browser.sh) on a static page, so that a
# failure of the browser test can be told from a failure of the harness:
# a session starts, a page loads, a script's value comes back, a value
# the page changes later is waited for, the console's entries (an error
# the page logs on purpose among them) are read, a screenshot is a PNG,
# and nothing of the browser is left once it is stopped.
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/cluster.sh
. "$HERE/../lib/cluster.sh"
# shellcheck source=../lib/browser.sh
. "$HERE/../lib/browser.sh"
deadline 60
browser_available || { say "skipped: no chromedriver or chromium"; exit 77; }
trap 'browser_stop; cleanup' EXIT

cat >"$T/static.html" <<'HTML'
<!DOCTYPE html><html><head><meta charset="utf-8">
<link rel="icon" href="data:,"><title>static</title></head>
<body><table id="t"><tbody><tr data-id="a"><td>alpha &amp; co</td></tr>
<tr data-id="b"><td>beta</td></tr></tbody></table><p id="later">no</p>
<script>
console.log("harness info line");
console.error("planted error 4711");
function later() { document.getElementById("later").textContent = "yes"; }
</script></body></html>
HTML

check "a WebDriver session starts" browser_start
check "the static page loads" browser_go "file://$T/static.html"
rows=$(browser_js 'return Array.from(document.querySelectorAll("#t tr"),
  function (r) { return r.getAttribute("data-id") + "=" + r.textContent; });')
check "a script's value comes back ($rows)" \
  test "$rows" = '["a=alpha & co","b=beta"]'
check "an argument reaches the script" \
  test "$(browser_js 'return arguments[0] + "!";' 'x"y')" = '"x\"y!"'
check "a script's error is an error" eval '! browser_js "throw new Error(1)" 2>/dev/null'
# The change is started by the script that reads the value before it, so
# that no timing decides what is seen first.
check "a change not yet made" test "$(browser_js 'var t = document.getElementById("later").textContent;
  setTimeout(later, 1000); return t;')" = '"no"'
check "a later change is waited for" browser_until 10 \
  'return document.getElementById("later").textContent === "yes";'
browser_console >/dev/null
check "the console's info line is read" grep -q 'harness info line' "$T/browser-console.log"
check "the console's error is SEVERE" eval 'browser_errors | grep -q "planted error 4711"'
browser_screenshot "$T/static.png"
check "the screenshot is a PNG" eval 'file "$T/static.png" | grep -q "PNG image data"'
driver_pid=$BROWSER_PID
browser_stop
check "chromedriver is stopped" eval '! kill -0 "$driver_pid" 2>/dev/null'
left=$(grep -lF -- "--user-data-dir=$T/browser-profile" /proc/[0-9]*/cmdline 2>/dev/null)
check "no Chromium process is left" test -z "$left"
finish
