#!/usr/bin/env bash
# The kill action of the master's pages (issue 42 item 11; docs/security.md
# "Actions on the pages"): the application page of a RUNNING application
# has a Kill button, the master's page a (kill) link, both to a page that
# confirms it, whose form POSTs /app/APP_ID/kill with an anti-forgery
# value.  That POST kills the application as hearth-admin kill does (its
# driver says what it says for hearth-admin kill's, its executors stop);
# without the token it is 401, without the value, with a wrong one, one
# of another action, a foreign Origin or a cross-site Sec-Fetch-Site 403
# (the application still RUNNING), GET on it 405, a bad id 400, an
# unknown one 404, a body that is no form 415, one too long 413; the
# refusals are counted and logged once per cause, never with a value or
# the token.  Once ended, its pages have no Kill and a second POST is
# 409.  A cluster-mode driver is killed from its row the same way, and
# not relaunched.  A master started --web-read-only shows no Kill and
# answers 403.
# Heartbeats of 5 s in all (cluster.sh's are 1 s): a job lost to a loaded
# machine would end otherwise than killed.
INTERVAL_MS=${INTERVAL_MS:-500} LIVENESS=${LIVENESS:-10}
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
. "$(dirname "$0")/web.sh"
deadline 120
export TMPDIR=$T

BASE=$(free_port_range 8)
start_master --web-port "$BASE" || exit 1
CORES=2 start_worker w1 || exit 1
WEB=http://127.0.0.1:$BASE
ORIGIN=(-H "Origin: $WEB" -H "Sec-Fetch-Site: same-origin")

status_of() { http_get "$@" && http_status; }
# the anti-forgery value in the confirmation page FILE
value_in() { sed -n 's/.*name="csrf" value="\([0-9a-f]*\)".*/\1/p' "$1"; }
app_state() {
  state_json | jq -r --arg id "$1" '.apps[] | select(.id == $id) | .state'
}
refused() {
  awk '$1 == "hearth_web_refused_total{reason=\"forbidden\"}" { print $2 }' "$1"
}

J=$(job forever '{"name":"forever","stages":[{"name":"s","tasks":[
  {"cmd":["sleep","60"],"count":2}]}]}')
# run_app NAME: a client-mode job that runs until killed, in the
# background (its output in $T/NAME.out, .err); APP is its id
run_app() {
  "$BIN/hearth-submit" --master "$MASTER_URL" --heartbeat-interval "${INTERVAL_MS}ms" \
    --heartbeat-liveness "$LIVENESS" --name "$1" "$J" >"$T/$1.out" 2>"$T/$1.err" &
  SUB=$!
  PIDS+=($SUB)
  wait_for 30 jq_state "[.apps[] | select(.name == \"$1\" and .state == \"RUNNING\")] | length == 1" ||
    return 1
  APP=$(state_json | jq -r --arg n "$1" '.apps[] | select(.name == $n) | .id')
  wait_for 10 test -n "$(procs_in "$T/w1/$APP")"
}

check "a client-mode job runs" run_app web-killed
APP1=$APP SUB1=$SUB
check "its page has a Kill button to its confirmation page" eval \
  '[[ $(status_of "$WEB/app/$APP1" "$T/app.html") == 200 ]] &&
   grep -q "action=\"/app/$APP1/confirm-kill\"><button type=\"submit\" class=\"kill\">Kill</button>" "$T/app.html"'
check "the master's page has its (kill) link" eval \
  'http_get "$WEB/" "$T/master.html" && grep -q "href=\"/app/$APP1/confirm-kill\">(kill)</a>" "$T/master.html"'
check "the confirmation page: 200, a form that POSTs /app/$APP1/kill" eval \
  '[[ $(status_of "$WEB/app/$APP1/confirm-kill" "$T/confirm.html") == 200 ]] &&
   grep -q "<form id=\"kill-form\" class=\"actions\" method=\"post\" action=\"/app/$APP1/kill\">" "$T/confirm.html"'
check "... sent Referrer-Policy: same-origin (a browser sends its form with its Origin)" \
  eval 'http_header Referrer-Policy | grep -qx same-origin'
V=$(value_in "$T/confirm.html")
check "... with a 64-digit anti-forgery value" eval '[[ $V =~ ^[0-9a-f]{64}$ ]]'
check "... and a Cancel link back, no script" eval \
  'grep -q ">Cancel</a>" "$T/confirm.html" && ! grep -q "<script" "$T/confirm.html"'

# What must not kill it.
check "GET on the kill: 405, Allow: POST" eval \
  '[[ $(status_of "$WEB/app/$APP1/kill?csrf=$V" "$T/r") == 405 ]] && http_header Allow | grep -qx POST'
check "HEAD on the kill: 405" test "$(status_of "$WEB/app/$APP1/kill" "$T/r" -I)" = 405
check "POST to the confirmation page: 405" test "$(status_of "$WEB/app/$APP1/confirm-kill" "$T/r" -d "csrf=$V")" = 405
check "POST to the application's page: 405" test "$(status_of "$WEB/app/$APP1" "$T/r" -d "csrf=$V")" = 405
check "no token, the right value: 401" \
  test "$(NO_TOKEN=1 status_of "$WEB/app/$APP1/kill" "$T/r" -d "csrf=$V" "${ORIGIN[@]}")" = 401
forbid=0
for how in "no value" "an empty value" "a wrong value" "a foreign Origin" "Origin null" "a cross-site Sec-Fetch-Site" "a same-site Sec-Fetch-Site"; do
  case $how in
    "no value") args=(-d "other=1" "${ORIGIN[@]}") ;;
    "an empty value") args=(-d "csrf=" "${ORIGIN[@]}") ;;
    "a wrong value") args=(-d "csrf=${V:0:63}$([[ ${V:63} == 0 ]] && echo 1 || echo 0)" "${ORIGIN[@]}") ;;
    "a foreign Origin") args=(-d "csrf=$V" -H "Origin: http://evil.example") ;;
    "Origin null") args=(-d "csrf=$V" -H "Origin: null") ;;
    "a cross-site Sec-Fetch-Site") args=(-d "csrf=$V" -H "Sec-Fetch-Site: cross-site") ;;
    "a same-site Sec-Fetch-Site") args=(-d "csrf=$V" -H "Sec-Fetch-Site: same-site") ;;
  esac
  check "POST with $how: 403" test "$(status_of "$WEB/app/$APP1/kill" "$T/r" "${args[@]}")" = 403
  forbid=$((forbid + 1))
  check "... saying why" grep -q "^403 forbidden: the" "$T/r"
done
check "the application is still RUNNING" test "$(app_state "$APP1")" = RUNNING
check "a bad id: 400, saying so" eval \
  '[[ $(status_of "$WEB/app/nonsense/kill" "$T/r" -d "csrf=$V" "${ORIGIN[@]}") == 400 ]] &&
   grep -q "^400 bad request: .nonsense. is not an application id (app-YYYYMMDDHHMMSS-NNNN)" "$T/r"'
check "... on its confirmation page too" test "$(status_of "$WEB/app/app-1/confirm-kill" "$T/r")" = 400
check "an unknown application: 404, saying so" eval \
  '[[ $(status_of "$WEB/app/app-20200101000000-0001/kill" "$T/r" -d "csrf=$V" "${ORIGIN[@]}") == 404 ]] &&
   grep -q "This master knows no application app-20200101000000-0001" "$T/r"'
check "another verb: 404" test "$(status_of "$WEB/app/$APP1/stop" "$T/r" -d "csrf=$V")" = 404
check "a body that is no form: 415" test "$(status_of "$WEB/app/$APP1/kill" "$T/r" \
  -H "Content-Type: text/plain" --data-binary "csrf=$V")" = 415
head -c 5000 /dev/zero | tr '\0' a >"$T/big"
check "a form over 4096 bytes: 413" test "$(status_of "$WEB/app/$APP1/kill" "$T/r" \
  -d "csrf=$V&pad=$(cat "$T/big")")" = 413
check "a chunked one over 4096 bytes: 413" test "$(status_of "$WEB/app/$APP1/kill" "$T/r" \
  -H "Transfer-Encoding: chunked" -d "csrf=$V&pad=$(cat "$T/big")")" = 413
check "the application is still RUNNING" test "$(app_state "$APP1")" = RUNNING
http_get "$WEB/metrics" "$T/met"
check "the $forbid 403s are counted on /metrics" test "$(refused "$T/met")" = "$forbid"
check "... and logged once a minute per cause (value, origin), not once each" eval \
  '[[ $(grep -c "refused 127.0.0.1: web action /app/$APP1/kill refused" "$T/master.log") == 2 ]]'
check "... never with the value or the token" eval \
  '! grep -qF "$V" "$T/master.log" && ! grep -qF "$(web_token)" "$T/master.log"'

# The kill.
check "POST with the value, from the page's origin: 200" \
  test "$(status_of "$WEB/app/$APP1/kill" "$T/done.html" -d "csrf=$V" "${ORIGIN[@]}")" = 200
check "... a page saying it is KILLED, with a link back" eval \
  'grep -q "<p id=\"result\">Application $APP1 is KILLED" "$T/done.html" &&
   grep -q "href=\"/app/$APP1\">Back to the application</a>" "$T/done.html"'
check "the application is KILLED, killed by request" jq_state \
  ".apps[] | select(.id == \"$APP1\") | .state == \"KILLED\" and .reason == \"killed by request\""
check "... logged with the client" grep -q "application $APP1 killed on request from the web pages (client 127.0.0.1)" "$T/master.log"
check "nothing of it runs on the worker" wait_for 10 none_in "$T/w1/$APP1"
wait "$SUB1"
rc1=$?
check "its driver exits non-zero ($rc1)" test "$rc1" -ne 0
check "the same value again: 409, it had ended" eval \
  '[[ $(status_of "$WEB/app/$APP1/kill" "$T/r" -d "csrf=$V" "${ORIGIN[@]}") == 409 ]] &&
   grep -q "had already ended: KILLED" "$T/r"'
check "its page has no Kill now" eval \
  'http_get "$WEB/app/$APP1" "$T/app.html" && grep -q "KILLED" "$T/app.html" &&
   grep -q "data-kill=\"1\"" "$T/app.html" && ! grep -q "/app/$APP1/confirm-kill\"" "$T/app.html"'
check "nor the master's page" eval \
  'http_get "$WEB/" "$T/master.html" && grep -q "$APP1" "$T/master.html" && ! grep -q "/app/$APP1/confirm-kill\"" "$T/master.html"'
check "its confirmation page says it has ended, with no form" eval \
  '[[ $(status_of "$WEB/app/$APP1/confirm-kill" "$T/r") == 200 ]] &&
   grep -q "has ended (KILLED): there is nothing to kill" "$T/r" && ! grep -q "<form" "$T/r"'

# The same job killed with hearth-admin kill: its driver says the same.
check "another one runs" run_app admin-killed
"$BIN/hearth-admin" --master "$MASTER_URL" kill "$APP" >"$T/admin.out" 2>&1
check "hearth-admin kill kills it" eval 'wait "$SUB"; (($? == rc1))'
norm() {
  grep -i kill "$1" | sed -e 's/^[0-9T:.-]*Z //' -e 's/\[[0-9]*\]//' -e 's/app-[0-9]*-[0-9]*/APP/g'
}
check "its driver said what the web kill's did" eval \
  '[[ -n $(norm "$T/web-killed.err") ]] && diff <(norm "$T/web-killed.err") <(norm "$T/admin-killed.err")'

# A supervised cluster-mode driver, from its row on the master's page.
"$BIN/hearth-submit" --master "$MASTER_URL" --deploy-mode cluster --supervise \
  --no-wait --executor-memory 256M "$J" >"$T/cm.out" 2>"$T/cm.err"
DRV=$(head -1 "$T/cm.out")
check "a supervised cluster-mode driver runs" wait_for 30 jq_state \
  ".drivers[] | select(.id == \"$DRV\") | .state == \"RUNNING\""
check "its row on the master's page has a (kill) link" eval \
  'http_get "$WEB/" "$T/master.html" && grep -q "href=\"/driver/$DRV/confirm-kill\">(kill)</a>" "$T/master.html"'
check "its confirmation page: 200, the form" eval \
  '[[ $(status_of "$WEB/driver/$DRV/confirm-kill" "$T/confirm.html") == 200 ]] &&
   grep -q "action=\"/driver/$DRV/kill\"" "$T/confirm.html"'
DV=$(value_in "$T/confirm.html")
check "the application's value does not kill the driver: 403" \
  test "$(status_of "$WEB/driver/$DRV/kill" "$T/r" -d "csrf=$V" "${ORIGIN[@]}")" = 403
check "its own does: 200" \
  test "$(status_of "$WEB/driver/$DRV/kill" "$T/r" -d "csrf=$DV" "${ORIGIN[@]}")" = 200
drv_state() {
  "$BIN/hearth-submit" --master "$MASTER_URL" --status "$DRV" 2>/dev/null |
    awk '$1 == "state:" {print $2}'
}
check "... the driver ends KILLED" wait_for 10 eval '[[ $(drv_state) == KILLED ]]'
check "... is not relaunched" eval \
  '"$BIN/hearth-submit" --master "$MASTER_URL" --status "$DRV" | grep -Eq "^launches: +1( |$)"'
check "... and nothing of it runs on the worker" wait_for 10 none_in "$T/w1/$DRV"

# A read-only master: no Kill, 403.
"$BIN/hearth-master" --port 0 --events-port 0 --web-port "$((BASE + 4))" \
  --web-read-only --ready-file "$T/ro.ready" >"$T/ro.log" 2>&1 &
PIDS+=($!)
wait_for 10 test -s "$T/ro.ready"
RO=http://127.0.0.1:$((BASE + 4))
MASTER_URL=$(head -1 "$T/ro.ready") start_app ro-app || fail "no application on the read-only master"
check "a read-only master's application page has no Kill" eval \
  '[[ $(status_of "$RO/app/$APP_ID" "$T/r") == 200 ]] && grep -q "$APP_ID" "$T/r" &&
   ! grep -q "data-kill=\"1\"\|/app/$APP_ID/confirm-kill\"" "$T/r"'
check "... nor its master page" eval \
  'http_get "$RO/" "$T/r" && grep -q "$APP_ID" "$T/r" && ! grep -q "data-kill=\"1\"\|/app/$APP_ID/confirm-kill\"" "$T/r"'
check "... the confirmation page: 403, saying why" eval \
  '[[ $(status_of "$RO/app/$APP_ID/confirm-kill" "$T/r") == 403 ]] && grep -q "read-only (--web-read-only)" "$T/r"'
check "... the kill: 403" test "$(status_of "$RO/app/$APP_ID/kill" "$T/r" -d "csrf=$V")" = 403
finish
