#!/usr/bin/env bash
# hearth-history's bounds (issue 35 item 6, docs/history.md "Bounds"):
# - a string it keeps (a name, a reason) is cut to 1 KiB ("..." at the
#   end), in the listing, its JSON and the summary;
# - a line over 1 MiB (here a 40 MB app_end) is skipped as it is read,
#   counted as a bad line, said once (the index then keeps the summary:
#   no second warning); the listing stays small;
# - its pages: the listing page of that directory costs the server a few
#   MB, not hundreds (its peak resident memory, VmHWM);
# - slow readers (8 connections that read a 6.6 MB listing 4 KB a
#   second) hold at most --web-reply-memory (16 MiB here, for a short
#   test: the server closes a reader that makes no progress for 10 s) of
#   replies: the ones past it are answered 503 with Retry-After, the
#   server's resident memory stays bounded, and it serves again once
#   they are gone.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
. "$(dirname "$0")/../web/web.sh"
deadline 240
export TMPDIR=$T
unset HEARTH_EVENT_LOG_DIR
H=$BIN/hearth-history
# the servers' resident memory is the program's: no freed memory kept
# aside by AddressSanitizer (ignored by a build without it)
SERVER_ASAN="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0:thread_local_quarantine_size_kb=0"

hist() { "$H" "$@" >"$T/hout" 2>"$T/herr"; rc=$?; }
# synth DIR TEXT ID...: a finished application's log for each ID, TEXT
# (JSON string contents) its app_id, name, user, master, host and reason
synth() {
  python3 - "$@" <<'PY'
import sys
d, text = sys.argv[1:3]
for app in sys.argv[3:]:
    with open(f"{d}/{app}.events", "w") as f:
        f.write('{"event":"log_start","time_ms":1796000000000,"format":2,'
                f'"app_id":"{text}","name":"{text}","user":"{text}","settings":{{}}}}\n')
        f.write('{"event":"app_start","time_ms":1796000000001,'
                f'"app_id":"{text}","master":"{text}","pid":1,"host":"{text}"}}\n')
        f.write('{"event":"app_end","time_ms":1796000000002,"state":"FINISHED",'
                f'"reason":"{text}"}}\n')
PY
}
# vm FIELD PID: the process's VmHWM or VmRSS, in MB
vm() { awk -v f="$1:" '$1 == f { print int($2 / 1024) }' "/proc/$2/status"; }

# --- strings cut to 1 KiB ---------------------------------------------------
D=$T/ev
mkdir -p "$D"
synth "$D" "$(printf 'n%.0s' {1..5000})" app-names
hist --dir "$D" --json
check "a 5,000-byte name: listed (exit $rc)" test "$rc" -eq 0
check "... cut to 1 KiB, ending in ..." test "$(jq -r '.applications[0].name | [length, .[-3:]] | join(" ")' "$T/hout")" = "1024 ..."
hist --dir "$D" app-names --json
check "... in the summary too, and its reason" \
  test "$(jq -r '[(.name | length), (.reason | length <= 1024)] | map(tostring) | join(" ")' "$T/hout")" = "1024 true"

# --- a line over 1 MiB --------------------------------------------------------
python3 - "$D" <<'PY'
import sys
d = sys.argv[1]
with open(f"{d}/app-huge.events", "w") as f:
    f.write('{"event":"log_start","time_ms":1796000001000,"format":2,'
            '"app_id":"app-huge","name":"huge","user":"u","settings":{}}\n')
    f.write('{"event":"app_end","time_ms":1796000001002,"state":"FINISHED","reason":"')
    for _ in range(40):
        f.write("x" * (1 << 20))
    f.write('"}\n')
PY
hist --dir "$D" --json
check "a log with a 40 MB line: listed (exit $rc)" test "$rc" -eq 0
check "... the line skipped, counted as a bad line" \
  test "$(jq -r '.applications[] | select(.id == "app-huge") | [.bad_lines, .ended] | map(tostring) | join(" ")' "$T/hout")" = "1 false"
check "... said once, naming the file and its size" eval \
  '[[ $(grep -c "app-huge.events: skipped 1 line over 1 MiB (the longest 41943114 bytes), counted as bad lines" "$T/herr") == 1 ]]'
check "... the listing small" test "$(stat -c %s "$T/hout")" -lt 20000
hist --dir "$D" --json
check "... the next listing from the index: not said again" test ! -s "$T/herr"
hist --dir "$D" app-huge
check "its summary: exit 0, saying it" eval \
  '(( rc == 0 )) && grep -q "app-huge: skipped 1 line over 1 MiB" "$T/herr"'

# --- the pages over it: a few MB, not hundreds ------------------------------
BASE=$(free_port_range 4)
# serve NAME ARGS...: hearth-history --web-port in the background, its URL
# in $URL, its PID in $SPID
serve() {
  local name=$1; shift
  ASAN_OPTIONS=$SERVER_ASAN "$H" "$@" >"$T/$name.out" 2>"$T/$name.err" &
  SPID=$!
  PIDS+=("$SPID")
  wait_for 10 test -s "$T/$name.out" || { cat "$T/$name.err"; return 1; }
  URL=$(head -1 "$T/$name.out")
}
rm -rf "$D/.hearth-history" # the server reads the 40 MB line itself
check "the pages of that directory" serve huge --dir "$D" --web-port "$BASE"
base=$(vm VmRSS "$SPID")
for i in 1 2 3; do web_curl -s -o "$T/page" "$URL/"; done
check "... the listing page served" grep -q 'app-huge' "$T/page"
peak=$(vm VmHWM "$SPID")
say "server: $base MB resident at start, $peak MB at its peak after 3 listing pages"
check "... the server's peak under 64 MB more than its start" test $((peak - base)) -lt 64
kill -TERM "$SPID"; wait "$SPID"

# --- slow readers -------------------------------------------------------------
# 200 logs whose listing rows are 33 KB each (strings of 1 KiB of control
# characters, six bytes each in JSON): a 6.6 MB listing
B=$T/big
mkdir -p "$B"
synth "$B" "$(printf '\\u0001%.0s' {1..1100})" $(seq -f 'app-%.0f' 1 200)
check "a directory whose listing is 6 MB" serve big --dir "$B" --web-port "$((BASE + 1))" \
  --web-reply-memory 16M
web_curl -s -o "$T/list" "$URL/api/v1/apps"
size=$(stat -c %s "$T/list")
say "listing: $size bytes"
check "... (it is over 5 MB)" test "$size" -gt 5000000
base=$(vm VmRSS "$SPID")
# readers PORT N: N connections, one after the other, each asking for the
# listing and reading its status line (and a 503's body, which says how
# many bytes the replies being sent held), then 4 KB a second from all;
# their statuses in $T/statuses, the bytes each 503 names in $T/held,
# $T/readers.ready once all asked (with this user's token).  The server
# may close a reader whose reply made no progress for its idle timeout
# (10 s: a slow run may take longer to ask 8 times), freeing what it held:
# so the count of 200s is not fixed, but each 503 must say the bound.
rm -f "$T/readers.ready"
python3 - "$((BASE + 1))" 8 "$T/statuses" "$T/readers.ready" "$(web_token)" "$T/held" <<'PY' &
import re, socket, sys, time
port, n, out, ready = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
token = sys.argv[5].encode()
socks, codes, held = [], [], []
def trickle():
    for s in socks:
        try:
            s.recv(4096)
        except OSError:
            pass
for _ in range(n):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.connect(("127.0.0.1", port))
    s.sendall(b"GET /api/v1/apps HTTP/1.1\r\nHost: 127.0.0.1\r\n"
              b"Authorization: Bearer " + token + b"\r\n\r\n")
    head = b""
    while len(head) < 12:
        head += s.recv(12 - len(head))
    codes.append(head[9:12].decode())
    while codes[-1] == "503" and b"--web-reply-memory" not in head:
        more = s.recv(4096)
        if not more:
            break
        head += more
    m = re.search(rb"replies of (\d+) bytes", head)
    if codes[-1] == "503":
        held.append(m.group(1).decode() if m else "none")
    s.setblocking(False)  # trickle() takes what is there, never waits
    socks.append(s)
    trickle()
with open(out, "w") as f:
    f.write(" ".join(codes) + "\n")
with open(sys.argv[6], "w") as f:
    f.write(" ".join(held) + "\n")
open(ready, "w").close()
end = time.time() + 60
while time.time() < end:
    trickle()
    time.sleep(1)
PY
RPID=$!
PIDS+=($RPID)
check "8 slow readers of the 6.6 MB listing asked" wait_for 60 test -e "$T/readers.ready"
held=$(vm VmRSS "$SPID")
say "statuses: $(cat "$T/statuses"); server: $base MB resident before, $held MB with them"
ok=$(tr ' ' '\n' <"$T/statuses" | grep -c 200)
busy=$(tr ' ' '\n' <"$T/statuses" | grep -c 503)
check "... some answered, those past 16 MiB of replies held answered 503 ($ok 200, $busy 503)" \
  test "$ok" -ge 1 -a "$busy" -ge 1 -a $((ok + busy)) -eq 8
# Each 503 was due: the replies held were within the bound, and this one
# would have taken them past it.
limit=$((16 << 20))
bad_held=""
for h in $(cat "$T/held"); do
  if ! [[ $h =~ ^[0-9]+$ ]] || ((h > limit || h + size <= limit)); then
    bad_held+=" $h"
  fi
done
check "... each 503 when the held replies ($(cat "$T/held")) were within 16 MiB and one more would pass it" \
  test -z "$bad_held" -a -s "$T/held"
check "... the server's resident memory under 50 MB more than before them" test $((held - base)) -lt 50
http_get "$URL/api/v1/apps" "$T/r"
check "... another request meanwhile: 503 with Retry-After: 1" eval \
  '[[ $(http_status) == 503 ]] && http_header Retry-After | grep -qx 1 && grep -q "^503 busy" "$T/r"'
kill "$RPID"; wait "$RPID" 2>/dev/null
check "once they are gone, the listing is served again" \
  wait_for 10 eval 'http_get "$URL/api/v1/apps" "$T/r" && [[ $(http_status) == 200 ]]'
kill -TERM "$SPID"; wait "$SPID"
check "the server stops on SIGTERM (exit 0)" test $? -eq 0
check "nothing is left running" wait_for 10 no_leftovers
finish
