#!/usr/bin/env bash
# Out-of-memory kills, for real, in this machine's cgroup v1 memory
# hierarchy (skipped, saying why, when not root or when there is none).
# A task that allocates 400 MiB in a 128 MiB executor (its cgroup's limit
# 128 + 64 MiB of overhead): its executor's whole group is killed; the
# worker reports OOM_KILLED with the limit and the group's peak; the
# driver prints "executor N on worker W killed: out of memory, limit 192
# MiB, peak P MiB"; hearth-tail's executor events and --state say it; the
# task runs again on other executors, kills each one, and its job fails
# after --max-failures (3) with that reason, not after --max-lost (1): the
# task is what kills its executors (issue 15).  The workers and another application's executor on
# the same workers run on unaffected, and no group of the killed
# executors is left.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
if [[ $(id -u) != 0 ]]; then
  echo "$TEST_NAME: SKIPPED: not root (cgroups need it here)"
  exit 77
fi
if ! grep -q ' - cgroup [^ ]* [^ ]*memory' /proc/self/mountinfo; then
  echo "$TEST_NAME: SKIPPED: no cgroup v1 memory hierarchy mounted"
  exit 77
fi
deadline 150
export TMPDIR=$T
MIB=$((1024 * 1024))

start_master || exit 1
CORES=2 MEMORY=2G start_worker w1 --isolation cgroup || exit 1
CORES=2 MEMORY=2G start_worker w2 --isolation cgroup || exit 1
check "worker w1 runs with cgroup v1 isolation" \
  grep -q 'isolation: cgroup v1 under ' "$T/w1.log"
"$BIN/hearth-tail" --master "$MASTER_URL" --full-ids --topic executor \
  >"$T/tail.out" 2>&1 &
PIDS+=($!)

# The neighbour: one executor whose task runs through the OOMs.
C=$(job calm '{"name":"calm","stages":[{"name":"calm","tasks":[
  {"cmd":["sh","-c","sleep 8; echo calm-done"]}]}]}')
"$BIN/hearth-submit" --heartbeat-interval "${INTERVAL_MS}ms" \
  --heartbeat-liveness "$LIVENESS" --master "$MASTER_URL" --name calm \
  --executor-memory 128M --total-executor-cores 1 "$C" \
  >"$T/calm.out" 2>"$T/calm.err" &
CALM=$!
PIDS+=($CALM)
check "the neighbour's executor runs" wait_for 20 jq_state \
  '[.apps[] | select(.name == "calm") | .executors[] | select(.state == "RUNNING")] | length == 1'

H=$(job hog '{"name":"hog","stages":[{"name":"hog","tasks":[
  {"cmd":["perl","-e","my $x = \"a\" x (400 * 1024 * 1024); print length($x), \"\\n\""]}]}]}')
HOG_START=$(date +%s%N)
"$BIN/hearth-submit" --heartbeat-interval "${INTERVAL_MS}ms" \
  --heartbeat-liveness "$LIVENESS" --master "$MASTER_URL" --name hog \
  --executor-memory 128M --executor-cores 1 --total-executor-cores 2 \
  --max-failures 3 --max-lost 1 --log-level info --event-log "$T/ev" "$H" \
  >"$T/hog.out" 2>"$T/hog.err"
HOG_RC=$?
say "the hog's job ended after $((($(date +%s%N) - HOG_START) / 1000000)) ms"
check "the hog's job fails (exit status $HOG_RC)" test "$HOG_RC" -ne 0
say "the hog's error: $(grep -m1 'task 0' "$T/hog.err")"
check "... after --max-failures 3, with the OOM as its last error" \
  grep -qE 'stage hog, task 0 failed 3 times; last error: executor [0-9]+ on worker [^ ]+ killed: out of memory, limit 192 MiB, peak [0-9]+ MiB' "$T/hog.err"
check "... not after --max-lost 1" \
  eval '! grep -q "lost with its executor" "$T/hog.err"'
LINE=$(grep -m1 -E 'executor [0-9]+ on worker [^ ]+ killed: out of memory, limit 192 MiB, peak [0-9]+ MiB' "$T/hog.err")
check "the driver prints the OOM kill: $LINE" test -n "$LINE"
PEAK_MIB=$(sed -n 's/.*peak \([0-9]*\) MiB.*/\1/p' <<<"$LINE")
check "... its peak ($PEAK_MIB MiB) is the group's, at its limit" \
  eval '((${PEAK_MIB:-0} >= 180 && ${PEAK_MIB:-0} <= 192))'
check "the driver saw 3 executors killed for memory" \
  test "$(grep -cE 'on worker [^ ]+ killed: out of memory' "$T/hog.err")" -ge 3
check "the executor loss says OOM_KILLED" \
  grep -q 'lost (OOM_KILLED: killed: out of memory, limit 192 MiB' "$T/hog.err"
check "the event log's executor_removed says OOM_KILLED, with the group's peak" \
  test "$(jq -c 'select(.event == "executor_removed" and (.reason|startswith("OOM_KILLED: killed: out of memory")) and .peak_rss_bytes >= 180 * 1048576)' "$T"/ev/*.events | wc -l)" -ge 3
check "the hog stage's failed attempts count the OOM kills (stage_end failed_attempts 3, as the progress display shows)" \
  test "$(jq -r 'select(.event == "stage_end" and .name == "hog") | .failed_attempts' "$T"/ev/*.events)" = 3
check "... and hearth-history lists those executors' exit reason" \
  eval '"$BIN/hearth-history" --dir "$T/ev" "$(jq -r .app_id "$T"/ev/*.events | head -1)" | grep -c "OOM_KILLED: killed: out of memory" | grep -qx "[3-9]"'
check "a worker logged the group killed at its limit" \
  grep -qh 'reached its memory limit: killing its cgroup' "$T/w1.log" "$T/w2.log"
check "hearth-tail's executor events show it" wait_for 5 \
  grep -q 'FAILED, 1 cores, killed: out of memory, limit 192 MiB, peak' "$T/tail.out"
check "--state: the application's last_oom has the limit and the peak" \
  jq_state '.apps[] | select(.name == "hog") | .last_oom |
    .memory_limit_bytes == 192 * 1048576 and .peak_rss_bytes >= 180 * 1048576
    and (.message | test("killed: out of memory"))'
check "--state text: the application's last OOM, limit and peak" \
  eval '"$BIN/hearth-tail" --master "$MASTER_URL" --state --timeout 3s |
    grep -q "last OOM: executor [0-9]* on .*: limit 192 MiB, peak [0-9]* MiB: .*killed: out of memory"'
check "both workers are alive" kill -0 "$PID_w1" "$PID_w2"
check "both workers still ALIVE at the master" jq_state \
  '[.workers[] | select(.state == "ALIVE")] | length == 2'
wait "$CALM"
check "the neighbour's job succeeds" test $? -eq 0
check "... its executor never failed" eval '! grep -q "out of memory" "$T/calm.err"'

# The accounting's peak of an executor that ends with its application is
# its group's (the sum at its highest), not its largest process's: two
# tasks of about 80 MiB each at once on one 2-core executor.
S=$(job sum '{"name":"sum","stages":[{"name":"sum","tasks":[
  {"cmd":["perl","-e","my $x = \"a\" x (40 * 1024 * 1024); my $y = $x . \"b\"; sleep 2; print length($y), \"\\n\""],"count":2}]}]}')
"$BIN/hearth-submit" --heartbeat-interval "${INTERVAL_MS}ms" \
  --heartbeat-liveness "$LIVENESS" --master "$MASTER_URL" --name sum \
  --executor-memory 512M --executor-cores 2 --total-executor-cores 2 \
  --event-log "$T/ev-sum" "$S" >"$T/sum.out" 2>"$T/sum.err"
check "two tasks of 80 MiB at once succeed" test "$(sort -u "$T/sum.out")" = 41943041
SUM_PEAK=$(jq -r 'select(.event == "executor_removed") | .peak_rss_bytes' "$T"/ev-sum/*.events)
say "the executor's peak in the event log: $((${SUM_PEAK:-0} / MIB)) MiB"
check "... its executor's peak in the event log is its group's sum (>= 150 MiB)" \
  test "${SUM_PEAK:-0}" -ge $((150 * MIB))

# Nothing of the killed executors' groups is left.
groups_left() {
  find /sys/fs/cgroup/*/ -mindepth 1 -type d \
    \( -path "*/hearth/$ID_w1.*/app-*" -o -path "*/hearth/$ID_w2.*/app-*" \) \
    2>/dev/null | grep -c . || true
}
check "no executor group left once their executors end" \
  wait_for 10 eval '[[ $(groups_left) == 0 ]]'
finish
