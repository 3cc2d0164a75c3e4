#!/usr/bin/env bash
# Persisted stages and their lineage (issue 38; tests/driver/
# test_persist_lineage.c), in local[2]:
# - one persisted stage reached by a later job along several ways (read
#   directly, and as the lineage of two persisted stages of two other
#   jobs that read it): the job runs, with one copy of it (no task of it
#   runs again), and its counts are exact.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 300
export TMPDIR=$T LC_ALL=C
P=$BIN/tests/driver/test-persist-lineage

# the counts of 4 tasks of "apple w{i} pear apple"
counts() {
  { printf '      8 apple\n      4 pear\n'
    printf '      1 w%d\n' 0 1 2 3; } | sort
}
# normalized PATH: the lines of each "job"/"stage" block sorted (the
# reducers' order is theirs)
normalized() {
  awk '/^(job|stage) / {if (n) print buf | "sort"; close("sort"); print; buf = ""; n = 0; next}
       {buf = buf (n++ ? "\n" : "") $0}
       END {if (n) print buf | "sort"}' "$1"
}
# ran FILE: the indexes in it, sorted, on one line
ran() { sort -n "$1" | tr '\n' ' '; }

rm -rf "$T/d" && mkdir "$T/d"
check "a persisted stage read directly and through two others' lineage" \
  submit --master 'local[2]' "$P" shared "$T/d"
check "... every count exact" same <(normalized "$T/out") \
  <(printf 'job load\njob a\njob b\njob all\n'
    for s in a b load; do echo "stage from-$s"; counts; done)
check "... and no task of it ran again" test "$(ran "$T/d/ran.words")" = "0 1 2 3 "
check "... nor of the stages reading it" \
  test "$(ran "$T/d/ran.x")" = "0 0 1 1 2 2 "
finish
