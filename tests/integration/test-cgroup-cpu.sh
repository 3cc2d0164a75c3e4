#!/usr/bin/env bash
# CPU quota, for real, in this machine's cgroup v1 cpu hierarchy (skipped,
# saying why, when not root or when there is none): a 1-core executor
# whose task busy-loops in two processes (two cores' worth of demand on
# this 2-core machine) uses at most 1.05 cores over 10 s, measured from
# its group's cpuacct.usage, under its quota (cpu.stat's periods).
# The figure is printed (docs/failures.md quotes it).
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
if [[ $(id -u) != 0 ]]; then
  echo "$TEST_NAME: SKIPPED: not root (cgroups need it here)"
  exit 77
fi
for c in cpu cpuacct; do
  if ! grep -q " - cgroup [^ ]* [^ ]*\\b$c\\b" /proc/self/mountinfo; then
    echo "$TEST_NAME: SKIPPED: no cgroup v1 $c hierarchy mounted"
    exit 77
  fi
done
deadline 90
export TMPDIR=$T

start_master || exit 1
CORES=2 MEMORY=2G start_worker w1 --isolation cgroup || exit 1
J=$(job spin '{"name":"spin","stages":[{"name":"spin","tasks":[
  {"cmd":["sh","-c","while :; do :; done & while :; do :; done"]}]}]}')
"$BIN/hearth-submit" --heartbeat-interval "${INTERVAL_MS}ms" \
  --heartbeat-liveness "$LIVENESS" --master "$MASTER_URL" --name spin \
  --executor-memory 128M --executor-cores 1 --total-executor-cores 1 "$J" \
  >"$T/out" 2>"$T/err" &
SUB=$!
PIDS+=($SUB)
running() {
  jq_state '[.apps[] | select(.name == "spin") | .progress.tasks_running] | .[0] == 1'
}
check "the busy task runs" wait_for 30 running
APP=$(state_json | jq -r '.apps[] | select(.name == "spin") | .id')
ACCT=$(find /sys/fs/cgroup/cpuacct/ -type d -path "*/hearth/$ID_w1.*/$APP-exec-0" | head -1)
CPU=$(find /sys/fs/cgroup/cpu/ -type d -path "*/hearth/$ID_w1.*/$APP-exec-0" | head -1)
check "its executor's groups are found ($CPU)" test -n "$ACCT" -a -n "$CPU"
QUOTA=$(cat "$CPU/cpu.cfs_quota_us" 2>/dev/null)
check "... with a quota of 1 core ($QUOTA us)" test -n "$QUOTA" -a \
  "$QUOTA" = "$(cat "$CPU/cpu.cfs_period_us" 2>/dev/null)"
sleep 1 # both loops started
LOOPS=$(test_pids sh)
# ticks: CPU time of the loops from /proc (utime + stime, clock ticks),
# the same figure with or without a group
ticks() {
  local p n=0
  for p in $LOOPS; do
    n=$((n + $(awk '{ print $14 + $15 }' "/proc/$p/stat" 2>/dev/null || echo 0)))
  done
  echo $n
}
u0=$(cat "$ACCT/cpuacct.usage" 2>/dev/null) k0=$(ticks) t0=$(date +%s%N)
sleep 10
u1=$(cat "$ACCT/cpuacct.usage" 2>/dev/null) k1=$(ticks) t1=$(date +%s%N)
CORES_USED=$(awk -v a="$u0" -v b="$u1" -v t=$((t1 - t0)) \
  'BEGIN { if (a == "" || b == "") print "none"; else printf "%.3f", (b - a) / t }')
PROC_CORES=$(awk -v k=$((k1 - k0)) -v hz="$(getconf CLK_TCK)" -v t=$((t1 - t0)) \
  'BEGIN { printf "%.3f", k / hz / (t / 1e9) }')
say "busy-looping 1-core executor: $CORES_USED cores over $(((t1 - t0) / 1000000)) ms (cpuacct.usage; /proc says $PROC_CORES)"
check "it used at most 1.05 cores by its group's cpuacct.usage ($CORES_USED)" \
  awk -v c="$CORES_USED" 'BEGIN { exit !(c != "none" && c <= 1.05) }'
check "... and by /proc ($PROC_CORES, $(echo $LOOPS | wc -w) loops)" \
  awk -v c="$PROC_CORES" 'BEGIN { exit !(c <= 1.05) }'
# (periods are counted only under a quota; whether it was throttled
# depends on how much CPU the machine's load left it)
check "... the quota enforced (cpu.stat: $(tr '\n' ' ' <"$CPU/cpu.stat"))" \
  awk '$1 == "nr_periods" { exit !($2 > 0) }' "$CPU/cpu.stat"
kill -TERM "$SUB"
wait "$SUB"
check "its loops are gone with it" wait_for 10 eval '[[ -z $(test_pids sh) ]]'
check "its groups are removed" wait_for 10 test ! -e "$CPU" -a ! -e "$ACCT"
finish
