#!/usr/bin/env bash
# Garbage and malformed messages to the master's port: random bytes, a
# wrong version, bad JSON, too deep JSON, bad fields, unknown and
# unexpected commands, raw bytes that are not even ZMTP, a duplicate
# worker id, malformed and oversized live timelines (APPLICATION_PROGRESS).
# The master answers ERROR where it can (saying what was wrong), refuses
# the duplicate, logs, and keeps answering MASTER_STATE.
. "$(dirname "$0")/../lib/cluster.sh"
deadline 60

start_master || exit 1
start_worker w1 || exit 1

"$TBIN/test-app" --master "$MASTER_URL" --garbage >"$T/garbage.out" 2>&1
check "garbage run completes with MASTER_STATE answered" \
  grep -q '^STATE_OK' "$T/garbage.out"
errors=$(awk '/^ERRORS/{print $2}' "$T/garbage.out")
say "ERROR replies: $errors"
check "ERROR replies to the malformed messages" test "${errors:-0}" -ge 10
check "a duplicate worker id from another host is refused" \
  grep -q '^DUPLICATE_REFUSED duplicate worker id' "$T/garbage.out"
check "the master logs why it dropped them" grep -q 'not a Hearth message.*dropped' "$T/master.log"
check "ERROR for a live timeline that ends before it starts" \
  grep -q "timeline.attempts\[0\]': it ends (5) before it starts (9)" "$T/garbage.out"
check "... an attempt's outcome out of range" \
  grep -q "timeline.attempts\[0\]\[6\]': expected at most 4, got 77" "$T/garbage.out"
check "... a timeline of more attempts than a report may carry" \
  grep -q "timeline.attempts': expected an array of 0 to 5000 elements" "$T/garbage.out"

# Not ZMTP at all, straight onto the TCP port.
for i in 1 2 3; do
  { head -c 4096 /dev/urandom >/dev/tcp/127.0.0.1/"$MASTER_PORT"; } 2>/dev/null
done
printf 'GET / HTTP/1.0\r\n\r\n' >/dev/tcp/127.0.0.1/"$MASTER_PORT" 2>/dev/null
check "master process still alive" kill -0 "$MASTER_PID"
check "master still answers MASTER_STATE" jq_state '.status == "ALIVE"'
check "the real worker is still ALIVE" \
  jq_state "[.workers[] | select(.id == \"$ID_w1\")][0].state == \"ALIVE\""
check "no sanitizer report in the master log" \
  bash -c "! grep -q 'Sanitizer' '$T/master.log'"
finish
