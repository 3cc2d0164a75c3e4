#!/usr/bin/env bash
# A worker pointed at a master of another protocol version stops at once
# with a clear error (exit 1) instead of retrying for ever: whether the
# master's answer is in a version the worker cannot read, or an ERROR
# bad_version it can.  (test-app --fake-master plays that master; the real
# master's side, answering a foreign version, is test-garbage's.)
. "$(dirname "$0")/../lib/cluster.sh"
deadline 60

for tag in HEARTH/2 HEARTH/1; do
  "$TBIN/test-app" --master tcp://127.0.0.1:9 --fake-master "$tag" \
    >"$T/fake.out" 2>&1 &
  FAKE=$!
  PIDS+=($FAKE)
  wait_for 5 grep -q '^FAKE_MASTER ' "$T/fake.out" || { fail "fake master"; continue; }
  URL=$(awk '/^FAKE_MASTER /{print $2}' "$T/fake.out")
  start=$(now_ms)
  # the fake master asks for no local cookie: the worker has none to show
  HEARTH_COOKIE=/dev/null/cookie \
    timeout 20 "$BIN/hearth-worker" --master "$URL" --work-dir "$T/w" \
    --heartbeat-interval "${INTERVAL_MS}ms" --cores 1 --memory 1G \
    >"$T/w.log" 2>&1
  rc=$? took=$(($(now_ms) - start))
  check "a worker facing a master answering in $tag exits 1 (in $took ms)" \
    test $rc -eq 1
  check "... at once, not after retries (${took} ms < 5000)" test $took -lt 5000
  check "... saying it cannot work with that master" \
    grep -q "ERROR cannot work with the master at $URL: .*HEARTH/" "$T/w.log"
  check "... after one answer" grep -qx 'ANSWERED 1' "$T/fake.out"
  kill "$FAKE" 2>/dev/null
  wait "$FAKE" 2>/dev/null
done
finish
