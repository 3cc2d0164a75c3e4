#!/usr/bin/env bash
# bench-failover.sh - the failover time of standby masters and the cost
# of replication (docs/performance.md, "High availability: failover time
# and replication cost", issue 17), run by run-bench.sh (group failover).
# A real ZooKeeper (tests/lib/zk.sh), two masters elected through it,
# two workers, all on loopback with the default heartbeats (1 s x 5):
#
#   - fo.kill6000 / fo.kill2000 / fo.term: per trial the leader gets
#     kill -9 (6 s and 2 s sessions) or SIGTERM (6 s), sent by
#     bench-haprobe, which then asks both masters REGISTER_APPLICATION
#     every 20 ms until one accepts it; the killed master is started
#     again as the standby (and has the new leader's snapshot) before
#     the next trial.  p50, p95 and max of the trials, in ms.
#   - fo.rec: with four workers and a running driver (2 s sessions), the
#     new leader's own "recovery done in N ms" (from its election to
#     ALIVE) against --recovery-timeout, and how long after the kill a
#     one-task job, submitted as soon as the new leader accepts, ends
#     (hearth-submit with the list; its executor waits for the
#     recovery); then once with a worker killed with the leader (the
#     recovery ends at the timeout).
#   - fo.tp: the no-op task rate of one application (bench-driver
#     throughput, two one-core workers) with a single master, the HA
#     leader with one standby and with two, alternating, same run; and
#     why they match: the leader's CPU over each run and the bytes the
#     standby's journal got meanwhile.
#
# Options: --trials N (per kind, default 20; FAILOVER_TRIALS overrides),
# --sessions MS,MS (the kill -9 trials' sessions, 6000,2000; SIGTERM uses
# the first), --rec-trials N (3), --rec-timeout-ms N (10000),
# --rec-session MS (the recovery trials' session, 2000),
# --interval-ms N (the masters' heartbeat interval, 1000),
# --tp-rounds N (3; 0: none), --tp-tasks N (200000; each run the median
# of 3 repetitions).  Any figure that is not what it claims (a recovery
# that ended otherwise, a run that failed) stops it with status 1.
# Prints FIGURE lines (key median min max unit n), or fo.skipped without
# ZooKeeper.  Environment: HEARTH_BIN_DIR (the build), HEARTH_BENCH_DIR.
set -u
. "$(dirname "$0")/benchlib.sh"
bin=${HEARTH_BIN_DIR:?HEARTH_BIN_DIR must name the build directory}
bdir=${HEARTH_BENCH_DIR:-$bin/tests/bench}
trials=20 rec_trials=3 tp_rounds=3 tp_tasks=200000 sessions=6000,2000
rec_timeout_ms=10000 # the default at 1 s x 5 heartbeats, set explicitly
rec_session=2000     # ms, of the recovery trials
interval_ms=1000     # the masters' heartbeat interval (the default)
while [ $# -gt 0 ]; do
    case $1 in
    --trials) trials=$2; shift ;;
    --sessions) sessions=$2; shift ;;
    --rec-timeout-ms) rec_timeout_ms=$2; shift ;;
    --rec-session) rec_session=$2; shift ;;
    --interval-ms) interval_ms=$2; shift ;;
    --rec-trials) rec_trials=$2; shift ;;
    --tp-rounds) tp_rounds=$2; shift ;;
    --tp-tasks) tp_tasks=$2; shift ;;
    *) echo "bench-failover: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done
trials=${FAILOVER_TRIALS:-$trials}

# What tests/lib/zk.sh needs of cluster.sh: T, PIDS, say, wait_for.
T=$(mktemp -d "${TMPDIR:-/tmp}/hearth-bench-fo.XXXXXX")
PIDS=()
say() { echo "# bench-failover: $*"; }
wait_for() {
    local end=$(($(date +%s%3N) + $1 * 1000))
    shift
    while (($(date +%s%3N) < end)); do
        "$@" 2>/dev/null && return 0
        sleep 0.05
    done
    return 1
}
cleanup() {
    local p
    exec 2>/dev/null # not the shell's notices of the daemons it kills
    for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null; done
    sleep 0.5
    for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done
    # executors a killed worker left behind run in its work directory
    for p in /proc/[0-9]*; do
        [[ $(readlink "$p/cwd" 2>/dev/null) == "$T"/* ]] && kill -KILL "${p#/proc/}" 2>/dev/null
    done
    wait 2>/dev/null
    rm -rf "$T"
}
trap cleanup EXIT
. "$(dirname "$0")/../lib/zk.sh"
if ! zk_available; then
    say "no ZooKeeper server ($ZK_SERVER) or no java: skipped"
    echo "FIGURE fo.skipped 0 0 0 - 1"
    exit 0
fi
mkdir -p "$T/bin"
for p in hearth-master hearth-worker hearth-executor hearth-driver; do
    ln -sf "$bin/$p" "$T/bin/$p"
done
die() { say "$*"; exit 1; }
zkp=$(zk_free_port)
start_zk z1 "$zkp" || die "ZooKeeper did not start"

# --- masters and workers ----------------------------------------------------

declare -A MPID MPORT URL
# master NAME SESSION_MS DIR [ARGS]: a candidate on its own fixed ports
# (the same across restarts, so that the list of URLs stays the same).
master() {
    local n=$1 s=$2 dir=$3
    shift 3
    [ -n "${MPORT[$n]:-}" ] || MPORT[$n]=$(zk_free_port)
    rm -f "$T/$n.ready"
    "$bin/hearth-master" --port "${MPORT[$n]}" --events-port 0 \
        --ready-file "$T/$n.ready" --journal "$T/$n.journal" \
        --zookeeper "127.0.0.1:$zkp" --zookeeper-dir "$dir" \
        --zookeeper-session "${s}ms" --recovery-timeout "${rec_timeout_ms}ms" \
        --heartbeat-interval "${interval_ms}ms" \
        --log-level info "$@" >>"$T/$n.log" 2>&1 &
    MPID[$n]=$!
    PIDS+=($!)
    wait_file "$T/$n.ready" 10 || die "master $n did not start"
    URL[$n]=$(sed -n 1p "$T/$n.ready")
}
lines() { wc -l <"$1"; }
# grew FILE N PATTERN: FILE has a line matching PATTERN past its line N.
grew() { tail -n "+$(($2 + 1))" "$1" | grep -q "$3"; }
# standby NAME SESSION DIR: start NAME and wait until it holds the
# leader's snapshot (it is then a standby worth failing over to).
standby() {
    local n0=0
    [ -f "$T/$1.log" ] && n0=$(lines "$T/$1.log")
    master "$@"
    wait_for 20 grew "$T/$1.log" "$n0" "the leader's state is in journal" ||
        die "master $1 did not follow the leader"
}
# leader NAME SESSION DIR: start NAME and wait until it leads.
leader() {
    local n0=0
    [ -f "$T/$1.log" ] && n0=$(lines "$T/$1.log")
    master "$@"
    wait_for 20 grew "$T/$1.log" "$n0" "LEADER with epoch" || die "master $1 does not lead"
}
stop() { # NAME SIGNAL: stop a master and reap it
    kill "-$2" "${MPID[$1]}" 2>/dev/null
    wait "${MPID[$1]}" 2>/dev/null
}
declare -A WPID
worker() { # NAME CORES MASTERS
    rm -f "$T/$1.ready"
    HEARTH_BIN_DIR="$T/bin" "$bin/hearth-worker" --master "$3" \
        --work-dir "$T/$1" --ready-file "$T/$1.ready" --cores "$2" \
        --memory 1G --log-level info >>"$T/$1.log" 2>&1 &
    WPID[$1]=$!
    PIDS+=($!)
    wait_file "$T/$1.ready" 20 || die "worker $1 did not register"
}
other() { [ "$1" = a ] && echo b || echo a; }
# cpu_ticks PID: its user + system CPU so far, in clock ticks.
cpu_ticks() {
    local stat
    stat=$(cat "/proc/$1/stat")
    set -- ${stat##*) }
    echo $((${12} + ${13}))
}

# --- failover time ----------------------------------------------------------

# trials KEY SESSION_MS SIGNAL: $trials failovers; each trial's accept
# time in $T/KEY.ms.
run_trials() {
    local key=$1 s=$2 sig=$3 dir=/bench-$1 cur=a i out
    rm -rf "$T"/?.journal # a new leader with nothing to recover
    leader a "$s" "$dir"
    standby b "$s" "$dir"
    list="${URL[a]},${URL[b]}"
    for w in w1 w2; do worker $w 2 "$list"; done
    : >"$T/$key.ms"
    for ((i = 0; i < trials; i++)); do
        # (the shell's notice of the killed master goes to the notices)
        { out=$("$bdir/bench-haprobe" --masters "$list" --kill "${MPID[$cur]}" \
            --signal "$sig" --timeout-ms $((s + 30000)) 2>"$T/probe.err") &&
            wait "${MPID[$cur]}"; } 2>>"$T/notices"
        [ -n "$out" ] || die "$key trial $i: no master accepted a submission: $(cat "$T/probe.err")"
        [[ $out == *"url=${URL[$(other $cur)]}"* ]] ||
            die "$key trial $i: accepted by $out, not the standby"
        echo "${out#accept_ms=}" | cut -d' ' -f1 >>"$T/$key.ms"
        standby "$cur" "$s" "$dir"
        cur=$(other $cur)
    done
    stop a TERM
    stop b TERM
    for w in w1 w2; do kill -TERM "${WPID[$w]}"; wait "${WPID[$w]}" 2>/dev/null; done
}
# pct FILE Q: the Q-quantile (nearest rank) of the numbers in FILE.
pct() {
    sort -g "$1" | awk -v q="$2" '{ v[NR] = $1 }
        END { r = int(q * NR + 0.999999); if (r < 1) r = 1; print v[r] }'
}
report() { # KEY: p50, p95 and max of the trials
    local f=$T/$1.ms
    stats "$1.all_ms" ms $(cat "$f")
    echo "FIGURE $1.p50_ms $(pct "$f" 0.5) $(pct "$f" 0.5) $(pct "$f" 0.5) ms $(lines "$f")"
    echo "FIGURE $1.p95_ms $(pct "$f" 0.95) $(pct "$f" 0.95) $(pct "$f" 0.95) ms $(lines "$f")"
    echo "FIGURE $1.max_ms $(pct "$f" 1) $(pct "$f" 1) $(pct "$f" 1) ms $(lines "$f")"
}
for s in ${sessions//,/ }; do
    run_trials "fo.kill$s" "$s" 9
    report "fo.kill$s"
done
run_trials fo.term "${sessions%%,*}" 15
report fo.term

# --- recovery: from the election to ALIVE -----------------------------------

# One driver with a task of 120 s on one core, then per trial kill -9 of
# the leader (2 s sessions), a one-task job submitted at once, and the
# new leader's "recovery done in N ms (why)".
echo '{"name": "one", "stages": [{"name": "s", "tasks": [{"cmd": ["true"]}]}]}' >"$T/one.json"
echo '{"name": "long", "stages": [{"name": "s", "tasks": [{"cmd": ["sleep", "120"]}]}]}' >"$T/long.json"
dir=/bench-rec
rm -rf "$T"/?.journal
leader a "$rec_session" $dir
standby b "$rec_session" $dir
list="${URL[a]},${URL[b]}"
for w in w1 w2 w3 w4; do worker $w 2 "$list"; done
"$bin/hearth-submit" --master "$list" --total-executor-cores 1 \
    --log-level info "$T/long.json" >/dev/null 2>"$T/long.err" &
PIDS+=($!)
wait_for 20 grep -q "executor .* granted" "$T/long.err" || die "the long job has no executor"
: >"$T/rec.tsv"
cur=a
# recover GONE: a trial; GONE a worker killed with the leader, or "".
recover() {
    local new n0 out job t0 ok
    new=$(other $cur)
    n0=$(lines "$T/$new.log")
    [ -n "$1" ] && kill -9 "${WPID[$1]}"
    t0=$(date +%s%3N)
    { "$bdir/bench-haprobe" --masters "$list" --kill "${MPID[$cur]}" \
        --signal 9 --timeout-ms 30000 >/dev/null 2>"$T/probe.err"
        ok=$?
        wait "${MPID[$cur]}"; } 2>>"$T/notices"
    ((ok == 0)) || die "recovery: nobody accepted: $(cat "$T/probe.err")"
    "$bin/hearth-submit" --master "$list" "$T/one.json" >/dev/null 2>"$T/one.err" ||
        die "recovery: the one-task job failed: $(tail -3 "$T/one.err")"
    job=$(($(date +%s%3N) - t0))
    wait_for $((rec_timeout_ms / 1000 + 10)) grew "$T/$new.log" "$n0" "recovery done in" ||
        die "recovery: $new never ended its recovery"
    out=$(tail -n "+$((n0 + 1))" "$T/$new.log" | grep -m1 "recovery done in")
    [[ $out =~ "recovery done in "([0-9]+)" ms ("([^\)]*)")" ]] || die "recovery: cannot read: $out"
    printf '%s\t%s\t%s\n' "${BASH_REMATCH[1]}" "$job" "${BASH_REMATCH[2]}" >>"$T/rec.tsv"
    say "recovery ${BASH_REMATCH[1]} ms (${BASH_REMATCH[2]}); one-task job at the kill done after $job ms"
    standby "$cur" "$rec_session" $dir
    cur=$new
}
for ((i = 0; i < rec_trials; i++)); do recover ""; done
# a figure that is not what it says is a failure, not a figure
cut -f3 "$T/rec.tsv" | grep -qv "every worker and driver is back" &&
    die "a recovery with every peer alive ended otherwise: $(cat "$T/rec.tsv")"
stats fo.rec.all_back_ms ms $(cut -f1 "$T/rec.tsv")
stats fo.rec.job_ms ms $(cut -f2 "$T/rec.tsv")
: >"$T/rec.tsv"
{ recover w4; } 2>>"$T/notices"
grep -q "recovery deadline passed" "$T/rec.tsv" ||
    die "with a worker gone the recovery did not end at the deadline: $(cat "$T/rec.tsv")"
stats fo.rec.worker_gone_ms ms $(cut -f1 "$T/rec.tsv")
stats fo.rec.worker_gone_job_ms ms $(cut -f2 "$T/rec.tsv")
stats fo.rec.timeout_ms ms "$rec_timeout_ms"
stop a TERM
stop b TERM

# --- the no-op task rate with and without standbys --------------------------

# tp CONFIG ROUND: masters for CONFIG (single, ha1, ha2), two one-core
# workers, one bench-driver throughput run; everything stopped after.
tp() {
    local c=$1 r=$2 url masters=()
    case $c in
    single)
        rm -f "$T/s.ready"
        "$bin/hearth-master" --port 0 --events-port 0 --ready-file "$T/s.ready" \
            --log-level warn >>"$T/s.log" 2>&1 &
        MPID[s]=$!
        PIDS+=($!)
        wait_file "$T/s.ready" 10 || die "the single master did not start"
        url=$(sed -n 1p "$T/s.ready")
        masters=(s)
        ;;
    ha*)
        leader a 6000 "/bench-tp-$c-$r"
        url=${URL[a]}
        masters=(a)
        standby b 6000 "/bench-tp-$c-$r"
        masters+=(b)
        if [ "$c" = ha2 ]; then
            standby c 6000 "/bench-tp-$c-$r"
            masters+=(c)
        fi
        ;;
    esac
    worker t1 1 "$url"
    worker t2 1 "$url"
    local cpu0 j0=0
    cpu0=$(cpu_ticks "${MPID[${masters[0]}]}")
    [ "$c" != single ] && j0=$(du -sb "$T/b.journal" | cut -f1)
    "$bdir/bench-driver" throughput --master "$url" --lib "$bdir/libbenchtasks.so" \
        --reps 3 --tasks "$tp_tasks" --key "fo.tp.$c.$r" >"$T/tp.out" ||
        die "bench-driver throughput on $c failed"
    grep '^#' "$T/tp.out"
    cat "$T/tp.out" >>"$T/tp.fig"
    # why a standby costs tasks nothing: the leader's CPU over the run,
    # and what the standby's journal got meanwhile
    echo "cpu $c $(($(cpu_ticks "${MPID[${masters[0]}]}") - cpu0))" >>"$T/tp.fig"
    [ "$c" != single ] &&
        echo "journal $c $(($(du -sb "$T/b.journal" | cut -f1) - j0))" >>"$T/tp.fig"
    for w in t1 t2; do kill -TERM "${WPID[$w]}"; wait "${WPID[$w]}" 2>/dev/null; done
    for m in "${masters[@]}"; do stop "$m" TERM; done
    rm -rf "$T/a.journal" "$T/b.journal" "$T/c.journal"
}
: >"$T/tp.fig"
rm -rf "$T"/?.journal
for ((r = 1; r <= tp_rounds; r++)); do
    for c in single ha1 ha2; do tp $c $r; done
done
((tp_rounds > 0)) || exit 0
hz=$(getconf CLK_TCK)
for c in single ha1 ha2; do
    stats "fo.tp.$c.master_cpu_s" s $(awk -v c="$c" -v hz="$hz" '$1 == "cpu" && $2 == c { print $3 / hz }' "$T/tp.fig")
done
for c in ha1 ha2; do
    stats "fo.tp.$c.standby_journal_bytes" B $(awk -v c="$c" '$1 == "journal" && $2 == c { print $3 }' "$T/tp.fig")
done
rate() { awk -v k="^fo\\.tp\\.$1\\.$2\\.tasks_per_s$" '$2 ~ k { print $3 }' "$T/tp.fig"; }
for c in single ha1 ha2; do
    stats "fo.tp.$c.tasks_per_s" tasks/s $(for ((r = 1; r <= tp_rounds; r++)); do rate $c $r; done)
done
for c in ha1 ha2; do # each round's own ratio (the load moves between rounds)
    stats "fo.tp.$c.ratio" ratio $(for ((r = 1; r <= tp_rounds; r++)); do
        div "$(rate $c $r)" "$(rate single $r)"
        echo
    done)
done
