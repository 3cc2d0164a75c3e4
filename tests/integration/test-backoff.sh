#!/usr/bin/env bash
# Workers and drivers outlive a master outage without hammering it
# (docs/failures.md): once the master is silent they register again at
# back-off, one interval, then twice that and so on, the worker up to its
# --reconnect-max; the job goes on meanwhile, and when the master is back
# both register within one back-off step.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 90
export TMPDIR=$T
CAP_MS=1000   # the worker's --reconnect-max
DOWN_S=5      # how long the master stays down
SLACK=250

start_master || exit 1
CORES=2 start_worker w1 --reconnect-max "${CAP_MS}ms" || exit 1

N=240
J=$(job steady "{\"name\":\"steady\",\"stages\":[{\"name\":\"s\",\"tasks\":[
  {\"cmd\":[\"sh\",\"-c\",\"sleep 0.1; echo {i}\"], \"count\":$N}]}]}")
seq 0 $((N - 1)) >"$T/expected"
submit --master "$MASTER_URL" --log-level info "$J" &
SUB=$!
PIDS+=($SUB)
running() { jq_state '[.apps[] | select(.state == "RUNNING")] | length == 1'; }
check "a job runs" wait_for 30 running

kill9 "$MASTER_PID"
t_kill=$(now_ms)
sleep "$DOWN_S"
PORT=$MASTER_PORT start_master || exit 1
t_back=$(now_ms)

# ms stamps of the log lines of FILE matching PATTERN, after the kill
stamps() {
  grep -h -- "$2" "$1" | cut -d' ' -f1 | while read -r s; do
    date -d "$s" +%s%3N
  done | awk -v t="$t_kill" '$1 >= t'
}
gaps() { awk 'NR > 1 { print $1 - prev } { prev = $1 }'; }

back() { [[ $(stamps "$T/w1.log" 'registered with' | wc -l) -ge 1 ]]; }
check "the worker registers again once the master is back" wait_for 10 back
took=$(($(stamps "$T/w1.log" 'registered with' | head -1) - t_back))
say "worker registered ${took} ms after the master came back"
check "... within one back-off step (${took} ms <= $CAP_MS ms)" \
  test "$took" -le $((CAP_MS + SLACK))

stamps "$T/w1.log" 'registering with' | awk -v t="$t_back" '$1 < t' \
  >"$T/worker.tries"
gaps <"$T/worker.tries" >"$T/worker.gaps"
say "worker: $(wc -l <"$T/worker.tries") attempts while the master was down, gaps: $(tr '\n' ' ' <"$T/worker.gaps")ms"
check "the worker tried again while the master was down" \
  test "$(wc -l <"$T/worker.tries")" -ge 3
check "... each wait no shorter than the last" \
  awk -v s=$SLACK 'NR > 1 && $1 < prev - s { bad = 1 } { prev = $1 }
    END { exit bad }' "$T/worker.gaps"
check "... growing past the interval" \
  awk -v i="$INTERVAL_MS" -v s=$SLACK '$1 > 2 * i + s { ok = 1 } END { exit !ok }' \
  "$T/worker.gaps"
check "... never past --reconnect-max" \
  awk -v c=$CAP_MS -v s=$SLACK '$1 > c + s { bad = 1 } END { exit bad }' \
  "$T/worker.gaps"
check "... not hammering the master (an interval each would be $((DOWN_S * 1000 / INTERVAL_MS)) tries)" \
  test "$(wc -l <"$T/worker.tries")" -le $((DOWN_S + 2))

grep -o 'next attempt in [0-9]* ms' "$T/err" | grep -o '[0-9]*' >"$T/driver.steps"
say "driver: next attempts in $(tr '\n' ' ' <"$T/driver.steps")ms"
check "the driver registers again at doubling steps" \
  awk -v i="$INTERVAL_MS" 'NR == 1 && $1 != i { bad = 1 }
    NR > 1 && $1 != 2 * prev { bad = 1 } { prev = $1 }
    END { exit bad || NR < 3 }' "$T/driver.steps"
check "... and again once the master is back" \
  wait_for 10 grep -q "registered again with" "$T/err"

wait "$SUB"
check "the job succeeds" test $? -eq 0
check "... with exactly its output" same "$T/out" "$T/expected"
finish
