#!/bin/bash
# bench-web.sh - the web servers' cost (issue 20), on a real hearth-master
# under bench-master's simulated workers (one HEARTBEAT per worker per
# second, applications coming and going):
#   web.json.p99.N, web.metrics.p99.N   /json and /metrics, p99 of the
#                                       requests of the loaded windows (ms)
#   hb.idle.p99.N, hb.web.p99.N         the master's heartbeat-to-reply
#                                       p99 (bench-hbprobe, us), without
#                                       and with RATE requests/s on /json
#                                       and /metrics (alternating)
#   hb.ratio.N                          the median over the rounds of one
#                                       round's with / without p99
#   web.cpu_ms.N                        the master's CPU time per request
#                                       (ms): its CPU in the loaded windows
#                                       less the idle ones', over the
#                                       requests served
#   web.busy.N                          the share of the master's loop
#                                       that the requests take (cpu_ms x
#                                       RATE / 1000)
# for N in LEVELS simulated workers.  The SECS of each condition are cut
# into ROUNDS windows, idle and loaded alternating (idle first in even
# rounds, loaded first in odd ones), and each condition's probes pooled,
# so that a machine whose load drifts over a minute weighs on both alike.
# The CPU figures, from /proc/PID/stat, do not depend on what else the
# machine runs (but for its caches).  Each figure line is run-bench.sh's
# FIGURE format (a single value: median = min = max).
#
# Usage: bench-web.sh [--levels 1000,10000] [--secs 30] [--rate 50]
#                     [--rounds 6]
# Environment: HEARTH_BIN_DIR, HEARTH_BENCH_DIR (as run-bench.sh's).
set -u
set -o pipefail

bin=${HEARTH_BIN_DIR:?run me through make bench}
bdir=${HEARTH_BENCH_DIR:-$bin/tests/bench}
levels=1000,10000 secs=30 rate=50 rounds=6
while [ $# -gt 0 ]; do
    case $1 in
    --levels) levels=$2; shift ;;
    --secs) secs=$2; shift ;;
    --rate) rate=$2; shift ;;
    --rounds) rounds=$2; shift ;;
    *) echo "usage: bench-web.sh [--levels N,N] [--secs S] [--rate R] [--rounds N]" >&2; exit 2 ;;
    esac
    shift
done

scratch=$(mktemp -d "${TMPDIR:-/tmp}/hearth-bench-web-XXXXXX")
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
web=http://127.0.0.1:$port
# the token its pages take: this user's (docs/security.md, "Web pages")
token=$("$bin/hearth-admin" web-token) || exit 1
auth="Authorization: Bearer $token"
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

alive() { curl -s -m 5 -H "$auth" "$web/json" | python3 -c 'import json, sys; print(json.load(sys.stdin)["aliveworkers"])' 2>/dev/null; }

# load SECS RATE: RATE requests/s on /json and /metrics in turn for SECS;
# prints "json MS" or "metrics MS", one line a request.
load() {
    python3 - "$web" "$1" "$2" "$token" <<'PY'
import sys, time, urllib.request
web, secs, rate = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
auth = {"Authorization": "Bearer " + sys.argv[4]}
start = time.time()
i = 0
while time.time() - start < secs:
    route = "json" if i % 2 == 0 else "metrics"
    t0 = time.time()
    req = urllib.request.Request(f"{web}/{route}", headers=auth)
    with urllib.request.urlopen(req, timeout=10) as r:
        r.read()
    print(route, f"{(time.time() - t0) * 1000:.2f}")
    i += 1
    delay = start + i / rate - time.time()
    if delay > 0:
        time.sleep(delay)
PY
}

# pct P: the P-th percentile (nearest rank) of the numbers on stdin.
pct() { sort -n | awk -v p="$1" '{ v[NR] = $1 } END { r = int(p * NR + 0.999999); if (r < 1) r = 1; print NR ? v[r] : 0 }'; }

# cpu_ticks PID: the process's user + system time, clock ticks.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

# window COND R: one window of COND (idle or web) in round R: the probes
# appended to $scratch/COND.samples, the round's p99 to COND.p99, the
# master's CPU ticks to COND.ticks, the requests' times to load.out.
window() {
    local cond=$1 r=$2 t0 t1 lp=
    t0=$(cpu_ticks "$mpid")
    if [ "$cond" = web ]; then
        load "$win_s" "$rate" >>"$scratch/load.out" &
        lp=$!
    fi
    : >"$scratch/round.samples"
    "$bdir/bench-hbprobe" --master "$url" --ms "$win_ms" --key "hb.$cond.$r" \
        --samples "$scratch/round.samples" >>"$scratch/probe.out"
    [ -n "$lp" ] && wait "$lp"
    t1=$(cpu_ticks "$mpid")
    echo $((t1 - t0)) >>"$scratch/$cond.ticks"
    pct 0.99 <"$scratch/round.samples" >>"$scratch/$cond.p99"
    cat "$scratch/round.samples" >>"$scratch/$cond.samples"
}

figure() { echo "FIGURE $1 $2 $2 $2 $3 1"; }

IFS=, read -r -a lv <<<"$levels"
for n in "${lv[@]}"; do
    end=$((SECONDS + 300))
    # 99.5 % of them: on a slow machine the load generator, busy
    # registering 10,000, can let a few of the first miss their liveness
    # window (14 of 10,000 in a run of 2026-12-06), and those stay DEAD
    until a=$(alive) && [ "${a:-0}" -ge $((n * 995 / 1000)) ]; do
        if [ $SECONDS -ge $end ] || ! kill -0 "$bm" 2>/dev/null; then
            echo "bench-web: $n workers never came up (bench-master: $(tail -3 "$scratch/bench-master.out"))" >&2
            exit 1
        fi
        sleep 1
    done
    sleep 3 # a full heartbeat cycle of the new ones
    url=$(curl -s -H "$auth" "$web/api/v1/state" | python3 -c 'import json, sys; print(json.load(sys.stdin)["url"])')
    mpid=$(pgrep -P "$bm" hearth-master)
    echo "# $n workers registered, $(alive) of them alive; master $url (pid $mpid), pages $web"
    win_ms=$((secs * 1000 / rounds))
    win_s=$(awk -v m="$win_ms" 'BEGIN { print m / 1000 }')
    rm -f "$scratch"/*.samples "$scratch"/*.p99 "$scratch"/*.ticks "$scratch/load.out"
    : >"$scratch/probe.out"
    for ((r = 0; r < rounds; r++)); do
        if ((r % 2 == 0)); then
            window idle "$r" && window web "$r"
        else
            window web "$r" && window idle "$r"
        fi
    done
    sed 's/^/# /' "$scratch/probe.out"
    idle_p99=$(pct 0.99 <"$scratch/idle.samples")
    web_p99=$(pct 0.99 <"$scratch/web.samples")
    ratio=$(paste "$scratch/web.p99" "$scratch/idle.p99" |
        awk '$2 > 0 { print $1 / $2 }' | pct 0.5)
    reqs=$(wc -l <"$scratch/load.out")
    hz=$(getconf CLK_TCK)
    ticks_idle=$(awk '{ s += $1 } END { print s }' "$scratch/idle.ticks")
    ticks_web=$(awk '{ s += $1 } END { print s }' "$scratch/web.ticks")
    cpu_ms=$(awk -v w="$ticks_web" -v i="$ticks_idle" -v hz="$hz" -v n="$reqs" \
        'BEGIN { printf "%.3f", n ? (w - i) * 1000 / hz / n : 0 }')
    busy=$(awk -v c="$cpu_ms" -v r="$rate" 'BEGIN { printf "%.4f", c * r / 1000 }')
    echo "# master CPU: $ticks_idle ticks idle, $ticks_web loaded ($hz a second), $reqs requests"
    for route in json metrics; do
        awk -v r="$route" '$1 == r { print $2 }' "$scratch/load.out" >"$scratch/$route.ms"
        echo "# load: $route n=$(wc -l <"$scratch/$route.ms") p50=$(pct 0.5 <"$scratch/$route.ms") p99=$(pct 0.99 <"$scratch/$route.ms") ms"
    done
    figure "hb.idle.p99.$n" "$idle_p99" us
    figure "hb.web.p99.$n" "$web_p99" us
    figure "hb.ratio.$n" "$ratio" x
    figure "web.cpu_ms.$n" "$cpu_ms" ms
    figure "web.busy.$n" "$busy" share
    figure "web.json.p99.$n" "$(pct 0.99 <"$scratch/json.ms")" ms
    figure "web.metrics.p99.$n" "$(pct 0.99 <"$scratch/metrics.ms")" ms
done
