#!/usr/bin/env bash
# bench-jobfile.sh - benchmark 22 (docs/performance.md, "Job files as fast
# as the API"; issue 19), run by run-bench.sh (group jobfile): a JSON job
# file of N distinct tasks (each its own argument: no "count", no
# "foreach") run by hearth-submit on local[2], beside the same tasks
# built with the C API (bench-driver cold: a context made, the tasks
# added one by one, run, the context destroyed), alternating, each timed
# whole from its process's side:
#
#   - function tasks ("noop", arg "task-I"), --fn-tasks of them;
#   - command tasks (["/bin/true", "I"]), --cmd-tasks of them (their rate
#     is bounded by fork and exec: fewer, to bound the run's time);
#   - the file's parse and check alone (issue 19: ≤ 50 ms): jobfile_load()
#     of the big file in bench-jobparse, the CPU time of that call in a
#     fresh process each time (--parse-runs of them: cold, as
#     hearth-driver loads it once), the figure judged (jf.parse_ms);
#     the instructions of that call alone under callgrind, when valgrind
#     is there (jf.parse_minstr: what a loaded machine cannot blur); and,
#     as before, hearth-submit of the big file with a master URL it
#     refuses after loading the file, less the same with a one-task file,
#     wall time (jf.parse_submit_ms: the process's view, load included);
#   - hearth-submit's peak RSS (VmHWM, read every 50 ms) less that of the
#     one-task file's run, per task, beside the API's.
#
# Prints FIGURE lines (jf.*).  Environment: HEARTH_BIN_DIR, HEARTH_BENCH_DIR.
set -u
. "$(dirname "$0")/benchlib.sh"
bin=${HEARTH_BIN_DIR:?HEARTH_BIN_DIR must name the build directory}
bdir=${HEARTH_BENCH_DIR:-$bin/tests/bench}
lib=$bdir/libbenchtasks.so
reps=3 fn_tasks=200000 cmd_tasks=20000 parse_runs=7
while [ $# -gt 0 ]; do
    case $1 in
    --reps) reps=$2; shift ;;
    --fn-tasks) fn_tasks=$2; shift ;;
    --cmd-tasks) cmd_tasks=$2; shift ;;
    --parse-runs) parse_runs=$2; shift ;;
    *) echo "bench-jobfile: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done
T=$(mktemp -d "${TMPDIR:-/tmp}/hearth-bench-jf.XXXXXX")
run_pid=
cleanup() {
    [ -n "$run_pid" ] && kill -KILL "$run_pid" 2>/dev/null
    rm -rf "$T"
}
trap cleanup EXIT
die() { echo "bench-jobfile: $*" >&2; exit 1; }

# write_job FILE KIND N: a job file of N distinct tasks
write_job() {
    awk -v kind="$2" -v n="$3" -v lib="$lib" 'BEGIN {
        printf "{\"name\": \"jf-%s\", \"lib\": \"%s\", \"stages\": [{\"name\": \"s\", \"tasks\": [\n", kind, lib
        for (i = 0; i < n; i++) {
            if (kind == "fn") printf "  {\"fn\": \"noop\", \"arg\": \"task-%d\"}", i
            else printf "  {\"cmd\": [\"/bin/true\", \"%d\"]}", i
            printf i + 1 < n ? ",\n" : "\n"
        }
        print "]}]}"
    }' >"$1"
}
write_job "$T/fn.json" fn "$fn_tasks"
write_job "$T/cmd.json" cmd "$cmd_tasks"
write_job "$T/one.json" fn 1

# submit FILE MASTER: run hearth-submit; sets ns (wall) and hwm (peak KiB).
# A refused master (the parse-only runs) is expected to fail.
submit() {
    run_watched "$T/hwm" "$bin/hearth-submit" --master "$2" --log-level warn "$1" \
        >"$T/out" 2>"$T/err"
}
# api KIND N: bench-driver cold; sets rate and rss (B per task).
api() {
    HEARTH_BIN_DIR=$bin "$bdir/bench-driver" cold --kind "$1" --tasks "$2" \
        --lib "$lib" --key api >"$T/api.out" 2>"$T/api.err" ||
        die "bench-driver cold --kind $1 failed: $(tail -3 "$T/api.err")"
    rate=$(awk '$2 == "api.tasks_per_s" { print $3 }' "$T/api.out")
    rss=$(awk '$2 == "api.rss_per_task" { print $3 }' "$T/api.out")
}

echo "# $fn_tasks distinct function tasks, $cmd_tasks distinct command tasks," \
    "local[2], $reps repetitions alternating file and API;" \
    "job files of $(du -k "$T/fn.json" | cut -f1) KiB and $(du -k "$T/cmd.json" | cut -f1) KiB"
declare -A V
add() { V[$1]="${V[$1]:-} $2"; }
for ((r = 0; r < reps; r++)); do
    # the parse alone: 'local[0]' is refused once the file is loaded
    submit "$T/one.json" 'local[0]' && die "local[0] was accepted"
    base_ns=$ns base_hwm=$hwm
    submit "$T/fn.json" 'local[0]' && die "local[0] was accepted"
    grep -q 'local\[0\]' "$T/err" || die "the parse-only run failed otherwise: $(tail -2 "$T/err")"
    add parse_submit_ms "$(awk -v a="$ns" -v b="$base_ns" 'BEGIN { printf "%.3f", (a - b) / 1e6 }')"
    submit "$T/one.json" 'local[2]' || die "the one-task file failed: $(tail -3 "$T/err")"
    one_hwm=$hwm
    for kind in fn cmd; do
        n=$fn_tasks
        [ $kind = cmd ] && n=$cmd_tasks
        submit "$T/$kind.json" 'local[2]' || die "the $kind file failed: $(tail -3 "$T/err")"
        [ "$(wc -l <"$T/out")" -eq "$n" ] || die "the $kind file printed $(wc -l <"$T/out") results, not $n"
        file_rate=$(awk -v n="$n" -v ns="$ns" 'BEGIN { printf "%.6g", n / (ns / 1e9) }')
        add file.$kind "$file_rate"
        add file_rss.$kind "$(awk -v a="$hwm" -v b="$one_hwm" -v n="$n" 'BEGIN { printf "%.1f", (a - b) * 1024 / n }')"
        api $kind "$n"
        add api.$kind "$rate"
        add api_rss.$kind "$rss"
        add ratio.$kind "$(div "$file_rate" "$rate")"
    done
done
# the parse and check inside one process, each run a fresh one
for ((r = 0; r < parse_runs; r++)); do
    "$bdir/bench-jobparse" --reps 1 "$T/fn.json" >"$T/parse.out" 2>"$T/parse.err" ||
        die "bench-jobparse failed: $(tail -2 "$T/parse.err")"
    add parse_ms "$(awk '$2 == "jf.parse.cpu_ms" { print $3 }' "$T/parse.out")"
done
# (not under the sanitizers, which valgrind cannot run)
if command -v valgrind >/dev/null && ! ldd "$bdir/bench-jobparse" | grep -q libasan; then
    valgrind --tool=callgrind --toggle-collect=jobfile_load \
        --callgrind-out-file=/dev/null "$bdir/bench-jobparse" --reps 1 \
        "$T/fn.json" >/dev/null 2>"$T/cg.err" ||
        die "bench-jobparse under callgrind failed: $(tail -2 "$T/cg.err")"
    add parse_minstr "$(awk '/Collected :/ { printf "%.2f", $NF / 1e6 }' "$T/cg.err")"
fi
# shellcheck disable=SC2086
{
    stats jf.parse_ms ms ${V[parse_ms]}
    stats jf.parse_submit_ms ms ${V[parse_submit_ms]}
    [ -n "${V[parse_minstr]:-}" ] && stats jf.parse_minstr Minstr ${V[parse_minstr]}
    for kind in fn cmd; do
        stats jf.$kind.file.tasks_per_s tasks/s ${V[file.$kind]}
        stats jf.$kind.api.tasks_per_s tasks/s ${V[api.$kind]}
        stats jf.$kind.ratio ratio ${V[ratio.$kind]}
        stats jf.$kind.file.rss_per_task B ${V[file_rss.$kind]}
        stats jf.$kind.api.rss_per_task B ${V[api_rss.$kind]}
    done
}
