#!/usr/bin/env bash
# bench-load.sh - Hearth under load (docs/performance.md, "Load"), run by
# run-bench.sh (groups load and flood):
#
#   bench-load.sh clients [--clients N] [--tasks N] [--seq N]
#       N hearth-submit clients at once (500), each a job of --tasks
#       function tasks (200) and one that gathers them, on a master and
#       two workers that offer a core per client.  Beside it, measured in
#       the same run: one client alone (5 runs) and --seq jobs one after
#       the other (50).  Every output must be exact.
#   bench-load.sh flood [--conns N] [--job-tasks N]
#       N connections (1000) that send nothing or random bytes to the
#       master's ROUTER and N to a driver's executor ROUTER, with keys:
#       the RSS of both before, with the connections open, and after, and
#       the time of a job of --job-tasks function tasks (400000) run 3
#       times during the flood beside the same job before it.
#
# Prints FIGURE lines (key median min max unit reps), as the other
# benchmarks do.  Environment: HEARTH_BIN_DIR (the build), and
# HEARTH_BENCH_DIR (libbenchtasks.so; default $HEARTH_BIN_DIR/tests/bench).
set -u
. "$(dirname "$0")/benchlib.sh" # bench_scratch
bin=${HEARTH_BIN_DIR:?HEARTH_BIN_DIR must name the build directory}
lib=${HEARTH_BENCH_DIR:-$bin/tests/bench}/libbenchtasks.so
flood_bin=$bin/tests/integration/flood
what=${1:-}
shift
clients=500 tasks=200 seq=50 conns=1000 job_tasks=400000
while [ $# -gt 0 ]; do
    case $1 in
    --clients) clients=$2; shift ;;
    --tasks) tasks=$2; shift ;;
    --seq) seq=$2; shift ;;
    --conns) conns=$2; shift ;;
    --job-tasks) job_tasks=$2; shift ;;
    *) echo "bench-load: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done

bench_scratch load
ulimit -n "$(ulimit -Hn)" 2>/dev/null || ulimit -n 65536 2>/dev/null
mkdir -p "$T/bin"
for p in hearth-master hearth-worker hearth-executor hearth-driver; do
    ln -sf "$bin/$p" "$T/bin/$p"
done
now_ms() { date +%s%3N; }
die() { echo "bench-load: $*" >&2; exit 1; }
figure() { # KEY VALUE UNIT: one measurement
    echo "FIGURE $1 $2 $2 $2 $3 1"
}
figures() { # KEY UNIT VALUES...: median, min, max of the values
    local key=$1 unit=$2; shift 2
    printf '%s\n' "$@" | sort -n | awk -v k="$key" -v u="$unit" \
        '{ v[NR] = $1 } END { printf "FIGURE %s %s %s %s %s %d\n", k,
          v[int((NR + 1) / 2)], v[1], v[NR], u, NR }'
}
rss_kb() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status" 2>/dev/null; }
wait_file() { # SECONDS FILE PATTERN
    local end=$(($(now_ms) + $1 * 1000))
    while (($(now_ms) < end)); do
        grep -q -- "$3" "$2" 2>/dev/null && return 0
        sleep 0.05
    done
    return 1
}

# cluster CORES [MASTER_ARGS...]: a master and two workers of CORES each;
# sets URL, EVENTS, MASTER.
cluster() {
    local cores=$1; shift
    "$bin/hearth-master" --port 0 --events-port 0 --ready-file "$T/master.ready" \
        --log-level warn "$@" >"$T/master.log" 2>&1 &
    MASTER=$!
    pids+=($MASTER)
    wait_file 10 "$T/master.ready" tcp || die "the master did not start"
    URL=$(sed -n 1p "$T/master.ready")
    for w in w1 w2; do
        HEARTH_BIN_DIR=$T/bin "$bin/hearth-worker" --master "$URL" \
            --work-dir "$T/$w" --ready-file "$T/$w.ready" --cores "$cores" \
            --memory 256G --log-level warn ${WORKER_KEYS:-} >"$T/$w.log" 2>&1 &
        pids+=($!)
        wait_file 10 "$T/$w.ready" worker || die "worker $w did not register"
    done
}

# jobfile NAME: a job of $tasks echo tasks and one that gathers them, and
# its expected output NAME.expected.
jobfile() {
    printf '{"name":"%s","lib":"libbenchtasks.so","stages":[
      {"name":"e","tasks":[{"fn":"echo","arg":"%s {i}","count":%d}]},
      {"name":"all","tasks":[{"fn":"cat","input":"e"}]}]}\n' "$1" "$1" "$tasks" \
        >"$T/$1.json"
    seq 0 $((tasks - 1)) | sed "s/^/$1 /" >"$T/$1.expected"
}

# client NAME: run job NAME once, write "STATUS START_MS END_MS" to
# NAME.time; the output is kept in NAME.out.
client() {
    local start end rc
    start=$(now_ms)
    "$bin/hearth-submit" --master "$URL" --lib "$lib" ${CLIENT_KEYS:-} \
        --total-executor-cores 1 --executor-memory 64M --register-timeout 300s \
        "$T/$1.json" >"$T/$1.out" 2>"$T/$1.err"
    rc=$?
    end=$(now_ms)
    echo "$rc $start $end" >"$T/$1.time"
}

exact() { # NAMES...: how many ended 0 with their exact output
    local n=0 c
    for c in "$@"; do
        read -r rc _ _ <"$T/$c.time" && [ "$rc" = 0 ] &&
            cmp -s "$T/$c.out" "$T/$c.expected" && n=$((n + 1))
    done
    echo "$n"
}

bench_clients() {
    cluster $(((clients + 1) / 2))
    local alone=() c names=()
    jobfile alone
    for r in 1 2 3 4 5; do
        client alone
        read -r rc s e <"$T/alone.time"
        [ "$rc" = 0 ] && cmp -s "$T/alone.out" "$T/alone.expected" ||
            die "one client alone failed"
        alone+=($((e - s)))
    done
    figures load.alone_ms ms "${alone[@]}"
    for c in $(seq 1 "$seq"); do jobfile "s$c"; done
    local began=$(now_ms)
    for c in $(seq 1 "$seq"); do client "s$c"; done
    local took=$(($(now_ms) - began))
    [ "$(exact $(seq -f 's%g' 1 "$seq"))" = "$seq" ] || die "a sequential job failed"
    figure load.seq.jobs_per_s "$(awk -v n="$seq" -v t="$took" 'BEGIN { printf "%.2f", n * 1000 / t }')" jobs/s
    for c in $(seq 1 "$clients"); do jobfile "c$c"; names+=("c$c"); done
    local rss_before
    rss_before=$(rss_kb "$MASTER")
    local cpu_before
    cpu_before=$(awk '{print $14 + $15}' "/proc/$MASTER/stat")
    began=$(now_ms)
    local run=()
    for c in "${names[@]}"; do client "$c" & run+=($!); done
    wait "${run[@]}"
    took=$(($(now_ms) - began))
    local cpu_after
    cpu_after=$(awk '{print $14 + $15}' "/proc/$MASTER/stat")
    local good
    good=$(exact "${names[@]}")
    echo "# $clients clients at once: $good exact, $took ms in all"
    figure "load.$clients.exact" "$good" clients
    figure "load.$clients.wall_ms" "$took" ms
    figure "load.$clients.jobs_per_s" "$(awk -v n="$clients" -v t="$took" 'BEGIN { printf "%.2f", n * 1000 / t }')" jobs/s
    local times=() mean max
    mapfile -t times < <(cat "$T"/c*.time | awk '{ print $3 - $2 }')
    figures "load.$clients.client_ms" ms "${times[@]}"
    read -r mean max < <(printf '%s\n' "${times[@]}" |
        awk '{ s += $1; if ($1 > m) m = $1 } END { printf "%d %d\n", s / NR, m }')
    figure "load.$clients.mean_ms" "$mean" ms
    figure "load.$clients.slowest_over_mean" "$(awk -v a="$max" -v b="$mean" 'BEGIN { printf "%.2f", a / b }')" x
    figure "load.$clients.master_cpu_s" "$(awk -v a="$cpu_before" -v b="$cpu_after" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.2f", (b - a) / hz }')" s
    figure "load.$clients.master_rss_before_kb" "$rss_before" KiB
    figure "load.$clients.master_rss_after_kb" "$(rss_kb "$MASTER")" KiB
    local errors
    errors=$(cat "$T"/*.err "$T/master.log" "$T/w1.log" "$T/w2.log" |
        grep -c -e ' ERROR ' -e 'says [a-z_]*:' -e 'FAILED')
    figure "load.$clients.error_lines" "$errors" lines
    [ "$good" = "$clients" ] || die "$((clients - good)) of $clients clients failed"
}

# timed_jobs NAME: run job NAME 3 times, print each one's ms (dies when
# one fails or its output is not exact).
timed_jobs() {
    local r rc s e
    for r in 1 2 3; do
        client "$1"
        read -r rc s e <"$T/$1.time"
        [ "$rc" = 0 ] && cmp -s "$T/$1.out" "$T/$1.expected" || die "job $1 failed"
        echo $((e - s))
    done
}

bench_flood() {
    "$bin/hearth-keygen" "$T/keys" >/dev/null &&
        "$bin/hearth-keygen" --client w "$T/keys" >/dev/null || die "keys"
    local k=$T/keys
    CLIENT_KEYS="--curve-secret $k/client.key_secret --master-key $k/master.key"
    # a single-user cluster: its keys name no user, its tasks run as root
    # when the bench does (docs/security.md, "Tasks run as their submitter")
    WORKER_KEYS="--curve-secret $k/w.key_secret --master-key $k/master.key --allow-root-tasks"
    cluster 4 --curve-secret "$k/master.key_secret" --curve-allow "$k/clients"
    tasks=$job_tasks
    jobfile ref
    figures flood.job_alone_ms ms $(timed_jobs ref)
    printf '{"name":"gate","stages":[{"name":"s","tasks":[{"cmd":["sh","-c","while [ ! -e %s/gate ]; do sleep 0.05; done; echo g{i}"],"count":8}]},{"name":"all","tasks":[{"cmd":["sort"],"input":"s"}]}]}\n' "$T" >"$T/gate.json"
    # shellcheck disable=SC2086
    "$bin/hearth-submit" --master "$URL" $CLIENT_KEYS --total-executor-cores 2 \
        --log-level info "$T/gate.json" >"$T/gate.out" 2>"$T/gate.err" &
    local gate=$!
    pids+=($gate)
    wait_file 15 "$T/gate.err" 'executor [0-9]* registered' || die "the gated job did not start"
    local durl
    durl=$(sed -n 's/.*executors connect to \(tcp:[^ ]*\).*/\1/p' "$T/gate.err" | head -1)
    sleep 1
    local m0 d0 m1 d1 m2 d2 half=$((conns / 2)) f
    m0=$(rss_kb "$MASTER") d0=$(rss_kb "$gate")
    local floods=()
    for f in "master 0 $URL" "master 4096 $URL" "driver 0 $durl" "driver 4096 $durl"; do
        set -- $f
        "$flood_bin" --to "${3#tcp://}" --count "$half" --bytes "$2" --seed 14 \
            --hold-ms 60000 >"$T/$1-$2.flood" 2>&1 &
        floods+=($!)
        pids+=($!)
    done
    for f in master-0 master-4096 driver-0 driver-4096; do
        wait_file 60 "$T/$f.flood" '^OPEN' || die "flood $f did not open"
        grep -q "^OPEN $half FAILED 0" "$T/$f.flood" || echo "# $f: $(head -1 "$T/$f.flood")"
    done
    m1=$(rss_kb "$MASTER") d1=$(rss_kb "$gate")
    figures flood.job_during_ms ms $(timed_jobs ref)
    for f in "${floods[@]}"; do kill -TERM "$f" 2>/dev/null; done
    wait "${floods[@]}" 2>/dev/null
    sleep 1
    m2=$(rss_kb "$MASTER") d2=$(rss_kb "$gate")
    touch "$T/gate"
    wait "$gate" || die "the gated job failed"
    figure flood.master_rss_before_kb "$m0" KiB
    figure flood.master_rss_during_kb "$m1" KiB
    figure flood.master_rss_after_kb "$m2" KiB
    figure flood.driver_rss_before_kb "$d0" KiB
    figure flood.driver_rss_during_kb "$d1" KiB
    figure flood.driver_rss_after_kb "$d2" KiB
    figure flood.master_log_lines "$(wc -l <"$T/master.log")" lines
    kill -0 "$MASTER" || die "the master died"
}

case $what in
clients) bench_clients ;;
flood) bench_flood ;;
*) echo "usage: bench-load.sh clients|flood [options]" >&2; exit 2 ;;
esac
