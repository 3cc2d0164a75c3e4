#!/usr/bin/env bash
# Chaos (docs/failures.md): a job of 2,000 short command tasks on a master
# and 3 workers, while a bounded loop kills (kill -9) a random executor or
# a random worker every 2 seconds and starts killed workers again on their
# work dirs.  The job succeeds, its output is exactly the expected one
# (each result once, in order, although some tasks ran more than once),
# and no process of the test is left.  CHAOS_SEED=N replays a run.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 240
export TMPDIR=$T
SEED=${CHAOS_SEED:-$((RANDOM))}
RANDOM=$SEED
ROUNDS=15       # at most this many kills
PERIOD=2        # seconds between kills
WORKERS=(w1 w2 w3)
say "seed $SEED"

# Chaos kills executors on purpose: do not count them as an application
# whose executors crash in a loop (--max-executor-retries).
start_master --max-executor-retries 100 || exit 1
for w in "${WORKERS[@]}"; do CORES=2 start_worker "$w" || exit 1; done

N=2000
J=$(job chaos "{\"name\":\"chaos\",\"stages\":[{\"name\":\"s\",\"tasks\":[
  {\"cmd\":[\"sh\",\"-c\",\"sleep 0.03; echo {i} >>$T/runs; echo {i}\"],
   \"count\":$N}]}]}")
seq 0 $((N - 1)) >"$T/expected"
t0=$(now_ms)
submit --master "$MASTER_URL" --log-level info "$J" &
SUB=$!
PIDS+=($SUB)
wait_for 30 executors_running || fail "executors start"

alive_workers() {
  local w pid_var
  for w in "${WORKERS[@]}"; do
    pid_var=PID_$w
    kill -0 "${!pid_var}" 2>/dev/null && echo "$w"
  done
}
DOWN=()   # workers killed, to start again next round
kills=0 worker_kills=0
for ((round = 0; round < ROUNDS; round++)); do
  sleep "$PERIOD"
  kill -0 "$SUB" 2>/dev/null || break
  for w in "${DOWN[@]}"; do
    CORES=2 start_worker "$w" >/dev/null || fail "worker $w starts again"
  done
  DOWN=()
  mapfile -t up < <(alive_workers)
  # every third kill a worker (the second one among them included), the
  # others an executor, so that both kinds happen in every run
  if ((kills % 3 == 1 && ${#up[@]} > 1)); then
    w=${up[RANDOM % ${#up[@]}]}
    pid_var=PID_$w
    kill9 "${!pid_var}"
    DOWN+=("$w")
    worker_kills=$((worker_kills + 1))
    say "round $round: killed worker $w"
  else
    mapfile -t execs < <(test_pids hearth-executor)
    ((${#execs[@]})) || continue
    victim=${execs[RANDOM % ${#execs[@]}]}
    kill -9 "$victim" 2>/dev/null
    say "round $round: killed executor pid $victim"
  fi
  kills=$((kills + 1))
done
wait "$SUB"
rc=$?
took=$(($(now_ms) - t0))
check "the job succeeds under chaos ($kills kills, $worker_kills of workers, in $took ms)" \
  test $rc -eq 0
check "... with exactly its output: each of the $N results once, in order" \
  same "$T/out" "$T/expected"
check "at least 3 kills happened during the job" test "$kills" -ge 3
check "... of them at least one of a worker" test "$worker_kills" -ge 1
reruns=$(sort -n "$T/runs" | uniq -d | wc -l)
say "$reruns tasks ran more than once; $(grep -c 'executor [0-9]* lost' "$T/err") executors lost at the driver, $(grep -c 'trying again' "$T/err") attempts re-queued"
check "every task ran at least once" test "$(sort -nu "$T/runs" | wc -l)" -eq "$N"

for w in "${DOWN[@]}"; do CORES=2 start_worker "$w" >/dev/null; done
for w in "${WORKERS[@]}"; do pid_var=PID_$w; kill -TERM "${!pid_var}" 2>/dev/null; done
for w in "${WORKERS[@]}"; do pid_var=PID_$w; wait "${!pid_var}" 2>/dev/null; done
kill -TERM "$MASTER_PID"
wait "$MASTER_PID"
check "no process of the test is left" wait_for 5 no_leftovers
finish
