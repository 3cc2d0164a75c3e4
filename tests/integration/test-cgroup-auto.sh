#!/usr/bin/env bash
# --isolation's choice (root only: it runs a worker as nobody, who may
# make no cgroup here; skipped, saying why, otherwise):
#   - auto, when the worker cannot make its groups: one WARN line at
#     start saying why, and the worker runs its executors unconfined;
#   - cgroup, in the same case: the worker refuses to start, saying why;
#   - a bad value: refused at start;
#   - auto as root on this machine: cgroups, and the log says which
#     version and where.
. "$(dirname "$0")/../lib/cluster.sh"
if [[ $(id -u) != 0 ]]; then
  echo "$TEST_NAME: SKIPPED: not root (it runs a worker as nobody)"
  exit 77
fi
command -v setpriv >/dev/null || { echo "$TEST_NAME: SKIPPED: no setpriv"; exit 77; }
deadline 60
chmod 0777 "$T" # the unprivileged worker writes its work dir and files here
AS_NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups"

start_master || exit 1
# nobody is another user: the loopback master admits it only with a copy
# of the cookie of its own (docs/security.md, "Local users")
mkdir -m 700 "$T/nobody" && cp "$HEARTH_COOKIE" "$T/nobody/cookie" &&
  chown -R 65534:65534 "$T/nobody" || fail "nobody's copy of the cookie"
AS_NOBODY="env HEARTH_COOKIE=$T/nobody/cookie $AS_NOBODY"
WRAP=$AS_NOBODY start_worker u --isolation auto || exit 1
check "auto, unprivileged: one WARN line saying why isolation is off" \
  test "$(count_lines "$T/u.log" 'WARN isolation off (--isolation auto): ')" = 1
say "$(grep -m1 'isolation off' "$T/u.log" | cut -d' ' -f3-)"
check "... naming what it could not do" \
  grep -q 'isolation off (--isolation auto): cannot create .*: Permission denied' "$T/u.log"
start_app plain --max-cores 1 --memory-mb 128 || exit 1
check "... and its executor runs" wait_for 15 grep -q '^EXECUTOR_REGISTERED' "$T/plain.out"
kill -TERM "$APP_PID"
wait "$APP_PID"

$AS_NOBODY "$BIN/hearth-worker" --master "$MASTER_URL" --isolation cgroup \
  --work-dir "$T/c" >"$T/c.log" 2>&1
check "cgroup, unprivileged: the worker refuses to start (status $?)" test $? -eq 1
check "... saying why" grep -q 'ERROR --isolation cgroup: cannot create .*: Permission denied' "$T/c.log"
"$BIN/hearth-worker" --master "$MASTER_URL" --isolation sometimes \
  --work-dir "$T/b" >"$T/b.log" 2>&1
check "a bad --isolation is refused (status $?)" test $? -eq 1
check "... saying what is allowed" grep -q "bad --isolation 'sometimes': auto, cgroup or none" "$T/b.log"
start_worker r || exit 1
check "auto as root: cgroups, the version and the place logged" \
  grep -q 'INFO isolation: cgroup v[12] under /sys/fs/cgroup/' "$T/r.log"
check "... and no WARN about it" eval '! grep -q "isolation off" "$T/r.log"'
finish
