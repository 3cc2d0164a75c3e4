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

# watch_hwm PID: the peak VmHWM (KiB) of PID into hwm, read every 50 ms
# until it exits (it must be this shell's child: reap it with wait after).
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
