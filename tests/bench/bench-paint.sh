#!/bin/bash
# bench-paint.sh - the master page's first paint in headless Chromium
# (issue 20's target: <= 500 ms at 1,000 workers), on a real hearth-master
# under bench-master's simulated workers, loaded LOADS times:
#   web.paint.p50.N, web.paint.p90.N    first-contentful-paint of the
#                                       master's / (the Performance API's
#                                       paint entry, from the navigation's
#                                       start), ms
#   web.paint.static.p50.N, .p90.N      the same bytes served as a static
#                                       file by a Python server (the
#                                       reference: what the browser alone
#                                       costs for that document)
#   web.page.server.p50.N               the master's time to first byte
#                                       of / (the navigation's
#                                       responseStart), ms
#   web.page.kb.N                       the page's size, KB
# for N in LEVELS simulated workers.  Each figure line is run-bench.sh's
# FIGURE format (median = min = max for percentiles).
#
# Usage: bench-paint.sh [--levels 1000] [--loads 20]
# Environment: HEARTH_BIN_DIR, HEARTH_BENCH_DIR (as run-bench.sh's).
set -u
set -o pipefail

bin=${HEARTH_BIN_DIR:?run me through make bench}
bdir=${HEARTH_BENCH_DIR:-$bin/tests/bench}
levels=1000 loads=20
while [ $# -gt 0 ]; do
    case $1 in
    --levels) levels=$2; shift ;;
    --loads) loads=$2; shift ;;
    *) echo "usage: bench-paint.sh [--levels N,N] [--loads N]" >&2; exit 2 ;;
    esac
    shift
done

# What tests/lib/browser.sh needs of cluster.sh: a scratch directory T,
# the PIDS it adds chromedriver to, say and wait_for.
T=$(mktemp -d "${TMPDIR:-/tmp}/hearth-bench-paint-XXXXXX")
PIDS=()
say() { echo "# $*" >&2; }
now_ms() { date +%s%3N; }
wait_for() {
    local limit=$1 end
    shift
    end=$(($(now_ms) + limit * 1000))
    while (($(now_ms) < end)); do
        "$@" 2>/dev/null && return 0
        sleep 0.05
    done
    return 1
}
. "$(dirname "$0")/../lib/browser.sh"
if ! browser_available; then
    echo "bench-paint: no chromedriver or chromium: skipped" >&2
    rm -rf "$T"
    exit 0
fi

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
port=$(free_port) sport=$(free_port)
web=http://127.0.0.1:$port
# the token its pages take: this user's (docs/security.md, "Web pages")
token=$("$bin/hearth-admin" web-token) || exit 1
auth="Authorization: Bearer $token"
static=http://127.0.0.1:$sport
IFS=, read -r -a lv <<<"$levels"
HEARTH_WEB_PORT=$port "$bdir/bench-master" --workers "$levels" --reps 1 \
    --window-ms $(((loads * 3 + 60) * 1000)) >"$T/bench-master.out" 2>&1 &
bm=$!
mkdir -p "$T/static"
python3 -m http.server --bind 127.0.0.1 --directory "$T/static" "$sport" \
    >"$T/static.log" 2>&1 &
sp=$!
stop() {
    local m
    browser_stop
    m=$(pgrep -P "$bm" hearth-master)
    kill "$bm" $m "$sp" "${PIDS[@]}" 2>/dev/null
    wait "$bm" "$sp" 2>/dev/null
    rm -rf "$T"
}
trap stop EXIT

alive() { curl -s -m 5 -H "$auth" "$web/json" | python3 -c 'import json, sys; print(json.load(sys.stdin)["aliveworkers"])' 2>/dev/null; }

# One load's timings, as "fcp responseStart" (ms from the navigation's
# start), once the paint entry is there.
timing='var p = performance.getEntriesByName("first-contentful-paint")[0];
var n = performance.getEntriesByType("navigation")[0];
return p && n ? p.startTime.toFixed(1) + " " + n.responseStart.toFixed(1) : null;'

# paints BASE FILE: load BASE/?load=I LOADS times (a new navigation
# each), one "fcp responseStart" line each into FILE.
paints() {
    local i v
    : >"$2"
    for ((i = 0; i < loads; i++)); do
        browser_go "about:blank" && browser_go "$1/?load=$i" || return 1
        wait_for 10 eval 'v=$(browser_js "$timing") && [ "$v" != null ]' ||
            return 1
        jq -r . <<<"$v" >>"$2"
    done
}

# pct FILE COLUMN P: the P-th percentile (nearest rank) of a column.
pct() { awk -v c="$2" '{ print $c }' "$1" | sort -n |
    awk -v p="$3" '{ v[NR] = $1 } END { r = int(p * NR + 0.999999); if (r < 1) r = 1; print v[r] }'; }

figure() { echo "FIGURE $1 $2 $2 $2 $3 1"; }

browser_start || { echo "bench-paint: no WebDriver session" >&2; exit 1; }
for n in "${lv[@]}"; do
    end=$((SECONDS + 300))
    until a=$(alive) && [ "${a:-0}" -ge "$n" ]; do
        if [ $SECONDS -ge $end ] || ! kill -0 "$bm" 2>/dev/null; then
            echo "bench-paint: $n workers never came up (bench-master: $(tail -3 "$T/bench-master.out"))" >&2
            exit 1
        fi
        sleep 1
    done
    sleep 3 # a full heartbeat cycle of the new ones
    curl -s -H "$auth" -o "$T/static/index.html" "$web/"
    kb=$(($(stat -c %s "$T/static/index.html") / 1024))
    echo "# $n workers registered; the page is $kb KB"
    # the cookie of the pages' token, which the loads below carry
    browser_go "$web/?token=$token" || { echo "bench-paint: no page with the token" >&2; exit 1; }
    paints "$web" "$T/master.paint" || { echo "bench-paint: no paint from the master's page" >&2; exit 1; }
    paints "$static" "$T/static.paint" || { echo "bench-paint: no paint from the static page" >&2; exit 1; }
    echo "# master: fcp $(awk '{ print $1 }' "$T/master.paint" | tr '\n' ' ')"
    echo "# static: fcp $(awk '{ print $1 }' "$T/static.paint" | tr '\n' ' ')"
    figure "web.paint.p50.$n" "$(pct "$T/master.paint" 1 0.5)" ms
    figure "web.paint.p90.$n" "$(pct "$T/master.paint" 1 0.9)" ms
    figure "web.paint.static.p50.$n" "$(pct "$T/static.paint" 1 0.5)" ms
    figure "web.paint.static.p90.$n" "$(pct "$T/static.paint" 1 0.9)" ms
    figure "web.page.server.p50.$n" "$(pct "$T/master.paint" 2 0.5)" ms
    figure "web.page.kb.$n" "$kb" KB
done
