#!/usr/bin/env bash
# The master's web server: on by default on loopback, its port in the log
# and in MASTER_STATE (web_url); /api/v1/state is hearth-tail --state
# --json's document; /json carries Spark's master fields; /favicon.ico is
# 204; a taken port makes it take the next one, 16 taken ones make an
# explicit --web-port fail; beyond loopback without a token it refuses to
# start (with --insecure it starts); --web-port 0 turns it off.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/web.sh"
deadline 90

BASE=$(free_port_range 20)
start_master --web-port "$BASE" || exit 1
for w in w1 w2; do start_worker "$w" || exit 1; done
wait_for 5 jq_state '[.workers[] | select(.state == "ALIVE")] | length == 2'
WEB=$(state_json | jq -r .web_url)
check "web_url in MASTER_STATE is http://127.0.0.1:$BASE" \
  test "$WEB" = "http://127.0.0.1:$BASE"
check "the log names it" grep -q "master web pages at http://127.0.0.1:$BASE" "$T/master.log"

# /api/v1/state: the same document as hearth-tail's, but for the clocks.
norm='del(.time_ms) | .workers |= map(del(.heartbeat_age_ms, .last_heartbeat_ms))'
state_json | jq -S "$norm" >"$T/tail.json"
http_get "$WEB/api/v1/state" "$T/api.json"
check "/api/v1/state answers 200 application/json" \
  eval 'test "$(http_status)" = 200 && http_header Content-Type | grep -q application/json'
check "/api/v1/state is hearth-tail --state --json's document" \
  eval 'jq -S "$norm" "$T/api.json" | cmp -s - "$T/tail.json"'

http_get "$WEB/json" "$T/spark.json"
check "/json has Spark's fields" jq -e >/dev/null 'has("url") and has("workers")
  and has("aliveworkers") and has("cores") and has("coresused")
  and has("memory") and has("memoryused") and has("activeapps")
  and has("completedapps") and has("activedrivers")
  and has("completeddrivers") and has("status")' "$T/spark.json"
check "/json: 2 alive workers, 8 cores, 8192 MiB, ALIVE" jq -e >/dev/null --arg url "$MASTER_URL" \
  '.aliveworkers == 2 and .cores == 8 and .memory == 8192 and .status == "ALIVE"
   and (.workers | length) == 2 and .url == $url' "$T/spark.json"
start_app spark --max-cores 2 --cores-per-executor 1 --memory-mb 256 ||
  fail "the application did not register"
wait_for 10 jq_state '[.apps[] | select(.state == "RUNNING")] | length == 1'
check "/json: the running application in activeapps, 2 cores used" \
  wait_for 5 eval 'http_get "$WEB/json" "$T/spark.json" &&
    jq -e >/dev/null --arg id "$APP_ID" ".activeapps[0].id == \$id and .activeapps[0].name == \"spark\"
      and .coresused == 2 and .activeapps[0].memoryperexecutor == 256" "$T/spark.json"'

# An executor killed: how it ended stays on the application's page (and in
# its app object's ended_executors), with the links to its logs.
exec_pid() {
  state_json | jq -r --arg id "$APP_ID" '.apps[] | select(.id == $id) |
    .executors[] | select(.state == "RUNNING" and .pid > 0) | "\(.exec_id) \(.pid)"' | head -1
}
check "an executor of the application runs" wait_for 10 eval '[[ -n $(exec_pid) ]]'
read -r KX KPID <<<"$(exec_pid)"
kill -9 "$KPID"
check "the app object keeps the killed executor: FAILED, signal 9, its reason" \
  wait_for 10 eval 'state_json | jq -e >/dev/null --arg id "$APP_ID" --argjson x "$KX" \
    "[.apps[] | select(.id == \$id) | .ended_executors[] | select(.exec_id == \$x and
      .state == \"FAILED\" and .signal == 9 and (.message | startswith(\"killed by signal 9\"))
      and .end_ms > 0)] | length == 1"'
http_get "$WEB/app/$APP_ID" "$T/app.html"
check "the application's page shows its end and reason" \
  grep -q "<tr data-id=\"$KX\"><td>$KX</td>.*<td>signal 9</td><td>killed by signal 9" "$T/app.html"
check "... with the links to its logs on its worker" \
  grep -q "/logpage?app=$APP_ID&amp;exec=$KX&amp;stream=stderr\">stderr</a>" "$T/app.html"
kill "$APP_PID"
check "... then in completedapps" \
  wait_for 10 eval 'http_get "$WEB/json" "$T/spark.json" &&
    jq -e >/dev/null --arg id "$APP_ID" ".completedapps[0].id == \$id and .activeapps == []" "$T/spark.json"'

# A name that JSON must escape: /json stays valid and carries it whole.
# (A tab is a control character, which no name may hold since issue 35
# item 8: the codec refuses it, docs/security.md "Control characters".)
ODD='q"uote\back'
start_app "$ODD" --max-cores 1 || fail "the oddly named application did not register"
check "/json escapes an application's name (quote, backslash)" \
  wait_for 5 eval 'http_get "$WEB/json" "$T/spark.json" &&
    jq -e --arg n "$ODD" "[.activeapps[] | select(.name == \$n)] | length == 1" "$T/spark.json" >/dev/null'
FIRST=$(jq -r '.completedapps[0].id' "$T/spark.json") ODD_ID=$APP_ID
kill "$APP_PID"
# Completed applications newest first, as Spark's page shows them (issue
# 42 item 11: they came oldest first).
check "/json: the completed applications newest first" \
  wait_for 10 eval 'http_get "$WEB/json" "$T/spark.json" &&
    jq -e >/dev/null --arg n "$ODD" --arg id "$FIRST" \
      "[.completedapps[] | .name][0] == \$n and .completedapps[1].id == \$id" "$T/spark.json"'
http_get "$WEB/" "$T/done.html"
check "... and the master's page" \
  test "$(grep -o 'app/app-[0-9-]*' "$T/done.html" | head -1)" = "app/$ODD_ID"

http_get "$WEB/favicon.ico" "$T/favicon"
check "/favicon.ico: 204" test "$(http_status)" = 204
http_get "$WEB/no-such-page" "$T/none"
check "an unknown path: 404" test "$(http_status)" = 404

# A second master asking for the same port takes the next one.
M2=$T/m2
mkdir -p "$M2"
"$BIN/hearth-master" --port 0 --events-port 0 --web-port "$BASE" \
  --ready-file "$M2/ready" >"$M2/log" 2>&1 &
PIDS+=($!)
wait_for 10 test -s "$M2/ready"
check "a second master on the same --web-port takes the next port" \
  grep -q "master web pages at http://127.0.0.1:$((BASE + 1))" "$M2/log"
check "... and answers there" \
  eval 'http_get "http://127.0.0.1:$((BASE + 1))/json" "$T/j2" && test "$(http_status)" = 200'

# Sixteen taken ports: an explicit --web-port is a promise, not kept.
check "(16 ports held by the test)" hold_ports "$((BASE + 2))" 16
# (timeout: a master that wrongly starts must not hang the test)
timeout 30 "$BIN/hearth-master" --port 0 --events-port 0 --web-port "$((BASE + 2))" \
  >"$T/m3.log" 2>&1
check "16 taken ports: the master exits 1" test $? -eq 1
check "... saying so" grep -q "ports $((BASE + 2)) to $((BASE + 17)) are all taken" "$T/m3.log"

# Beyond loopback: refused without a token file or --insecure.
"$BIN/hearth-master" --port 0 --events-port 0 --web-port "$BASE" \
  --web-host 0.0.0.0 >"$T/m4.log" 2>&1
check "--web-host 0.0.0.0 without a token: exit 1" test $? -eq 1
check "... with the refusal's message" \
  grep -q "refusing to serve web pages on 0.0.0.0 without a token" "$T/m4.log"
"$BIN/hearth-master" --port 0 --events-port 0 --web-port "$((BASE + 18))" \
  --web-host 0.0.0.0 --insecure --ready-file "$T/m5.ready" >"$T/m5.log" 2>&1 &
PIDS+=($!)
check "... with --insecure it starts, warning" \
  wait_for 10 eval 'test -s "$T/m5.ready" && grep -q "INSECURE: serving web pages on 0.0.0.0" "$T/m5.log"'

# --web-port 0: no server, no web_url.
"$BIN/hearth-master" --port 0 --events-port 0 --web-port 0 \
  --ready-file "$T/m6.ready" >"$T/m6.log" 2>&1 &
PIDS+=($!)
wait_for 10 test -s "$T/m6.ready"
check "--web-port 0: no web_url in the state" eval '"$BIN/hearth-tail" \
  --master "$(head -1 "$T/m6.ready")" --state --json --timeout 3s | jq -e "has(\"web_url\") | not"'
finish
