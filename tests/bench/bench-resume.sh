#!/usr/bin/env bash
# bench-resume.sh - benchmark 30, resumable applications (issue 39;
# docs/performance.md "Resumable applications"), run by run-bench.sh
# (group resume):
#
#   bench-resume.sh [--maps N] [--rec-tasks N] [--work-maps M]
#                   [--work-parts P] [--work-iters I] [--reps N]
#                   [--norecord-reps N]
#
# One hand-started cluster on 127.0.0.1 (a master with --journal and
# --resume-window 60s, two 1-core workers; links at 200 ms x 5, so that a
# driver killed is given up after 1 s), client-mode hearth-submit drivers
# writing event logs (docs/event-log.md: time_ms is the wall clock).
#
#   resume.start_ms: a job of a map stage of --maps (10,000) no-op
#     function tasks (libbenchtasks.so's noop: an empty map output each)
#     into 1 partition, and a stage reading it whose one task waits for a
#     file.  Once every map task has ended (its reader started) and a
#     second passed, the driver is killed with kill -9; once the
#     application is RELAUNCHING, `hearth-submit --resume APP` of the same
#     job is timed from just before its start (bash's own clock,
#     $EPOCHREALTIME) to the first task_start of its event log
#     (APP.driver2.events).  It must say "resumed APP: 1 of 2 stages
#     skipped" (else an error, not a figure).  Reference
#     (resume.fresh_start_ms): the killed driver's own start, the same job
#     submitted fresh, to its first task_start.
#   resume.record_ratio: no-op map tasks/s of a job of one partitioned
#     stage (2 partitions, persisted on disk: a job file refuses a last
#     stage whose partitions nothing reads) of --rec-tasks (40,000) noop
#     tasks, recording
#     on (the default; resume.rec_on_tasks_per_s) over off (--conf
#     record-outputs=false; resume.rec_off_tasks_per_s), in turn (the
#     order swapped every pair), each the median of --reps runs; tasks/s
#     from the event log, first task_start to last task_end; the figure
#     is the median of the pairs' own ratios.  Beside it the
#     CPU time of the master (/proc) and of the driver (this shell's
#     times, around it) in each run, on and off.
#   resume.work_ratio: a 3-stage job (--work-maps (40) map tasks into
#     --work-parts (8) partitions, as many count tasks into as many
#     partitions, as many output tasks writing part files; every task
#     spends about 0.5 s of CPU in an awk loop of --work-iters (3,000,000)
#     steps besides its work), killed with kill -9 once 90 % of its tasks
#     have ended (counted from its event log) and resumed: the sum of
#     run_us of every task_end of both drivers' event logs over that of
#     one uninterrupted run of the same job beside it (the output of both
#     must be the same, else an error).  Beside it, from the same runs:
#     resume.work_cpu_ratio, the CPU time the tasks themselves said they
#     spent (each appends its shell's times to a file when it ends), and
#     resume.work_attempts_ratio, the task_end events of both logs over
#     the uninterrupted run's: run_us is wall time, which the machine's
#     other load stretches from one run to the next.
#     resume.work_ratio_norecord: the same with --conf record-outputs=false (the resumed driver runs
#     everything again, as a relaunched driver did before issue 39; its
#     part files are removed before it resumes, since a driver that
#     reuses none refuses a directory holding some), --norecord-reps (3)
#     times, each after a repetition of the figure.
#
# Prints FIGURE lines (key median min max unit n).  Environment:
# HEARTH_BIN_DIR (the build), HEARTH_BENCH_DIR (default
# $HEARTH_BIN_DIR/tests/bench), BENCH_RESUME_KEEP (a directory: the event
# logs and the drivers' stderr are copied there at the end, for a
# profile).
set -u
. "$(dirname "$0")/benchlib.sh"
bin=${HEARTH_BIN_DIR:?HEARTH_BIN_DIR must name the build directory}
dir=${HEARTH_BENCH_DIR:-$bin/tests/bench}
lib=$dir/libbenchtasks.so
maps=10000 rec_tasks=40000 work_maps=40 work_parts=8 work_iters=3000000
reps=3 norecord_reps=3
while [ $# -gt 0 ]; do
    case $1 in
    --maps) maps=$2; shift ;;
    --rec-tasks) rec_tasks=$2; shift ;;
    --work-maps) work_maps=$2; shift ;;
    --work-parts) work_parts=$2; shift ;;
    --work-iters) work_iters=$2; shift ;;
    --reps) reps=$2; shift ;;
    --norecord-reps) norecord_reps=$2; shift ;;
    *) echo "bench-resume: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done
die() { echo "bench-resume: $*" >&2; exit 1; }
interval_ms=200 liveness=5

bench_scratch resume
# the driver running, if any, goes first at exit (it is not a daemon of
# pids: it is reaped by the script, and its PID must not be signalled
# after that)
drv=
keep=${BENCH_RESUME_KEEP:-}
trap 'if [ -n "$drv" ]; then kill -9 "$drv" 2>/dev/null; fi
      if [ -n "$keep" ]; then mkdir -p "$keep" && cp -r "$T/ev" "$T"/*.err "$T"/*.log "$keep"/; fi
      bench_cleanup' EXIT
export TMPDIR=$T LC_ALL=C HEARTH_COOKIE=$T/cookie.d/cookie
mkdir -p "$T/ev" "$T/jobs"

# ---- the cluster ------------------------------------------------------------
"$bin/hearth-master" --port 0 --events-port 0 --web-port 0 \
    --ready-file "$T/master.ready" --journal "$T/journal" --resume-window 60s \
    --heartbeat-interval ${interval_ms}ms --heartbeat-liveness $liveness \
    --log-level info >"$T/master.log" 2>&1 &
master_pid=$!
pids+=($master_pid)
wait_file "$T/master.ready" 10 || die "no master"
url=$(sed -n 1p "$T/master.ready")
for w in 1 2; do
    HEARTH_BIN_DIR="$bin" "$bin/hearth-worker" --master "$url" \
        --work-dir "$T/w$w" --ready-file "$T/w$w.ready" --cores 1 \
        --memory 1G --web-port 0 --kill-grace 1s --log-level warn \
        >"$T/w$w.log" 2>&1 &
    pids+=($!)
done
for w in 1 2; do wait_file "$T/w$w.ready" 20 || die "worker $w did not register"; done
echo "cluster: a master (--journal, --resume-window 60s) and 2 workers of 1 core," \
    "links at ${interval_ms} ms x $liveness"

# ---- helpers ------------------------------------------------------------------
# now_ms VAR: the wall clock in ms into VAR (bash's own clock, no fork).
now_ms() { local us=${EPOCHREALTIME/./}; printf -v "$1" '%s' $((us / 1000)); }

# submit NAME JOB [ARGS...]: a client-mode driver in the background, its
# output in $T/NAME.out and .err, its events in $T/ev; sets drv (its PID)
# and t0 (the wall ms just before its start).
submit() {
    local name=$1 job=$2
    shift 2
    now_ms t0
    "$bin/hearth-submit" --master "$url" --log-level info \
        --heartbeat-interval ${interval_ms}ms --heartbeat-liveness $liveness \
        --executor-memory 256M --lib "$lib" --event-log "$T/ev" "$@" "$job" \
        >"$T/$name.out" 2>"$T/$name.err" &
    drv=$!
}
# app_of FILE: the application id a driver's stderr names (waits for it).
app_of() {
    local i
    for ((i = 0; i < 400; i++)); do
        sed -n 's/.*application \(app-[0-9-]*\) registered with.*/\1/p' "$1" 2>/dev/null |
            head -1 | grep . && return 0
        sleep 0.05
    done
    return 1
}
# app_state APP: its state in the master's books.
app_state() {
    "$bin/hearth-tail" --master "$url" --state --json --timeout 3s |
        jq -r --arg id "$1" '[.. | objects | select(.id? == $id) | .state][0]'
}
# wait_relaunching APP: until the master keeps APP for a resume (15 s).
wait_relaunching() {
    local i
    for ((i = 0; i < 150; i++)); do
        [ "$(app_state "$1")" = RELAUNCHING ] && return 0
        sleep 0.1
    done
    return 1
}
# ended LOG [STAGE]: task_end events of accepted attempts in LOG (of
# stage STAGE, a number, when given).
ended() {
    local s=${2:-}
    grep '"event":"task_end"' "$1" 2>/dev/null | grep -v '"state":' |
        grep -v '"outcome":' | { [ -n "$s" ] && grep "\"stage\":$s," || cat; } |
        wc -l
}
# first_start LOG: time_ms of LOG's first task_start.
first_start() {
    grep -m1 '"event":"task_start"' "$1" 2>/dev/null |
        sed -n 's/.*"time_ms":\([0-9]*\).*/\1/p'
}
# wait_start LOG SECONDS: until LOG has a task_start.
wait_start() {
    local i
    for ((i = 0; i < $2 * 20; i++)); do
        [ -n "$(first_start "$1")" ] && return 0
        sleep 0.05
    done
    return 1
}
# run_us LOG...: the sum of run_us over every task_end of the logs.
run_us() {
    cat "$@" | grep '"event":"task_end"' |
        sed -n 's/.*"run_us":\([0-9]*\).*/\1/p' | awk '{ s += $1 } END { print s + 0 }'
}
# span_tps LOG N: N tasks over LOG's first task_start to last task_end.
span_tps() {
    awk -v n="$2" '/"event":"task_(start|end)"/ {
            match($0, /"time_ms":[0-9]+/); t = substr($0, RSTART + 10, RLENGTH - 10) + 0
            if ($0 ~ /task_start/ && (a == 0 || t < a)) a = t
            if ($0 ~ /task_end/ && t > b) b = t }
        END { if (b > a) printf "%.1f\n", n * 1000 / (b - a); else print "nan" }' "$1"
}
# master_cpu_ms: the master's CPU time so far (utime + stime), ms.
master_cpu_ms() {
    local f
    read -r -a f <"/proc/$master_pid/stat"
    echo $(((f[13] + f[14]) * 1000 / $(getconf CLK_TCK)))
}
# children_cpu_ms VAR: the CPU time of this shell's children reaped so
# far (the second line of times), ms, into VAR; not in a $(...): a
# subshell's count starts at 0.
children_cpu_ms() {
    times >"$T/times"
    printf -v "$1" '%s' "$(awk 'NR == 2 {
        for (f = 1; f <= 2; f++) { split($f, p, "m"); s += p[1] * 60 + p[2] }
        printf "%d\n", s * 1000 }' "$T/times")"
}
# kill_driver: kill -9 the driver and reap it.
kill_driver() {
    kill -9 "$drv" 2>/dev/null
    wait "$drv" 2>/dev/null
    drv=
}
# wait_driver: wait for the driver; its status.
wait_driver() {
    local rc
    wait "$drv"
    rc=$?
    drv=
    return $rc
}

# ---- 1. resume.start_ms ---------------------------------------------------------
# start_job N: the job of repetition N; its reader waits for $T/go-start.N
# (at most 60 s), then counts its input
start_job() {
    cat >"$T/jobs/start.$1.json" <<JOB
{"name": "resume-start", "stages": [
  {"name": "map", "partitions": 1, "tasks": [{"fn": "noop", "count": $maps}]},
  {"name": "wait", "tasks": [{"cmd": ["sh", "-c",
    "n=0; while [ ! -e $T/go-start.$1 ] && [ \$n -lt 1200 ]; do sleep 0.05; n=\$((n+1)); done; wc -l"],
    "input": "map"}]}]}
JOB
}
fresh=() resumed=()
for ((r = 0; r < reps; r++)); do
    start_job $r
    job=$T/jobs/start.$r.json
    submit start$r "$job"
    app=$(app_of "$T/start$r.err") || die "start $r: no application registered"
    ev=$T/ev/$app.events
    # every map task ended: the reader (stage 2; they count from 1) started
    for ((i = 0; i < 1200; i++)); do
        grep -q '"event":"task_start".*"stage":2,' "$ev" 2>/dev/null && break
        kill -0 "$drv" 2>/dev/null || die "start $r: the driver ended early"
        sleep 0.05
    done
    [ "$(ended "$ev" 1)" -eq "$maps" ] || die "start $r: $(ended "$ev" 1) of $maps map tasks ended"
    t_fresh=$(($(first_start "$ev") - t0))
    sleep 1 # the last records reach the master
    kill_driver
    wait_relaunching "$app" || die "start $r: $app not RELAUNCHING"
    touch "$T/go-start.$r"
    submit start$r.resume "$job" --resume "$app"
    wait_start "$T/ev/$app.driver2.events" 30 || die "start $r: no task started after the resume"
    t_res=$(($(first_start "$T/ev/$app.driver2.events") - t0))
    wait_driver || die "start $r: the resumed driver failed: $(tail -3 "$T/start$r.resume.err")"
    grep -q "resumed $app: 1 of 2 stages skipped" "$T/start$r.resume.err" ||
        die "start $r: not resumed as expected: $(grep -m1 resumed "$T/start$r.resume.err")"
    echo "start $r: fresh submit to its first task $t_fresh ms; --resume ($maps outputs) to its first task $t_res ms"
    fresh+=("$t_fresh") resumed+=("$t_res")
done
stats resume.start_ms ms "${resumed[@]}"
stats resume.fresh_start_ms ms "${fresh[@]}"

# ---- 2. resume.record_ratio -------------------------------------------------------
cat >"$T/jobs/rec.json" <<JOB
{"name": "resume-record", "stages": [
  {"name": "map", "partitions": 2, "persist": "disk",
   "tasks": [{"fn": "noop", "count": $rec_tasks}]}]}
JOB
on=() off=() ratios=() mcpu_on=() mcpu_off=() dcpu_on=() dcpu_off=()
for ((r = 0; r < reps; r++)); do
    order="on off"
    ((r % 2)) && order="off on" # the second of a pair is not always the same
    for mode in $order; do
        conf=()
        [ $mode = off ] && conf=(--conf record-outputs=false)
        m0=$(master_cpu_ms)
        children_cpu_ms c0
        submit rec$r$mode "$T/jobs/rec.json" "${conf[@]}"
        app=$(app_of "$T/rec$r$mode.err")
        wait_driver || die "record $r $mode failed: $(tail -3 "$T/rec$r$mode.err")"
        children_cpu_ms c1
        mcpu=$(($(master_cpu_ms) - m0)) dcpu=$((c1 - c0))
        ev=$T/ev/$app.events
        [ "$(ended "$ev")" -eq "$rec_tasks" ] || die "record $r $mode: $(ended "$ev") of $rec_tasks tasks"
        tps=$(span_tps "$ev" "$rec_tasks")
        if [ $mode = on ]; then
            on+=("$tps") mcpu_on+=("$mcpu") dcpu_on+=("$dcpu")
            t_on=$tps m_on=$mcpu d_on=$dcpu
        else
            off+=("$tps") mcpu_off+=("$mcpu") dcpu_off+=("$dcpu")
            t_off=$tps m_off=$mcpu d_off=$dcpu
        fi
    done
    ratios+=("$(div "$t_on" "$t_off")")
    echo "record $r ($order): $rec_tasks no-op map tasks, $t_on tasks/s recording, $t_off not;" \
        "CPU ms of the master $m_on and $m_off, of the driver $d_on and $d_off"
done
stats resume.rec_on_tasks_per_s tasks/s "${on[@]}"
stats resume.rec_off_tasks_per_s tasks/s "${off[@]}"
stats resume.record_ratio x "${ratios[@]}"
stats resume.rec_on_master_cpu_ms ms "${mcpu_on[@]}"
stats resume.rec_off_master_cpu_ms ms "${mcpu_off[@]}"
stats resume.rec_on_driver_cpu_ms ms "${dcpu_on[@]}"
stats resume.rec_off_driver_cpu_ms ms "${dcpu_off[@]}"

# ---- 3. resume.work_ratio ---------------------------------------------------------
# awk programs: the map's records, the count, the output; each spends
# work_iters steps of a generator first
burn="for (j = 0; j < $work_iters; j++) x = (x * 69069 + 1) % 4294967296"
cat >"$T/map.awk" <<AWK
BEGIN { x = i + 1
        for (j = 0; j < $work_iters; j++) {
            x = (x * 69069 + 1) % 4294967296
            if (j % 100 == 0) print "w" int(x / 65536) % 2000 } }
AWK
cat >"$T/count.awk" <<AWK
BEGIN { $burn }
{ n[\$1]++ }
END { for (k in n) print k "\t" n[k] }
AWK
cat >"$T/out.awk" <<AWK
BEGIN { $burn }
{ print }
AWK
work_tasks=$((work_maps + 2 * work_parts))
kill_at=$(((work_tasks * 9 + 9) / 10)) # 90 %, rounded up
# work_job NAME: the job writing its parts to $T/out-NAME; each task
# that ends appends its CPU time (the shell's times) to
# $T/cpu-NAME/STAGE.INDEX
work_job() {
    local c=$T/cpu-$1
    mkdir -p "$c"
    cat >"$T/jobs/work.$1.json" <<JOB
{"name": "resume-work", "stages": [
  {"name": "map", "partitions": $work_parts,
   "tasks": [{"cmd": ["sh", "-c", "awk -v i={i} -f $T/map.awk || exit 1; times >>$c/map.{i}"],
              "count": $work_maps}]},
  {"name": "count", "partitions": $work_parts,
   "tasks": [{"cmd": ["sh", "-c", "awk -f $T/count.awk || exit 1; times >>$c/count.{i}"],
              "input": "map"}]},
  {"name": "out", "output": "$T/out-$1",
   "tasks": [{"cmd": ["sh", "-c", "awk -f $T/out.awk | sort || exit 1; times >>$c/out.{i}"],
              "input": "count"}]}]}
JOB
}
# cpu_ms NAME: the CPU ms its tasks said they spent (the children's user
# and system time, the second line of each times)
cpu_ms() {
    cat "$T/cpu-$1"/* | awk 'NR % 2 == 0 {
        for (f = 1; f <= 2; f++) { split($f, p, "m"); s += p[1] * 60 + p[2] } }
        END { printf "%d\n", s * 1000 }'
}
# killed_run NAME CLEAR [ARGS...]: the job killed at 90 % and resumed
# (with ARGS both times; its part files removed first when CLEAR is 1);
# sets us (both logs' run_us) and done_at (tasks ended in the log when
# killed).
killed_run() {
    local name=$1 clear=$2 app ev i try
    shift 2
    # the log is written every 500 ms: a job may end before it shows 90 %
    # ended; then it runs again (at most 3 times), saying so
    for ((try = 1; ; try++)); do
        rm -rf "$T/out-$name" "$T/cpu-$name"
        work_job "$name"
        submit "$name" "$T/jobs/work.$name.json" "$@"
        app=$(app_of "$T/$name.err") || die "$name: no application registered"
        ev=$T/ev/$app.events
        for ((i = 0; i < 2400; i++)); do
            (($(ended "$ev") >= kill_at)) && break
            kill -0 "$drv" 2>/dev/null || break
            sleep 0.05
        done
        kill -0 "$drv" 2>/dev/null && break
        wait_driver
        ((try < 3)) || die "$name: the job ended before it was killed, 3 times"
        echo "$name: the job ended before its log showed 90 % of its tasks ended: again"
    done
    kill_driver
    done_at=$(ended "$ev")
    wait_relaunching "$app" || die "$name: $app not RELAUNCHING"
    ((clear)) && rm -rf "$T/out-$name"
    submit "$name.resume" "$T/jobs/work.$name.json" --resume "$app" "$@"
    wait_driver || die "$name: the resumed driver failed: $(tail -3 "$T/$name.resume.err")"
    sed -n "s/.*\(resumed $app: [^(]*\).*/\1/p" "$T/$name.resume.err" | head -1 >"$T/$name.said"
    us=$(run_us "$ev" "$T/ev/$app.driver2.events")
    attempts=$(cat "$ev" "$T/ev/$app.driver2.events" | grep -c '"event":"task_end"')
}
# same_output NAME: its parts are the uninterrupted run's
same_output() {
    cmp -s <(cat "$T/out-$1"/part-* | sort) "$T/ref.out" ||
        die "$1: the output is not the uninterrupted run's"
}
works=() norecs=() whole=() cpus=() norec_cpus=() atts=()
for ((r = 0; r < reps; r++)); do
    work_job whole$r
    submit whole$r "$T/jobs/work.whole$r.json"
    app=$(app_of "$T/whole$r.err")
    whole_app=$app
    wait_driver || die "whole $r failed: $(tail -3 "$T/whole$r.err")"
    whole_us=$(run_us "$T/ev/$app.events")
    whole_cpu=$(cpu_ms whole$r)
    cat "$T/out-whole$r"/part-* | sort >"$T/ref.out"
    [ -s "$T/ref.out" ] || die "whole $r: no output"
    killed_run killed$r 0
    same_output killed$r
    works+=("$(div "$us" "$whole_us")")
    cpus+=("$(div "$(cpu_ms killed$r)" "$whole_cpu")")
    atts+=("$(div "$attempts" "$(grep -c '"event":"task_end"' "$T/ev/$whole_app.events")")")
    echo "work $r: uninterrupted $((whole_us / 1000)) task-ms ($whole_cpu CPU ms); killed at" \
        "$done_at of $work_tasks tasks ended and resumed ($(cat "$T/killed$r.said")):" \
        "$((us / 1000)) task-ms ($(cpu_ms killed$r) CPU ms)"
    whole+=("$((whole_us / 1000))")
    if ((r < norecord_reps)); then
        killed_run norec$r 1 --conf record-outputs=false
        same_output norec$r
        norecs+=("$(div "$us" "$whole_us")")
        norec_cpus+=("$(div "$(cpu_ms norec$r)" "$whole_cpu")")
        echo "work $r, record-outputs=false: killed at $done_at and resumed" \
            "($(cat "$T/norec$r.said")): $((us / 1000)) task-ms ($(cpu_ms norec$r) CPU ms)"
    fi
done
stats resume.work_whole_ms ms "${whole[@]}"
stats resume.work_ratio x "${works[@]}"
stats resume.work_cpu_ratio x "${cpus[@]}"
stats resume.work_attempts_ratio x "${atts[@]}"
if ((norecord_reps > 0)); then
    stats resume.work_ratio_norecord x "${norecs[@]}"
    stats resume.work_cpu_ratio_norecord x "${norec_cpus[@]}"
fi
exit 0
