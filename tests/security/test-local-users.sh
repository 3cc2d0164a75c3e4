#!/usr/bin/env bash
# A master on loopback without keys admits only the tools of the user it
# runs as (issue 35 item 3; docs/security.md, "Local users"): they present
# that user's local cookie.  Another local user (nobody) is refused, with
# a clear reason, whether it has no cookie or one of its own, and its job
# never runs (before: its task ran as the worker's user, root, and read
# /etc/shadow); given a copy of the cookie it is admitted.  The master's
# own user needs no setup.  Root only: it runs tools as nobody.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
. "$(dirname "$0")/../lib/security.sh"
need_nobody "it runs tools as nobody"
deadline 90

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
check "... told that the master admits only its own user's tools and it has no cookie" \
  grep -q "admits only its own user.s tools (docs/security.md, \"Local users\"), and this user has no cookie" "$T/n1.err"
check "... its task never ran" test ! -e "$T/ran"
check "... nor printed anything" test ! -s "$T/n1.out"

# nobody with a cookie of its own (made in its home on first use).
as_nobody "$BIN/hearth-submit" --master "$MASTER_URL" --register-timeout 3s \
  "$T/jobs/who.json" >"$T/n2.out" 2>"$T/n2.err"
check "nobody with its own cookie is refused (exit 1)" test $? -eq 1
check "... its cookie was made in its home, mode 0600" \
  test "$(stat -c '%U %a' "$NOBODY_HOME/.hearth/cookie")" = "nobody 600"
check "... told that the master does not take this user's cookie" \
  grep -q "does not take this user's cookie (status 400)" "$T/n2.err"
check "... its task never ran" test ! -e "$T/ran"
check "the master logs the refusal" \
  grep -q "refused 127.0.0.1: a wrong cookie" "$T/master.log"
as_nobody "$BIN/hearth-tail" --master "$MASTER_URL" --state --timeout 2s \
  >"$T/n3.out" 2>"$T/n3.err"
check "nobody cannot read the state either (exit 1)" test $? -eq 1
check "... nothing of it printed" test ! -s "$T/n3.out"

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
