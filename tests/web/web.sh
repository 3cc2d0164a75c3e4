# web.sh - helpers of the web tests (sourced after tests/lib/cluster.sh).

# free_port_range N: a port P such that P..P+N-1 are free now (random, in
# 20000..59999; a race with other tests is possible but unlikely).
free_port_range() {
  python3 - "$1" <<'PY'
import random, socket, sys
n = int(sys.argv[1])
for _ in range(200):
    base = random.randrange(20000, 60000 - n)
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

# hold_ports FIRST N: listen on FIRST..FIRST+N-1 until the test ends.
hold_ports() {
  python3 - "$1" "$2" <<'PY' &
import socket, sys, time
socks = []
for p in range(int(sys.argv[1]), int(sys.argv[1]) + int(sys.argv[2])):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", p))
    s.listen(1)
    socks.append(s)
time.sleep(600)
PY
  PIDS+=($!)
  sleep 0.5
}

# http_get URL FILE [CURL ARGS...]: the body into FILE, the headers into
# $T/headers (status in http_status).  Fails only when nothing answered.
http_get() {
  local url=$1 out=$2; shift 2
  curl -s -m 10 -D "$T/headers" -o "$out" "$@" "$url"
}

# http_status: the status of the last http_get.
http_status() { awk 'NR == 1 { print $2 }' "$T/headers"; }

# http_header NAME: that header's value in the last http_get.
http_header() {
  tr -d '\r' <"$T/headers" | awk -v n="$1" 'BEGIN { n = tolower(n) ":" }
    tolower($1) == n { sub(/^[^:]*: */, ""); print }'
}
