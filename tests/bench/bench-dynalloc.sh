#!/usr/bin/env bash
# bench-dynalloc.sh - dynamic allocation's speed (docs/performance.md,
# "Dynamic allocation", issue 18), run by run-bench.sh (group dynalloc):
# one master, 16 one-core workers, and a driver with
# --dynamic-allocation and 1,000 pending 1-core tasks of 0.2 s, then a
# single long task:
#
#   - dyn.grow_ms: from the application's registration to its 16th
#     executor (the event log's executor_added), with the default backlog
#     timeouts (1 s, 1 s) and with --fast's (0.25 s);
#   - dyn.release_ms: from the last task of the first stage ending (15
#     executors idle from then) to the 15th release, less the idle
#     timeout (2 s): the target is at most 1 s.
#
# Prints FIGURE lines (key median min max unit reps).  Environment:
# HEARTH_BIN_DIR (the build).
set -u
. "$(dirname "$0")/benchlib.sh"
bin=${HEARTH_BIN_DIR:?HEARTH_BIN_DIR must name the build directory}
reps=1 tasks=1000 workers=16 idle_ms=2000
while [ $# -gt 0 ]; do
    case $1 in
    --reps) reps=$2; shift ;;
    --tasks) tasks=$2; shift ;;
    --workers) workers=$2; shift ;;
    *) echo "bench-dynalloc: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done

bench_scratch dyn
mkdir -p "$T/bin"
for p in hearth-master hearth-worker hearth-executor hearth-driver; do
    ln -sf "$bin/$p" "$T/bin/$p"
done

"$bin/hearth-master" --port 0 --events-port 0 --ready-file "$T/master.ready" \
    --heartbeat-interval 200ms --log-level warn >"$T/master.log" 2>&1 &
pids+=($!)
wait_file "$T/master.ready" 10 || { echo "bench-dynalloc: no master" >&2; exit 1; }
url=$(sed -n 1p "$T/master.ready")
for ((w = 0; w < workers; w++)); do
    HEARTH_BIN_DIR="$T/bin" "$bin/hearth-worker" --master "$url" \
        --work-dir "$T/w$w" --ready-file "$T/w$w.ready" --cores 1 \
        --memory 512M --heartbeat-interval 200ms --log-level warn \
        >"$T/w$w.log" 2>&1 &
    pids+=($!)
done
for ((w = 0; w < workers; w++)); do
    wait_file "$T/w$w.ready" 20 || { echo "bench-dynalloc: worker $w did not register" >&2; exit 1; }
done
cat >"$T/job.json" <<JOB
{"name": "dyn", "stages": [
  {"name": "many", "tasks": [{"cmd": ["sleep", "0.2"], "count": $tasks}]},
  {"name": "long", "after": ["many"], "tasks": [{"cmd": ["sleep", "$((idle_ms / 1000 + 4))"]}]}
]}
JOB

# one RUN_NAME BACKLOG: a run; its grow and release times to $T/NAME.*.
one() {
    local ev="$T/ev-$1-$RANDOM"
    mkdir -p "$ev"
    "$bin/hearth-driver" --master "$url" --dynamic-allocation \
        --executor-cores 1 --executor-memory 256M \
        --scheduler-backlog-timeout "$2" \
        --sustained-scheduler-backlog-timeout "$2" \
        --executor-idle-timeout "${idle_ms}ms" --event-log "$ev" \
        --heartbeat-interval 200ms "$T/job.json" >/dev/null 2>"$T/$1.err" ||
        { echo "bench-dynalloc: the driver failed:" >&2; tail -5 "$T/$1.err" >&2; return 1; }
    cat "$ev"/*.events | jq -s -r --argjson n "$workers" '
        (map(select(.event == "app_start"))[0].time_ms) as $t0 |
        (map(select(.event == "executor_added")) | sort_by(.time_ms)) as $added |
        (map(select(.event == "task_end" and .stage == 1)) | max_by(.time_ms).time_ms) as $idle |
        (map(select(.event == "executor_removed" and (.reason | test("released"))))
            | sort_by(.time_ms)) as $rel |
        [ (if ($added | length) >= $n then $added[$n - 1].time_ms - $t0 else "nan" end),
          (if ($rel | length) >= $n - 1 then $rel[$n - 2].time_ms - $idle else "nan" end) ]
        | @tsv' >>"$T/$1.tsv"
}
for ((r = 0; r < reps; r++)); do
    one default 1s || exit 1
    one fast 250ms || exit 1
done
for run in default fast; do
    stats "dyn.grow.$run"_ms ms $(cut -f1 "$T/$run.tsv")
    stats "dyn.release.$run"_ms ms $(cut -f2 "$T/$run.tsv" | awk -v i="$idle_ms" '$1 != "nan" { print $1 - i }')
done
