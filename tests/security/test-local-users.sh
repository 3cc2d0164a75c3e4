#!/usr/bin/env bash
# A master on loopback without keys admits only the tools of the user it
# runs as (issue 35 item 3; docs/security.md, "Local users"): they present
# that user's local cookie.  Another local user (nobody) is refused, with
# a clear reason, whether it has no cookie or one of its own, and its job
# never runs (before: its task ran as the worker's user, root, and read
# /etc/shadow); given a copy of the cookie it is admitted.  The master's
# own user needs no setup.  A port squatter learns nothing of the cookie
# (before, PLAIN sent it in clear).  Root only: it runs tools as nobody.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
. "$(dirname "$0")/../lib/security.sh"
need_nobody "it runs tools as nobody"
# (the squatter runs as nobody: not a python3 of root's, as pyenv's)
[[ -x /usr/bin/python3 ]] || { echo "$TEST_NAME: SKIPPED: no /usr/bin/python3"; exit 77; }
deadline 120

start_master || exit 1
start_worker w1 || exit 1
check "the master says that only its user's tools are admitted" \
  grep -q "no keys: on loopback, only this user's tools are admitted (they present $HEARTH_COOKIE" "$T/master.log"
check "... whose cookie it made, mode 0600" \
  test "$(stat -c %a "$HEARTH_COOKIE")" = 600
check "... in a directory of mode 0700" \
  test "$(stat -c %a "$(dirname "$HEARTH_COOKIE")")" = 700

mkdir -m 755 "$T/jobs"
printf '%s\n' '{"name":"who","stages":[{"name":"s","tasks":[
  {"cmd":["sh","-c","id -u; touch '"$T"'/ran; head -c1 /etc/shadow >/dev/null && echo read-shadow"]}]}]}' \
  >"$T/jobs/who.json"
chmod 644 "$T/jobs/who.json"

# The master's own user: no setup.
check "root's job runs on the master with no keys" \
  submit --master "$MASTER_URL" "$T/jobs/who.json"
check "... as root" grep -qx 0 "$T/out"
rm -f "$T/ran"

# nobody, with no cookie at all (a home it cannot keep one in).
env -u HEARTH_COOKIE HOME=/nonexistent \
  setpriv --reuid=65534 --regid=65534 --clear-groups \
  "$BIN/hearth-submit" --master "$MASTER_URL" --register-timeout 3s \
  "$T/jobs/who.json" >"$T/n1.out" 2>"$T/n1.err"
check "nobody without a cookie is refused (exit 1)" test $? -eq 1
check "... told that the master takes keys or its user's cookie, and it has neither" \
  grep -q "needs keys, or this user.s cookie if it has none (it then admits only its own user.s tools (docs/security.md, \"Local users\")): this client has neither" "$T/n1.err"
check "... its task never ran" test ! -e "$T/ran"
check "... nor printed anything" test ! -s "$T/n1.out"

# nobody with a cookie of its own (made in its home on first use).
as_nobody "$BIN/hearth-submit" --master "$MASTER_URL" --register-timeout 3s \
  "$T/jobs/who.json" >"$T/n2.out" 2>"$T/n2.err"
check "nobody with its own cookie is refused (exit 1)" test $? -eq 1
check "... its cookie was made in its home, mode 0600" \
  test "$(stat -c '%U %a' "$NOBODY_HOME/.hearth/cookie")" = "nobody 600"
check "... told that the master does not take this user's cookie" \
  grep -q "does not take this user's cookie: .* admits only its own user's tools" "$T/n2.err"
check "... its task never ran" test ! -e "$T/ran"
as_nobody "$BIN/hearth-tail" --master "$MASTER_URL" --state --timeout 2s \
  >"$T/n3.out" 2>"$T/n3.err"
check "nobody cannot read the state either (exit 1)" test $? -eq 1
check "... nothing of it printed" test ! -s "$T/n3.out"

# A port squatter: nobody listens where root's tool looks for its master
# (one not started yet, or stopped), answers the ZMTP greeting with the
# mechanism the tool offers, and keeps all the tool then sends.  The
# cookie is a secret: neither its text nor the keys it holds may reach
# the squatter (before, PLAIN sent the cookie itself, in HELLO).
cat >"$T/squat.py" <<'PY'
import socket, sys, time
srv = socket.socket()
srv.bind(("127.0.0.1", 0))
srv.listen(4)
print(srv.getsockname()[1], flush=True)
srv.settimeout(10)
got = b""
c, _ = srv.accept()
c.settimeout(0.2)
c.sendall(b"\xff" + b"\0" * 8 + b"\x7f\x03")  # signature, version 3
answered, end = False, time.time() + 3
while time.time() < end:
    try:
        b = c.recv(4096)
    except socket.timeout:
        continue
    if not b:
        break
    got += b
    if not answered and len(got) >= 64:  # its greeting: echo its mechanism
        c.sendall(b"\x00" + got[12:32] + b"\x00" * 32)
        answered = True
open(sys.argv[1], "wb").write(got)
PY
chmod 644 "$T/squat.py"
as_nobody /usr/bin/python3 "$T/squat.py" "$NOBODY_HOME/squatted" >"$NOBODY_HOME/port" &
SQUAT_PID=$!
for _ in $(seq 50); do [[ -s $NOBODY_HOME/port ]] && break; sleep 0.1; done
SQUAT_URL=tcp://127.0.0.1:$(cat "$NOBODY_HOME/port")
"$BIN/hearth-tail" --master "$SQUAT_URL" --state --timeout 3s \
  >"$T/sq.out" 2>"$T/sq.err"
check "root's tool, meeting a squatter on its master's port, fails" test $? -ne 0
wait "$SQUAT_PID"
check "... the squatter saw the tool's greeting and what followed" \
  test "$(stat -c %s "$NOBODY_HOME/squatted")" -gt 64
python3 - "$HEARTH_COOKIE" "$NOBODY_HOME/squatted" >"$T/sq.leak" <<'PY'
import sys
text = open(sys.argv[1], "rb").read().strip()
got = open(sys.argv[2], "rb").read()
# Z85 (ZeroMQ RFC 32): 5 characters, 4 bytes, big-endian base 85
A = b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#"
raw = b""
for i in range(0, len(text), 5):
    v = 0
    for ch in text[i:i + 5]:
        v = v * 85 + A.index(ch)
    raw += v.to_bytes(4, "big")
if any(raw[i:i + 8] in got for i in range(len(raw) - 7)):
    print("leaked: 8 bytes of the cookie's keys")
if any(text[i:i + 8] in got for i in range(len(text) - 7)):
    print("leaked: 8 characters of the cookie")
PY
check "... and no part of root's cookie: $(head -c 200 "$T/sq.leak")" \
  test ! -s "$T/sq.leak"

# Admitting another user: a copy of the cookie that only it may read.
install -o 65534 -g 65534 -m 600 "$HEARTH_COOKIE" "$NOBODY_HOME/.hearth/cookie"
as_nobody "$BIN/hearth-submit" --master "$MASTER_URL" --register-timeout 5s \
  "$T/jobs/who.json" >"$T/n4.out" 2>"$T/n4.err"
check "given a copy of the cookie, nobody's job runs" test $? -eq 0
check "... (as the worker's user: keys name users, docs/security.md)" grep -qx 0 "$T/n4.out"
chmod 644 "$NOBODY_HOME/.hearth/cookie"
as_nobody "$BIN/hearth-submit" --master "$MASTER_URL" --register-timeout 3s \
  "$T/jobs/who.json" >"$T/n5.out" 2>"$T/n5.err"
check "a cookie others may read is refused by the tool itself (exit 1)" test $? -ne 0
check "... saying so" grep -q "others may read it (chmod 600)" "$T/n5.err"
finish
