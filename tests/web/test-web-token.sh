#!/usr/bin/env bash
# The pages on loopback take a token (docs/security.md, "Web pages"):
# without --web-token-file, their user's, derived from its local cookie,
# so that another local user reads neither the cluster's state nor an
# executor's log there, while that user's own tools get in with no set-up.
# - a keyless loopback cluster: master and worker answer 401 on every page
#   without the token (the 401 saying how to get it), and with another
#   cookie's token; 200 with this user's (hearth-admin web-token) as a
#   Bearer header, a cookie or ?token=, which sets the cookie;
# - hearth-admin web-url prints the master's address with the token, a
#   worker's when named, any URL given; both daemons take the same token
#   (one user, one cookie), so the cookie set by one opens the other;
# - their logs say the token is required and how to get it, and hold it
#   nowhere;
# - a token file on loopback: its token, not the cookie's
#   (hearth-admin web-url --web-token-file prints it);
# - a keyed cluster on loopback: the same rule;
# - a user who cannot keep a cookie: an explicit --web-port fails the start
#   saying why; on the default port the daemon runs without pages, saying
#   why.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
. "$(dirname "$0")/../lib/security.sh"
. "$(dirname "$0")/web.sh"
deadline 120
export TMPDIR=$T

BASE=$(free_port_range 8)
start_master --web-port "$BASE" || exit 1
start_worker w1 --web-port "$((BASE + 1))" || exit 1
M=http://127.0.0.1:$BASE
W=http://127.0.0.1:$((BASE + 1))
TOKEN=$(web_token)
check "hearth-admin web-token: 48 hexadecimal characters" \
  eval '[[ $TOKEN =~ ^[0-9a-f]{48}$ ]]'
check "... the same at every call" test "$("$BIN/hearth-admin" web-token)" = "$TOKEN"
status_of() { http_get "$@" && http_status; }

# A job, so that the worker has an executor's log to refuse.
J=$(job logged '{"name":"logged","stages":[{"name":"s","tasks":[
  {"cmd":["sh","-c","echo web-token-secret-line >&2"]}]}]}')
check "a job runs" submit --master "$MASTER_URL" --log-level info "$J"
APP=$(sed -n 's/.*application \(app-[0-9-]*\) registered.*/\1/p' "$T/err" | head -1)
LOG="$W/log?app=$APP&exec=0&stream=stderr"
check "... its task's line is in its executor's log (with the token)" \
  eval 'http_get "$LOG" "$T/r" && grep -q web-token-secret-line "$T/r"'

for p in / /json /api/v1/state /metrics "/app/$APP"; do
  check "master $p without a token: 401" test "$(NO_TOKEN=1 status_of "$M$p" "$T/r")" = 401
done
for p in / /api/v1/state /metrics "/log?app=$APP&exec=0&stream=stderr" \
  "/logpage?app=$APP&exec=0&stream=stderr"; do
  check "worker $p without a token: 401" test "$(NO_TOKEN=1 status_of "$W$p" "$T/r")" = 401
done
check "... not a byte of the log" eval '! grep -q web-token-secret-line "$T/r"'
check "... the 401 says how to get in" \
  grep -q "^401 unauthorized: .*'hearth-admin web-url \[URL\]', run as that user" "$T/r"
check "the Bearer token: 200 on the master and the worker" eval \
  '[[ $(status_of "$M/json" "$T/r") == 200 && $(status_of "$W/api/v1/state" "$T/r") == 200 ]]'
check "the cookie: 200" test "$(status_of "$M/json" "$T/r" -b "hearth_token=$TOKEN")" = 200
check "?token=: 200, setting the cookie" eval \
  '[[ $(status_of "$M/json?token=$TOKEN" "$T/r") == 200 ]] &&
   http_header Set-Cookie | grep -qx "hearth_token=$TOKEN; HttpOnly; SameSite=Strict; Path=/"'
check "... and Referrer-Policy: no-referrer (links do not pass it on)" \
  eval 'http_header Referrer-Policy | grep -qx no-referrer'

# Another user: another cookie, another token.
mkdir -m 700 "$T/other"
OTHER=$(HEARTH_COOKIE=$T/other/cookie "$BIN/hearth-admin" web-token)
check "another cookie gives another token" eval '[[ -n $OTHER && $OTHER != "$TOKEN" ]]'
check "... refused by the master and the worker (401)" eval \
  '[[ $(status_of "$M/api/v1/state" "$T/r" -H "Authorization: Bearer $OTHER") == 401 &&
     $(status_of "$LOG" "$T/r" -H "Authorization: Bearer $OTHER") == 401 ]]'
check "... its cookie and ?token= too" eval \
  '[[ $(status_of "$LOG" "$T/r" -b "hearth_token=$OTHER") == 401 &&
     $(status_of "$LOG&token=$OTHER" "$T/r") == 401 ]] && ! grep -q web-token-secret-line "$T/r"'

# hearth-admin web-url.
URL_M=$("$BIN/hearth-admin" --master "$MASTER_URL" web-url)
check "hearth-admin web-url: the master's address with the token" \
  test "$URL_M" = "$M/?token=$TOKEN"
check "... which answers 200 and sets the cookie" eval \
  '[[ $(status_of "$URL_M" "$T/r") == 200 ]] && http_header Set-Cookie | grep -q "^hearth_token=$TOKEN;"'
check "... the cookie the worker's pages take too (one user, one token)" \
  test "$(status_of "$W/api/v1/state" "$T/r" -b "hearth_token=$TOKEN")" = 200
URL_W=$("$BIN/hearth-admin" --master "$MASTER_URL" web-url "$ID_w1")
check "web-url WORKER: its pages' address with the token" test "$URL_W" = "$W/?token=$TOKEN"
check "... which answers 200" test "$(status_of "$URL_W" "$T/r")" = 200
check "web-url URL: that address with the token (no master asked)" test \
  "$("$BIN/hearth-admin" web-url 'http://127.0.0.1:9/app/x?a=1')" = "http://127.0.0.1:9/app/x?a=1&token=$TOKEN"
"$BIN/hearth-admin" --master "$MASTER_URL" web-url no-such-worker >/dev/null 2>"$T/r"
rc=$?
check "web-url with a name no worker has: exit 1, saying so" \
  eval '(( rc == 1 )) && grep -q "no worker .no-such-worker." "$T/r"'

check "the master's log says the token is required, and how to get it" \
  grep -q "master web pages at $M (token required): the server's user's, from its local cookie: 'hearth-admin web-url" "$T/master.log"
check "... as the worker's does" grep -q "worker web pages at $W (token required)" "$T/w1.log"
check "no log holds the token" eval '! grep -rqF "$TOKEN" "$T"/*.log "$T/err" "$T/out"'
kill -TERM "$MASTER_PID" "$PID_w1"
wait "$MASTER_PID" "$PID_w1"

# A token file on loopback: its token, not the cookie's.
printf 'file-token-%s\n' "$RANDOM$RANDOM" >"$T/token" && chmod 600 "$T/token"
FILE_TOKEN=$(head -1 "$T/token")
"$BIN/hearth-master" --port 0 --events-port 0 --web-port "$((BASE + 2))" \
  --web-token-file "$T/token" --ready-file "$T/m2.ready" >"$T/m2.log" 2>&1 &
PIDS+=($!)
M2=http://127.0.0.1:$((BASE + 2))
check "a master on loopback with a token file" wait_for 10 test -s "$T/m2.ready"
check "... takes its token: 200" \
  test "$(status_of "$M2/json" "$T/r" -H "Authorization: Bearer $FILE_TOKEN")" = 200
check "... not the cookie's: 401" test "$(status_of "$M2/json" "$T/r")" = 401
check "... its log says whose" grep -q "(token required): the one of the server's --web-token-file" "$T/m2.log"
check "hearth-admin web-url --web-token-file: the address with that token" test \
  "$("$BIN/hearth-admin" --master "$(head -1 "$T/m2.ready")" --web-token-file "$T/token" web-url)" \
  = "$M2/?token=$FILE_TOKEN"

# A keyed cluster on loopback: the same rule.
make_keys || fail "keys"
secure_master --web-port "$((BASE + 3))" || exit 1
# shellcheck disable=SC2046
start_worker w2 $(client_keys w1) --web-port "$((BASE + 4))" || exit 1
for u in "http://127.0.0.1:$((BASE + 3))/api/v1/state" "http://127.0.0.1:$((BASE + 4))/api/v1/state"; do
  check "keyed, $u: 401 without the token, 200 with it" eval \
    '[[ $(NO_TOKEN=1 status_of "$u" "$T/r") == 401 && $(status_of "$u" "$T/r") == 200 ]]'
done

# A user who cannot keep a cookie (here: its path cannot be made).
mkdir -p "$T/ev"
HEARTH_COOKIE=/dev/null/cookie timeout 20 "$BIN/hearth-history" --dir "$T/ev" \
  --web-port "$((BASE + 5))" >"$T/h.out" 2>"$T/h.err"
check "no cookie, an explicit --web-port: exit 1" test $? -eq 1
check "... saying why and what to do" \
  grep -q "no token for the web pages: without --web-token-file FILE they take this user's local cookie's" "$T/h.err"
HEARTH_COOKIE=/dev/null/cookie HEARTH_BIN_DIR="$T/bin" "$BIN/hearth-worker" \
  --master tcp://127.0.0.1:9 --work-dir "$T/w3" --cores 1 --memory 1G \
  --log-level info >"$T/w3.log" 2>&1 &
W3=$!
PIDS+=($W3)
check "no cookie, the default port: the worker runs without pages, saying why" \
  wait_for 10 grep -q "no token for the web pages: .*: no web pages$" "$T/w3.log"
check "... and keeps running" kill -0 "$W3"
finish
