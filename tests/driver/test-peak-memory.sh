#!/usr/bin/env bash
# An executor's peak memory travels from its worker to its driver (issue
# 16's accounting): the worker reaps it with wait4 and reports ru_maxrss
# (EXECUTOR_STATE_CHANGED peak_rss_bytes), the master forwards it
# (EXECUTOR_UPDATED), the driver keeps it on its executor record and logs
# it.  A task that allocates and touches 200 MiB on a 1-executor cluster:
# the figure the driver gets is at least 200 MiB and below 1 GiB.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 120
export TMPDIR=$T
MIB=$((1024 * 1024))

start_master || exit 1
CORES=1 MEMORY=2G start_worker w1 || exit 1

# Stage big: one command task holding 200 MiB of touched memory (a perl
# string of 200 Mi 'a's), then exiting: its executor reaps it.  Stage
# after: a task long enough for the test to kill that executor, so that
# its worker reaps it while the application runs.
J=$(job big '{"name":"big","stages":[
  {"name":"big","tasks":[{"cmd":["perl","-e","my $x = \"a\" x (200 * 1024 * 1024); print length($x), \"\\n\""]}]},
  {"name":"after","after":["big"],"tasks":[{"cmd":["sleep","3"]}]}]}')
"$BIN/hearth-submit" --heartbeat-interval "${INTERVAL_MS}ms" \
  --heartbeat-liveness "$LIVENESS" --master "$MASTER_URL" --name big \
  --executor-memory 1G --log-level info "$J" >"$T/out" 2>"$T/err" &
SUB=$!
PIDS+=($SUB)
big_done() {
  [[ $(state_json | jq -r '.apps[] | select(.name == "big") | .progress.tasks_finished') == 1 ]]
}
check "the 200 MiB task finishes" wait_for 30 big_done
EX=$(test_pids hearth-executor | head -1)
check "its executor is found" test -n "$EX"
kill -9 "$EX"
wait "$SUB"
check "the job succeeds on a new executor" test $? -eq 0
PEAK=$(sed -n 's/.*executor 0: peak memory [0-9]* MiB (\([0-9]*\) bytes).*/\1/p' "$T/err" | head -1)
check "the driver got executor 0's peak memory" test -n "$PEAK"
check "... at least 200 MiB and below 1 GiB ($((${PEAK:-0} / MIB)) MiB)" \
  eval '((PEAK >= 200 * MIB && PEAK < 1024 * MIB))'

# local[1]: the driver reaps its own executor (wait4) and keeps the same
# figure.  The second stage's marker says the big task is over.
L=$(job lbig '{"name":"lbig","stages":[
  {"name":"big","tasks":[{"cmd":["perl","-e","my $x = \"a\" x (200 * 1024 * 1024); print length($x), \"\\n\""]}]},
  {"name":"after","after":["big"],"tasks":[{"cmd":["sh","-c","touch '"$T"'/after.{i}; sleep 3"]}]}]}')
"$BIN/hearth-submit" --master 'local[1]' --log-level info "$L" >"$T/lout" 2>"$T/lerr" &
SUB=$!
PIDS+=($SUB)
check "local[1]: the big task is over" wait_for 30 test -e "$T/after.0"
EX=$(test_pids hearth-executor | head -1)
kill -9 "$EX"
wait "$SUB"
check "local[1]: the job succeeds on a new executor" test $? -eq 0
PEAK=$(sed -n 's/.*executor 0: peak memory [0-9]* MiB (\([0-9]*\) bytes).*/\1/p' "$T/lerr" | head -1)
check "local[1]: the driver kept its executor's peak, 200 MiB to 1 GiB ($((${PEAK:-0} / MIB)) MiB)" \
  eval '[[ -n $PEAK ]] && ((PEAK >= 200 * MIB && PEAK < 1024 * MIB))'
finish
