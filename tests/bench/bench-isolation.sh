#!/usr/bin/env bash
# bench-isolation.sh - what confinement in cgroups costs (docs/performance.md,
# "Isolation"), run by run-bench.sh (group isolation): one master, and
# one 2-core worker at a time, started alternately with --isolation cgroup
# and --isolation none in the same run (--reps of each):
#
#   - the command-task rate: bench-driver commands (--tasks /bin/true
#     tasks, 2 in flight) on that worker's executor;
#   - each executor launch: the worker's own measure of a spawn, group
#     made, limits written and child joined included ("spawned in N us"
#     at debug level), over --launches launches of a test driver that
#     stops each executor as soon as it registers; and the group's
#     counters read and its removal at the reap.
#
# Prints FIGURE lines (key median min max unit reps).  Needs root and
# cgroups the worker can use; else it says why and prints
# iso.skipped only.  Environment: HEARTH_BIN_DIR (the build),
# HEARTH_BENCH_DIR (libbenchtasks.so, bench-driver).
set -u
. "$(dirname "$0")/benchlib.sh"
bin=${HEARTH_BIN_DIR:?HEARTH_BIN_DIR must name the build directory}
bdir=${HEARTH_BENCH_DIR:-$bin/tests/bench}
lib=$bdir/libbenchtasks.so
tbin=$bin/tests/integration
reps=3 tasks=5000 launches=200
while [ $# -gt 0 ]; do
    case $1 in
    --reps) reps=$2; shift ;;
    --tasks) tasks=$2; shift ;;
    --launches) launches=$2; shift ;;
    *) echo "bench-isolation: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done

bench_scratch iso
mkdir -p "$T/bin"
for p in hearth-master hearth-worker hearth-executor hearth-driver; do
    ln -sf "$bin/$p" "$T/bin/$p"
done
die() { echo "bench-isolation: $*" >&2; exit 1; }

"$bin/hearth-master" --port 0 --events-port 0 --ready-file "$T/master.ready" \
    --heartbeat-interval 200ms --max-executor-retries -1 --log-level warn \
    >"$T/master.log" 2>&1 &
pids+=($!)
wait_file "$T/master.ready" 10 || die "the master did not start"
url=$(sed -n 1p "$T/master.ready")

# worker MODE NAME: a worker with that isolation, registered; sets wpid.
worker() {
    HEARTH_BIN_DIR="$T/bin" "$bin/hearth-worker" --master "$url" \
        --isolation "$1" --cores 2 --memory 4G --work-dir "$T/$2" \
        --ready-file "$T/$2.ready" --heartbeat-interval 200ms \
        --log-level debug --log-file "$T/$2.log" &
    wpid=$!
    pids+=($wpid)
    wait_file "$T/$2.ready" 10
}

if ! worker cgroup probe; then
    why=$(grep -m1 -- '--isolation cgroup' "$T/probe.log" | sed 's/.*ERROR //')
    echo "# skipped: a worker cannot isolate here (${why:-see its log})"
    echo "FIGURE iso.skipped 1 1 1 flag 1"
    exit 0
fi
kill -TERM "$wpid"
wait "$wpid"
echo "# $(grep -m1 -o 'isolation: cgroup v[12]' "$T/probe.log"); $tasks command tasks and $launches launches per repetition, $reps repetitions of each mode, alternating"

# start_latencies NAME: for each churn executor of that worker, ms from
# the worker's "started" line to the executor's first log line (both
# stamped by the same clock; an executor on a v1 cgroup waits there for
# its join into its groups)
start_latencies() {
    local dir=$T/$1
    grep -h 'executor app-[^ ]* started: pid' "$T/$1.log" | tail -n "$launches" |
        while read -r stamp _ _ _ key _; do
            first=$(head -1 "$dir/$key/stderr" 2>/dev/null | cut -d' ' -f1)
            [ -n "$first" ] && echo "$stamp $first"
        done | awk '
            function sec(t,   a) { split(substr(t, 12, 12), a, ":")
                                   return a[1] * 3600 + a[2] * 60 + a[3] }
            { printf "%.0f\n", (sec($2) - sec($1)) * 1000 }'
}

declare -A rate launch remove start
ratios=()
for ((r = 0; r < reps; r++)); do
    for mode in cgroup none; do
        name=$mode-$r
        worker "$mode" "$name" || die "worker $name did not register"
        fig=$("$bdir/bench-driver" commands --master "$url" --lib "$lib" \
            --reps 1 --tasks "$tasks" --cores 2 --key iso |
            awk '$1 == "FIGURE" && $2 == "iso.commands_per_s" { print $3 }')
        [ -n "$fig" ] || die "bench-driver gave no figure ($mode)"
        rate[$name]=$fig
        from=$(grep -c 'spawned in' "$T/$name.log")
        "$tbin/test-app" --master "$url" --name churn --max-cores 2 \
            --cores-per-executor 1 --memory-mb 128 --stop-executors \
            >"$T/churn.out" 2>&1 &
        app=$!
        pids+=($app)
        for ((i = 0; i < 1200; i++)); do
            (($(grep -c 'spawned in' "$T/$name.log") - from >= launches)) && break
            sleep 0.05
        done
        kill -TERM "$app"
        wait "$app" 2>/dev/null
        kill -TERM "$wpid"
        wait "$wpid"
        # the churn's launches only, not the command benchmark's
        launch[$name]=$(grep 'spawned in' "$T/$name.log" | tail -n +$((from + 1)) |
            head -n "$launches" | sed 's/.*spawned in \([0-9]*\) us.*/\1/')
        remove[$name]=$(sed -n 's/.*cgroup read and removed in \([0-9]*\) us.*/\1/p' "$T/$name.log")
        start[$name]=$(start_latencies "$name")
    done
    ratios+=("$(awk -v a="${rate[cgroup-$r]}" -v b="${rate[none-$r]}" 'BEGIN { printf "%.4f", a / b }')")
done

all() { # MODE MAP: every value of that mode
    local r
    for ((r = 0; r < reps; r++)); do
        case $2 in
        rate) echo "${rate[$1-$r]}" ;;
        launch) echo "${launch[$1-$r]}" ;;
        remove) echo "${remove[$1-$r]}" ;;
        start) echo "${start[$1-$r]}" ;;
        esac
    done
}
stats iso.cmd.cgroup.commands_per_s cmd/s $(all cgroup rate)
stats iso.cmd.none.commands_per_s cmd/s $(all none rate)
stats iso.cmd.ratio ratio "${ratios[@]}"
stats iso.launch.cgroup_us us $(all cgroup launch)
stats iso.launch.none_us us $(all none launch)
med() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
cost=$(awk -v a="$(med $(all cgroup launch))" -v b="$(med $(all none launch))" 'BEGIN { print a - b }')
echo "FIGURE iso.launch.cost_us $cost $cost $cost us 1"
stats iso.reap.cgroup_us us $(all cgroup remove)
stats iso.start.cgroup_ms ms $(all cgroup start)
stats iso.start.none_ms ms $(all none start)
