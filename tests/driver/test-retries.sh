#!/usr/bin/env bash
# Failures: a flaky task is retried until it succeeds, each failed
# attempt said as it happens; a broken one fails
# its job after exactly max-failures attempts, with an error that names
# it; timeouts, unknown functions and oversized results fail clearly.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 180
export TMPDIR=$T

M=$T/flaky.attempts
J=$(job flaky "{\"name\":\"flaky\",\"stages\":[{\"name\":\"s\",\"tasks\":[{\"cmd\":
  [\"sh\",\"-c\",\"echo x >>$M; n=\$(wc -l <$M); if [ \$n -le 2 ]; then echo attempt \$n >&2; exit 1; fi; echo ok after \$n\"]}]}]}")
check "a task that fails twice, then succeeds, makes a successful job" \
  submit --master 'local[2]' "$J"
check "... with the third attempt's result" grep -qx 'ok after 3' "$T/out"
check "... after exactly 3 attempts" test "$(wc -l <"$M")" -eq 3
# Each failed attempt is said at the default log level (above the
# progress display on a terminal), as Spark's "Lost task" lines.
check "... each failed attempt said, with its error, as it happens" \
  test "$(grep -c 'WARN stage s, task 0, attempt [01] failed on executor [01]: sh exited with status 1: attempt [12]; trying again' "$T/err")" -eq 2

M=$T/broken.attempts
J=$(job broken "{\"name\":\"broken\",\"stages\":[{\"name\":\"broken\",\"tasks\":[{\"cmd\":
  [\"sh\",\"-c\",\"echo x >>$M; echo boom >&2; exit 7\"]}]}]}")
submit --master 'local[2]' --max-failures 3 "$J"
check "a task that always fails fails its job (exit 1)" test $? -eq 1
check "... after exactly max-failures (3) attempts" test "$(wc -l <"$M")" -eq 3
check "... naming the stage, the task and its last error" \
  grep -q 'stage broken, task 0 failed 3 times; last error: sh exited with status 7: boom' "$T/err"

J=$(job fnfail '{"name":"fnfail","lib":"libtesttasks.so","stages":[
  {"name":"f","tasks":[{"fn":"fail","arg":"xyz"}]}]}')
submit --master 'local[2]' --lib "$TASKS_LIB" "$J"
check "a failing function fails its job" test $? -eq 1
check "... after the default 4 attempts, with the function's own error" \
  grep -q 'stage f, task 0 failed 4 times; last error: fail: failing on purpose: xyz' "$T/err"

J=$(job slow '{"name":"slow","stages":[{"name":"t","tasks":[{"cmd":["sleep","30"],"timeout":"300ms"}]}]}')
start=$(now_ms)
submit --master 'local[2]' --max-failures 2 "$J"
rc=$? took=$(($(now_ms) - start))
check "a command past its timeout fails" test $rc -eq 1
check "... saying so" grep -q 'timed out after 300 ms' "$T/err"
check "... without waiting for the command to end (${took} ms)" test $took -lt 20000

# A function's time limit counts from when it starts on a task thread:
# the first attempts, past their limit, cannot be interrupted and hold
# both threads of local[2] for 1.5 s; their retries wait behind them and
# must not time out while they wait (all four attempts of each failed).
J=$(job fnslow '{"name":"fnslow","lib":"libtesttasks.so","stages":[
  {"name":"s","tasks":[{"fn":"slow_first","arg":"1500","timeout":"300ms","count":3}]}]}')
check "retries of functions past their limit, waiting for a task thread" \
  submit --master 'local[2]' --lib "$TASKS_LIB" "$J"
check "... each retry's result" \
  same <(sort "$T/out") <(printf 'task %d attempt 1\n' 0 1 2)

J=$(job nofn '{"name":"nofn","lib":"libtesttasks.so","stages":[{"name":"f","tasks":[{"fn":"no_such_fn"}]}]}')
submit --master 'local[1]' --lib "$TASKS_LIB" --max-failures 1 "$J"
check "an unknown function fails its job" test $? -eq 1
check "... naming the function" grep -q 'no function no_such_fn' "$T/err"

J=$(job big '{"name":"big","stages":[{"name":"b","tasks":[{"cmd":["head","-c","2000000","/dev/zero"]}]}]}')
submit --master 'local[1]' --max-result-bytes 1M --max-failures 1 "$J"
check "a result larger than max-result-bytes fails its task" test $? -eq 1
check "... saying so" grep -q 'output exceeded max-result-bytes' "$T/err"

J=$(job missing '{"name":"missing","stages":[{"name":"m","tasks":[{"cmd":["/no/such/program"]}]}]}')
submit --master 'local[1]' --max-failures 1 "$J"
check "a command that cannot run fails its job" test $? -eq 1
check "... saying why" grep -q 'cannot run /no/such/program: No such file or directory' "$T/err"

# A command killed by a signal; the settings given as --conf KEY=VALUE,
# the master by HEARTH_MASTER, in the default (client) deploy mode.
J=$(job killed '{"name":"killed","stages":[{"name":"k","tasks":[{"cmd":["sh","-c","kill -9 $$"]}]}]}')
HEARTH_MASTER='local[1]' submit --deploy-mode client --conf max-failures=2 \
  --log-level info "$J"
check "a command killed by a signal fails its job" test $? -eq 1
check "... saying which signal, after --conf max-failures=2 attempts" \
  grep -q 'stage k, task 0 failed 2 times; last error: sh killed by signal 9 (Killed)' "$T/err"
check "... on the master HEARTH_MASTER names: local[1], one executor of 1 core" \
  eval 'grep -q "executor 0 registered from .* with 1 cores" "$T/err" &&
    ! grep -q "executor 1 registered" "$T/err"'

HEARTH_MASTER='elsewhere' submit --master 'local[1]' "$J"
check "--master beats HEARTH_MASTER" eval '! grep -q "unknown master" "$T/err"'
HEARTH_MASTER='elsewhere' submit "$J"
check "HEARTH_MASTER alone is used (and refused here, a usage mistake: exit 2)" test $? -eq 2
check "... naming it" grep -q "unknown master 'elsewhere'" "$T/err"

# Spark's local[N,F]: N cores, F attempts a task (issue 42 item 11).
CNT=$T/attempts
FJ=$(job always-fails '{"name":"f","stages":[{"name":"s","tasks":[{"cmd":["sh","-c",
  "n=$(cat '"$CNT"' 2>/dev/null || echo 0); echo $((n + 1)) >'"$CNT"'; exit 1"]}]}]}')
rm -f "$CNT"
submit --master 'local[2,3]' "$FJ"
check "local[2,3]: a failing task is tried 3 times" test "$(cat "$CNT")" = 3
check "... and its job fails saying so" grep -q "task 0 failed 3 times" "$T/err"
rm -f "$CNT"
submit --master 'local[*,1]' "$FJ"
check "local[*,1]: once" test "$(cat "$CNT")" = 1
rm -f "$CNT"
submit --master 'local[2,3]' --max-failures 2 "$FJ"
check "--max-failures, given, wins over F" test "$(cat "$CNT")" = 2
submit --master 'local[2,0]' "$FJ"
check "local[2,0] is refused (exit 2)" test $? -eq 2
check "... saying what F is" grep -q "F, the attempts a task may make, is 1 to 1000" "$T/err"

check "nothing is left running" no_leftovers
finish
