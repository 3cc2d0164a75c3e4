#!/usr/bin/env bash
# bench-apps.sh - a thousand applications (issue 19's fourth, benchmark 26;
# docs/performance.md "A thousand applications"), run by run-bench.sh
# (group apps): one master, a few real workers, and --apps real
# hearth-driver processes started evenly over --seconds, each a small
# two-stage job of command tasks on one 1-core executor:
#
#   - apps.exact: the drivers that exited 0 with their own exact output
#     (the second stage's sort of the first's lines, which name the
#     application), out of --apps;
#   - apps.errors: ERROR replies and failed tasks in the logs (target 0);
#   - apps.reg_rtt_ms (and .p99): each driver's registration round trip,
#     REGISTER_APPLICATION to REGISTERED_APPLICATION, as its log says it
#     (target p99 <= 20 ms);
#   - apps.master_cpu_cores: the master's CPU time over the run's wall
#     time (target <= 0.3 core);
#   - apps.wall_s: from the first driver's start to the last one's
#     exit, against the --seconds the starts are spread over;
#   - apps.cpu_pressure: the share of the run's wall time during which
#     some runnable process waited for a CPU (/proc/pressure/cpu, "some"),
#     what a registration round trip's tail is made of when the master
#     itself is idle (not printed without pressure stall information);
#   - apps.master_wake_wait_ms: the master's main thread's mean wait
#     for a CPU each time it became runnable (/proc/PID/schedstat), its
#     share of any round trip;
#   - apps.fifo_out_of_order: applications whose first executor was
#     launched before that of an application registered earlier (the
#     allocator's order between applications is FIFO: docs/cluster.md
#     "Allocation"; each asks for one core, so any order but FIFO's
#     shows), target 0.  Half the drivers run their jobs with
#     scheduler-mode FAIR in two pools, half FIFO: both give the same
#     exact output.
#
# Prints FIGURE lines (key median min max unit n).  Environment:
# HEARTH_BIN_DIR (the build).
set -u
. "$(dirname "$0")/benchlib.sh"
bin=${HEARTH_BIN_DIR:?HEARTH_BIN_DIR must name the build directory}
apps=1000 seconds=60 workers=4 cores=2
while [ $# -gt 0 ]; do
    case $1 in
    --apps) apps=$2; shift ;;
    --seconds) seconds=$2; shift ;;
    --workers) workers=$2; shift ;;
    --cores) cores=$2; shift ;;
    *) echo "bench-apps: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done

bench_scratch apps
mkdir -p "$T/bin" "$T/jobs" "$T/out"
for p in hearth-master hearth-worker hearth-executor hearth-driver; do
    ln -sf "$bin/$p" "$T/bin/$p"
done

"$bin/hearth-master" --port 0 --events-port 0 --ready-file "$T/master.ready" \
    --log-level info >"$T/master.log" 2>&1 &
master=$!
pids+=($master)
wait_file "$T/master.ready" 10 || { echo "bench-apps: no master" >&2; exit 1; }
url=$(sed -n 1p "$T/master.ready")
for ((w = 0; w < workers; w++)); do
    HEARTH_BIN_DIR="$T/bin" "$bin/hearth-worker" --master "$url" \
        --work-dir "$T/w$w" --ready-file "$T/w$w.ready" --cores "$cores" \
        --memory 2G --log-level warn >"$T/w$w.log" 2>&1 &
    pids+=($!)
done
for ((w = 0; w < workers; w++)); do
    wait_file "$T/w$w.ready" 20 || { echo "bench-apps: worker $w did not register" >&2; exit 1; }
done

# job N: application N's job file; its output is "N.0 N.1 N.2 ".  An
# odd N runs with --scheduler-mode FAIR, its first stage in a pool.
job() {
    local pools=
    (($1 % 2)) && pools=', "pool": "p'$(($1 % 4))'"'
    cat >"$T/jobs/$1.json" <<JOB
{"name": "app$1", "stages": [
  {"name": "s"$pools, "tasks": [{"cmd": ["sh", "-c", "echo $1.{i}"], "count": 3}]},
  {"name": "t", "tasks": [{"cmd": ["sh", "-c", "sort | tr '\\\\n' ' '"], "input": "s"}]}]}
JOB
}
for ((i = 0; i < apps; i++)); do job $i; done

read -r _ _ _ _ _ _ _ _ _ _ _ _ _ ut0 st0 _ <"/proc/$master/stat"
psi_total() { sed -n 's/^some .*total=\([0-9]*\)$/\1/p' /proc/pressure/cpu 2>/dev/null; }
psi0=$(psi_total)
read -r _ wait0 wakes0 <"/proc/$master/schedstat" # ns on a CPU, ns waiting, slices
start_ns=$(date +%s%N)
gap_ns=$((seconds * 1000000000 / apps))
drivers=()
for ((i = 0; i < apps; i++)); do
    mode=FIFO
    ((i % 2)) && mode=FAIR
    "$bin/hearth-driver" --master "$url" --scheduler-mode $mode --executor-cores 1 \
        --total-executor-cores 1 --executor-memory 128M --log-level info \
        "$T/jobs/$i.json" >"$T/out/$i" 2>"$T/out/$i.err" &
    drivers+=($!)
    # the next start is due at (i + 1) * gap from the start
    due=$((start_ns + (i + 1) * gap_ns)) now=$(date +%s%N)
    ((due > now)) && read -r -t "$(printf '%d.%09d' $(((due - now) / 1000000000)) $(((due - now) % 1000000000)))" -u "$BENCH_NAP" _
done
exact=0
for ((i = 0; i < apps; i++)); do
    wait "${drivers[$i]}" && [ "$(cat "$T/out/$i")" = "$i.0 $i.1 $i.2 " ] &&
        exact=$((exact + 1))
done
wall_ns=$(($(date +%s%N) - start_ns))
psi1=$(psi_total)
read -r _ wait1 wakes1 <"/proc/$master/schedstat"
read -r _ _ _ _ _ _ _ _ _ _ _ _ _ ut1 st1 _ <"/proc/$master/stat"
hz=$(getconf CLK_TCK)

# registration round trips, ms, as each driver logged them
rtts=$(cat "$T/out/"*.err | sed -n 's/.* registered with .* (round trip \([0-9.]*\) ms)$/\1/p')
errors=$(cat "$T/out/"*.err "$T/master.log" | grep -c -E ' ERROR |failed [0-9]+ time|job failed' || true)
# FIFO: the order of the applications' first executors against that of
# their registrations (the master's log is in the order it did both)
awk '/application app-.* registered by / { for (f = 1; f <= NF; f++) if ($f ~ /^app-/) { a = $f; break }
                                     reg[a] = ++nreg }
     /launching executor app-/ { split($0, p, "launching executor "); split(p[2], q, "/")
                                 if (!(q[1] in first)) { first[q[1]] = 1; print reg[q[1]] } }' \
    "$T/master.log" >"$T/first-order"
fifo_bad=$(awk 'NR > 1 && $1 < max { bad++ } $1 > max { max = $1 } END { print bad + 0 }' "$T/first-order")

echo "# $apps applications over ${seconds}s on $workers workers of $cores cores"
echo "FIGURE apps.exact $exact $exact $exact apps 1"
echo "FIGURE apps.errors $errors $errors $errors lines 1"
stats apps.reg_rtt_ms ms $rtts
p99=$(printf '%s\n' $rtts | sort -g | awk '{ v[NR] = $1 } END { i = int(NR * 0.99 + 0.999); if (i < 1) i = 1; print v[i] + 0 }')
echo "FIGURE apps.reg_rtt_p99_ms $p99 $p99 $p99 ms 1"
cpu=$(awk -v t=$((ut1 + st1 - ut0 - st0)) -v hz="$hz" -v w="$wall_ns" 'BEGIN { printf "%.4f", t / hz / (w / 1e9) }')
echo "FIGURE apps.master_cpu_cores $cpu $cpu $cpu cores 1"
echo "FIGURE apps.fifo_out_of_order $fifo_bad $fifo_bad $fifo_bad apps 1"
seen=$(grep -c . "$T/first-order")
echo "FIGURE apps.fifo_checked $seen $seen $seen apps 1"
wall=$(awk -v w="$wall_ns" 'BEGIN { printf "%.1f", w / 1e9 }')
echo "FIGURE apps.wall_s $wall $wall $wall s 1"
if [ -n "$psi0" ] && [ -n "$psi1" ]; then # stall time in µs, wall in ns
    psi=$(awk -v p=$((psi1 - psi0)) -v w="$wall_ns" 'BEGIN { printf "%.3f", p * 1000 / w }')
    echo "FIGURE apps.cpu_pressure $psi $psi $psi share 1"
fi
mwait=$(awk -v w=$((wait1 - wait0)) -v n=$((wakes1 - wakes0)) 'BEGIN { printf "%.3f", n ? w / n / 1e6 : 0 }')
echo "FIGURE apps.master_wake_wait_ms $mwait $mwait $mwait ms 1"
# a benchmark whose jobs did not all give their output measured nothing
if ((exact < apps)); then
    echo "bench-apps: $((apps - exact)) of $apps applications failed or gave a wrong output; the first:" >&2
    for ((i = 0; i < apps; i++)); do
        [ "$(cat "$T/out/$i")" = "$i.0 $i.1 $i.2 " ] && continue
        echo "output: '$(cat "$T/out/$i")'" >&2; tail -5 "$T/out/$i.err" >&2; break
    done
    exit 1
fi
