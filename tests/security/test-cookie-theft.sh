#!/usr/bin/env bash
# The local cookie goes to no stranger (docs/security.md, "Local users"):
# a keyless master on loopback admits only its user's tools, by the cookie
# they present.  A port on 127.0.0.1 is anyone's to bind while the master
# is not running (a restart, an upgrade, before it starts), so another
# local user (nobody) who binds the master's port then must not learn the
# cookie from the tools that connect there: the master's own workers,
# reconnecting, and hearth-submit.  With what it heard, nobody's job must
# still not run on the master once it is back (its task would run as the
# worker's user, root).  Root only: it runs the stranger as nobody.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
. "$(dirname "$0")/../lib/security.sh"
need_nobody "it runs a stranger as nobody"
deadline 120
CATCH=$BIN/tests/security/plain-catch
# catch NAME: nobody listens on the master's port (plain-catch), its
# output in $T/NAME.caught; sets CATCH_PID once it is bound.
catch() {
  as_nobody "$CATCH" "tcp://127.0.0.1:$PORT" 30 >"$T/$1.caught" 2>&1 &
  CATCH_PID=$!
  PIDS+=($CATCH_PID)
  wait_for 10 grep -q '^bound' "$T/$1.caught"
}
# reached NAME: a tool connected to the stranger of NAME.
reached() { grep -qE '^(accepted|password )' "$T/$1.caught"; }
# told NAME: the stranger of NAME heard this user's cookie.
told() { grep -qF -- "$(cat "$HEARTH_COOKIE")" "$T/$1.caught"; }

mkdir -m 755 "$T/jobs"
printf '%s\n' '{"name":"who","stages":[{"name":"s","tasks":[
  {"cmd":["sh","-c","id -u; touch '"$T"'/ran; head -c1 /etc/shadow >/dev/null && echo read-shadow"]}]}]}' \
  >"$T/jobs/who.json"
chmod 644 "$T/jobs/who.json"

start_master || exit 1
PORT=$MASTER_PORT
start_worker w1 || exit 1

# The master stops; nobody takes its port before it is back.
kill -TERM "$MASTER_PID"
wait "$MASTER_PID"
check "nobody binds the stopped master's port" catch worker
wait "$CATCH_PID"
check "the worker, reconnecting, reached nobody's listener" \
  reached worker
check "... and did not tell it the cookie" eval '! told worker'

# hearth-submit, run by the master's user while nobody holds the port.
check "nobody binds the port again" catch submit
submit --master "tcp://127.0.0.1:$PORT" --register-timeout 2s "$T/jobs/who.json"
wait "$CATCH_PID"
check "hearth-submit reached nobody's listener" reached submit
check "... and did not tell it the cookie" eval '! told submit'

# The master is back at its address; nobody tries what it heard.
start_master || exit 1
check "the master is back at the same address" test "$MASTER_PORT" = "$PORT"
check "... its worker registers again" \
  wait_for 20 jq_state '[.workers[] | select(.state == "ALIVE")] | length == 1'
mkdir -m 700 "$NOBODY_HOME/.hearth"
sed -n 's/^password //p' "$T"/*.caught | head -1 >"$NOBODY_HOME/.hearth/cookie"
chown -R 65534:65534 "$NOBODY_HOME/.hearth"
chmod 600 "$NOBODY_HOME/.hearth/cookie"
as_nobody "$BIN/hearth-submit" --master "tcp://127.0.0.1:$PORT" \
  --register-timeout 3s "$T/jobs/who.json" >"$T/n.out" 2>"$T/n.err"
check "nobody's job, with what it heard, is refused" test $? -ne 0
check "... its task never ran (as root)" test ! -e "$T/ran"
finish
