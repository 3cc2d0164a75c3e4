#!/usr/bin/env bash
# A job file whose last stage has "partitions" (its output partitioned
# for a stage that does not exist), found while writing
# test-ha-resume-records (a count of 4 partitions left last).
#
# Before the fix the job ran and succeeded, then hearth-submit printed its
# last stage's results: hearth_stage_result gives NULL, length 0, for a
# partitioned stage, and fwrite (NULL, 1, 0, stdout) followed (UBSan's
# "null pointer passed as argument 1", exit 1; a plain build printed an
# empty line per task: the results lost without a word).  Now such a job
# is refused before it runs (exit 2, saying that nothing reads the
# partitions) unless the stage is persisted for a later job.  The test
# accepts a refusal or the results printed.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 60
export LC_ALL=C

J=$(job plast '{"name": "plast", "stages": [
  {"name": "map", "partitions": 2,
   "tasks": [{"cmd": ["sh", "-c", "echo a; echo b; echo {i}"], "count": 2}]},
  {"name": "count", "partitions": 2,
   "tasks": [{"cmd": ["sh", "-c", "sort | uniq -c"], "input": "map"}]}]}')
submit --master 'local[2]' "$J"
rc=$?
say "exit $rc; stdout $(wc -c <"$T/out") bytes; stderr: $(tail -1 "$T/err")"
check "no sanitizer report" eval '! grep -q "runtime error:" "$T/err"'
check "no empty line printed for a result it does not have" \
  eval '! grep -qx "" "$T/out"'
if ((rc == 2)); then
  check "refused before it runs, saying why" grep -qi partition "$T/err"
else
  check "else it succeeds (exit $rc) and prints its 4 counts" \
    test "$rc" -eq 0 -a "$(grep -c . "$T/out")" -eq 4
fi
finish
