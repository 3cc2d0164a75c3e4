#!/usr/bin/env bash
# The benchmark programs still work: each runs once at a tiny size (under
# whatever build this is, sanitizers included) and prints its FIGURE
# lines.  No figure is judged here: `make bench` measures (run-bench.sh).
set -u
: "${HEARTH_BIN_DIR:?HEARTH_BIN_DIR must name the build directory}"
B=$HEARTH_BIN_DIR/tests/bench
LIB=$B/libbenchtasks.so
T=$(mktemp -d "${TMPDIR:-/tmp}/hearth-bench-smoke.XXXXXX")
trap 'rm -rf "$T"' EXIT
export TMPDIR=$T
passed=0 failed=0

# runs NAME KEY... -- COMMAND...: COMMAND exits 0 and prints a FIGURE line
# for every KEY.
runs() {
  local name=$1 keys=() k ok=1 start=$SECONDS
  shift
  while [[ $1 != -- ]]; do keys+=("$1"); shift; done
  shift
  if ! timeout 120 "$@" >"$T/out" 2>"$T/err"; then
    ok=0
    echo "$name: exit status $?"; tail -5 "$T/err"
  fi
  for k in "${keys[@]}"; do
    grep -q "^FIGURE $k " "$T/out" || { ok=0; echo "$name: no figure $k"; }
  done
  # the seconds each took: this test is among the suite's longest
  if ((ok)); then
    passed=$((passed + 1)); echo "ok - $name ($((SECONDS - start)) s)"
  else
    failed=$((failed + 1)); echo "not ok - $name ($((SECONDS - start)) s)"
  fi
}

runs bench-zmq zmq.rtt64.p50 zmq.oneway64 zmq.json200 -- \
  "$B/bench-zmq" --reps 1 --rtt-count 200 --count 2000 --json-count 2000
runs "bench-driver throughput" smoke.tp.tasks_per_s -- \
  "$B/bench-driver" throughput --master 'local[2]' --lib "$LIB" --reps 1 \
  --tasks 2000 --key smoke.tp
runs bench-evlog smoke.evlog.engine_ns_per_task smoke.evlog.writer_ns_per_task -- \
  "$B/bench-evlog" --dir "$T/evlog" --tasks 20000 --reps 1 --key smoke.evlog
runs "bench-driver latency" smoke.lat.p50 smoke.lat.rtt64_p50 -- \
  "$B/bench-driver" latency --master 'local-cluster[2,1,512]' --lib "$LIB" \
  --reps 1 --jobs 50 --key smoke.lat
runs "bench-driver commands" smoke.cmd.commands_per_s smoke.cmd.ratio -- \
  "$B/bench-driver" commands --master 'local[2]' --lib "$LIB" --reps 1 \
  --tasks 50 --cores 2 --key smoke.cmd
runs "bench-driver sleep" smoke.sleep.efficiency -- \
  "$B/bench-driver" sleep --master 'local[2]' --lib "$LIB" --reps 1 \
  --tasks 20 --ms 10 --cores 2 --key smoke.sleep
echo '{"name": "one", "stages": [{"name": "s", "tasks": [{"fn": "noop"}]}]}' \
  >"$T/one.json"
runs bench-startup smoke.start -- "$B/bench-startup" --reps 1 \
  --key smoke.start -- "$HEARTH_BIN_DIR/hearth-submit" --master 'local[2]' \
  --lib "$LIB" "$T/one.json"
runs bench-master master.100.cpu master.100.state master.100.death_ms master.alloc_pass -- \
  "$B/bench-master" --workers 100 --reps 1 --window-ms 500 --app-life-ms 500

runs "bench-load clients" load.4.exact load.4.slowest_over_mean load.alone_ms -- \
  bash "$(dirname "$0")/bench-load.sh" clients --clients 4 --tasks 10 --seq 2
runs "bench-load flood" flood.master_rss_during_kb flood.job_during_ms -- \
  bash "$(dirname "$0")/bench-load.sh" flood --conns 20 --job-tasks 200
runs "bench-web" web.json.p99.100 web.metrics.p99.100 hb.idle.p99.100 \
  hb.web.p99.100 hb.ratio.100 web.cpu_ms.100 -- \
  bash "$(dirname "$0")/bench-web.sh" --levels 100 --secs 2 --rate 20 \
  --rounds 2
if command -v chromedriver >/dev/null && [[ -x /usr/lib/chromium/chromium ]]; then
  runs "bench-paint" web.paint.p50.100 web.paint.static.p50.100 \
    web.page.server.p50.100 -- \
    bash "$(dirname "$0")/bench-paint.sh" --levels 100 --loads 2
fi

# the shuffle's tools and benchmarks at 2 MB, 4 x 4 tasks (the wide one
# 20 x 20), every reducer's output checked by the benchmark itself
runs "bench-shuffle" shuffle.ref.mb_s shuffle.unsorted.ratio \
  shuffle.sort.mb_s shuffle.sorted.ratio shuffle.driver_rss_kb \
  shuffle.sorted.reducer_rss_kb shuffle.big.driver_rss_kb \
  shuffle.wide.growth_kb -- \
  bash "$(dirname "$0")/bench-shuffle.sh" --size 2000000 --big 4000000 \
  --maps 4 --reduces 4 --reps 1 --wide 20,20,200000

# hearth-history's benchmark: 50 logs, one of 2,000 task events, each
# listing and summary checked by the benchmark itself
runs "bench-history" history.list.cold_s history.list.warm_s \
  history.list.cat_s history.app.s history.app.wc_s -- \
  bash "$(dirname "$0")/bench-history.sh" --apps 50 --tasks 5 --events 2000 \
  --reps 1

# confinement beside none: where a worker can isolate, its figures; else
# it says why and prints iso.skipped (the key is a grep pattern)
runs "bench-isolation" 'iso\.\(skipped\|launch\.cost_us\)' -- \
  bash "$(dirname "$0")/bench-isolation.sh" --reps 1 --tasks 100 --launches 10
# a child joined to its cgroup v2 group beside one created there (or
# cgspawn.skipped, with why, without root or a cgroup2 hierarchy)
runs "bench-cgspawn" 'cgspawn\.\(skipped\|into_us\)' -- \
  "$B/bench-cgspawn" --reps 1 --gap-ms 20
runs "bench-jobfile" jf.parse_ms jf.fn.ratio jf.cmd.ratio -- \
  bash "$(dirname "$0")/bench-jobfile.sh" --reps 1 --fn-tasks 2000 --cmd-tasks 50
runs "bench-dynalloc" dyn.grow.fast_ms dyn.release.default_ms -- \
  bash "$(dirname "$0")/bench-dynalloc.sh" --reps 1 --workers 4 --tasks 40
runs "bench-apps" apps.exact apps.reg_rtt_p99_ms apps.master_cpu_cores apps.fifo_out_of_order apps.master_wake_wait_ms -- \
  bash "$(dirname "$0")/bench-apps.sh" --apps 6 --seconds 1 --workers 2 --cores 1
runs "bench-netns" 'net\.\(skipped\|lat\.curve\.p50\)' 'net\.\(skipped\|curve\.tasks_per_s\)' -- \
  bash "$(dirname "$0")/bench-netns.sh" --reps 1 --tasks 2000 --jobs 20 \
  --rtt-count 100 --count 2000 --json-count 2000
# benchmark 27 at its smallest: 24 parts of 1 MiB, 2 MiB shuffled, 3
# tasks (where namespaces cannot be made it says so: loc.skipped)
runs "bench-locality" 'loc\.\(skipped\|scan\.cross_share\)' 'loc\.\(skipped\|shuffle\.saved\)' 'loc\.\(skipped\|idle\.tail\)' -- \
  bash "$(dirname "$0")/bench-locality.sh" --reps 1 --scan-mib 24 \
  --shuffle-mib 2 --idle-tasks 3
# benchmark 28 at its smallest: 2 MB of points, 3 passes
runs "bench-persist" persist.speedup persist.ratio -- \
  bash "$(dirname "$0")/bench-persist.sh" --reps 1 --size 2000000 --passes 3 \
  --maps 2 --parts 2
# benchmark 29 at its smallest: 8 MiB to 8 executors on 4 hosts (where
# namespaces cannot be made it says so: bcast.skipped)
runs "bench-broadcast" 'bcast\.\(skipped\|egress_ratio\)' 'bcast\.\(skipped\|wall_ratio\)' -- \
  bash "$(dirname "$0")/bench-broadcast.sh" --reps 1 --mib 8 --rate 1gbit
# the failover benchmark at one trial of a 2 s session (no throughput
# rounds, 200 ms heartbeats): where ZooKeeper is missing it says so (fo.skipped)
runs "bench-failover" 'fo\.\(skipped\|kill2000\.p95_ms\)' 'fo\.\(skipped\|rec\.worker_gone_ms\)' -- \
  bash "$(dirname "$0")/bench-failover.sh" --trials 1 --sessions 2000 \
  --rec-trials 1 --interval-ms 200 --rec-timeout-ms 3000 --tp-rounds 0

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
