#!/usr/bin/env bash
# bench-broadcast.sh - benchmark 29 (docs/performance.md, "Broadcast";
# issue 38), run by run-bench.sh (group broadcast): a broadcast file of
# --mib MiB (1 GiB) to 8 executors on 4 worker hosts, each host a network
# namespace joined to the driver's and master's host m by a veth pair
# rate-limited at both ends (tbf, --rate, 200mbit), 2 executors a host.
#
#   one_copy_ms   the reference, measured in the same run: the file
#                 fetched once over one link (curl on host 1 from an HTTP
#                 server on m, python3 -m http.server)
#   wall_ms       the job: submitted from m with "broadcast": {"DATA":
#                 FILE}, 8 tasks each reading the size of $HEARTH_BROADCAST_DATA,
#                 from submit to its end (the application's start
#                 included)
#   wall_ratio    wall_ms / one_copy_ms (target <= 1.5)
#   driver_mib    what the driver sent in chunks (its own count, logged)
#   egress_ratio  driver_mib / the file (target <= 1.2; 8 before the
#                 peer-to-peer spread, once per executor, and 4 with the
#                 node cache alone)
#
# Prints FIGURE lines (bcast.*).  Needs root (namespaces), tc, python3 and
# curl; else it says why and prints bcast.skipped only.  Environment:
# HEARTH_BIN_DIR.  Every process and namespace it makes is removed on
# exit.
set -u
. "$(dirname "$0")/benchlib.sh"
. "$(dirname "$0")/../lib/hosts.sh"
bin=${HEARTH_BIN_DIR:?HEARTH_BIN_DIR must name the build directory}
reps=1 mib=1024 rate=200mbit
while [ $# -gt 0 ]; do
    case $1 in
    --reps) reps=$2; shift ;;
    --mib) mib=$2; shift ;;
    --rate) rate=$2; shift ;;
    *) echo "bench-broadcast: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done

T=$(mktemp -d "${TMPDIR:-/tmp}/hearth-bench-bc.XXXXXX")
NS_M=hearth-b$$-m
NS=() M=() H=()
for k in 1 2 3 4; do
    NS[k]=hearth-b$$-$k M[k]=10.217.$k.1 H[k]=10.217.$k.2
done
pids=() made=()
cleanup() {
    local p ns
    for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
    sleep 0.3
    for ns in "${made[@]}"; do
        for p in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$p" 2>/dev/null; done
    done
    for ns in "${made[@]}"; do ip netns del "$ns" 2>/dev/null; done
    wait 2>/dev/null
    [ -n "${BENCH_KEEP:-}" ] && echo "# kept $T" >&2 || rm -rf "$T"
}
trap cleanup EXIT
die() { echo "bench-broadcast: $*" >&2; exit 1; }
skip() {
    echo "# skipped: $*"
    echo "FIGURE bcast.skipped 1 1 1 flag 1"
    exit 0
}
in_m() { ip netns exec "$NS_M" "$@"; }

command -v ip >/dev/null && command -v tc >/dev/null || skip "no ip or tc (iproute2)"
command -v python3 >/dev/null && command -v curl >/dev/null || skip "no python3 or curl"
ip netns add "$NS_M" 2>"$T/ns.err" || skip "cannot create a network namespace ($(head -1 "$T/ns.err")): it needs root"
made+=("$NS_M")
setup() {
    hosts_star "$NS_M" made 4 || return 1
    local k
    for k in 1 2 3 4; do
        in_m tc qdisc add dev "m$k" root tbf rate "$rate" burst 256kb \
            latency 50ms &&
            ip netns exec "${NS[k]}" tc qdisc add dev w root tbf rate "$rate" \
                burst 256kb latency 50ms || return 1
    done
}
setup 2>"$T/ns.err" || skip "cannot set up the namespaces' network ($(head -1 "$T/ns.err"))"

head -c $((mib << 20)) /dev/urandom >"$T/data.bin" || die "no room for the file"
size=$((mib << 20))
mkdir -p "$T/bin"
for p in hearth-master hearth-worker hearth-executor hearth-driver; do
    ln -sf "$bin/$p" "$T/bin/$p"
done
in_m "$bin/hearth-master" --host "${M[1]}" --port 0 --events-port 0 --insecure \
    --ready-file "$T/master.ready" --log-level warn >"$T/master.log" 2>&1 &
pids+=($!)
wait_file "$T/master.ready" 10 || die "the master did not start"
URL=$(sed -n 1p "$T/master.ready")
for k in 1 2 3 4; do
    HEARTH_BIN_DIR="$T/bin" ip netns exec "${NS[k]}" "$bin/hearth-worker" \
        --master "$URL" --host "${H[k]}" --id "w$k" --cores 2 --memory 8G \
        --work-dir "$T/w$k" --isolation none --app-retention 1s \
        --ready-file "$T/w$k.ready" --log-level warn >"$T/w$k.log" 2>&1 &
    pids+=($!)
    wait_file "$T/w$k.ready" 10 || die "worker w$k did not register"
done
in_m python3 -m http.server --bind "${M[1]}" 8000 --directory "$T" \
    >"$T/http.log" 2>&1 &
pids+=($!)
for ((i = 0; i < 100; i++)); do
    ip netns exec "${NS[1]}" curl -sf -o /dev/null "http://${M[1]}:8000/master.ready" && break
    sleep 0.1
done

tasks='{"cmd": ["sh", "-c", "wc -c < \"$HEARTH_BROADCAST_DATA\""], "count": 8}'
echo "{\"name\": \"bcast\", \"broadcast\": {\"DATA\": \"$T/data.bin\"},
  \"stages\": [{\"name\": \"read\", \"tasks\": [$tasks]}]}" >"$T/bcast.json"
expected=$(for i in 1 2 3 4 5 6 7 8; do echo "$size"; done)
echo "# broadcast: $mib MiB to 8 executors on 4 hosts, links at $rate"
declare -A V
add() { V[$1]="${V[$1]:-} $2"; }
for ((r = 0; r < reps; r++)); do
    now_ns t0
    ip netns exec "${NS[1]}" curl -sf -o /dev/null "http://${M[1]}:8000/data.bin" ||
        die "the reference copy failed"
    now_ns t1
    one=$(((t1 - t0) / 1000000))
    now_ns t0
    in_m "$bin/hearth-submit" --master "$URL" --executor-cores 1 \
        --total-executor-cores 8 --executor-memory 512M --log-level info \
        "$T/bcast.json" >"$T/out" 2>"$T/err" ||
        die "the job failed: $(tail -3 "$T/err")"
    now_ns t1
    wall=$(((t1 - t0) / 1000000))
    [ "$(cat "$T/out")" = "$expected" ] || die "wrong output: $(head -3 "$T/out")"
    sent=$(sed -n 's/.*shipped files and libraries: \([0-9]*\) bytes sent.*/\1/p' "$T/err" | tail -1)
    [ -n "$sent" ] || die "the driver did not say what it sent"
    add bcast.one_copy_ms "$one"
    add bcast.wall_ms "$wall"
    add bcast.wall_ratio "$(div "$wall" "$one")"
    add bcast.driver_mib "$(awk -v b="$sent" 'BEGIN { printf "%.1f", b / 1048576 }')"
    add bcast.egress_ratio "$(div "$sent" "$size")"
    echo "# rep $r: one copy $one ms, the broadcast $wall ms, the driver sent $sent bytes"
done
for k in bcast.one_copy_ms bcast.wall_ms; do
    # shellcheck disable=SC2086
    stats "$k" ms ${V[$k]}
done
# shellcheck disable=SC2086
stats bcast.wall_ratio x ${V[bcast.wall_ratio]}
# shellcheck disable=SC2086
stats bcast.driver_mib MiB ${V[bcast.driver_mib]}
# shellcheck disable=SC2086
stats bcast.egress_ratio x ${V[bcast.egress_ratio]}
