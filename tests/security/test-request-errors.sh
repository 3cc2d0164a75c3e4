#!/usr/bin/env bash
# What the one-shot tools say when they cannot reach their master (issue
# 42 item 5): hearth-tail --state, hearth-admin and hearth-submit
# --status/--kill used to say only "no answer from the master within
# 10000 ms", whatever the cause, and waited their whole timeout after a
# cause that waiting cannot mend.  Now each says why, as client-mode
# hearth-submit does: a keyed master given no keys, a key it does not
# admit, the wrong master key, another user's loopback master (its
# cookie), each at once (well before a 20 s --timeout); nothing listening
# is said at the timeout ("connection refused": a master may be on its
# way up).
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
. "$(dirname "$0")/../lib/security.sh"
deadline 150
export TMPDIR=$T
TIMEOUT=20s

make_keys || { fail "keys"; finish; exit 1; }
"$BIN/hearth-keygen" --client stranger "$T/strangers" >/dev/null
"$BIN/hearth-keygen" "$T/other" >/dev/null # another cluster's master key
secure_master || { fail "a master with keys starts"; finish; exit 1; }
KEYED=$MASTER_URL
start_master || { fail "a master on loopback without keys starts"; finish; exit 1; }
PLAIN=$MASTER_URL

# asks NAME PATTERN -- CMD...: CMD fails within 8 s (its --timeout is
# 20 s), saying PATTERN on stderr.
asks() {
  local name=$1 pattern=$2 start rc
  shift 3
  start=$(now_ms)
  "$@" >"$T/$name.out" 2>"$T/$name.err"
  rc=$? took=$(($(now_ms) - start))
  check "$name: fails (exit $rc)" test "$rc" -ne 0
  check "$name: at once, not at its timeout ($took ms < 8000)" test "$took" -lt 8000
  check "$name: saying why: $(head -c 300 "$T/$name.err")" \
    grep -Eq -- "$pattern" "$T/$name.err"
}
tools() { # LABEL PATTERN URL [KEY ARGS...]: the three tools, each
  local label=$1 pattern=$2 url=$3
  shift 3
  asks "$label-tail" "$pattern" -- "$BIN/hearth-tail" --master "$url" \
    --timeout "$TIMEOUT" --state "$@"
  asks "$label-admin" "$pattern" -- "$BIN/hearth-admin" --master "$url" \
    --timeout "$TIMEOUT" "$@" workers
  asks "$label-status" "$pattern" -- "$BIN/hearth-submit" --master "$url" \
    --timeout "$TIMEOUT" "$@" --status driver-20260101000000-0001
}

# with no keys, on loopback, a tool presents its user's cookie: a keyed
# master cannot take it, and the CURVE greeting of either looks the same
tools nokeys "does not take this user's cookie: it needs CURVE keys" "$KEYED"
touch "$T/not-a-dir" # a cookie that cannot be made: the tool has none
HEARTH_COOKIE=$T/not-a-dir/cookie tools nokeys-nocookie \
  'needs keys, or this user.s cookie if it has none .*this client has neither' "$KEYED"
# shellcheck disable=SC2046
tools stranger "does not admit this client's key" "$KEYED" \
  --curve-secret "$T/strangers/stranger.key_secret" --master-key "$K/master.key"
# shellcheck disable=SC2046
tools wrongkey 'wrong master key' "$KEYED" \
  --curve-secret "$K/client.key_secret" --master-key "$T/other/master.key"
# another user's cookie (a cookie of this test's own, not the master's)
mkdir -m 700 "$T/elsewhere"
HEARTH_COOKIE=$T/elsewhere/cookie tools cookie \
  "does not take this user's cookie" "$PLAIN"
asks kill-cookie "does not take this user's cookie" -- \
  env HEARTH_COOKIE="$T/elsewhere/cookie" "$BIN/hearth-submit" \
  --master "$PLAIN" --timeout "$TIMEOUT" --kill app-20260101000000-0001

# Nothing listens: said at the timeout, as a refused connection.
kill -TERM "$MASTER_PID"
wait "$MASTER_PID" 2>/dev/null
"$BIN/hearth-tail" --master "$PLAIN" --timeout 2s --state >"$T/r.out" 2>"$T/r.err"
check "nothing listening: hearth-tail --state fails" test $? -ne 0
check "... saying no answer within 2000 ms, and that the connection is refused" \
  grep -q "no answer from the master at $PLAIN within 2000 ms: cannot connect to the master at $PLAIN: connection refused" "$T/r.err"
"$BIN/hearth-admin" --master "$PLAIN" --timeout 2s workers >"$T/r2.out" 2>"$T/r2.err"
check "... and hearth-admin says the same" \
  grep -q "no answer from the master at $PLAIN within 2000 ms: cannot connect .*connection refused" "$T/r2.err"
finish
