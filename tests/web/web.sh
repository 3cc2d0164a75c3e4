# web.sh - helpers of the web tests (sourced after tests/lib/cluster.sh).

# free_port_range N: a port P such that P..P+N-1 are free now (random, in
# 20000..59999; a race with other tests is possible but unlikely).
free_port_range() {
  python3 - "$1" <<'PY'
import random, socket, sys
n = int(sys.argv[1])
for _ in range(200):
    # below the kernel's ephemeral ports (32768 and up here), which any
    # outgoing connection may take between this check and the test's use
    base = random.randrange(20000, 32768 - n)
    socks = []
    try:
        for p in range(base, base + n):
            s = socket.socket()
            s.bind(("127.0.0.1", p))
            socks.append(s)
    except OSError:
        continue
    finally:
        for s in socks:
            s.close()
    print(base)
    break
PY
}

# hold_ports FIRST N: listen on FIRST..FIRST+N-1 until the test ends;
# fails (returns 1) when one of them could not be taken.
hold_ports() {
  rm -f "$T/held"
  python3 - "$1" "$2" "$T/held" <<'PY' &
import socket, sys, time
socks = []
for p in range(int(sys.argv[1]), int(sys.argv[1]) + int(sys.argv[2])):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", p))
    s.listen(1)
    socks.append(s)
open(sys.argv[3], "w").close()
time.sleep(600)
PY
  local pid=$!
  PIDS+=($pid)
  wait_for 10 eval 'test -e "$T/held" || ! kill -0 '"$pid"' 2>/dev/null'
  test -e "$T/held"
}

# web_token: this user's token of the web pages (hearth-admin web-token):
# the one the test's daemons take on loopback, from the test's cookie
# ($HEARTH_COOKIE; docs/security.md, "Web pages").
web_token() {
  [[ -s $T/web.token ]] || "$BIN/hearth-admin" web-token >"$T/web.token" ||
    return 1
  cat "$T/web.token"
}

# web_curl [CURL ARGS...]: curl with this user's token.
web_curl() {
  curl -H "Authorization: Bearer $(web_token)" "$@"
}

# http_get URL FILE [CURL ARGS...]: the body into FILE, the headers into
# $T/headers (status in http_status).  Fails only when nothing answered.
# The request carries this user's token (web_token) unless NO_TOKEN is
# set or it carries credentials of its own (an Authorization header, a
# cookie with -b, ?token= in URL).
http_get() {
  local url=$1 out=$2 a; shift 2
  local auth=(-H "Authorization: Bearer $(web_token)")
  [[ -n ${NO_TOKEN:-} || $url == *token=* ]] && auth=()
  for a in "$@"; do
    [[ $a == -b || $a == --cookie || ${a,,} == authorization:* ]] && auth=()
  done
  curl -s -m 10 -D "$T/headers" -o "$out" "${auth[@]}" "$@" "$url"
}

# http_status: the status of the last http_get.
http_status() { awk 'NR == 1 { print $2 }' "$T/headers"; }

# http_header NAME: that header's value in the last http_get.
http_header() {
  tr -d '\r' <"$T/headers" | awk -v n="$1" 'BEGIN { n = tolower(n) ":" }
    tolower($1) == n { sub(/^[^:]*: */, ""); print }'
}

# garbage PORT N SEED: N connections to 127.0.0.1:PORT, each sending one
# kind of malformed HTTP (random bytes, bad request lines, bad versions,
# absurd headers and lengths, cut requests), reading what comes back;
# 20 at a time, each from its own address of 127.0.0.2 to 127.0.0.201
# (the servers take --web-client-connections from one address, and a
# request cut short holds its connection until the idle timeout: from one
# address, most of the flood would be refused before it is parsed);
# prints how many got an answer (within 1 s).  Seeded: a failure can be
# replayed.
garbage() {
  python3 - "$@" <<'PY'
import random, socket, sys
port, n, seed = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(seed)
def rnd(k): return bytes(rng.randrange(256) for _ in range(k))
kinds = [
    lambda: rnd(rng.randrange(1, 2000)),
    lambda: b"GET " + rnd(50) + b" HTTP/1.1\r\n\r\n",
    lambda: b"GET /json HTTP/9.9\r\n\r\n",
    lambda: b"GARBAGE\r\n\r\n",
    lambda: b"GET /json HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999\r\n\r\n",
    lambda: b"POST /json HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
    lambda: b"GET /json HTTP/1.1\r\n" + b"X: " + b"a" * 70000 + b"\r\n\r\n",
    lambda: b"GET /json HTTP/1.1\r\nHost: x\r\n" + b"H: v\r\n" * 5000 + b"\r\n",
    lambda: b"GET /log?app=" + b"%" * 300 + b" HTTP/1.1\r\nHost: x\r\n\r\n",
    lambda: b"GET /json HTTP/1.1\r\nHo",
    lambda: b"\r\n" * 500,
    lambda: b"GET /" + b"../" * 400 + b"etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n",
]
def one(job):
    i, data = job
    s = socket.socket()
    s.settimeout(1)
    try:
        s.bind(("127.0.0.%d" % (2 + i % 200), 0))
        s.connect(("127.0.0.1", port))
        s.sendall(data)
        s.shutdown(socket.SHUT_WR)
        return 1 if s.recv(1) else 0
    except OSError:
        return 0
    finally:
        s.close()
# 20 at a time: a request cut short is answered only at the server's idle
# timeout, and the flood need not wait for each.
from concurrent.futures import ThreadPoolExecutor
payloads = [rng.choice(kinds)() for _ in range(n)]
with ThreadPoolExecutor(20) as pool:
    answered = sum(pool.map(one, enumerate(payloads)))
print(answered)
PY
}

# slow_clients PORT N SECONDS [SRC]: N connections (from the address SRC,
# 127.0.0.1 unless given) that send a request one byte a second and never
# finish it, for SECONDS (in the background: sets SLOW_PID); $T/slow.ready
# exists once all are connected (a connection the server refuses at once,
# past its limit per client address, is counted too).
slow_clients() {
  rm -f "$T/slow.ready"
  python3 - "$T/slow.ready" "$@" <<'PY' &
import socket, sys, time
ready = sys.argv[1]
port, n, secs = int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
src = sys.argv[5] if len(sys.argv) > 5 else "127.0.0.1"
socks = []
for _ in range(n):
    s = socket.socket()
    s.bind((src, 0))
    s.connect(("127.0.0.1", port))
    socks.append(s)
open(ready, "w").close()
req = b"GET /json HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 1000
end = time.time() + secs
i = 0
while time.time() < end:
    for s in socks:
        try:
            s.send(req[i % len(req):i % len(req) + 1])
        except OSError:
            pass
    i += 1
    time.sleep(1)
PY
  SLOW_PID=$!
  PIDS+=($SLOW_PID)
  wait_for 10 test -e "$T/slow.ready"
}
