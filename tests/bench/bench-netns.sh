#!/usr/bin/env bash
# bench-netns.sh - benchmark 21 (docs/performance.md, "A real network and
# encryption"; issue 19), run by run-bench.sh (group netns): three hosts
# in network namespaces joined by veth pairs, as tests/integration/
# test-netns.sh sets them up:
#
#     host m  10.214.1.1, 10.214.2.1   the master and worker w1
#     host w  10.214.1.2               worker w2   (veth to m)
#     host d  10.214.2.2               the driver  (veth to m; m forwards
#                                      between w and d)
#
# Each worker has 1 core, as local-cluster[2,1,512] has, and the same job
# runs on that loopback local-cluster in the same run.  Twice, without
# keys (the master --insecure) and with CURVE on every link:
#
#   - no-op function tasks/s (bench-driver throughput, --tasks);
#   - the one-task job round trip (bench-driver latency, --jobs), with
#     as many raw ZeroMQ round trips alternating with the jobs from the
#     driver's host to a bench-zmq --serve on host m, CURVE when the
#     cluster has it (--ref);
#   - raw ZeroMQ d -> m (bench-zmq --connect): round trip and one-way
#     rates, with and without CURVE.
#
# Prints FIGURE lines (net.*).  Needs root (network namespaces); else it
# says why and prints net.skipped only.  Environment: HEARTH_BIN_DIR,
# HEARTH_BENCH_DIR.  Every process and namespace it makes is removed on
# exit.
set -u
. "$(dirname "$0")/benchlib.sh"
bin=${HEARTH_BIN_DIR:?HEARTH_BIN_DIR must name the build directory}
bdir=${HEARTH_BENCH_DIR:-$bin/tests/bench}
lib=$bdir/libbenchtasks.so
reps=3 tasks=200000 jobs=2000 rtt=10000 count=1000000 json_count=200000
while [ $# -gt 0 ]; do
    case $1 in
    --reps) reps=$2; shift ;;
    --tasks) tasks=$2; shift ;;
    --jobs) jobs=$2; shift ;;
    --rtt-count) rtt=$2; shift ;;
    --count) count=$2; shift ;;
    --json-count) json_count=$2; shift ;;
    *) echo "bench-netns: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done

T=$(mktemp -d "${TMPDIR:-/tmp}/hearth-bench-net.XXXXXX")
NS_M=hearth-b$$-m NS_W=hearth-b$$-w NS_D=hearth-b$$-d
M1=10.214.1.1 W1=10.214.1.2 M2=10.214.2.1 D2=10.214.2.2
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
    rm -rf "$T"
}
trap cleanup EXIT
die() { echo "bench-netns: $*" >&2; exit 1; }
skip() {
    echo "# skipped: $*"
    echo "FIGURE net.skipped 1 1 1 flag 1"
    exit 0
}
in_ns() { local ns=$1; shift; ip netns exec "$ns" "$@"; }

command -v ip >/dev/null || skip "no ip command (iproute2)"
ip netns add "$NS_M" 2>"$T/ns.err" || skip "cannot create a network namespace ($(head -1 "$T/ns.err")): it needs root"
made+=("$NS_M")
ip netns add "$NS_W" && made+=("$NS_W") && ip netns add "$NS_D" && made+=("$NS_D") &&
    for ns in "$NS_M" "$NS_W" "$NS_D"; do ip -n "$ns" link set lo up || exit 1; done &&
    ip -n "$NS_M" link add m1 type veth peer name v netns "$NS_W" &&
    ip -n "$NS_M" link add m2 type veth peer name v netns "$NS_D" &&
    ip -n "$NS_M" addr add "$M1/24" dev m1 && ip -n "$NS_M" addr add "$M2/24" dev m2 &&
    ip -n "$NS_W" addr add "$W1/24" dev v && ip -n "$NS_D" addr add "$D2/24" dev v &&
    ip -n "$NS_M" link set m1 up && ip -n "$NS_M" link set m2 up &&
    ip -n "$NS_W" link set v up && ip -n "$NS_D" link set v up &&
    ip -n "$NS_W" route add default via "$M1" && ip -n "$NS_D" route add default via "$M2" &&
    in_ns "$NS_M" sysctl -qw net.ipv4.ip_forward=1 2>"$T/ns.err" ||
    skip "cannot set up the namespaces' network ($(head -1 "$T/ns.err"))"

mkdir -p "$T/bin"
for p in hearth-master hearth-worker hearth-executor hearth-driver; do
    ln -sf "$bin/$p" "$T/bin/$p"
done
"$bin/hearth-keygen" "$T/keys" >/dev/null &&
    "$bin/hearth-keygen" --client w1 "$T/keys" >/dev/null &&
    "$bin/hearth-keygen" --client w2 "$T/keys" >/dev/null || die "hearth-keygen failed"
read -r zpub zsec < <("$bdir/bench-zmq" --keygen) || die "bench-zmq --keygen failed"

# cluster MODE: a master on host m, workers MODE-1 on host m and MODE-2
# on host w; sets url[MODE].  Both clusters run side by side (idle but for
# heartbeats while the other is measured), so that the repetitions can
# alternate between them and the loopback reference.
declare -A url
cluster() {
    local mode=$1 mkeys=(--insecure) wkeys=() n ns
    if [ "$mode" = curve ]; then
        mkeys=(--curve-secret "$T/keys/master.key_secret" --curve-allow "$T/keys/clients")
    fi
    in_ns "$NS_M" "$bin/hearth-master" --host "$M1" --port 0 --events-port 0 \
        --web-port 0 --ready-file "$T/$mode.ready" --log-level warn \
        "${mkeys[@]}" >"$T/master-$mode.log" 2>&1 &
    pids+=($!)
    wait_file "$T/$mode.ready" 10 || die "the $mode master did not start"
    url[$mode]=$(sed -n 1p "$T/$mode.ready")
    for n in 1 2; do
        ns=$NS_M
        [ $n = 2 ] && ns=$NS_W
        [ "$mode" = curve ] &&
            wkeys=(--curve-secret "$T/keys/w$n.key_secret" --master-key "$T/keys/master.key"
                --allow-root-tasks) # keys without users: run as root, as the bench does
        HEARTH_BIN_DIR="$T/bin" in_ns "$ns" "$bin/hearth-worker" --master "${url[$mode]}" \
            --id "$mode-$n" --cores 1 --memory 1G --work-dir "$T/$mode-$n" --web-port 0 \
            --isolation none --ready-file "$T/$mode-$n.ready" --log-level warn \
            "${wkeys[@]}" >"$T/worker-$mode-$n.log" 2>&1 &
        pids+=($!)
        wait_file "$T/$mode-$n.ready" 10 || die "worker $mode-$n did not register"
    done
}
# on_d MODE CMD...: CMD on the driver's host, with the client's keys in
# curve mode (bench-driver reads HEARTH_CURVE_SECRET, HEARTH_MASTER_KEY).
on_d() {
    local mode=$1
    shift
    if [ "$mode" = curve ]; then
        in_ns "$NS_D" env HEARTH_CURVE_SECRET="$T/keys/client.key_secret" \
            HEARTH_MASTER_KEY="$T/keys/master.key" "$@"
    else
        in_ns "$NS_D" "$@"
    fi
}
# fig FILE KEY: the median of KEY's FIGURE line in FILE (a run of 1 rep).
fig() {
    local v
    v=$(awk -v k="$2" '$1 == "FIGURE" && $2 == k { print $3 }' "$1")
    [ -n "$v" ] || die "no figure $2 in $1: $(tail -3 "${1%.out}.err")"
    echo "$v"
}

cluster plain
cluster curve
declare -A ep
for mode in plain curve; do
    skey=()
    [ $mode = curve ] && skey=(--curve-secret "$zsec")
    in_ns "$NS_M" "$bdir/bench-zmq" --serve "tcp://$M1:0" "${skey[@]}" >"$T/zmq-$mode.ep" &
    pids+=($!)
    wait_file "$T/zmq-$mode.ep" 10 || die "bench-zmq --serve did not start ($mode)"
    ep[$mode]=$(tr -d '\0' <"$T/zmq-$mode.ep")
done
echo "# 3 namespaces: masters and workers *-1 on $M1, workers *-2 on $W1," \
    "the driver on $D2; 1-core workers; $reps repetitions alternating" \
    "loopback local-cluster[2,1,512], no keys, CURVE"

declare -A V # V[name]="values..."
add() { V[$1]="${V[$1]:-} $2"; }
for ((r = 0; r < reps; r++)); do
    HEARTH_BIN_DIR="$T/bin" timeout 600 "$bdir/bench-driver" throughput \
        --master 'local-cluster[2,1,512]' --lib "$lib" --reps 1 --tasks "$tasks" \
        --key loop >"$T/loop.out" 2>"$T/loop.err"
    loop=$(fig "$T/loop.out" loop.tasks_per_s)
    add loop "$loop"
    for mode in plain curve; do
        key=() rkey=()
        [ $mode = curve ] && key=(--server-key "$zpub") rkey=(--ref-key "$zpub")
        on_d $mode env HEARTH_LOG_LEVEL=info timeout 600 "$bdir/bench-driver" \
            throughput --master "${url[$mode]}" --lib "$lib" --reps 1 \
            --tasks "$tasks" --key tp >"$T/tp.out" 2>"$T/tp.err"
        add tp.$mode "$(fig "$T/tp.out" tp.tasks_per_s)"
        # what was measured is what it says: the executors' link is
        # encrypted exactly when the cluster has keys
        curve=no
        grep -q 'executors connect to .*CURVE server key' "$T/tp.err" && curve=yes
        [ "$curve" = "$([ $mode = curve ] && echo yes || echo no)" ] ||
            die "$mode: the driver's executor link has CURVE: $curve"
        ((r == 0)) && echo "# $mode: the driver's executor link uses CURVE: $curve"
        on_d $mode timeout 600 "$bdir/bench-zmq" --connect "${ep[$mode]}" "${key[@]}" \
            --key z --reps 1 --rtt-count "$rtt" --count "$count" \
            --json-count "$json_count" >"$T/zmq.out" 2>"$T/zmq.err"
        for f in rtt64.p50 rtt64.p99 oneway64 json200; do
            add zmq.$mode.$f "$(fig "$T/zmq.out" z.$f)"
        done
        on_d $mode timeout 600 "$bdir/bench-driver" latency --master "${url[$mode]}" \
            --lib "$lib" --reps 1 --jobs "$jobs" --key l --ref "${ep[$mode]}" \
            "${rkey[@]}" >"$T/lat.out" 2>"$T/lat.err"
        for f in p50 p99 rtt64_p50 rtt64_p99; do
            add lat.$mode.$f "$(fig "$T/lat.out" l.$f)"
        done
    done
    set -- ${V[tp.plain]} && plain=${!#}
    set -- ${V[tp.curve]} && curve_tp=${!#}
    set -- ${V[lat.curve.p50]} && lp=${!#}
    set -- ${V[lat.curve.rtt64_p50]} && lr=${!#}
    add ratio.plain_loop "$(div "$plain" "$loop")"
    add ratio.curve_plain "$(div "$curve_tp" "$plain")"
    add ratio.lat_curve "$(div "$lp" "$lr")"
done
# shellcheck disable=SC2086
{
    stats net.loop.tasks_per_s tasks/s ${V[loop]}
    for mode in plain curve; do
        stats net.$mode.tasks_per_s tasks/s ${V[tp.$mode]}
        stats net.zmq.$mode.rtt64.p50 us ${V[zmq.$mode.rtt64.p50]}
        stats net.zmq.$mode.rtt64.p99 us ${V[zmq.$mode.rtt64.p99]}
        stats net.zmq.$mode.oneway64 msg/s ${V[zmq.$mode.oneway64]}
        stats net.zmq.$mode.json200 msg/s ${V[zmq.$mode.json200]}
        for f in p50 p99 rtt64_p50 rtt64_p99; do
            stats net.lat.$mode.$f us ${V[lat.$mode.$f]}
        done
    done
    stats net.ratio.plain_loop ratio ${V[ratio.plain_loop]}
    stats net.ratio.curve_plain ratio ${V[ratio.curve_plain]}
    stats net.ratio.lat_curve ratio ${V[ratio.lat_curve]}
}
