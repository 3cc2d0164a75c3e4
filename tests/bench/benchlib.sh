# benchlib.sh - shell helpers shared by the benchmark scripts of
# tests/bench/ (sourced; they print FIGURE lines as benchutil.h does).

# stats KEY UNIT VALUES...: one FIGURE line, the median, min and max of
# the values (nan when there are none).
stats() {
    local key=$1 unit=$2
    shift 2
    printf '%s\n' "$@" | sort -g | awk -v k="$key" -v u="$unit" '
        { v[NR] = $1 }
        END { if (NR == 0) { printf "FIGURE %s nan nan nan %s 0\n", k, u; exit }
              m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
              printf "FIGURE %s %.6g %.6g %.6g %s %d\n", k, m, v[1], v[NR], u, NR }'
}

# div A B: A / B to 4 decimals.
div() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.4f", a / b }'; }

# wait_file FILE SECONDS: until FILE is non-empty; 1 on timeout.
wait_file() {
    local i
    for ((i = 0; i < $2 * 20; i++)); do [ -s "$1" ] && return 0; sleep 0.05; done
    return 1
}

# now_ns VAR: the wall clock in nanoseconds (microsecond steps) into VAR,
# from bash's own clock: $(date +%s%N) forked a process at each end of
# what it timed, a few milliseconds each on a slow machine.
now_ns() { printf -v "$1" '%s000' "${EPOCHREALTIME/./}"; }

# watch_hwm PID: the peak VmHWM (KiB) of PID into hwm, read every 50 ms
# until it exits (it must be this shell's child: reap it with wait after).
# It notices the exit up to 50 ms late: to time PID, use run_watched.
# Builtins only (read -t on a pipe that never speaks is the sleep), so
# that watching costs the two cores nothing measurable.
exec {BENCH_NAP}<> <(:)
watch_hwm() {
    local k v
    hwm=0
    while [ -e "/proc/$1/status" ]; do
        while read -r k v _; do
            [ "$k" = VmHWM: ] && ((v > hwm)) && hwm=$v
        done <"/proc/$1/status" 2>/dev/null
        read -r -t 0.05 -u "$BENCH_NAP" _
    done
}

# run_watched FILE CMD...: run CMD in the background (with this shell's
# redirections) and wait for it; rc its exit status, ns its wall time from
# before the start to the moment it is reaped, hwm its peak VmHWM in KiB.
# The watcher runs beside it in a subshell that writes the peak to FILE:
# timed around watch_hwm, a run was measured up to 50 ms long (the nap
# before the watcher saw the process gone), 4 % of benchmark 22's job.
# run_pid is CMD's PID while it runs (for a trap to kill).
run_watched() {
    local file=$1 t0 t1 watcher
    shift
    now_ns t0
    "$@" &
    run_pid=$!
    (
        watch_hwm "$run_pid"
        echo "$hwm" >"$file"
    ) &
    watcher=$!
    wait "$run_pid"
    rc=$?
    now_ns t1
    run_pid=
    ns=$((t1 - t0))
    wait "$watcher"
    read -r hwm <"$file" || hwm=0
    return $rc
}

# bench_scratch NAME: T, a scratch directory removed at exit, and pids,
# the daemons the script starts (it adds their PIDs), stopped at exit by
# PID: TERM, then KILL half a second later.
bench_scratch() {
    T=$(mktemp -d "${TMPDIR:-/tmp}/hearth-bench-$1.XXXXXX")
    pids=()
    trap bench_cleanup EXIT
}
bench_cleanup() {
    local p
    for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
    sleep 0.5
    for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done
    wait 2>/dev/null
    rm -rf "$T"
}
