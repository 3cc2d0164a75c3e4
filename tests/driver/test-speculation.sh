#!/usr/bin/env bash
# Speculation and exactly-once results, end to end on local-cluster[2,1,512]
# (a real master, 2 workers, 2 executors):
# - a straggler (the first attempt of one task sleeps 5 s) holds the job
#   back without speculation; with --conf speculation=true (the first
#   run) or --speculation (the second) a copy runs on the other executor,
#   the first to finish wins and the straggler is killed;
# - both attempts of a task finish while the driver cannot answer (it is
#   stopped): the second result is discarded, the stage's output and its
#   input to the next stage hold each result exactly once;
# - both attempts of an output task finish while the driver is stopped:
#   both ask to commit, one is allowed, the other denied (ASK_COMMIT).
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 150
export TMPDIR=$T
LC='local-cluster[2,1,512]'
N=12
seq 0 $((N - 1)) >"$T/expected"

# straggler NAME: a job whose task 5 sleeps 5 s at its first attempt; the
# second stage reads the first's results (so the driver outlives the kill).
straggler() {
  local m=$T/$1.att
  job "$1" "{\"name\":\"$1\",\"stages\":[
    {\"name\":\"s\",\"tasks\":[{\"cmd\":[\"sh\",\"-c\",
      \"echo x >>$m.{i}; if [ {i} = 5 ] && [ \$(wc -l <$m.{i}) = 1 ]; then sleep 5; echo done >>$m.slow; fi; sleep 0.2; echo {i}\"],
      \"count\":$N}]},
    {\"name\":\"t\",\"tasks\":[{\"cmd\":[\"sh\",\"-c\",\"sleep 0.5; cat\"],\"input\":\"s\"}]}]}"
}

J=$(straggler plain)
start=$(now_ms)
check "without speculation the job succeeds" submit --master "$LC" "$J"
took=$(($(now_ms) - start))
say "without speculation: $took ms"
check "... held back by the straggler (${took} ms >= 5000)" test "$took" -ge 5000
check "... with each result once" same "$T/out" "$T/expected"
check "... and one attempt of the straggler" test "$(wc -l <"$T/plain.att.5")" -eq 1

J=$(straggler spec)
start=$(now_ms)
check "with speculation the job succeeds" \
  submit --master "$LC" --conf speculation=true --log-level info "$J"
took=$(($(now_ms) - start))
say "with speculation: $took ms"
check "... without waiting for the straggler (${took} ms < 4500)" test "$took" -lt 4500
check "... with each result once" same "$T/out" "$T/expected"
check "... after a copy of the straggler" grep -q 'speculation: [0-9]* straggling' "$T/err"
check "... which won: two attempts ran" test "$(wc -l <"$T/spec.att.5")" -eq 2
check "... and the straggler was killed" \
  grep -q 'stage s, task 5, attempt 0: killed as asked' "$T/err"
sleep 2.5
check "... before it could finish" test ! -e "$T/spec.att.slow"

# --- two results of one task --------------------------------------------
mkfifo "$T/gate"
J=$(job dup "{\"name\":\"dup\",\"stages\":[
  {\"name\":\"s\",\"tasks\":[{\"cmd\":[\"sh\",\"-c\",
    \"echo x >>$T/dup.att.{i}; if [ {i} = 3 ]; then cat $T/gate >/dev/null; fi; sleep 0.2; echo {i}\"],
    \"count\":$N}]},
  {\"name\":\"t\",\"tasks\":[{\"cmd\":[\"sh\",\"-c\",\"sleep 0.5; cat\"],\"input\":\"s\"}]}]}")
submit --master "$LC" --speculation --log-level info "$J" &
DRIVER=$!
PIDS+=($DRIVER)
both() { [[ $(wc -l <"$T/dup.att.3" 2>/dev/null) -eq 2 ]]; }
check "both attempts of task 3 wait at the gate" wait_for 20 both
DPID=$(test_pids hearth-submit)
kill -STOP "$DPID"
echo go >"$T/gate" # both attempts go on, and finish while the driver sleeps
sleep 0.5
kill -CONT "$DPID"
wait "$DRIVER"
check "the job succeeds" test $? -eq 0
check "the later result of task 3 was discarded" \
  grep -q 'stage s, task 3, attempt [01]: finished after another attempt.s result; discarded' "$T/err"
check "... and the output holds each result exactly once" same "$T/out" "$T/expected"

# --- two attempts of an output task ask to commit ------------------------
# Both finish while the driver is stopped, so both ask (ASK_COMMIT): the
# first is allowed, the other denied and its file removed by its executor.
mkfifo "$T/gate2"
J=$(job outdup "{\"name\":\"outdup\",\"stages\":[
  {\"name\":\"s\",\"output\":\"$T/outdup\",\"tasks\":[{\"cmd\":[\"sh\",\"-c\",
    \"echo x >>$T/outdup.att.{i}; if [ {i} = 3 ]; then cat $T/gate2 >/dev/null; fi; sleep 0.2; echo {i}\"],
    \"count\":$N}]}]}")
submit --master "$LC" --speculation --log-level info "$J" &
DRIVER=$!
PIDS+=($DRIVER)
both() { [[ $(wc -l <"$T/outdup.att.3" 2>/dev/null) -eq 2 ]]; }
check "both attempts of output task 3 wait at the gate" wait_for 20 both
DPID=$(test_pids hearth-submit)
kill -STOP "$DPID"
echo go >"$T/gate2"
sleep 0.5
kill -CONT "$DPID"
wait "$DRIVER"
check "the job succeeds" test $? -eq 0
check "one attempt of task 3 was denied its commit" \
  grep -q 'task [0-9]*\.3 attempt [01] may not commit its output' "$T/err"
check "... the output holds each part once, exact" \
  same <(cat "$T"/outdup/part-*) "$T/expected"
check "... and no attempt's file is left" \
  test -z "$(find "$T/outdup" -name 'part-*.*')"
check "nothing is left running" wait_for 5 no_leftovers
finish
