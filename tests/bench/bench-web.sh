#!/bin/bash
# bench-web.sh - the web servers' cost (issue 20), on a real hearth-master
# under bench-master's simulated workers (one HEARTBEAT per worker per
# second, applications coming and going):
#   web.json.p99.N, web.metrics.p99.N   /json and /metrics, p99 of the
#                                       requests of the loaded window (ms)
#   hb.idle.p99.N, hb.web.p99.N         the master's heartbeat-to-reply
#                                       p99 (bench-hbprobe, us), without
#                                       and with RATE requests/s on /json
#                                       and /metrics (alternating)
# for N in LEVELS simulated workers.  Each figure line is run-bench.sh's
# FIGURE format (a single value: median = min = max).
#
# Usage: bench-web.sh [--levels 1000,10000] [--secs 30] [--rate 50]
# Environment: HEARTH_BIN_DIR, HEARTH_BENCH_DIR (as run-bench.sh's).
set -u
set -o pipefail

bin=${HEARTH_BIN_DIR:?run me through make bench}
bdir=${HEARTH_BENCH_DIR:-$bin/tests/bench}
levels=1000,10000 secs=30 rate=50
while [ $# -gt 0 ]; do
    case $1 in
    --levels) levels=$2; shift ;;
    --secs) secs=$2; shift ;;
    --rate) rate=$2; shift ;;
    *) echo "usage: bench-web.sh [--levels N,N] [--secs S] [--rate R]" >&2; exit 2 ;;
    esac
    shift
done

scratch=$(mktemp -d "${TMPDIR:-/tmp}/hearth-bench-web-XXXXXX")
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
web=http://127.0.0.1:$port
# bench-master's master inherits the environment: its pages on $port.
# Each level stays up for one bench-master window, long enough for the
# idle and loaded probes and the wait for the workers to register.
HEARTH_WEB_PORT=$port "$bdir/bench-master" --workers "$levels" --reps 1 \
    --window-ms $(( (2 * secs + 60) * 1000 )) >"$scratch/bench-master.out" 2>&1 &
bm=$!
stop() {
    local m
    m=$(pgrep -P "$bm" hearth-master)
    kill "$bm" $m 2>/dev/null
    wait "$bm" 2>/dev/null
    rm -rf "$scratch"
}
trap stop EXIT

alive() { curl -s -m 5 "$web/json" | python3 -c 'import json, sys; print(json.load(sys.stdin)["aliveworkers"])' 2>/dev/null; }

# load SECS RATE: RATE requests/s on /json and /metrics in turn for SECS;
# prints "json p50 p99 n" and "metrics p50 p99 n" (ms).
load() {
    python3 - "$web" "$1" "$2" <<'PY'
import sys, time, urllib.request
web, secs, rate = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
lat = {"json": [], "metrics": []}
start = time.time()
i = 0
while time.time() - start < secs:
    route = "json" if i % 2 == 0 else "metrics"
    t0 = time.time()
    with urllib.request.urlopen(f"{web}/{route}", timeout=10) as r:
        r.read()
    lat[route].append((time.time() - t0) * 1000)
    i += 1
    delay = start + i / rate - time.time()
    if delay > 0:
        time.sleep(delay)
for route, v in lat.items():
    v.sort()
    q = lambda p: v[min(len(v) - 1, max(0, int(p * len(v) + 0.999999) - 1))]
    print(route, f"{q(0.5):.2f}", f"{q(0.99):.2f}", len(v))
PY
}

figure() { echo "FIGURE $1 $2 $2 $2 $3 1"; }

IFS=, read -r -a lv <<<"$levels"
for n in "${lv[@]}"; do
    end=$((SECONDS + 300))
    until a=$(alive) && [ "${a:-0}" -ge "$n" ]; do
        if [ $SECONDS -ge $end ] || ! kill -0 "$bm" 2>/dev/null; then
            echo "bench-web: $n workers never came up (bench-master: $(tail -3 "$scratch/bench-master.out"))" >&2
            exit 1
        fi
        sleep 1
    done
    sleep 3 # a full heartbeat cycle of the new ones
    url=$(curl -s "$web/api/v1/state" | python3 -c 'import json, sys; print(json.load(sys.stdin)["url"])')
    echo "# $n workers registered; master $url, pages $web"
    read -r _ _ _ idle_p99 _ < <("$bdir/bench-hbprobe" --master "$url" --ms $((secs * 1000)) --key hb.idle |
        tee -a "$scratch/probe.out" | sed 's/[a-z0-9]*=//g')
    load "$secs" "$rate" >"$scratch/load.out" &
    lp=$!
    read -r _ _ _ web_p99 _ < <("$bdir/bench-hbprobe" --master "$url" --ms $((secs * 1000)) --key hb.web |
        tee -a "$scratch/probe.out" | sed 's/[a-z0-9]*=//g')
    wait "$lp"
    cat "$scratch/probe.out" | tail -2 | sed 's/^/# /'
    sed 's/^/# load: /' "$scratch/load.out"
    figure "hb.idle.p99.$n" "$idle_p99" us
    figure "hb.web.p99.$n" "$web_p99" us
    figure "web.json.p99.$n" "$(awk '$1 == "json" { print $3 }' "$scratch/load.out")" ms
    figure "web.metrics.p99.$n" "$(awk '$1 == "metrics" { print $3 }' "$scratch/load.out")" ms
done
