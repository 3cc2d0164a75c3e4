#!/usr/bin/env bash
# What hearth-submit says when it cannot reach its master (issue 13,
# defect 6), within a second or two instead of a silent register-timeout:
# nothing listening (connection refused), a host that does not resolve, a
# peer that speaks another protocol, a keyed master given the wrong
# master key (or no keys, or a key it does not admit).  Where waiting
# makes sense it still waits: a master that comes up on the refused port
# gets the application registered and the job runs.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
. "$(dirname "$0")/../lib/security.sh"
deadline 120
export TMPDIR=$T
PEER=$BIN/tests/driver/test-peer

J=$(job ok '{"name":"ok","stages":[{"name":"s","tasks":[{"cmd":["echo","hi"]}]}]}')

# says NAME PATTERN URL [ARGS...]: hearth-submit against URL prints
# PATTERN on stderr within 3 s (the register timeout is far longer).
says() {
  local name=$1 pattern=$2 url=$3
  shift 3
  "$BIN/hearth-submit" --master "$url" --register-timeout 30s "$@" "$J" \
    >"$T/$name.out" 2>"$T/$name.err" &
  SUB=$!
  PIDS+=($SUB)
  local start=$(now_ms)
  if wait_for 3 grep -Eq -- "$pattern" "$T/$name.err"; then
    pass "$name: says why within 3 s ($(($(now_ms) - start)) ms): $(grep -Em1 -- "$pattern" "$T/$name.err" | sed 's/^.*WARN //')"
  else
    fail "$name: says why within 3 s"
    cat "$T/$name.err" >&2
  fi
}
stop_sub() {
  kill "$SUB" 2>/dev/null
  wait "$SUB" 2>/dev/null
}

# Nothing listens: take a free port, and free it again.
"$PEER" "$T/free.port" &
P=$!
wait_for 5 test -s "$T/free.port"
FREE=$(cat "$T/free.port")
kill9 "$P"
says refused 'connection refused' "tcp://127.0.0.1:$FREE"
check "refused: ... and keeps waiting" eval "sleep 1; kill -0 $SUB"
# A master comes up there: the application registers, the job runs.
PORT=$FREE start_master || exit 1
start_worker w1 || exit 1
wait "$SUB"
check "refused: once a master listens there, the job runs (exit $?)" \
  grep -qx hi "$T/refused.out"
kill "$PID_w1" "$MASTER_PID"
wait "$PID_w1" "$MASTER_PID" 2>/dev/null

says unresolved 'nosuch\.invalid.*(not found|does not resolve|unknown)' \
  tcp://nosuch.invalid:7077
start=$(now_ms)
wait "$SUB"
rc=$?
check "unresolved: fails at once (exit $rc, $(($(now_ms) - start)) ms)" \
  eval "[[ $rc -eq 1 && $(($(now_ms) - start)) -lt 5000 ]]"

"$PEER" "$T/peer.port" &
PIDS+=($!)
wait_for 5 test -s "$T/peer.port"
says garbage 'not a (ZeroMQ|Hearth)|another protocol' \
  "tcp://127.0.0.1:$(cat "$T/peer.port")"
stop_sub

make_keys || exit 1
"$BIN/hearth-keygen" "$T/other" >/dev/null || exit 1
secure_master || exit 1
says wrong-key 'wrong master key|--master-key' "$MASTER_URL" \
  --curve-secret "$K/client.key_secret" --master-key "$T/other/master.key"
stop_sub
says no-keys 'needs? (CURVE )?keys|--curve-secret' "$MASTER_URL"
stop_sub
says not-admitted 'not admitted|--curve-allow' "$MASTER_URL" \
  --curve-secret "$T/other/client.key_secret" --master-key "$K/master.key"
stop_sub
# shellcheck disable=SC2046
start_worker w2 $(client_keys w1) || exit 1
# shellcheck disable=SC2046
check "the right keys still work" submit --master "$MASTER_URL" $(client_keys client) \
  --register-timeout 10s "$J"
finish
