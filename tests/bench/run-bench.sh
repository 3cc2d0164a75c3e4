#!/bin/bash
# run-bench.sh - Hearth's benchmarks (docs/performance.md), run by `make bench`.
#
# Runs the benchmarks of tests/bench/ in order, each next to the
# reference it is compared with (measured in this same run), then prints
# one table: figure (median [min..max] of the repetitions), reference,
# ratio, target, and whether the target is met.  docs/performance.md holds
# the latest table and explains it.
#
#   make bench                        everything (about 17 minutes, 11 of them the shuffle)
#   make bench BENCH_ARGS=--quick     fewer tasks and repetitions (smoke)
#   make bench BENCH_ARGS='--only throughput,latency'
#
# Groups for --only: zmq throughput latency commands sleep startup master
# scale load flood shuffle history web isolation netns jobfile dynalloc
# failover apps locality persist broadcast resume.  The resume group
# (bench-resume.sh, issue 39) starts a cluster of its own and kills its
# drivers with kill -9; about 5 minutes (--quick: under 1).  The broadcast group
# (bench-broadcast.sh, issue 38) needs root (namespaces), tc, python3 and
# curl, else it says so and is skipped; it writes 1 GiB in $TMPDIR
# (64 MiB with --quick).  The persist group (bench-persist.sh,
# issue 38) writes 1 GiB of points and about as much of records in
# $TMPDIR (100 MB with --quick).  The locality group (bench-locality.sh, issue 37)
# needs root (namespaces), python3 and curl, else it says so and is
# skipped; it writes 3 GiB of data in $TMPDIR (300 MiB with --quick).  The failover group (bench-failover.sh) needs ZooKeeper
# (scripts/install-deps), else it says so and is skipped; about 4 minutes.  The netns group
# (bench-netns.sh) needs root to make network namespaces, else it says so
# and is skipped.  The isolation group
# (bench-isolation.sh) needs root and cgroups a worker can use, else it
# says so and is skipped.  The shuffle group (bench-shuffle.sh) needs
# about 3.5 x 2 GiB of free disk in $TMPDIR, and 2.5 x 8 GiB more for its
# 8 GiB run, which it skips, saying so, when the disk has less.  Run it in a build without --enable-sanitizers: sanitized numbers
# mean nothing (the script says so and goes on).
#
# Environment (set by make): HEARTH_BIN_DIR (the daemons), HEARTH_BENCH_DIR
# (the bench programs and libbenchtasks.so), HEARTH_BENCH_SANITIZED.
set -u
set -o pipefail
. "$(dirname "$0")/benchlib.sh"

bin=${HEARTH_BIN_DIR:?run me through make bench}
bdir=${HEARTH_BENCH_DIR:-$bin/tests/bench}
lib=$bdir/libbenchtasks.so
quick=0
only=all
while [ $# -gt 0 ]; do
    case $1 in
    --quick) quick=1 ;;
    --only) only=$2; shift ;;
    *) echo "usage: run-bench.sh [--quick] [--only GROUP,...]" >&2; exit 2 ;;
    esac
    shift
done

reps=3
tp_tasks=200000 lat_jobs=2000 cmd_tasks=20000 sleep_tasks=2000
scale_tasks=1000000 start_reps=5 master_levels=1000,10000,50000 window=5000
# new processes of benchmark 23: one process's first/warm ratio moved from
# 0.79 to 1.05 within a run on a busy machine (2026-12-06), and three gave
# a median at the mercy of one
first_procs=7
load_clients=500 load_seq=50 flood_conns=1000
web_args=(--levels 1000,10000 --secs 30 --rate 50 --rounds 6)
paint_args=(--levels 1000 --loads 20)
iso_tasks=5000 iso_launches=200 cg_reps=20
net_args=(--tasks 200000 --jobs 2000 --rtt-count 10000)
jf_args=(--fn-tasks 200000 --cmd-tasks 20000)
apps_n=1000 apps_s=60 apps_args=(--apps 1000 --seconds 60)
fo_args=()
loc_args=(--reps 3 --scan-mib 3072 --shuffle-mib 600 --idle-tasks 120)
persist_args=(--reps 3)
bcast_args=(--reps 1 --mib 1024)
resume_args=(--reps 3)
shuffle_args=()
history_args=()
if [ $quick = 1 ]; then
    shuffle_args=(--size $((256 << 20)) --big $((1 << 30)) --reps 1
        --wide 300,300,30000000)
    history_args=(--apps 2000 --events 200000 --reps 1)
    tp_tasks=50000 lat_jobs=500 cmd_tasks=2000 sleep_tasks=200
    scale_tasks=200000 start_reps=3 master_levels=1000,2000 window=2000
    first_procs=3
    load_clients=100 load_seq=20 flood_conns=400
    web_args=(--levels 1000 --secs 6 --rate 50 --rounds 2)
    paint_args=(--levels 1000 --loads 5)
    iso_tasks=1000 iso_launches=50 cg_reps=6
    net_args=(--tasks 20000 --jobs 200 --rtt-count 1000)
    jf_args=(--fn-tasks 20000 --cmd-tasks 2000)
    apps_n=100 apps_s=10 apps_args=(--apps 100 --seconds 10)
    fo_args=(--trials 3 --rec-trials 1 --tp-rounds 1 --tp-tasks 20000)
    loc_args=(--reps 1 --scan-mib 300 --shuffle-mib 60 --idle-tasks 30)
    persist_args=(--reps 1 --size 100000000 --passes 4 --maps 4 --parts 4)
    bcast_args=(--reps 1 --mib 64)
    resume_args=(--reps 1 --maps 1000 --rec-tasks 10000 --work-maps 24
        --work-parts 6 --norecord-reps 0)
fi

scratch=$(mktemp -d "${TMPDIR:-/tmp}/hearth-bench-XXXXXX")
trap 'rm -rf "$scratch"' EXIT
out=$scratch/figures
: >"$out"

wants () {
    [ "$only" = all ] || [[ ",$only," == *",$1,"* ]]
}

# Run a benchmark: its comments and figures go to the terminal, its
# FIGURE lines to $out.
run () {
    local log=$scratch/run.log rc
    echo "\$ ${1##*/} ${*:2}" | sed "s|$bin/||g; s|$bdir/||g; s|$scratch/||g"
    "$@" >"$log"
    rc=$?
    grep -v '^FIGURE' "$log"
    grep '^FIGURE' "$log" | tee -a "$out" | while read -r _ key med min max unit n; do
        printf '  %-40s %12s  [%s .. %s] %s, %s reps\n' "$key" "$med" "$min" \
            "$max" "$unit" "$n"
    done
    if [ $rc != 0 ]; then
        echo "run-bench: ${1##*/} failed (status $rc)" >&2
        bench_failed=$((bench_failed + 1))
    fi
}
bench_failed=0

echo "Hearth benchmarks, $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), Linux $(uname -r)"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
if [ "${HEARTH_BENCH_SANITIZED:-0}" = 1 ]; then
    echo "WARNING: this build has the sanitizers: its figures mean nothing"
fi
echo

export HEARTH_BIN_DIR="$bin"
driver=$bdir/bench-driver
lc='local-cluster[2,1,512]'

if wants zmq; then
    echo "== 1. reference: raw ZeroMQ ROUTER<->DEALER"
    run "$bdir/bench-zmq" --reps $reps
fi
if wants throughput; then
    echo "== 2. no-op function-task throughput"
    run "$driver" throughput --master "$lc" --lib "$lib" --reps $reps \
        --tasks $tp_tasks --key tp.cluster
    run "$driver" throughput --master 'local[2]' --lib "$lib" --reps $reps \
        --tasks $tp_tasks --key tp.local
    # the event log's cost (docs/event-log.md): without and with, in turn
    for i in 1 2 3; do
        run "$driver" throughput --master 'local[2]' --lib "$lib" --reps 1 \
            --tasks $tp_tasks --key tp.local.noevlog$i
        run "$driver" throughput --master 'local[2]' --lib "$lib" --reps 1 \
            --tasks $tp_tasks --key tp.local.evlog$i --event-log "$scratch/evlog"
    done
    # and what explains it: the log's own CPU a task, engine and writer
    run "$bdir/bench-evlog" --dir "$scratch/evlog" --tasks $((5 * tp_tasks)) \
        --reps $reps --key evlog
fi
if wants latency; then
    echo "== 3. single-task latency"
    run "$driver" latency --master "$lc" --lib "$lib" --reps $reps \
        --jobs $lat_jobs --key lat.cluster
    run "$driver" latency --master 'local[2]' --lib "$lib" --reps $reps \
        --jobs $lat_jobs --key lat.local
fi
if wants commands; then
    echo "== 4. command-task rate"
    run "$driver" commands --master 'local[2]' --lib "$lib" --reps $reps \
        --tasks $cmd_tasks --cores 2 --key cmd.local
fi
if wants sleep; then
    echo "== 5. efficiency with 10 ms tasks"
    run "$driver" sleep --master 'local[2]' --lib "$lib" --reps $reps \
        --tasks $sleep_tasks --ms 10 --cores 2 --key sleep.local
fi
# What an executor's cgroup join costs on this host, which moves benchmark
# 6's local-cluster figure by 10 to 20 ms: on cgroup v1 the first join
# after a quiet while waits for an RCU grace period, unless a hierarchy
# is mounted with favordynmods (docs/performance.md, "Start-up on cgroup
# v1").
cgroup_note () {
    awk '$3 == "cgroup" { v1 = 1 } $3 == "cgroup2" { v2 = 1 }
         $3 ~ /^cgroup/ && $4 ~ /(^|,)favordynmods(,|$)/ { f = 1 }
         END { printf "# cgroups of this host: %s%s\n",
                      v1 ? "v1" : (v2 ? "v2" : "none"),
                      f ? ", a hierarchy mounted with favordynmods" : "" }' \
        /proc/mounts
}
if wants startup; then
    echo "== 6. start-up of a one-task job"
    cgroup_note
    echo '{"name": "one", "stages": [{"name": "s", "tasks": [{"fn": "noop"}]}]}' \
        >"$scratch/one.json"
    run "$bdir/bench-startup" --reps $start_reps --key start.ref -- \
        "$bin/hearth-submit" --version
    run "$bdir/bench-startup" --reps $start_reps --key start.cluster -- \
        "$bin/hearth-submit" --master "$lc" --lib "$lib" "$scratch/one.json"
    run "$bdir/bench-startup" --reps $start_reps --key start.local -- \
        "$bin/hearth-submit" --master 'local[2]' --lib "$lib" "$scratch/one.json"
    echo "== 23. a new application's first job beside its warm ones"
    for m in local cluster; do
        master='local[2]'
        [ $m = cluster ] && master=$lc
        for ((i = 1; i <= first_procs; i++)); do
            run "$driver" first --master "$master" --lib "$lib" --reps 3 \
                --tasks $tp_tasks --key first.$m.$i
        done
        # the median of the processes' own cold/warm ratios
        stats first.$m.ratio ratio $(awk -v m="$m" '$2 ~ "^first\\." m "\\.[0-9]+\\.ratio$" { print $3 }' "$out") |
            tee -a "$out"
    done
fi
if wants master; then
    echo "== 7. master scale"
    run "$bdir/bench-master" --workers $master_levels --reps $reps \
        --window-ms $window
fi
if wants scale; then
    echo "== 8. driver scale"
    run "$driver" throughput --master 'local[2]' --lib "$lib" --reps $reps \
        --tasks $scale_tasks --key scale.local
fi
if wants load; then
    echo "== 9. $load_clients hearth-submit clients at once (200 tasks each)"
    run bash "$(dirname "$0")/bench-load.sh" clients --clients $load_clients \
        --seq $load_seq
fi
if wants flood; then
    echo "== 10. $flood_conns idle or hostile connections to the master and a driver"
    run bash "$(dirname "$0")/bench-load.sh" flood --conns $flood_conns
fi
if wants web; then
    echo "== 17. the web pages under 50 requests/s: /json, /metrics, heartbeats"
    run bash "$(dirname "$0")/bench-web.sh" "${web_args[@]}"
    echo "== 20. the master's page's first paint in headless Chromium"
    run bash "$(dirname "$0")/bench-paint.sh" "${paint_args[@]}"
fi
if wants shuffle; then
    echo "== 11-14. the partitioned shuffle on local-cluster[2,1,2048]"
    run bash "$(dirname "$0")/bench-shuffle.sh" "${shuffle_args[@]}"
fi
if wants history; then
    echo "== 15-16. hearth-history: listing 10,000 logs, summarizing 1,000,000 task events"
    run bash "$(dirname "$0")/bench-history.sh" "${history_args[@]}"
fi

if wants isolation; then
    echo "== 18-19. confinement in cgroups, beside --isolation none"
    run bash "$(dirname "$0")/bench-isolation.sh" --reps $reps \
        --tasks $iso_tasks --launches $iso_launches
    echo "== 19b. a child placed in its cgroup v2 group: joined, or created there"
    run "$bdir/bench-cgspawn" --reps $cg_reps
fi

if wants netns; then
    echo "== 21. three hosts over veth pairs, without and with CURVE"
    run bash "$(dirname "$0")/bench-netns.sh" --reps $reps "${net_args[@]}"
fi
if wants jobfile; then
    echo "== 22. job files beside the C API"
    run bash "$(dirname "$0")/bench-jobfile.sh" --reps $reps "${jf_args[@]}"
fi
if wants dynalloc; then
    echo "== 24. dynamic allocation: growing to 16 one-core workers, releasing idle executors"
    run bash "$(dirname "$0")/bench-dynalloc.sh" --reps $reps
fi
if wants failover; then
    echo "== 25. failover: kill -9 and SIGTERM of the leader, recovery, replication's cost to tasks"
    run bash "$(dirname "$0")/bench-failover.sh" "${fo_args[@]}"
fi
if wants apps; then
    echo "== 26. a thousand applications on one master"
    run bash "$(dirname "$0")/bench-apps.sh" "${apps_args[@]}"
fi
if wants locality; then
    echo "== 27. locality: a scan and a skewed shuffle across rate-limited hosts, idle cores"
    run bash "$(dirname "$0")/bench-locality.sh" "${loc_args[@]}"
fi
if wants persist; then
    echo "== 28. persisted stages: an iterative job of 10 passes over 1 GiB"
    run bash "$(dirname "$0")/bench-persist.sh" "${persist_args[@]}"
fi
if wants broadcast; then
    echo "== 29. broadcast: 1 GiB to 8 executors on 4 rate-limited hosts"
    run bash "$(dirname "$0")/bench-broadcast.sh" "${bcast_args[@]}"
fi
if wants resume; then
    echo "== 30. resumable applications: resume time, recording's cost, work saved"
    run bash "$(dirname "$0")/bench-resume.sh" "${resume_args[@]}"
fi

# ---- the table -------------------------------------------------------------

declare -A MED MIN MAX
while read -r _ key med min max _ _; do
    MED[$key]=$med MIN[$key]=$min MAX[$key]=$max
done < <(grep '^FIGURE' "$out")

have () { [ -n "${MED[$1]:-}" ]; }
fig () { printf '%s [%s..%s]' "$(num "${MED[$1]}")" "$(num "${MIN[$1]}")" "$(num "${MAX[$1]}")"; }
num () { awk -v x="$1" 'BEGIN { if (x >= 10000) printf "%.0f", x; else if (x >= 100) printf "%.1f", x; else printf "%.3g", x }'; }
ratio () { awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0) print "-"; else printf "%.3f", a / b }'; }
# check VALUE OP LIMIT -> "met" or "NOT MET"
check () { awk -v v="$1" -v l="$3" -v op="$2" 'BEGIN { ok = op == "<=" ? v <= l : v >= l; print ok ? "met" : "NOT MET" }'; }

# group_of KEY: the --only group whose benchmark prints KEY.
group_of () {
    case $1 in
    tp.*) echo throughput ;; lat.*) echo latency ;; cmd.*) echo commands ;;
    sleep.*) echo sleep ;; start.* | first.*) echo startup ;; master.*) echo master ;;
    scale.*) echo scale ;; load.*) echo load ;; flood.*) echo flood ;;
    shuffle.*) echo shuffle ;; history.*) echo history ;;
    web.* | hb.*) echo web ;; iso.* | cgspawn.*) echo isolation ;; net.*) echo netns ;; jf.*) echo jobfile ;; dyn.*) echo dynalloc ;;
    fo.*) echo failover ;; apps.*) echo apps ;; loc.*) echo locality ;;
    persist.*) echo persist ;; bcast.*) echo broadcast ;; resume.*) echo resume ;;
    *) echo zmq ;;
    esac
}

failed=0 missing=0
row () { # name figure-key ref-key|"" ratio-op ratio-limit|"" abs-op abs-limit|"" target-text [ratio-key]
    local name=$1 key=$2 ref=$3 rop=$4 rlim=$5 aop=$6 alim=$7 text=$8 rkey=${9:-}
    if ! have "$key" && have "$key.skipped"; then
        # a benchmark that said why it did not run (too little disk)
        printf '| %s | skipped: %s GiB free | - | - | %s | skipped |\n' "$name" \
            "${MED[$key.skipped]}" "$text"
        return 0
    fi
    if ! have "$key"; then
        # a group that ran but left no figure: its benchmark broke
        wants "$(group_of "$key")" || return 0
        missing=$((missing + 1))
        printf '| %s | MISSING | - | - | %s | NOT RUN |\n' "$name" "$text"
        return 0
    fi
    local r="-" rs="" status="met"
    if [ -n "$ref" ] && have "$ref"; then
        r=$(ratio "${MED[$key]}" "${MED[$ref]}")
        # the median of the repetitions' own ratios, where the benchmark
        # gives them (steadier under a moving load)
        [ -n "$rkey" ] && have "$rkey" && r=$(num "${MED[$rkey]}")
        rs=$(fig "$ref")
        [ -n "$rlim" ] && [ "$(check "$r" "$rop" "$rlim")" != met ] && status="NOT MET"
    fi
    [ -n "$alim" ] && [ "$(check "${MED[$key]}" "$aop" "$alim")" != met ] && status="NOT MET"
    [ -z "$rlim$alim" ] && status="-"
    [ "$status" = "NOT MET" ] && failed=$((failed + 1))
    printf '| %s | %s | %s | %s | %s | %s |\n' "$name" "$(fig "$key")" \
        "${rs:--}" "$r" "$text" "$status"
}

echo
echo "== summary (medians [min..max]; ratio = figure / reference)"
echo
echo "| benchmark | figure | reference (same run) | ratio | target | |"
echo "|---|---|---|---|---|---|"
row "1. ZeroMQ 64 B round trip p50 µs" zmq.rtt64.p50 "" "" "" "" "" "(the reference)"
row "1. ZeroMQ 64 B round trip p99 µs" zmq.rtt64.p99 "" "" "" "" "" "(the reference)"
row "1. ZeroMQ 64 B one way, msg/s" zmq.oneway64 "" "" "" "" "" "(the reference)"
row "1. ZeroMQ 195 B cJSON one way, msg/s" zmq.json200 "" "" "" "" "" "(the reference)"
row "2. no-op tasks/s, local-cluster[2,1,512]" tp.cluster.tasks_per_s zmq.json200 '>=' 0.4 '>=' 100000 "≥ 100,000/s and ≥ 0.4 × cJSON msg/s"
row "2. no-op tasks/s, local[2]" tp.local.tasks_per_s zmq.json200 '>=' 0.4 '>=' 100000 "≥ 100,000/s and ≥ 0.4 × cJSON msg/s"
row "3. one-task job p50 µs, local-cluster" lat.cluster.p50 lat.cluster.rtt64_p50 '<=' 2 "" "" "≤ 2 × 64 B round trip (the two alternating; median of the repetitions' ratios)" lat.cluster.ratio
row "3. one-task job p99 µs, local-cluster" lat.cluster.p99 lat.cluster.rtt64_p99 "" "" "" "" "(p99 beside the ZeroMQ p99)"
row "3. one-task job p50 µs, local[2]" lat.local.p50 lat.local.rtt64_p50 '<=' 2 "" "" "≤ 2 × 64 B round trip (the two alternating; median of the repetitions' ratios)" lat.local.ratio
row "3. one-task job p99 µs, local[2]" lat.local.p99 lat.local.rtt64_p99 "" "" "" "" "(p99 beside the ZeroMQ p99)"
row "4. /bin/true commands/s, local[2]" cmd.local.commands_per_s cmd.local.posix_spawn_per_s '>=' 0.85 "" "" "≥ 0.85 × posix_spawn, 2 in flight (median of the repetitions' ratios)" cmd.local.ratio
row "5. efficiency, 10 ms tasks, local[2]" sleep.local.efficiency sleep.local.threads_efficiency "" "" '>=' 0.97 "≥ 0.97 (reference: plain threads)"
row "6. start-up ms, local-cluster[2,1,512]" start.cluster start.ref "" "" '<=' 35 "≤ 35 ms (issue 19; reference: hearth-submit --version)"
row "6. start-up ms, local[2]" start.local start.ref "" "" '<=' 15 "≤ 15 ms (issue 19; reference: hearth-submit --version)"
row "23. first job's no-op tasks/s / warm jobs', local[2]" first.local.ratio "" "" "" '>=' 0.9 "≥ 0.9 (median of the processes' ratios)"
row "23. first job's no-op tasks/s / warm jobs', local-cluster" first.cluster.ratio "" "" "" '>=' 0.9 "≥ 0.9 (median of the processes' ratios)"
last=${master_levels##*,}
for w in ${master_levels//,/ }; do
    [ "$w" = "$last" ] && continue
    if [ "$w" = 10000 ]; then # the first wave's targets (issue 5)
        row "7. master CPU (cores), 10000 workers, 1 Hz" master.10000.cpu master.1000.cpu "" "" '<=' 0.15 "≤ 0.15 at 10,000 (reference: 1,000)"
        row "7. master RSS per worker (B), 10000 workers" master.10000.rss_per_worker "" "" "" '<=' 2048 "≤ 2 KiB"
        row "7. MASTER_STATE ms, 10000 workers" master.10000.state master.1000.state "" "" '<=' 50 "≤ 50 ms at 10,000 (reference: 1,000)"
        continue
    fi
    row "7. master CPU (cores), $w workers" master.$w.cpu "" "" "" "" "" ""
    row "7. master RSS per worker (B), $w workers" master.$w.rss_per_worker "" "" "" "" "" ""
    row "7. MASTER_STATE ms, $w workers" master.$w.state "" "" "" "" "" ""
done
# the largest count: issue 19's targets at 50,000 workers
row "7. master CPU (cores), $last workers, 1 Hz" master.$last.cpu master.1000.cpu "" "" '<=' 0.5 "≤ 0.5 at 50,000 (reference: 1,000)"
row "7. master RSS per worker (B), $last workers" master.$last.rss_per_worker "" "" "" '<=' 2048 "≤ 2 KiB"
row "7. MASTER_STATE ms, $last workers" master.$last.state master.1000.state "" "" '<=' 150 "≤ 150 ms at 50,000 (reference: 1,000)"
row "7. allocation pass µs, 100 apps × $last workers" master.alloc_pass "" "" "" '<=' 25000 "≤ 25 ms at 50,000"
row "7. a silent worker DEAD after, ms, $last workers" master.$last.death_ms master.1000.death_ms "" "" '<=' 6000 "≤ 6 s: the 5 s liveness window and the 1 s since its last heartbeat, as at 1,000 (reference)"
row "8. no-op tasks/s, $scale_tasks tasks, local[2]" scale.local.tasks_per_s tp.local.tasks_per_s '>=' 0.8 "" "" "≥ 0.8 × the $tp_tasks-task figure"
row "8. driver peak RSS per task (B)" scale.local.peak_rss_per_task "" "" "" '<=' 300 "≤ 300 B"
lc=$load_clients
row "9. jobs/s, $lc clients at once" load.$lc.jobs_per_s load.seq.jobs_per_s '>=' 1 "" "" "≥ the same jobs one after the other ($load_seq of them)"
row "9. ms per client, $lc at once" load.$lc.client_ms load.alone_ms "" "" "" "" "(reference: one client alone)"
row "9. slowest client / mean" load.$lc.slowest_over_mean "" "" "" '<=' 3 "≤ 3: none starves"
row "9. exact outputs" load.$lc.exact "" "" "" '>=' $lc "all $lc"
row "9. ERROR or FAILED log lines" load.$lc.error_lines "" "" "" '<=' 0 "none"
row "9. master CPU s for the $lc jobs" load.$lc.master_cpu_s "" "" "" "" "" ""
row "9. master RSS KiB after the $lc jobs" load.$lc.master_rss_after_kb load.$lc.master_rss_before_kb "" "" "" "" "(reference: before)"
row "10. job ms during the flood" flood.job_during_ms flood.job_alone_ms '<=' 2 "" "" "≤ 2 × the same job before"
row "10. master RSS KiB, connections open" flood.master_rss_during_kb flood.master_rss_before_kb '<=' 2 "" "" "≤ 2 × before"
row "10. master RSS KiB, after" flood.master_rss_after_kb flood.master_rss_before_kb '<=' 2 "" "" "≤ 2 × before"
row "10. driver RSS KiB, connections open" flood.driver_rss_during_kb flood.driver_rss_before_kb '<=' 2 "" "" "≤ 2 × before"
row "10. driver RSS KiB, after" flood.driver_rss_after_kb flood.driver_rss_before_kb '<=' 2 "" "" "≤ 2 × before"
row "10. master log lines" flood.master_log_lines "" "" "" '<=' 10 "≤ 10 (refusals rate-limited)"
row "11. reference: hash, write, read back R files, MB/s" shuffle.ref.mb_s "" "" "" "" "" "(the reference)"
row "11. unsorted shuffle MB/s, 32 x 32" shuffle.unsorted.mb_s shuffle.ref.mb_s '>=' 0.5 "" "" "≥ 0.5 × the reference (median of the repetitions' ratios)" shuffle.unsorted.ratio
row "12. reference: LC_ALL=C sort --parallel=2 -S 1G, MB/s" shuffle.sort.mb_s "" "" "" "" "" "(the reference)"
row "12. sorted shuffle MB/s, 32 x 32" shuffle.sorted.mb_s shuffle.sort.mb_s '>=' 1.0 "" "" "≥ 1.0 × GNU sort (median of the repetitions' ratios)" shuffle.sorted.ratio
row "12. sorted shuffle MB/s per core" shuffle.sorted.mb_s_per_core "" "" "" '>=' 40 "≥ 40 MB/s per core"
row "13. driver peak RSS KiB, --size shuffle" shuffle.driver_rss_kb "" "" "" '<=' 65536 "≤ 64 MiB"
row "13. driver peak RSS KiB, --big shuffle" shuffle.big.driver_rss_kb shuffle.driver_rss_kb '<=' 1.1 '<=' 65536 "≤ 64 MiB and ≤ 1.1 × the smaller shuffle's"
row "13. reducer's executor peak RSS KiB, unsorted" shuffle.unsorted.reducer_rss_kb shuffle.reducer_budget_kb '<=' 1 "" "" "≤ its budget: --fetch-max-in-flight + --shuffle-memory"
row "13. reducer's executor peak RSS KiB, sorted" shuffle.sorted.reducer_rss_kb shuffle.reducer_budget_kb '<=' 1 "" "" "≤ the same budget"
row "14. driver RSS growth KiB, 1,000 x 1,000 blocks (--quick: 300 x 300)" shuffle.wide.growth_kb "" "" "" '<=' 32768 "≤ 32 MiB (reference: the same maps, R = 1)"
row "15. reference: cat every log | wc -l, s" history.list.cat_s "" "" "" "" "" "(the reference: every byte read once)"
row "15. reference: ls -l of the directory, s" history.list.ls_s "" "" "" "" "" "(the reference: a stat of every file)"
row "15. hearth-history listing, no index, s" history.list.cold_s history.list.cat_s "" "" "" "" "(reads every log, writes the index)"
row "15. hearth-history listing, index valid, s" history.list.warm_s history.list.ls_s "" "" '<=' 1 "≤ 1 s for 10,000 logs (--quick: 2,000)"
row "16. reference: wc -l of the log, s" history.app.wc_s "" "" "" "" "" "(the reference: one pass over the bytes)"
row "16. reference: jq select task_end, s" history.app.jq_s "" "" "" "" "" "(what a user runs without hearth-history)"
row "16. hearth-history APP_ID, 1,000,000 task events, s" history.app.s history.app.wc_s "" "" '<=' 3 "≤ 3 s (--quick: 200,000 events)"
web_levels=$(printf '%s\n' "${web_args[@]}" | sed -n '/^--levels$/{n;p}')
for w in ${web_levels//,/ }; do
    lim=20
    [ "$w" -ge 10000 ] && lim=100
    row "17. /json p99 ms, $w workers, 50 req/s" web.json.p99.$w "" "" "" '<=' $lim "≤ $lim ms"
    row "17. /metrics p99 ms, $w workers, 50 req/s" web.metrics.p99.$w "" "" "" '<=' $lim "≤ $lim ms"
    row "17. heartbeat-to-reply p99 µs, $w workers, with 50 req/s" hb.web.p99.$w hb.idle.p99.$w '<=' 1.1 "" "" "≤ 1.1 × without (reference)"
    row "17. median of the rounds' with / without heartbeat p99, $w workers" hb.ratio.$w "" "" "" "" "" "(each round's two windows side by side)"
    row "17. master CPU ms per web request, $w workers" web.cpu_ms.$w "" "" "" "" "" "(its CPU loaded less idle, per request)"
done
paint_levels=$(printf '%s\n' "${paint_args[@]}" | sed -n '/^--levels$/{n;p}')
for w in ${paint_levels//,/ }; do
    if ! have web.paint.p90.$w && wants web && ! command -v chromedriver >/dev/null; then
        printf '| 20. first paint p90 ms, %s workers | skipped: no chromium | - | - | ≤ 500 ms | skipped |\n' "$w"
        continue
    fi
    row "20. reference: the same page as a static file, first paint p90 ms, $w workers" web.paint.static.p90.$w "" "" "" "" "" "(what the browser alone costs)"
    row "20. master's page first paint p50 ms, $w workers" web.paint.p50.$w "" "" "" "" "" "(headless Chromium, Performance API)"
    row "20. master's page first paint p90 ms, $w workers" web.paint.p90.$w web.paint.static.p90.$w "" "" '<=' 500 "≤ 500 ms"
done
if have iso.skipped; then
    printf '| 18-19. confinement in cgroups | skipped: no cgroups here | - | - | ≤ 5%% of the command-task rate, ≤ 2 ms per launch | skipped |\n'
else
    row "18. /bin/true commands/s, --isolation cgroup" iso.cmd.cgroup.commands_per_s iso.cmd.none.commands_per_s '>=' 0.95 "" "" "≥ 0.95 × --isolation none, same run (median of the repetitions' ratios)" iso.cmd.ratio
    row "19. executor launch µs, --isolation cgroup" iso.launch.cgroup_us iso.launch.none_us "" "" "" "" "(reference: --isolation none)"
    row "19. a launch's cgroup cost µs" iso.launch.cost_us "" "" "" '<=' 2000 "≤ 2 ms per executor launch (difference of the medians)"
    row "19. a reap's cgroup work µs (counters, kill, remove)" iso.reap.cgroup_us "" "" "" "" "" ""
    row "19. executor start ms (spawn to its first log line), cgroup" iso.start.cgroup_ms iso.start.none_ms "" "" "" "" "(reference: --isolation none)"
fi
if have cgspawn.skipped; then
    printf '| 19b. a child created in its cgroup v2 group | skipped: no writable cgroup2 hierarchy | - | - | (the join beside it) | skipped |\n'
else
    row "19b. /bin/true launch µs, created in its v2 group (clone3)" cgspawn.into_us cgspawn.join_us "" "" "" "" "(reference: the same launch joining by cgroup.procs)"
    row "19d. /bin/true launch µs, created in its v2 group, as another user" cgspawn.into_asuser_us cgspawn.into_us "" "" "" "" "(reference: the same launch as the caller)"
fi
if have cgspawn.v1.skipped; then
    printf '| 19c. a child joining its cgroup v1 group by tasks | skipped: no cgroup v1 memory hierarchy | - | - | (the join by cgroup.procs beside it) | skipped |\n'
else
    row "19c. /bin/true launch µs, joining its v1 group by tasks" cgspawn.v1tasks_us cgspawn.v1procs_us "" "" "" "" "(reference: the same launch joining by cgroup.procs)"
    row "19e. /bin/true launch µs, joining its v1 group by tasks, as another user" cgspawn.v1tasks_asuser_us cgspawn.v1tasks_us "" "" "" "" "(reference: the same launch as the caller)"
fi
if have net.skipped; then
    printf '| 21. three hosts over veth | skipped: no network namespaces here | - | - | ≥ 0.8 × loopback, CURVE ≤ 20%%, p50 ≤ 2 × raw ZeroMQ | skipped |\n'
else
    row "21. reference: no-op tasks/s, loopback local-cluster[2,1,512]" net.loop.tasks_per_s "" "" "" "" "" "(same run)"
    row "21. reference: raw ZeroMQ 64 B round trip p50 µs, driver's host → master's" net.zmq.plain.rtt64.p50 "" "" "" "" "" "(same run)"
    row "21. reference: raw ZeroMQ 64 B round trip p50 µs, same link, CURVE" net.zmq.curve.rtt64.p50 net.zmq.plain.rtt64.p50 "" "" "" "" "(beside it: without CURVE)"
    row "21. reference: raw ZeroMQ 195 B cJSON msg/s, same link, CURVE" net.zmq.curve.json200 net.zmq.plain.json200 "" "" "" "" "(beside it: without CURVE)"
    row "21. no-op tasks/s, 3 hosts over veth, no keys" net.plain.tasks_per_s net.loop.tasks_per_s '>=' 0.8 "" "" "≥ 0.8 × loopback local-cluster (median of the repetitions' ratios)" net.ratio.plain_loop
    row "21. no-op tasks/s, 3 hosts over veth, CURVE" net.curve.tasks_per_s net.plain.tasks_per_s '>=' 0.8 "" "" "CURVE costs ≤ 20 % (≥ 0.8 × no keys; median of the repetitions' ratios)" net.ratio.curve_plain
    row "21. one-task job p50 µs over veth, no keys" net.lat.plain.p50 net.lat.plain.rtt64_p50 "" "" "" "" "(beside it: raw ZeroMQ over the link, alternating with the jobs)"
    row "21. one-task job p50 µs over veth, CURVE" net.lat.curve.p50 net.lat.curve.rtt64_p50 '<=' 2 "" "" "≤ 2 × raw ZeroMQ's over the same link, CURVE on both (median of the repetitions' ratios)" net.ratio.lat_curve
    row "21. one-task job p99 µs over veth, CURVE" net.lat.curve.p99 net.lat.curve.rtt64_p99 "" "" "" "" "(p99 beside raw ZeroMQ's p99)"
fi
row "22. job file of distinct function tasks, tasks/s (hearth-submit, local[2])" jf.fn.file.tasks_per_s jf.fn.api.tasks_per_s '>=' 0.9 "" "" "≥ 0.9 × the C API's (median of the repetitions' ratios)" jf.fn.ratio
row "22. job file of distinct command tasks, tasks/s" jf.cmd.file.tasks_per_s jf.cmd.api.tasks_per_s '>=' 0.9 "" "" "≥ 0.9 × the C API's (median of the repetitions' ratios)" jf.cmd.ratio
row "22. parse and check of the function-task file, CPU ms (jobfile_load, one process)" jf.parse_ms "" "" "" '<=' 50 "≤ 50 ms"
row "22. the same, millions of instructions (callgrind)" jf.parse_minstr "" "" "" "" "" "(steady under load: what each change buys)"
row "22. the same seen from hearth-submit, wall ms less a one-task file's" jf.parse_submit_ms "" "" "" "" "" "(process start and load included)"
row "22. driver memory per distinct task, job file, B" jf.fn.file.rss_per_task jf.fn.api.rss_per_task "" "" '<=' 300 "≤ 300 B (beside it: the API's)"
row "24. dynamic allocation: registration to 16 executors, ms (backlog timeouts 1 s)" dyn.grow.default_ms "" "" "" '<=' 6000 "≤ 6 s: the fifth raise (1, 3, 7, 15, 16 at 1..5 s) + 1 s (design-changes.md)"
row "24. the same with backlog timeouts of 0.25 s, ms" dyn.grow.fast_ms "" "" "" '<=' 3000 "≤ 3 s"
row "24. idle executors released after the idle timeout, ms" dyn.release.default_ms "" "" "" '<=' 1000 "≤ idle timeout + 1 s"
row "26. applications with their exact output, of $apps_n" apps.exact "" "" "" '>=' "$apps_n" "all of them"
row "26. ERROR replies and failed tasks in the logs" apps.errors "" "" "" '<=' 0 "none"
row "26. registration round trip p99, ms" apps.reg_rtt_p99_ms "" "" "" '<=' 20 "≤ 20 ms"
row "26. the master's CPU while they come and go, cores" apps.master_cpu_cores "" "" "" '<=' 0.3 "≤ 0.3 core"
row "26. applications given their first executor out of FIFO order" apps.fifo_out_of_order "" "" "" '<=' 0 "none (docs/cluster.md, Allocation)"
row "26. the first driver's start to the last one's exit, s" apps.wall_s "" "" "" "" "" "(the starts spread over $apps_s s)"
if have apps.cpu_pressure; then # not on a kernel without /proc/pressure
    row "26. CPU pressure: share of the run a runnable process waited" apps.cpu_pressure "" "" "" "" "" "(/proc/pressure/cpu some: what the round trip's tail is made of)"
fi
row "26. the master's mean wait for a CPU when woken, ms" apps.master_wake_wait_ms "" "" "" "" "" "(its share of a round trip: /proc/PID/schedstat)"
if have fo.skipped; then
    printf '| 25. failover | skipped: no ZooKeeper | - | - | kill -9 p95 ≤ 10 s (6 s session), ≤ 4 s (2 s); SIGTERM ≤ 1 s; tasks ≥ 0.8 × single | skipped |\n'
else
    row "25. kill -9 of the leader, 6 s session: accepted after p50 ms" fo.kill6000.p50_ms "" "" "" "" "" "(REGISTER_APPLICATION accepted by the new leader)"
    row "25. kill -9 of the leader, 6 s session: p95 ms" fo.kill6000.p95_ms "" "" "" '<=' 10000 "≤ 10 s at the 95th percentile"
    row "25. kill -9 of the leader, 6 s session: max ms" fo.kill6000.max_ms "" "" "" "" "" ""
    row "25. kill -9 of the leader, 2 s session: p50 ms" fo.kill2000.p50_ms "" "" "" "" "" ""
    row "25. kill -9 of the leader, 2 s session: p95 ms" fo.kill2000.p95_ms "" "" "" '<=' 4000 "≤ 4 s at the 95th percentile"
    row "25. kill -9 of the leader, 2 s session: max ms" fo.kill2000.max_ms "" "" "" "" "" ""
    row "25. SIGTERM of the leader: p50 ms" fo.term.p50_ms "" "" "" "" "" ""
    row "25. SIGTERM of the leader: p95 ms" fo.term.p95_ms "" "" "" '<=' 1000 "≤ 1 s"
    row "25. SIGTERM of the leader: max ms" fo.term.max_ms "" "" "" "" "" ""
    row "25. recovery, every peer back: election to ALIVE ms" fo.rec.all_back_ms fo.rec.timeout_ms '<=' 0.9 "" "" "ends when all answered, well before the recovery timeout (reference)"
    row "25. recovery, a worker gone: election to ALIVE ms" fo.rec.worker_gone_ms fo.rec.timeout_ms "" "" "" "" "(ends at the recovery timeout, the reference)"
    row "25. a one-task job submitted at the takeover (2 s session): done after the kill, ms" fo.rec.job_ms "" "" "" "" "" "(waits for the recovery)"
    row "25. no-op tasks/s, HA leader + 1 standby" fo.tp.ha1.tasks_per_s fo.tp.single.tasks_per_s '>=' 0.8 "" "" "≥ 0.8 × a single master (median of the rounds' ratios)" fo.tp.ha1.ratio
    row "25. no-op tasks/s, HA leader + 2 standbys" fo.tp.ha2.tasks_per_s fo.tp.single.tasks_per_s '>=' 0.8 "" "" "≥ 0.8 × a single master (median of the rounds' ratios)" fo.tp.ha2.ratio
fi
if have loc.skipped; then
    printf '| 27. locality across hosts | skipped: no namespaces, python3 or curl | - | - | bytes across ≤ 5 %%, ≥ 2 × faster; shuffle ≥ 40 %% fewer; idle ≤ 5 %% | skipped |\n'
else
    row "27. scan of the hosts' own disks, preferring them: ms" loc.scan.near_ms loc.scan.far_ms "" "" "" "" "(reference: no preferences, --locality-wait 0)"
    row "27. ... how much faster than without preferences" loc.scan.speedup "" "" "" '>=' 2 "≥ 2 × (median of the repetitions' ratios)"
    row "27. ... MiB crossing hosts, preferring" loc.scan.near_cross_mib loc.scan.far_cross_mib "" "" "" "" "(reference: without preferences)"
    row "27. ... share of the input crossing hosts, preferring" loc.scan.cross_share "" "" "" '<=' 0.05 "≤ 5 % of the input"
    row "27. skewed shuffle: MiB crossing hosts, reducers preferring" loc.shuffle.prefs_cross_mib loc.shuffle.none_cross_mib "" "" "" "" "(reference: reduce-locality=false)"
    row "27. ... fewer bytes crossing than without" loc.shuffle.saved "" "" "" '>=' 0.4 "≥ 40 % fewer (median of the repetitions)"
    row "27. idle core share, a third of the tasks preferring a busy host" loc.idle.mixed "" "" "" '<=' 0.05 "≤ 5 % of the stage's core-time"
    row "27. idle core share, every task preferring a busy host" loc.idle.tail "" "" "" "" "" "(the others wait one wait, then take its tasks: docs/performance.md)"
fi
row "28. persisted stages: the first pass (reads and parses 1 GiB), ms" persist.first_ms "" "" "" "" "" "(--quick: 100 MB, 4 passes)"
row "28. ... a later pass, reading the persisted records, ms" persist.pass_ms persist.ref_ms "" "" "" "" "(reference: the same pass in one process over the records in memory)"
row "28. ... how much faster a later pass is than the first" persist.speedup "" "" "" '>=' 5 "≥ 5 × (median of the runs' ratios)"
row "28. ... the reference's pass over a later pass's time" persist.ratio "" "" "" '>=' 0.8 "≥ 0.8 (median of the runs' ratios)"
if have bcast.skipped; then
    printf '| 29. broadcast to 4 hosts | skipped: no namespaces, tc, python3 or curl | - | - | driver egress ≤ 1.2 × the file, wall ≤ 1.5 × one copy | skipped |\n'
else
    row "29. broadcast: 1 GiB to 8 executors on 4 hosts, ms" bcast.wall_ms bcast.one_copy_ms "" "" "" "" "(reference: one copy of the file over one link, same run; --quick: 64 MiB)"
    row "29. ... the broadcast's wall time over one copy's" bcast.wall_ratio "" "" "" '<=' 1.5 "≤ 1.5 × (median of the runs' ratios)"
    row "29. ... what the driver sent, MiB" bcast.driver_mib "" "" "" "" "" "(its own count of chunk bytes)"
    row "29. ... the driver's egress over the file" bcast.egress_ratio "" "" "" '<=' 1.2 "≤ 1.2 × (8 × before: once per executor)"
fi
row "30. resume: \`hearth-submit --resume\` to its first task, 10,000 map outputs recorded, ms" resume.start_ms resume.fresh_start_ms "" "" '<=' 1000 "≤ 1 s (reference: the same job submitted fresh, to its first task; --quick: 1,000 outputs)"
row "30. ... no-op map tasks/s, recording outputs" resume.rec_on_tasks_per_s resume.rec_off_tasks_per_s '>=' 0.9 "" "" "≥ 0.9 × record-outputs=false, same run (median of the pairs' ratios)" resume.record_ratio
row "30. ... the master's CPU ms a run, recording" resume.rec_on_master_cpu_ms resume.rec_off_master_cpu_ms "" "" "" "" "(reference: record-outputs=false)"
row "30. ... the driver's CPU ms a run, recording" resume.rec_on_driver_cpu_ms resume.rec_off_driver_cpu_ms "" "" "" "" "(reference: record-outputs=false)"
row "30. ... task-seconds of a 3-stage job killed at 90 % and resumed, over an uninterrupted run's" resume.work_ratio "" "" "" '<=' 1.15 "≤ 1.15 × (median of the repetitions' ratios)"
row "30. ... the same in the tasks' own CPU time" resume.work_cpu_ratio "" "" "" "" "" "(what the machine's other load moves less)"
row "30. ... the same in attempts ended (task_end events)" resume.work_attempts_ratio "" "" "" "" "" "(the tasks run again, and the events a killed driver had not written)"
if [ $quick = 0 ]; then # --quick leaves them out
    row "30. ... task-seconds, record-outputs=false (everything runs again)" resume.work_ratio_norecord "" "" "" "" "" "(as before issue 39: about 1.9 ×)"
    row "30. ... the same in the tasks' own CPU time" resume.work_cpu_ratio_norecord "" "" "" "" "" ""
fi
row "30. ... the uninterrupted run's task-seconds, ms" resume.work_whole_ms "" "" "" "" "" "(40 maps into 8 partitions, 8 counts, 8 part files, ~0.5 s of CPU a task; --quick: 24 maps, 6)"
echo
echo "targets not met: $failed; figures missing: $missing; benchmarks failed: $bench_failed"
# non-zero when anything went wrong, so that a broken benchmark is not
# mistaken for a met target
[ $failed = 0 ] && [ $missing = 0 ] && [ $bench_failed = 0 ]
