#!/usr/bin/env bash
# Control characters (issue 35 item 8, docs/security.md "Control
# characters"): a newline or an ESC sequence a peer sends must neither
# forge a record in a log nor reach an operator's terminal raw.
# - an application registering with them in its name is refused (ERROR
#   bad_field naming the field) and is not registered;
# - a reason holding them (UNREGISTER_APPLICATION's message, a drain's
#   reason) reaches the master's log escaped, on its own line;
# - hearth-tail --state and its event lines, hearth-admin apps and workers
#   print no raw ESC when the master's state holds such text, and their
#   --json keeps the text exact;
# - hearth-history's listing and summary of an event log holding them
#   print none either (C1 codes included), and its --json keeps them;
# - a master's answer holding them (a fake master's ERROR) is escaped by
#   hearth-submit, hearth-admin and hearth-tail, on one line.
. "$(dirname "$0")/../lib/cluster.sh"
deadline 120
export TMPDIR=$T
ESC=$'\e'
CSI=$'\xc2\x9b'
STAMP='2026-01-01T00:00:00.000Z hearth-master[1]'
# no_raw FILE...: none of the files holds a raw ESC or a C1 CSI
no_raw() { ! grep -qF -e "$ESC" -e "$CSI" "$@"; }
# forged FILE: a line of FILE starts with the stamp the texts carry
forged() { awk -v s="$STAMP" 'index($0, s) == 1 { f = 1 } END { exit !f }' "$1"; }

start_master || exit 1
start_worker w1 || exit 1
admin() { "$BIN/hearth-admin" --master "$MASTER_URL" --timeout 3s "$@"; }
tail_state() { "$BIN/hearth-tail" --master "$MASTER_URL" --timeout 3s --state "$@"; }
"$BIN/hearth-tail" --master "$MASTER_URL" --timeout 3s --topic app \
  --topic worker >"$T/events" 2>&1 &
PIDS+=($!)

# --- a name with control characters is refused ------------------------------
"$TBIN/test-app" --master "$MASTER_URL" --unchecked --interval 200ms \
  --name $'evil\n'"$STAMP INFO forged$ESC[31m" >"$T/evil.out" 2>&1 &
EVIL=$!
PIDS+=($EVIL)
check "a name holding a newline and ESC: ERROR bad_field, naming the field" \
  wait_for 10 grep -q "^ERROR bad_field REGISTER_APPLICATION: field 'name': expected a string of 1 to 255 bytes without control characters" "$T/evil.out"
check "... not registered" eval '! grep -q "^REGISTERED" "$T/evil.out"'
check "... not in the master's state" \
  eval '[[ $(state_json | jq "[.apps[] | select(.name | test(\"forged\"))] | length") == 0 ]]'
kill "$EVIL" 2>/dev/null
wait "$EVIL" 2>/dev/null

# --- a reason with control characters: escaped in the log ------------------
REASON=$'line one\n'"$STAMP WARN forged line$ESC[31m red$ESC]0;title"$'\a'
start_app reasoned --final-message "$REASON" || exit 1
R_ID=$APP_ID
kill -TERM "$APP_PID"
wait "$APP_PID"
app_state() { state_json | jq -r --arg a "$1" '.apps[] | select(.id == $a) | .state'; }
check "an application ending with such a reason: FINISHED" \
  wait_for 5 eval '[[ $(app_state "$R_ID") == FINISHED ]]'
check "... its reason in the master's log, escaped, on its line" \
  grep -qF "application $R_ID unregistered: FINISHED (line one\\n$STAMP WARN forged line\\x1b[31m red\\x1b]0;title\\x07)" "$T/master.log"
DRAIN=$'maintenance\n'"$STAMP ERROR forged$ESC[2J now"
admin drain --reason "$DRAIN" "$WORKER_ID" >"$T/drain.out" 2>&1
check "a drain with such a reason: accepted" grep -q "draining" "$T/drain.out"
check "... its reason in the master's log, escaped" \
  grep -qF "drained on request: maintenance\\n$STAMP ERROR forged\\x1b[2J now" "$T/master.log"
check "no forged record in the master's log" eval '! forged "$T/master.log"'
check "... and no raw ESC" no_raw "$T/master.log"

# --- the operators' tables --------------------------------------------------
tail_state >"$T/state.txt" 2>&1
check "hearth-tail --state: no raw ESC" no_raw "$T/state.txt"
check "... the reason shown escaped" grep -qF 'line one\n2026-01-01' "$T/state.txt"
check "... the drain reason too" grep -qF 'forged\x1b[2J now' "$T/state.txt"
check "... no forged line" eval '! forged "$T/state.txt"'
check "hearth-tail --state --json keeps the reason exact" \
  eval 'tail_state --json | jq -e --arg a "$R_ID" --arg r "$REASON" ".apps[] | select(.id == \$a) | .reason == \$r" >/dev/null'
admin apps >"$T/apps.txt" 2>&1
check "hearth-admin apps: no raw ESC" no_raw "$T/apps.txt"
check "... the reason shown escaped" grep -qF 'line one\n2026-01-01' "$T/apps.txt"
check "... no forged line" eval '! forged "$T/apps.txt"'
check "hearth-admin apps --json keeps the reason exact" \
  eval 'admin apps --json | jq -e --arg a "$R_ID" --arg r "$REASON" "select(.id == \$a) | .reason == \$r" >/dev/null'
admin workers >"$T/workers.txt" 2>&1
check "hearth-admin workers: no raw ESC, the drain reason escaped" \
  eval 'no_raw "$T/workers.txt" && grep -qF "forged\\x1b[2J now" "$T/workers.txt"'
check "hearth-tail's event lines: the end and the drain, escaped" \
  wait_for 5 eval 'grep -qF "line one\\n2026-01-01" "$T/events" && grep -q "drain" "$T/events"'
check "... no raw ESC, no forged line" \
  eval 'no_raw "$T/events" && ! forged "$T/events"'

# --- hearth-history ---------------------------------------------------------
D=$T/ev
mkdir -p "$D"
python3 - "$D" <<'PY'
import json, sys
d = sys.argv[1]
bad = "n\n2026-01-01T00:00:00.000Z hearth-master[1] INFO forged\x1b[31m\x9b2J"
lines = [
    {"event": "log_start", "time_ms": 1796000000000, "format": 2,
     "app_id": "app-ctl", "name": bad, "user": "u\x1b[5m", "settings": {}},
    {"event": "app_start", "time_ms": 1796000000001, "app_id": "app-ctl",
     "master": "local[1]", "pid": 1, "host": "h\x07"},
    {"event": "app_end", "time_ms": 1796000000002, "state": "FAILED",
     "reason": bad},
]
with open(f"{d}/app-ctl.events", "w") as f:
    for line in lines:
        f.write(json.dumps(line) + "\n")
PY
BAD=$'n\n'"$STAMP INFO forged$ESC[31m${CSI}2J"
"$BIN/hearth-history" --dir "$D" >"$T/hist.txt" 2>&1
check "hearth-history's listing: no raw ESC or CSI" no_raw "$T/hist.txt"
check "... the name and reason shown escaped" \
  grep -qF 'forged\x1b[31m\u009b2J' "$T/hist.txt"
check "... no forged line" eval '! forged "$T/hist.txt"'
"$BIN/hearth-history" --dir "$D" app-ctl >"$T/summary.txt" 2>&1
check "hearth-history's summary: no raw ESC or CSI" no_raw "$T/summary.txt"
check "... the reason shown escaped" grep -qF 'forged\x1b[31m\u009b2J' "$T/summary.txt"
check "... no forged line" eval '! forged "$T/summary.txt"'
check "hearth-history --json keeps the name exact" \
  eval '"$BIN/hearth-history" --dir "$D" --json | jq -e --arg n "$BAD" ".applications[0].name == \$n" >/dev/null'

# --- a master's answer with control characters -----------------------------
ANSWER=$'no\n'"$STAMP INFO forged$ESC[31m"
"$TBIN/test-app" --master tcp://127.0.0.1:9 --fake-master HEARTH/1 \
  --fake-error "$ANSWER" >"$T/fake.out" 2>&1 &
FAKE=$!
PIDS+=($FAKE)
wait_for 5 grep -q '^FAKE_MASTER ' "$T/fake.out" || fail "fake master"
FAKE_URL=$(awk '/^FAKE_MASTER /{print $2}' "$T/fake.out")
WANT="no\\n$STAMP INFO forged\\x1b[31m"
# the fake master asks for no local cookie: the tools have none to show
export HEARTH_COOKIE=/dev/null/cookie
"$BIN/hearth-submit" --master "$FAKE_URL" --timeout 3s \
  --status driver-20260101000000-0001 >/dev/null 2>"$T/submit.err"
"$BIN/hearth-admin" --master "$FAKE_URL" --timeout 3s apps \
  >/dev/null 2>"$T/admin.err"
"$BIN/hearth-tail" --master "$FAKE_URL" --timeout 3s --state \
  >/dev/null 2>"$T/tail.err"
unset HEARTH_COOKIE
for tool in submit admin tail; do
  check "hearth-$tool: the master's refusal, escaped, on one line" \
    eval 'grep -qF "$WANT" "$T/$tool.err" && [[ $(wc -l <"$T/$tool.err") == 1 ]] && no_raw "$T/$tool.err"'
done
kill "$FAKE" 2>/dev/null
wait "$FAKE" 2>/dev/null
finish
