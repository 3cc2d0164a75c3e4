# browser.sh - a headless Chromium driven over WebDriver from a shell test
# (sourced after cluster.sh, whose $T, PIDS, say and wait_for it uses).
#
# Debian's chromium-driver (chromedriver) listens on a port of its own
# choosing on 127.0.0.1; one session runs Debian's chromium headless
# (--headless=new, --no-sandbox since tests run as root, a user-data dir
# under $T).  Everything is plain WebDriver over HTTP with curl and jq:
#
#   browser_start                 chromedriver and a session
#   browser_go URL                navigate and wait for the load
#   browser_js SCRIPT [ARG...]    run SCRIPT (a function body; `return`
#                                 gives the value, arguments[i] the ARGs
#                                 as strings) and print its value as JSON
#   browser_until SECONDS SCRIPT  poll SCRIPT until it returns true
#   browser_click CSS             click the first element CSS selects, as
#                                 a user does (WebDriver's element click)
#   browser_console               append the console's new entries to
#                                 $T/browser-console.log, print them
#   browser_errors                the SEVERE entries seen so far
#   browser_screenshot FILE       a PNG of the page
#   browser_stop                  end the session, stop chromedriver and
#                                 any Chromium left, by PID
#
# browser_start adds browser_stop to nothing: a test calls it in its own
# cleanup, before cluster.sh's (see tests/web/test-browser.sh), and the
# chromedriver PID is in PIDS as well, so an interrupted test leaves
# nothing behind.
BROWSER_DRIVER=${BROWSER_DRIVER:-chromedriver}
BROWSER_BINARY=${BROWSER_BINARY:-/usr/lib/chromium/chromium}
BROWSER_PID=
BROWSER_URL=
BROWSER_SESSION=

# browser_available: whether chromedriver and chromium are installed.
browser_available() {
  command -v "$BROWSER_DRIVER" >/dev/null && [[ -x $BROWSER_BINARY ]]
}

# wd METHOD PATH [JSON]: one WebDriver request; prints the reply's body.
wd() {
  local method=$1 path=$2 body=${3:-}
  if [[ -n $body ]]; then
    curl -sS -m 30 -X "$method" -H 'Content-Type: application/json' \
      --data-binary "$body" "$BROWSER_URL$path"
  else
    curl -sS -m 30 -X "$method" "$BROWSER_URL$path"
  fi
}

# wd_value METHOD PATH [JSON]: the reply's value as JSON; fails (with the
# error on stderr) when WebDriver answers an error.
wd_value() {
  local reply
  reply=$(wd "$@") || return 1
  if jq -e '.value | type == "object" and has("error")' <<<"$reply" \
    >/dev/null 2>&1; then
    jq -r '"webdriver: " + .value.error + ": " + (.value.message
      | split("\n")[0])' <<<"$reply" >&2
    return 1
  fi
  jq -c '.value' <<<"$reply"
}

browser_start() {
  local profile="$T/browser-profile" port try
  mkdir -p "$profile"
  # chromedriver --port=0 picks a port for IPv6, then binds IPv4 to the
  # same one: once in a while another test holds it for IPv4 ("IPv4 port
  # not available. Exiting..."; seen in a CI run).  A few tries.
  for try in 1 2 3 4 5; do
    "$BROWSER_DRIVER" --port=0 --log-path="$T/chromedriver.log" \
      >"$T/chromedriver.out" 2>&1 &
    BROWSER_PID=$!
    PIDS+=("$BROWSER_PID")
    wait_for 10 grep -q 'started successfully on port\|Exiting' \
      "$T/chromedriver.out"
    grep -q 'started successfully on port' "$T/chromedriver.out" && break
    say "chromedriver did not start (try $try of 5):"
    cat "$T/chromedriver.out"
    kill "$BROWSER_PID" 2>/dev/null
    wait "$BROWSER_PID" 2>/dev/null
    ((try < 5)) || return 1
  done
  port=$(sed -n 's/.*started successfully on port \([0-9]*\).*/\1/p' \
    "$T/chromedriver.out")
  BROWSER_URL="http://127.0.0.1:$port"
  wait_for 10 curl -sf -m 2 "$BROWSER_URL/status" -o /dev/null || return 1
  local caps
  caps=$(jq -cn --arg bin "$BROWSER_BINARY" --arg dir "$profile" '{
    capabilities: {alwaysMatch: {
      browserName: "chrome",
      "goog:loggingPrefs": {browser: "ALL"},
      "goog:chromeOptions": {binary: $bin, args: [
        "--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
        "--disable-gpu", "--no-first-run", "--no-default-browser-check",
        "--window-size=1400,1000", ("--user-data-dir=" + $dir)]}}}}')
  BROWSER_SESSION=$(wd_value POST /session "$caps" | jq -r '.sessionId') ||
    return 1
  [[ -n $BROWSER_SESSION && $BROWSER_SESSION != null ]] || {
    say "no WebDriver session:"; tail -5 "$T/chromedriver.log"; return 1; }
  : >"$T/browser-console.log"
}

browser_go() {
  wd_value POST "/session/$BROWSER_SESSION/url" \
    "$(jq -cn --arg u "$1" '{url: $u}')" >/dev/null
}

browser_js() {
  local script=$1; shift
  wd_value POST "/session/$BROWSER_SESSION/execute/sync" \
    "$(jq -cn --arg s "$script" '{script: $s, args: $ARGS.positional}' \
      --args "$@")"
}

browser_until() {
  local limit=$1; shift
  wait_for "$limit" browser_is_true "$@"
}

browser_click() {
  local el
  el=$(wd_value POST "/session/$BROWSER_SESSION/element" \
    "$(jq -cn --arg css "$1" '{using: "css selector", value: $css}')") ||
    return 1
  el=$(jq -r 'to_entries[0].value' <<<"$el")
  wd_value POST "/session/$BROWSER_SESSION/element/$el/click" '{}' >/dev/null
}

# browser_is_true SCRIPT [ARG...]: SCRIPT returned true.
browser_is_true() {
  [[ $(browser_js "$@") == true ]]
}

browser_console() {
  local entries
  entries=$(wd_value POST "/session/$BROWSER_SESSION/se/log" \
    '{"type":"browser"}') || return 1
  jq -c '.[] | {level, message}' <<<"$entries" |
    tee -a "$T/browser-console.log"
}

browser_errors() {
  browser_console >/dev/null
  grep '"level":"SEVERE"' "$T/browser-console.log"
  return 0
}

browser_screenshot() {
  wd_value GET "/session/$BROWSER_SESSION/screenshot" | jq -r . |
    base64 -d >"$1"
}

browser_stop() {
  local pid p
  if [[ -n $BROWSER_SESSION && -n $BROWSER_URL ]]; then
    wd DELETE "/session/$BROWSER_SESSION" >/dev/null 2>&1
  fi
  BROWSER_SESSION=
  [[ -n $BROWSER_PID ]] && kill -TERM "$BROWSER_PID" 2>/dev/null &&
    wait "$BROWSER_PID" 2>/dev/null
  BROWSER_PID=
  # Chromium's processes name the profile on their command lines.
  for p in /proc/[0-9]*; do
    pid=${p#/proc/}
    tr '\0' ' ' 2>/dev/null <"$p/cmdline" |
      grep -qF -- "--user-data-dir=$T/browser-profile" &&
      kill -KILL "$pid" 2>/dev/null
  done
  return 0
}
