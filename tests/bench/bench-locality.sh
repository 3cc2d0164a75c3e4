#!/usr/bin/env bash
# bench-locality.sh - benchmark 27 (docs/performance.md, "Locality";
# issue 37), run by run-bench.sh (group locality): three worker hosts in
# network namespaces, each with a disk of its own (a mount namespace in
# which $T/local is its directory, as tests/integration/
# test-locality-hosts.sh sets them up), joined to the master's host m
# through rate-limited links (a token bucket on both ends of each veth,
# --rate, 200mbit: this kernel has no netem, tbf limits the rate the
# same way).  Each host serves its disk over HTTP (python3 -m
# http.server), so that a task elsewhere can read a part, across the
# links.  Hosts talk to each other through m: the bytes the workers send
# into m (its veths' rx counters) are the bytes that cross hosts.
#
#   scan     one job of 24 parts (8 on each disk, --scan-mib in all), a
#            task a part: its bytes counted, read on its own disk when it
#            is there, else fetched from its host.  With preferences
#            (each task prefers its part's host) against without
#            (--locality-wait 0 and no "prefer"), alternating: wall time
#            and bytes crossing hosts.
#   shuffle  a skewed shuffle: 6 map tasks (2 a host, placed by
#            preference), 6 partitions, each partition's bytes 90 % from
#            one host's maps; the reducers with Spark's reducer
#            preference against --conf reduce-locality=false: bytes
#            crossing hosts.
#   idle     delay scheduling's cost in idle cores: a stage of 0.5 s
#            tasks, a third preferring host 1 and the rest nothing, the
#            default wait (3 s); the share of the 3 cores' time, first
#            start to last end, that ran no task (from the event log);
#            and the same with every task preferring host 1 (the tail:
#            the other cores wait one wait, then take its tasks).
#
# Prints FIGURE lines (loc.*).  Needs root (namespaces), python3 and curl;
# else it says why and prints loc.skipped only.  Environment:
# HEARTH_BIN_DIR.  Every process and namespace it makes is removed on
# exit.
set -u
. "$(dirname "$0")/benchlib.sh"
. "$(dirname "$0")/../lib/hosts.sh"
bin=${HEARTH_BIN_DIR:?HEARTH_BIN_DIR must name the build directory}
reps=3 scan_mib=3072 shuffle_mib=600 rate=200mbit idle_tasks=60
while [ $# -gt 0 ]; do
    case $1 in
    --reps) reps=$2; shift ;;
    --scan-mib) scan_mib=$2; shift ;;
    --shuffle-mib) shuffle_mib=$2; shift ;;
    --rate) rate=$2; shift ;;
    --idle-tasks) idle_tasks=$2; shift ;;
    *) echo "bench-locality: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done

T=$(mktemp -d "${TMPDIR:-/tmp}/hearth-bench-loc.XXXXXX")
NS_M=hearth-l$$-m
NS=() M=() H=()
for k in 1 2 3; do
    NS[k]=hearth-l$$-$k M[k]=10.215.$k.1 H[k]=10.215.$k.2
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
die() { echo "bench-locality: $*" >&2; exit 1; }
skip() {
    echo "# skipped: $*"
    echo "FIGURE loc.skipped 1 1 1 flag 1"
    exit 0
}
in_m() { ip netns exec "$NS_M" "$@"; }

command -v ip >/dev/null && command -v tc >/dev/null || skip "no ip or tc (iproute2)"
command -v python3 >/dev/null && command -v curl >/dev/null || skip "no python3 or curl"
ip netns add "$NS_M" 2>"$T/ns.err" || skip "cannot create a network namespace ($(head -1 "$T/ns.err")): it needs root"
made+=("$NS_M")
# the three hosts around m (tests/lib/hosts.sh), each link rate-limited
# at both ends
setup() {
    hosts_star "$NS_M" made || return 1
    local k
    for k in 1 2 3; do
        in_m tc qdisc add dev "m$k" root tbf rate "$rate" burst 256kb \
            latency 50ms &&
            ip netns exec "${NS[k]}" tc qdisc add dev w root tbf rate "$rate" \
                burst 256kb latency 50ms || return 1
    done
}
setup 2>"$T/ns.err" || skip "cannot set up the namespaces' network ($(head -1 "$T/ns.err"))"
unshare -m --propagation private true 2>"$T/ns.err" ||
    skip "cannot make a mount namespace ($(head -1 "$T/ns.err"))"

# ---- the data: 24 parts, 8 on each host's disk ----------------------------
part_mib=$(((scan_mib + 23) / 24))
mkdir -p "$T/local"
for k in 1 2 3; do
    mkdir -p "$T/disk-$k"
    for j in $(seq $((8 * (k - 1))) $((8 * k - 1))); do
        head -c $((part_mib << 20)) /dev/zero >"$T/disk-$k/part-$j" || die "no room for the data"
    done
done
input_mib=$((24 * part_mib))

# onhost DISK COMMAND...: COMMAND with DISK at $T/local (its own mounts).
hosts_onhost "$T/onhost" "$T/local"
mkdir -p "$T/bin"
for p in hearth-master hearth-worker hearth-executor hearth-driver; do
    ln -sf "$bin/$p" "$T/bin/$p"
done

in_m "$bin/hearth-master" --host "${M[1]}" --port 0 --events-port 0 --insecure \
    --ready-file "$T/master.ready" --log-level warn >"$T/master.log" 2>&1 &
pids+=($!)
wait_file "$T/master.ready" 10 || die "the master did not start"
URL=$(sed -n 1p "$T/master.ready")
for k in 1 2 3; do
    HEARTH_BIN_DIR="$T/bin" ip netns exec "${NS[k]}" unshare -m --propagation private \
        "$T/onhost" "$T/disk-$k" "$bin/hearth-worker" --master "$URL" --host "${H[k]}" \
        --id "w$k" --cores 1 --memory 4G --work-dir "$T/w$k" --isolation none \
        --ready-file "$T/w$k.ready" --log-level warn >"$T/w$k.log" 2>&1 &
    pids+=($!)
    wait_file "$T/w$k.ready" 10 || die "worker w$k did not register"
    ip netns exec "${NS[k]}" python3 -m http.server --bind "${H[k]}" 8000 \
        --directory "$T/disk-$k" >"$T/http$k.log" 2>&1 &
    pids+=($!)
done
for k in 1 2 3; do
    for ((i = 0; i < 100; i++)); do
        in_m curl -sf -o /dev/null "http://${H[k]}:8000/" && break
        sleep 0.1
    done
done

# crossed: the bytes the workers have sent into host m so far.
crossed() {
    local k n=0 v
    for k in 1 2 3; do
        v=$(in_m cat "/sys/class/net/m$k/statistics/rx_bytes")
        n=$((n + v))
    done
    echo "$n"
}
# submit JOB EVENTDIR ARGS...: the job from host m; ms its wall time.
submit() {
    local job=$1 ev=$2 t0 t1
    shift 2
    now_ns t0
    in_m "$bin/hearth-submit" --master "$URL" --executor-cores 1 \
        --total-executor-cores 3 --event-log "$ev" "$@" "$job" >"$T/out" 2>"$T/err" ||
        die "job $job failed: $(tail -3 "$T/err")"
    now_ns t1
    ms=$(((t1 - t0) / 1000000))
}

# ---- scan --------------------------------------------------------------
# scan_job NAME PREFER: 24 tasks, task J reading part J (host J/8+1).
scan_job() {
    local tasks="" j k cmd pref
    for j in $(seq 0 23); do
        k=$((j / 8 + 1))
        # read through a pipe both ways (wc -c of a file alone would
        # only stat it)
        cmd="f=$T/local/part-$j; if [ -e \$f ]; then cat \$f | wc -c; else curl -sf http://${H[k]}:8000/part-$j | wc -c; fi"
        pref=""
        [ "$2" = yes ] && pref=", \"prefer\": \"${H[k]}\""
        tasks+="${tasks:+,}{\"cmd\": [\"sh\", \"-c\", \"$cmd\"]$pref}"
    done
    echo "{\"name\": \"$1\", \"stages\": [{\"name\": \"scan\", \"tasks\": [$tasks]}]}" >"$T/$1.json"
}
scan_job near yes
scan_job far no
expected=$(for j in $(seq 0 23); do echo $((part_mib << 20)); done)
echo "# scan: 24 parts of $part_mib MiB on 3 hosts ($input_mib MiB), links at $rate"
declare -A V
add() { V[$1]="${V[$1]:-} $2"; }
for ((r = 0; r < reps; r++)); do
    for mode in near far; do
        args=()
        [ $mode = far ] && args=(--locality-wait 0)
        b0=$(crossed)
        submit "$T/$mode.json" "$T/ev-$mode-$r" "${args[@]}"
        b1=$(crossed)
        [ "$(cat "$T/out")" = "$expected" ] || die "scan $mode: wrong output"
        add scan.$mode.ms "$ms"
        add scan.$mode.cross_mib "$(awk -v b=$((b1 - b0)) 'BEGIN { printf "%.1f", b / 1048576 }')"
        [ $mode = near ] && near_ms=$ms near_b=$((b1 - b0))
    done
    add scan.speedup "$(div "$ms" "$near_ms")"
    add scan.cross_share "$(awk -v b="$near_b" -v i="$input_mib" 'BEGIN { printf "%.4f", b / 1048576 / i }')"
done

# ---- a skewed shuffle ----------------------------------------------------
# 6 partitions; a key for each, found with shuffle-tool (the partitioner's
# own hash); map task M (on host M%3+1) writes 90 % of the bytes of
# partitions M%3 and M%3+3 and a share of the others.
tool=$bin/tests/integration/shuffle-tool
[ -x "$tool" ] || die "no $tool (make tests/integration/shuffle-tool)"
declare -A key
while IFS=$'\t' read -r p k; do
    [ -z "${key[$p]:-}" ] && key[$p]=$k
done < <(seq 1 200 | sed 's/^/k/' | "$tool" partition 6)
for p in 0 1 2 3 4 5; do [ -n "${key[$p]:-}" ] || die "no key for partition $p"; done
unit=$(((shuffle_mib << 20) / 6 / 20)) # bytes of a twentieth of a partition
line=$(head -c 1000 /dev/zero | tr '\0' x)
map_cmd() { # the command of map task M
    local m=$1 p h=$(($1 % 3)) n cmd=""
    for p in 0 1 2 3 4 5; do
        # of a partition's 20 units: its host's two maps 9 each (90 %),
        # the four others a half each
        if ((p % 3 == h)); then n=$((9 * unit)); else n=$((unit / 2)); fi
        # KEY TAB VALUE: the key alone picks the partition (\\t: a TAB
        # once the job file's JSON is read)
        cmd+="yes '${key[$p]}\\t$line' | head -n $((n / (${#key[$p]} + 1002)));"
    done
    echo "$cmd"
}
tasks=""
for m in 0 1 2 3 4 5; do
    tasks+="${tasks:+,}{\"cmd\": [\"sh\", \"-c\", \"$(map_cmd $m)\"], \"prefer\": \"${H[$((m % 3 + 1))]}\"}"
done
echo "{\"name\": \"skew\", \"stages\": [{\"name\": \"map\", \"partitions\": 6, \"tasks\": [$tasks]},
  {\"name\": \"count\", \"tasks\": [{\"cmd\": [\"wc\", \"-c\"], \"input\": \"map\"}]}]}" >"$T/skew.json"
echo "# shuffle: 6 maps (2 a host), 6 partitions of about $((shuffle_mib / 6)) MiB, 90 % of each from one host"
for ((r = 0; r < reps; r++)); do
    for mode in prefs none; do
        args=()
        [ $mode = none ] && args=(--conf reduce-locality=false)
        b0=$(crossed)
        submit "$T/skew.json" "$T/ev-skew-$mode-$r" "${args[@]}"
        b1=$(crossed)
        add shuffle.$mode.cross_mib "$(awk -v b=$((b1 - b0)) 'BEGIN { printf "%.1f", b / 1048576 }')"
        if [ $mode = prefs ]; then
            prefs_b=$((b1 - b0))
            add shuffle.prefs.node_local "$(jq -r 'select(.event == "task_start" and .stage == 2 and .locality == "NODE_LOCAL") | .index' "$T/ev-skew-$mode-$r"/*.events | wc -l)"
        fi
        [ $mode = none ] && add shuffle.saved "$(awk -v a="$prefs_b" -v b=$((b1 - b0)) 'BEGIN { printf "%.4f", 1 - a / b }')"
    done
done

# ---- idle cores --------------------------------------------------------
# idle_share EVENTS: the share of the 3 cores' time, first start to last
# end, that ran no task.
idle_share() {
    jq -rs '[.[] | select(.event == "task_end")] as $e
      | ($e | map(.time_ms) | max) as $last
      | ($e | map(.time_ms - .run_us / 1000) | min) as $first
      | [1 - ($e | map(.run_us / 1000) | add) / (3 * ($last - $first)), 0]
      | max' "$1"/*.events
}
third=$((idle_tasks / 3))
printf '{"name": "mixed", "stages": [{"name": "s", "tasks": [
  {"cmd": ["sleep", "0.5"], "count": %d, "prefer": "%s"},
  {"cmd": ["sleep", "0.5"], "count": %d}]}]}\n' "$third" "${H[1]}" \
    $((idle_tasks - third)) >"$T/mixed.json"
printf '{"name": "tail", "stages": [{"name": "s", "tasks": [
  {"cmd": ["sleep", "0.5"], "count": %d, "prefer": "%s"}]}]}\n' \
    "$idle_tasks" "${H[1]}" >"$T/tail.json"
echo "# idle: $idle_tasks tasks of 0.5 s on 3 cores, a third preferring ${H[1]} (mixed), or all (tail); --locality-wait 3s"
for ((r = 0; r < reps; r++)); do
    for mode in mixed tail; do
        submit "$T/$mode.json" "$T/ev-$mode-$r"
        add idle.$mode "$(idle_share "$T/ev-$mode-$r")"
    done
done

# shellcheck disable=SC2086
{
    echo "FIGURE loc.scan.input_mib $input_mib $input_mib $input_mib MiB 1"
    stats loc.scan.near_ms ms ${V[scan.near.ms]}
    stats loc.scan.far_ms ms ${V[scan.far.ms]}
    stats loc.scan.speedup ratio ${V[scan.speedup]}
    stats loc.scan.near_cross_mib MiB ${V[scan.near.cross_mib]}
    stats loc.scan.far_cross_mib MiB ${V[scan.far.cross_mib]}
    stats loc.scan.cross_share ratio ${V[scan.cross_share]}
    stats loc.shuffle.prefs_cross_mib MiB ${V[shuffle.prefs.cross_mib]}
    stats loc.shuffle.none_cross_mib MiB ${V[shuffle.none.cross_mib]}
    stats loc.shuffle.saved ratio ${V[shuffle.saved]}
    stats loc.shuffle.prefs_node_local reducers ${V[shuffle.prefs.node_local]}
    stats loc.idle.mixed share ${V[idle.mixed]}
    stats loc.idle.tail share ${V[idle.tail]}
}
