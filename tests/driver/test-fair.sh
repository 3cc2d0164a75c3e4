#!/usr/bin/env bash
# FAIR scheduling (--scheduler-mode FAIR, docs/jobs.md "pool", "weight"):
# two independent stages of one job, in pools of weights 1 and 3, on 4
# cores share them 1:3 while both have work; with FIFO (the default) the
# first stage takes every core until it runs out.  Each task notes its
# stage when it starts; the first 20 starts tell the policy.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 90
export TMPDIR=$T

J=$(job fair "{\"name\":\"fair\",\"stages\":[
  {\"name\":\"a\",\"pool\":\"a\",\"weight\":1,\"tasks\":[{\"cmd\":[\"sh\",\"-c\",
    \"echo a >>$T/starts; sleep 0.1; echo {i}\"],\"count\":40}]},
  {\"name\":\"b\",\"pool\":\"b\",\"weight\":3,\"tasks\":[{\"cmd\":[\"sh\",\"-c\",
    \"echo b >>$T/starts; sleep 0.1; echo {i}\"],\"count\":40}]}]}")

# first20 STAGE: how many of the first 20 task starts were STAGE's
first20() { head -20 "$T/starts" | grep -cx "$1"; }

rm -f "$T/starts"
check "FIFO: the job succeeds" \
  submit --master 'local[4]' --task-prefetch 0 "$J"
say "FIFO, first 20 starts: $(first20 a) of a, $(first20 b) of b"
check "... the first stage took every core first (20 of a)" test "$(first20 a)" -eq 20

rm -f "$T/starts"
check "FAIR: the job succeeds" \
  submit --master 'local[4]' --task-prefetch 0 --scheduler-mode FAIR "$J"
a=$(first20 a) b=$(first20 b)
say "FAIR, first 20 starts: $a of a (weight 1), $b of b (weight 3)"
check "... both pools ran from the start" test "$a" -ge 3 -a "$b" -ge 3
check "... b about three times a (b >= 2 a)" test "$b" -ge $((2 * a))
check "... every task ran once" test "$(wc -l <"$T/starts")" -eq 80
finish
