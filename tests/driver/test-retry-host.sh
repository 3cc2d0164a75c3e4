#!/usr/bin/env bash
# A task's retry prefers another host (issue 14, defect 7), as Spark's
# excludeOnFailure does: two executors on a host where every task fails
# (a full disk, here a work dir that tasks refuse) and one on another
# host busy with a long task.  Without the rule the failed tasks bounce
# between the two executors of the bad host and use up their attempts in
# about a second; with it they wait for the good host and succeed there.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 120
export TMPDIR=$T

start_master || exit 1
# Loopback takes both addresses: two "hosts" on one machine.
CORES=2 start_worker bad --host 127.0.0.1 || exit 1
CORES=1 start_worker good --host 127.0.0.2 || exit 1

# Every task fails after 0.3 s on the bad host's worker (its executors
# work under $T/bad); on the good host it takes 2 s and succeeds.
J=$(job hosts "{\"name\":\"hosts\",\"stages\":[{\"name\":\"s\",\"tasks\":[{\"cmd\":
  [\"sh\",\"-c\",\"case \$PWD in $T/bad/*) sleep 0.3; echo no space left on device >&2; exit 1;; esac; sleep 2; echo ok {i} on \$PWD\"],\"count\":3}]}]}")
submit --master "$MASTER_URL" --executor-cores 1 --total-executor-cores 3 \
  --executor-memory 512M --task-prefetch 0 --log-level info "$J"
rc=$?
check "the job succeeds (exit $rc)" test "$rc" -eq 0
check "... every task's result from the good host" \
  test "$(grep -c "^ok .* on $T/good/" "$T/out")" -eq 3
check "... two executors ran on the bad host and one on the good one" eval \
  "[[ \$(grep -c 'registered from 127.0.0.1 ' '$T/err') -eq 2 &&
     \$(grep -c 'registered from 127.0.0.2 ' '$T/err') -eq 1 ]]"
check "... the failures on the bad host were retried" \
  grep -q 'no space left on device; trying again' "$T/err"
check "... but never twice on that host" eval \
  "! grep -q 'attempt 1: sh exited with status 1' '$T/err'"
check "nothing is left running" eval 'wait_for 10 none_in "$T/bad" && none_in "$T/good"'
finish
