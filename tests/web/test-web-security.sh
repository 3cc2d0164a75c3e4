#!/usr/bin/env bash
# The web servers under abuse.  The token rule: a master whose pages are
# bound beyond loopback (here 0.0.0.0, the wildcard: not a loopback
# address, so even a request arriving over 127.0.0.1 needs the token;
# libcore/web.c decides by the address bound, not the client's) answers
# 401 without the token or with a wrong one (header, cookie or query), 200
# with it, and ?token= sets the HttpOnly cookie; a bad token file stops
# the start; a 256-character token's cookie is set whole.  (A server
# bound to loopback takes a token too, its user's: the worker's pages
# here, which the requests of tests/web/web.sh carry; test-web-token.sh
# checks that rule.)  A server bound to loopback answers 421 to a Host
# that is not a loopback address or localhost (DNS rebinding); beyond
# loopback the token decides.
# One client address holds at most --web-client-connections (32) at once:
# the next from it is refused, another address still served.  Bad methods
# get 405, huge headers are refused, slow clients that never finish a
# request do not stop anyone else (another address) from being served,
# and 1,000 garbage requests (seeded) to the master's and a worker's pages
# leave both up, the worker ALIVE throughout (its heartbeats unaffected)
# and a job run meanwhile with its exact output.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
. "$(dirname "$0")/web.sh"
deadline 240
export TMPDIR=$T
SEED=${SEED:-$RANDOM}
say "seed $SEED (SEED=$SEED to replay)"

BASE=$(free_port_range 6)
TOKEN=tok-$RANDOM$RANDOM-$RANDOM$RANDOM
printf '%s\n' "$TOKEN" >"$T/token"
chmod 600 "$T/token"
start_master --web-port "$BASE" --web-host 0.0.0.0 --web-token-file "$T/token" || exit 1
CORES=2 start_worker w1 --web-port "$((BASE + 1))" || exit 1
M=http://127.0.0.1:$BASE
W=http://127.0.0.1:$((BASE + 1))
check "the log says the token is required" grep -q "master web pages at .*:$BASE (token required)" "$T/master.log"

status_of() { http_get "$@" && http_status; }
# served URL [CURL ARGS...]: the status, or "none" when nothing answered
served() { rm -f "$T/headers"; http_get "$1" "$T/r" "${@:2}"; [[ -s $T/headers ]] && http_status || echo none; }
check "no token: 401" test "$(NO_TOKEN=1 status_of "$M/json" "$T/r")" = 401
check "... with a short text body and WWW-Authenticate: Bearer" \
  eval 'grep -q "^401 unauthorized" "$T/r" && http_header WWW-Authenticate | grep -qx Bearer'
check "no token on /api/v1/state, /metrics, an unknown path: 401 each" eval \
  '[[ $(NO_TOKEN=1 status_of "$M/api/v1/state" "$T/r") == 401 &&
      $(NO_TOKEN=1 status_of "$M/metrics" "$T/r") == 401 &&
      $(NO_TOKEN=1 status_of "$M/nothing" "$T/r") == 401 ]]'
check "a wrong Bearer token: 401" test "$(status_of "$M/json" "$T/r" -H "Authorization: Bearer ${TOKEN}x")" = 401
check "a prefix of the token: 401" test "$(status_of "$M/json" "$T/r" -H "Authorization: Bearer ${TOKEN:0:10}")" = 401
check "a wrong cookie: 401" test "$(status_of "$M/json" "$T/r" -b "hearth_token=nope")" = 401
check "a wrong ?token=: 401" test "$(status_of "$M/json?token=nope" "$T/r")" = 401
check "the right Bearer token: 200 and the document" eval \
  '[[ $(status_of "$M/json" "$T/r" -H "Authorization: Bearer $TOKEN") == 200 ]] && jq -e .aliveworkers "$T/r" >/dev/null'
check "the right cookie: 200" test "$(status_of "$M/json" "$T/r" -b "hearth_token=$TOKEN")" = 200
check "the right ?token=: 200, setting the cookie HttpOnly, SameSite=Strict, Path=/" eval \
  '[[ $(status_of "$M/json?token=$TOKEN" "$T/r") == 200 ]] &&
   http_header Set-Cookie | grep -qx "hearth_token=$TOKEN; HttpOnly; SameSite=Strict; Path=/"'
http_get "$M/metrics" "$T/met" -H "Authorization: Bearer $TOKEN"
check "the 401s are counted on /metrics (the 8 above)" eval \
  '(( $(awk "\$1 == \"hearth_web_unauthorized_total\" { print \$2 }" "$T/met") == 8 ))'
check "... and logged once a minute per client, not once each" \
  test "$(grep -c 'refused 127.0.0.1: web request without the token' "$T/master.log")" = 1

# Token files that cannot be used stop the start.
: >"$T/empty"
"$BIN/hearth-master" --port 0 --events-port 0 --web-port "$((BASE + 4))" \
  --web-host 0.0.0.0 --web-token-file "$T/empty" >"$T/bad1.log" 2>&1
rc=$?
check "an empty token file: exit 1, saying so" eval '(( rc == 1 )) && grep -q "token file .* is empty" "$T/bad1.log"'
"$BIN/hearth-master" --port 0 --events-port 0 --web-port "$((BASE + 4))" \
  --web-token-file "$T/missing" >"$T/bad2.log" 2>&1
rc=$?
check "a missing token file: exit 1, saying so" eval '(( rc == 1 )) && grep -q "cannot read the web token file" "$T/bad2.log"'
printf 'bad token;with spaces\n' >"$T/badchars"
"$BIN/hearth-master" --port 0 --events-port 0 --web-port "$((BASE + 4))" \
  --web-host 0.0.0.0 --web-token-file "$T/badchars" >"$T/bad3.log" 2>&1
rc=$?
check "a token a cookie cannot carry: exit 1" eval '(( rc == 1 )) && grep -q "characters a cookie cannot carry" "$T/bad3.log"'

# A 256-character token (the longest a token file may hold): its cookie
# is set whole.  This master also takes --web-client-connections 4.
LONG=$(tr -dc 'A-Za-z0-9' </dev/urandom | head -c 256)
printf '%s\n' "$LONG" >"$T/long" && chmod 600 "$T/long"
"$BIN/hearth-master" --port 0 --events-port 0 --web-port "$((BASE + 5))" \
  --web-host 0.0.0.0 --web-token-file "$T/long" --web-client-connections 4 \
  >"$T/m2.log" 2>&1 &
PIDS+=($!)
M2=http://127.0.0.1:$((BASE + 5))
check "a master with a 256-character token serves (401 without it)" \
  wait_for 10 eval '[[ $(NO_TOKEN=1 served "$M2/json") == 401 ]]'
check "... ?token=: 200, the cookie set whole" eval \
  '[[ $(status_of "$M2/json?token=$LONG" "$T/r") == 200 ]] &&
   http_header Set-Cookie | grep -qx "hearth_token=$LONG; HttpOnly; SameSite=Strict; Path=/"'
check "... and the cookie alone is then enough" test "$(status_of "$M2/json" "$T/r" -b "hearth_token=$LONG")" = 200

# Connections per client address: 4 held from 127.0.0.1 on that master,
# then 32 (the default) on the worker's pages.
slow_clients "$((BASE + 5))" 4 60
check "--web-client-connections 4, 4 held: a 5th from 127.0.0.1 is refused" \
  test "$(served "$M2/json" -b "hearth_token=$LONG")" = none
check "... one from 127.0.0.2 is served" \
  test "$(served "$M2/json" -b "hearth_token=$LONG" --interface 127.0.0.2)" = 200
kill "$SLOW_PID"
check "... and once they close, 127.0.0.1 again" \
  wait_for 10 eval '[[ $(served "$M2/json" -b "hearth_token=$LONG") == 200 ]]'
slow_clients "$((BASE + 1))" 32 60
check "32 held on the worker's pages (the default): a 33rd from 127.0.0.1 is refused" \
  test "$(served "$W/api/v1/state")" = none
check "... one from 127.0.0.2 is served" test "$(served "$W/api/v1/state" --interface 127.0.0.2)" = 200
check "... the refusal logged" grep -q "connection limit" "$T/w1.log"
kill "$SLOW_PID"
check "... and once they close, 127.0.0.1 again" wait_for 10 eval '[[ $(served "$W/api/v1/state") == 200 ]]'

# Host: a loopback server answers only for loopback names (any port).
for h in "127.0.0.1:$((BASE + 1))" localhost localhost:9 "[::1]:80" 127.0.0.3 LOCALHOST:1; do
  check "Host $h on the worker's loopback pages: 200" \
    test "$(status_of "$W/api/v1/state" "$T/r" -H "Host: $h")" = 200
done
for h in evil.example "evil.example:$((BASE + 1))" localhost.evil.example 127.0.0.1.nip.io "[::2]:80" "127.0.0.1:x"; do
  check "Host $h on the worker's loopback pages: 421" \
    test "$(status_of "$W/api/v1/state" "$T/r" -H "Host: $h")" = 421
done
check "... with a short text saying why" grep -q "^421 misdirected request: this server is bound to loopback" "$T/r"
http_get "$W/metrics" "$T/met"
check "... counted on /metrics (the 6 above)" \
  grep -qx 'hearth_web_refused_total{reason="host"} 6' "$T/met"
check "... with the bytes replies hold now (none but this one's)" \
  grep -qx 'hearth_web_reply_bytes 0' "$T/met"
check "beyond loopback (the master's), another Host with the token: 200" \
  test "$(status_of "$M/json" "$T/r" -H "Host: evil.example" -H "Authorization: Bearer $TOKEN")" = 200

# Methods: only GET and HEAD (the worker's pages: loopback, this user's
# token).
for meth in POST PUT DELETE PATCH OPTIONS TRACE; do
  check "$meth: 405 with Allow: GET, HEAD" eval \
    '[[ $(status_of "$W/api/v1/state" "$T/r" -X "$meth" -d x) == 405 ]] && http_header Allow | grep -qx "GET, HEAD"'
done
check "HEAD: 200" test "$(status_of "$W/api/v1/state" "$T/r" -I)" = 200

# Huge headers: refused (431 or the connection closed), the server fine.
BIG=$(head -c 100000 /dev/zero | tr '\0' a)
http_get "$W/api/v1/state" "$T/r" -H "X-Big: $BIG"
code=$(http_status)
check "a 100 KB header: refused ($code)" eval '[[ -z $code || $code == 431 || $code == 413 || $code == 400 ]]'
check "... then a normal request: 200" test "$(status_of "$W/api/v1/state" "$T/r")" = 200

# Slow clients: 100 connections trickling a request a byte a second (one
# address: 32 of them held, the others refused) hold no one else up.
slow_clients "$((BASE + 1))" 100 8
sleep 2
t0=$(now_ms)
check "with 100 slow clients on the worker's pages, another client is answered" \
  test "$(status_of "$W/api/v1/state" "$T/r" --interface 127.0.0.2)" = 200
say "answered in $(( $(now_ms) - t0 )) ms"

# 1,000 garbage requests to each server while a job runs.
J=$(job during '{"name":"during","stages":[{"name":"m","tasks":[
  {"cmd":["sh","-c","sleep 0.2; echo {i}"],"count":40}]}]}')
submit --master "$MASTER_URL" "$J" &
SUB=$!
: >"$T/states"
( while kill -0 "$SUB" 2>/dev/null; do worker_state "$ID_w1" >>"$T/states"; sleep 0.2; done ) &
WATCH=$!
A1=$(garbage "$BASE" 1000 "$SEED")
A2=$(garbage "$((BASE + 1))" 1000 "$((SEED + 1))")
say "garbage answered: master $A1 of 1000, worker $A2 of 1000"
wait "$SUB"
RC=$?
wait "$WATCH"
check "the job run meanwhile succeeded" test "$RC" = 0
check "... with its exact output" eval 'sort -n "$T/out" | cmp -s - <(seq 0 39)'
check "the worker was ALIVE at every look during it" \
  eval 'test -s "$T/states" && ! grep -qv "^ALIVE$" "$T/states"'
check "no worker was declared DEAD" eval '! grep -q "is DEAD" "$T/master.log"'
check "both daemons are up" eval 'kill -0 "$MASTER_PID" && kill -0 "$PID_w1"'
check "... and still answer" eval \
  '[[ $(status_of "$M/json" "$T/r" -H "Authorization: Bearer $TOKEN") == 200 && $(status_of "$W/api/v1/state" "$T/r") == 200 ]]'
finish
