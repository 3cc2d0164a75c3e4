#!/usr/bin/env bash
# The C API of data between stages (tests/driver/test_shuffle_api.c) in
# local[2] and local-cluster[2,1,512]: hearth_stage_set_partitions with a
# sorted shuffle of function map tasks into command reducers;
# hearth_stage_on_result with HEARTH_RESULT_DISCARD, every one of 200,000
# results handed over exactly once and none kept; hearth_stage_set_output;
# two output stages on one directory (refused: in one job, and in a job
# submitted while another writes there); and the API's refusals (bad
# partitions, flags, a reducer count that is not the partitions, output
# with partitions); two jobs in one context, each stage read whole
# keeping all the driver may.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 300
export TMPDIR=$T LC_ALL=C
P=$BIN/tests/driver/test-shuffle-api

# The reference: 4 maps of "apple w{i} pear apple", counted.
printf '      8 apple\n      4 pear\n' >"$T/wc.ref"
for i in 0 1 2 3; do printf '      1 w%d\n' $i; done >>"$T/wc.ref"
sort "$T/wc.ref" -o "$T/wc.ref"

for M in 'local[2]' 'local-cluster[2,1,512]'; do
  check "$M: a sorted shuffle of function maps into 3 command reducers" \
    submit --master "$M" --lib "$TASKS_LIB" "$P" wordcount 3
  check "... counts right" same <(sort "$T/out") "$T/wc.ref"
  check "$M: 200,000 results streamed to a callback, none kept" \
    submit --master "$M" --lib "$TASKS_LIB" "$P" stream 200000
  check "... each once, and hearth_stage_result has none" \
    grep -qx 'calls 200000 sum 19999900000 once yes kept no' "$T/out"
done

check "hearth_stage_set_output writes the part files" \
  submit --master 'local[2]' "$P" output "$T/o"
check "... with the results" same <(cat "$T/o"/part-*) <(printf 'line %d\n' 0 1 2)
check "... and _SUCCESS" test -f "$T/o/_SUCCESS" -a ! -e "$T/o/_temporary"

# Two output stages on one directory would write the same part files:
# refused in one job (nothing written) and in a job submitted while
# another writes there (that one's parts kept, its _temporary too).
check "two output stages on one directory" \
  submit --master 'local[2]' "$P" shared-output "$T/shared"
check "... refused in one job, naming both stages" \
  grep -qx 'refused: two stages of a job, one output' "$T/out"
check "... and in a second job while the first writes there" \
  grep -qx 'refused: a running job.s output' "$T/out"
check "... the first job succeeds" grep -qx 'first: succeeded' "$T/out"
check "... nothing written by the job refused" \
  test -z "$(ls -A "$T/shared/one")"
check "... the first job's 3 parts whole, nothing of the second's" \
  same <(cat "$T/shared/two"/part-*) <(printf 'first %d\n' 0 1 2)
check "... and its manifest names them" \
  test "$(jq -r '.parts[].name' "$T/shared/two/_SUCCESS" | tr '\n' ' ')" = \
  "part-00000 part-00001 part-00002 "

# Two jobs in one context whose 1,024 outputs each fill what the driver
# may keep (64 MiB): the second, submitted once the first ended (not yet
# destroyed), keeps its outputs too (the first's were let go at its
# end), and each reader gets its own job's lines.
check "two jobs in one context, each stage read whole keeping all it may" \
  submit --master 'local[2]' --lib "$TASKS_LIB" "$P" whole 1024 "$T"
check "... each reader gets its own job's lines, in order" \
  same "$T/out" <(seq 0 1023 | sed 's/^/one /'; seq 0 1023 | sed 's/^/two /')
check "... neither job's outputs on disk ($(cat "$T/ondisk.one" "$T/ondisk.two" 2>/dev/null | tr '\n' ' '))" \
  test "$(cat "$T/ondisk.one" "$T/ondisk.two" 2>/dev/null | tr '\n' ' ')" = "0 0 "

check "the API's refusals" submit --master 'local[2]' "$P" refusals
check "... every one refused" test "$(grep -c '^refused: ' "$T/out")" -eq 6
check "... none accepted" test "$(grep -c ACCEPTED "$T/out")" -eq 0
check "no master, worker or executor is left" no_leftovers
finish
