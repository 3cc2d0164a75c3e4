#!/usr/bin/env bash
# hearth-history's pages (docs/history.md, "Pages") over logs written by
# real drivers (local[2]): a finished "etl-daily" and a failed "nightly".
# - /, /app/ID: HTML with every id, each a link, the failure's reason, the
#   stage table; /api/v1/apps and /api/v1/apps/ID equal to the CLI's
#   --json (but the clock); /favicon.ico 204;
# - the filters as query arguments (state, a comma list, since, name), in
#   the page and the JSON, the same rows as the CLI's;
# - every request reads the directory again: an application started
#   after the server shows RUNNING while it runs, FINISHED once over; a
#   file that is not a log is named on the page, the others still listed;
# - bad input: a bad state or since 400, an unknown application (or a
#   path out of the directory) 404, each a short text; a directory that
#   cannot be read 500; the server still up after all of it;
# - the token rule of the daemons: on loopback 401 without this user's
#   token (its local cookie's), 200 at the address hearth-admin web-url
#   gives; beyond loopback (0.0.0.0) 401 without
#   the token, 200 with it, ?token= setting the cookie; no token file
#   refused with the daemons' message (HEARTH_WEB_HOST read as theirs),
#   --insecure allowed with its warning; HEARTH_WEB_PORT does not turn a
#   listing into a server;
# - --web-port with APP_ID or --json: exit 2; SIGTERM: exit 0.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
. "$(dirname "$0")/../web/web.sh"
deadline 180
export TMPDIR=$T
H=$BIN/hearth-history
EV=$T/ev
mkdir -p "$EV"

J=$(job ok '{"name":"etl-daily","stages":[{"name":"scan","tasks":[{"cmd":["sh","-c","echo {i}"],"count":4}]}]}')
check "(an application that finishes)" submit --master 'local[2]' --event-log "$EV" "$J"
OK=$(basename "$(ls "$EV"/*.events)" .events)
sleep 1.1 # a later start, to the second
J=$(job bad '{"name":"nightly","stages":[{"name":"bad","tasks":[{"cmd":["sh","-c","echo boom-\\<\\&\\\"\\> >&2; exit 7"]}]}]}')
submit --master 'local[2]' --max-failures 2 --event-log "$EV" "$J"
check "(an application that fails)" test $? -eq 1
BAD=$(ls "$EV"/*.events | xargs -n1 basename | sed 's/\.events$//' | grep -vx "$OK")

# serve NAME ARGS...: hearth-history --web-port in the background; its
# URL in $URL (stdout's first line), its PID in $SPID.
serve() {
  local name=$1; shift
  "$H" "$@" >"$T/$name.out" 2>"$T/$name.err" &
  SPID=$!
  PIDS+=("$SPID")
  wait_for 10 test -s "$T/$name.out" || { cat "$T/$name.err"; return 1; }
  URL=$(head -1 "$T/$name.out")
}
code() { http_get "$1" "$T/r" "${@:2}" && http_status; }

BASE=$(free_port_range 20)
check "hearth-history --web-port serves" serve web --dir "$EV" --web-port "$BASE"
check "... saying where, on stdout and in its log" eval \
  '[[ $URL == http://127.0.0.1:$BASE ]] && grep -q "history web pages at $URL" "$T/web.err"'

check "/: 200, HTML" test "$(code "$URL/")" = 200
check "... on loopback only with this user's token: 401 without it" eval \
  '[[ $(NO_TOKEN=1 code "$URL/") == 401 && $(NO_TOKEN=1 code "$URL/api/v1/apps") == 401 ]]'
check "... 200 at the address hearth-admin web-url gives it" eval \
  '[[ $(code "$("$BIN/hearth-admin" web-url "$URL")") == 200 ]]'
check "... text/html" eval 'http_header Content-Type | grep -q "^text/html"'
check "... every application id, each a link to its page, newest first" eval \
  '[[ $(grep -o "<a href=\"app/[^\"]*\">" "$T/r" | tr "\n" " ") == "<a href=\"app/$BAD\"> <a href=\"app/$OK\"> " ]]'
check "... the failed one FAILED with its reason, escaped" eval \
  'grep -q "st-FAILED\">FAILED" "$T/r" && grep -q "job nightly failed" "$T/r" && ! grep -q "boom-<&" "$T/r"'
check "... a form of the filters" grep -q '<form id="filters" method="get"' "$T/r"

# the documents equal the CLI's --json but for the clock
norm() { jq -S 'del(.time_ms)' "$1"; }
"$H" --dir "$EV" --json >"$T/cli.json"
check "/api/v1/apps: 200, JSON" test "$(code "$URL/api/v1/apps")" = 200
check "... application/json" eval 'http_header Content-Type | grep -q "^application/json"'
check "... the CLI's --json document" eval 'diff <(norm "$T/cli.json") <(norm "$T/r")'
for id in "$OK" "$BAD"; do
  "$H" --dir "$EV" "$id" --json >"$T/cli.json"
  check "/api/v1/apps/$id: the CLI's --json of it, byte for byte" eval \
    '[[ $(code "$URL/api/v1/apps/$id") == 200 ]] && cmp "$T/cli.json" "$T/r"'
done
check "/app/$BAD: 200 with the stage table and the last error, escaped" eval \
  '[[ $(code "$URL/app/$BAD") == 200 ]] && grep -q "<table id=\"stages\">" "$T/r" &&
   grep -q "boom-&lt;&amp;&quot;&gt;" "$T/r" && grep -q "<table id=\"failures\">" "$T/r"'
check "... its executors, accounting, and a link back" eval \
  'grep -q "<table id=\"executors\">" "$T/r" && grep -q "<table id=\"accounting\">" "$T/r" &&
   grep -q "<a href=\"../\">all applications</a>" "$T/r"'
check "/favicon.ico: 204" test "$(code "$URL/favicon.ico")" = 204

# filters: the page's rows and the JSON are the CLI's
ids() { jq -r '[.applications[].id] | join(" ")' "$1"; }
filter() { # QUERY CLI-ARGS...: the page's ids, the JSON's and the CLI's agree
  local q=$1; shift
  "$H" --dir "$EV" --json "$@" >"$T/cli.json"
  [[ $(code "$URL/api/v1/apps?$q") == 200 ]] || return 1
  [[ $(ids "$T/r") == "$(ids "$T/cli.json")" ]] || return 1
  [[ $(code "$URL/?$q") == 200 ]] || return 1
  [[ $(grep -o '<tr data-id="[^"]*"' "$T/r" | sed 's/.*="//; s/"$//' | tr '\n' ' ' | sed 's/ $//') == "$(ids "$T/cli.json")" ]]
}
check "?state=FAILED: the failed one (as --state FAILED)" filter 'state=FAILED' --state FAILED
check "... only it" test "$(ids "$T/cli.json")" = "$BAD"
check "... the form holds the state" grep -q '<option selected>FAILED</option>' "$T/r"
check "?state=finished,killed: a comma list" filter 'state=finished,killed' --state finished,killed
check "... the finished one" test "$(ids "$T/cli.json")" = "$OK"
check "?name=etl-*: by name" filter 'name=etl-%2A' --name 'etl-*'
check "... the finished one" test "$(ids "$T/cli.json")" = "$OK"
check "?since=24h: both" filter 'since=24h' --since 24h
check "... both" test "$(ids "$T/cli.json")" = "$BAD $OK"
check "?since=2099-01-01: none" filter 'since=2099-01-01' --since 2099-01-01
check "... and the none row" grep -q '<tr class="none">' "$T/r"
check "?state=&since=&name=: (the form's empties) all" filter 'state=&since=&name='

# bad input
check "?state=bogus: 400" test "$(code "$URL/?state=bogus")" = 400
check "... a short text naming it" grep -q "^400 bad state 'bogus' (RUNNING, FINISHED, FAILED or KILLED)" "$T/r"
check "?since=yesterday: 400 on the JSON too" test "$(code "$URL/api/v1/apps?since=yesterday")" = 400
check "... saying why" grep -q "^400 bad --since 'yesterday'" "$T/r"
check "/app/app-nope: 404, a short text" eval \
  '[[ $(code "$URL/app/app-nope") == 404 ]] && grep -q "^404 no application app-nope" "$T/r"'
check "/api/v1/apps/app-nope: 404" test "$(code "$URL/api/v1/apps/app-nope")" = 404
check "/app/: 404" test "$(code "$URL/app/")" = 404
check "/app/../../etc/passwd: 404" test "$(code "$URL/app/../../etc/passwd" --path-as-is)" = 404
check "/app/%2e%2e%2fetc: 404" test "$(code "$URL/app/%2e%2e%2f$OK")" = 404
check "/nothing: 404" test "$(code "$URL/nothing")" = 404
check "POST /: 405" test "$(code "$URL/" -X POST -d x)" = 405
check "a long state: 400" test "$(code "$URL/?state=$(head -c 3000 /dev/zero | tr '\0' a)")" = 400
check "the server is still up" test "$(code "$URL/")" = 200

# each request reads again: a new application, RUNNING, then FINISHED
J=$(job slow '{"name":"slow","stages":[{"name":"s","tasks":[{"cmd":["sh","-c","sleep 0.3; echo {i}"],"count":20}]}]}')
"$BIN/hearth-submit" --master 'local[2]' --event-log "$EV" "$J" >"$T/slow.out" 2>&1 &
SLOW_PID=$!
PIDS+=("$SLOW_PID")
running() { code "$URL/api/v1/apps?state=RUNNING" >/dev/null && [[ $(jq '.applications | length' "$T/r") == 1 ]]; }
check "an application started after the server: RUNNING in the next listing" wait_for 20 running
NEW=$(jq -r '.applications[0].id' "$T/r")
check "... its page says RUNNING" eval \
  '[[ $(code "$URL/app/$NEW") == 200 ]] && grep -q "<span id=\"state\" class=\"st-RUNNING\">" "$T/r"'
wait "$SLOW_PID"
check "(it succeeds)" test $? -eq 0
check "... then FINISHED, three applications" eval \
  '[[ $(code "$URL/api/v1/apps") == 200 ]] &&
   [[ $(jq -r --arg id "$NEW" "(.applications | length | tostring) + \" \" + (.applications[] | select(.id == \$id) | .state)" "$T/r") == "3 FINISHED" ]]'
check "... through the index, as the CLI's listing" test -s "$EV/.hearth-history/index"

printf 'not a log\n' >"$EV/junk.events"
check "a file that is not a log: the page still 200" test "$(code "$URL/")" = 200
check "... naming it" grep -q "junk.events is not an event log" "$T/r"
check "... the others listed" test "$(grep -c '<tr data-id=' "$T/r")" -eq 3
rm -f "$EV/junk.events"

kill -TERM "$SPID"
wait "$SPID"
check "SIGTERM: exit 0" test $? -eq 0
check "... saying so" grep -q "Terminated: stopping" "$T/web.err"

serve gone --dir "$T/missing" --web-port "$BASE"
check "a directory that cannot be read: the server starts, / answers 500" test "$(code "$URL/")" = 500
check "... saying why" grep -q "^500 hearth-history: cannot" "$T/r"
kill -TERM "$SPID"; wait "$SPID"

# the token rule, as the daemons'
TOKEN=tok-$RANDOM$RANDOM-$RANDOM
printf '%s\n' "$TOKEN" >"$T/token"
chmod 600 "$T/token"
check "beyond loopback with a token file: serves" \
  serve tok --dir "$EV" --web-port "$((BASE + 2))" --web-host 0.0.0.0 --web-token-file "$T/token"
P=${URL##*:}
L=http://127.0.0.1:$P
check "... (token required, in its log)" grep -q "history web pages at .*:$P (token required)" "$T/tok.err"
check "no token: 401 on /, /app/ID and /api/v1/apps" eval \
  '[[ $(NO_TOKEN=1 code "$L/") == 401 && $(NO_TOKEN=1 code "$L/app/$OK") == 401 &&
     $(NO_TOKEN=1 code "$L/api/v1/apps") == 401 ]]'
check "a wrong token: 401" test "$(code "$L/" -H "Authorization: Bearer ${TOKEN}x")" = 401
check "the Bearer token: 200" test "$(code "$L/api/v1/apps" -H "Authorization: Bearer $TOKEN")" = 200
check "?token=: 200, setting the cookie" eval \
  '[[ $(code "$L/?token=$TOKEN") == 200 ]] && http_header Set-Cookie | grep -qx "hearth_token=$TOKEN; HttpOnly; SameSite=Strict; Path=/"'
check "the cookie: 200 on a summary" test "$(code "$L/app/$OK" -b "hearth_token=$TOKEN")" = 200
kill -TERM "$SPID"; wait "$SPID"

"$H" --dir "$EV" --web-port "$((BASE + 4))" --web-host 0.0.0.0 >"$T/r" 2>&1
rc=$?
check "beyond loopback without a token: exit 1, the daemons' message" eval \
  '(( rc == 1 )) && grep -q "refusing to serve web pages on 0.0.0.0 without a token" "$T/r"'
HEARTH_WEB_HOST=0.0.0.0 "$H" --dir "$EV" --web-port "$((BASE + 4))" >"$T/r" 2>&1
rc=$?
check "... HEARTH_WEB_HOST read as the daemons' (refused the same)" eval \
  '(( rc == 1 )) && grep -q "refusing to serve web pages on 0.0.0.0" "$T/r"'
check "--insecure: serves, with its warning" \
  serve ins --dir "$EV" --web-port "$((BASE + 4))" --web-host 0.0.0.0 --insecure
check "... (the warning)" grep -q "INSECURE: serving web pages on 0.0.0.0" "$T/ins.err"
check "... and answers without a token" test "$(NO_TOKEN=1 code "http://127.0.0.1:${URL##*:}/")" = 200
kill -TERM "$SPID"; wait "$SPID"
"$H" --dir "$EV" --web-port "$((BASE + 6))" --web-token-file "$T/nofile" >"$T/r" 2>&1
rc=$?
check "a token file that cannot be read: exit 1" eval \
  '(( rc == 1 )) && grep -q "cannot read the web token file" "$T/r"'

HEARTH_WEB_PORT=$((BASE + 6)) timeout 10 "$H" --dir "$EV" >"$T/r" 2>&1
check "HEARTH_WEB_PORT set: still the CLI's listing (exit 0)" test $? -eq 0
check "... its header" grep -q '^ID ' "$T/r"
"$H" --dir "$EV" --web-port "$((BASE + 6))" "$OK" >"$T/r" 2>&1
check "--web-port with APP_ID: exit 2" test $? -eq 2
"$H" --dir "$EV" --web-port "$((BASE + 6))" --json >"$T/r" 2>&1
rc=$?
check "--web-port with --json: exit 2, saying the pages take the filters" eval \
  '(( rc == 2 )) && grep -q "is not for --web-port" "$T/r"'
finish
