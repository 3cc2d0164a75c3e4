#!/usr/bin/env bash
# The partitioned shuffle through job files, in local[2] and
# local-cluster[2,1,512], each result checked against a reference the test
# computes with sort/uniq: a word count of 8 reducers (each word counted
# by exactly one of them), a sorted shuffle (reducers check their input
# with `sort -c` and sum runs of equal keys), a chain of two shuffles,
# R = 1 and R larger than the number of keys, empty map outputs, keys of
# every byte but NUL, TAB and newline, a 1 MiB line, a last line without
# its newline, outputs written to part files (exactly one per task, a
# first attempt failing on purpose), an output directory that already
# holds an output (refused), a count that disagrees with the partitions
# (refused before anything runs), and no shuffle file left afterwards.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 420
export TMPDIR=$T LC_ALL=C

# Input: 6 files of words drawn (seeded) from 3,000 distinct words.
word_files 6 20000 3000 7

# A map stage reading its file, R partitions, then reducers.
# wordcount NAME R SORT REDUCER: a job file with those settings.
wordcount() {
  job "$1" "{\"name\": \"$1\", \"stages\": [
  {\"name\": \"map\", \"partitions\": $2, \"sort\": $3,
   \"tasks\": [{\"cmd\": [\"cat\", \"$T/in/{i}.txt\"], \"count\": 6}]},
  {\"name\": \"reduce\", \"tasks\": [{\"cmd\": [\"sh\", \"-c\", \"$4\"],
   \"input\": \"map\"}]}]}"
}
UNSORTED='sort | uniq -c | while read n w; do echo \"$w $n\"; done'
SORTED='cat > r{i} && sort -c r{i} && uniq -c < r{i} | while read n w; do echo \"$w $n\"; done'

for M in 'local[2]' 'local-cluster[2,1,512]'; do
  J=$(wordcount wc8 8 false "$UNSORTED")
  check "$M: a word count with 8 reducers succeeds" submit --master "$M" "$J"
  check "... and counts every word right" same <(sort "$T/out") "$T/counts.ref"
  check "... each word counted by one reducer only" \
    test "$(awk '{print $1}' "$T/out" | sort | uniq -d | wc -l)" -eq 0

  J=$(wordcount sorted 5 true "$SORTED")
  check "$M: a sorted shuffle delivers each partition sorted" \
    submit --master "$M" "$J"
  check "... and a reducer sums runs of equal keys right" \
    same <(sort "$T/out") "$T/counts.ref"

  J=$(wordcount r1 1 true "$SORTED")
  check "$M: R = 1: one reducer gets everything, sorted" \
    submit --master "$M" "$J"
  check "... right" same <(sort "$T/out") "$T/counts.ref"
done

M='local[2]'
# R larger than the keys: most partitions empty; their reducers get nothing.
J=$(job many '{"name": "many", "stages": [
  {"name": "map", "partitions": 50,
   "tasks": [{"cmd": ["printf", "a\\nb\\nc\\na\\n"], "count": 3}]},
  {"name": "reduce", "tasks": [{"cmd": ["sh", "-c", "echo $(wc -l)"],
   "input": "map"}]}]}')
check "R = 50 over 3 keys succeeds" submit --master "$M" "$J"
check "... 50 reducers, 47 of them given nothing" \
  test "$(grep -c '^0$' "$T/out")" -eq 47 -a "$(wc -l <"$T/out")" -eq 50
check "... the others 12 records in all" \
  test "$(awk '{s += $1} END {print s}' "$T/out")" -eq 12

# Empty map outputs, and a last line without its newline.
J=$(job empty '{"name": "empty", "stages": [
  {"name": "map", "partitions": 3, "sort": true,
   "tasks": [{"cmd": ["true"], "count": 4},
             {"cmd": ["printf", "k\\tv1\\nk\\tv2"]}]},
  {"name": "reduce", "tasks": [{"cmd": ["cat"], "input": "map"}]}]}')
check "empty map outputs and an unterminated last line succeed" \
  submit --master "$M" "$J"
check "... the two records arrive, in map order, each with its newline" \
  same <(grep -v '^$' "$T/out") <(printf 'k\tv1\nk\tv2\n')

# Every byte but NUL, TAB and newline in keys; TABs in values; a 1 MiB line.
awk 'BEGIN { for (i = 1; i < 256; i++) if (i != 9 && i != 10)
  printf "%c%c\tvalue\twith tabs %d\n", i, (i * 7) % 200 + 32, i }' >"$T/bin.txt"
head -c 1048576 /dev/zero | tr '\0' 'x' >>"$T/bin.txt"
printf '\n' >>"$T/bin.txt"
sort "$T/bin.txt" | md5sum >"$T/bin.ref"
J=$(job binary "{\"name\": \"binary\", \"stages\": [
  {\"name\": \"map\", \"partitions\": 4, \"sort\": true,
   \"tasks\": [{\"cmd\": [\"cat\", \"$T/bin.txt\"]}]},
  {\"name\": \"reduce\", \"tasks\": [{\"cmd\": [\"sh\", \"-c\",
   \"cat > $T/bin.part{i} && sort -c $T/bin.part{i}\"], \"input\": \"map\"}]}]}")
check "binary-looking keys and a 1 MiB line succeed" submit --master "$M" "$J"
check "... every record arrives once, unchanged" \
  same <(cat "$T"/bin.part* | sort | md5sum) "$T/bin.ref"

# A chain of two shuffles: words -> (word, 1) by word -> counts by count.
J=$(job chain "{\"name\": \"chain\", \"stages\": [
  {\"name\": \"map\", \"partitions\": 4, \"sort\": true,
   \"tasks\": [{\"cmd\": [\"cat\", \"$T/in/{i}.txt\"], \"count\": 6}]},
  {\"name\": \"count\", \"partitions\": 3, \"sort\": true,
   \"tasks\": [{\"cmd\": [\"sh\", \"-c\",
     \"uniq -c | while read n w; do printf '%s\\\\t%s\\\\n' \$n \$w; done\"],
     \"input\": \"map\"}]},
  {\"name\": \"histogram\", \"tasks\": [{\"cmd\": [\"sh\", \"-c\",
     \"cut -f1 | uniq -c | while read n c; do echo \$c \$n; done\"],
     \"input\": \"count\"}]}]}")
awk '{print $2}' "$T/counts.ref" | sort | uniq -c | awk '{print $2, $1}' |
  sort >"$T/histogram.ref"
check "a chain of two shuffles succeeds" submit --master "$M" "$J"
check "... how many words have each count, right" \
  same <(grep -v '^$' "$T/out" | sort) "$T/histogram.ref"

# Outputs to files: one part file per task, whatever the attempts.  Each
# reducer's first attempt fails after writing half its output.
J=$(job out "{\"name\": \"out\", \"stages\": [
  {\"name\": \"map\", \"partitions\": 4,
   \"tasks\": [{\"cmd\": [\"cat\", \"$T/in/{i}.txt\"], \"count\": 6}]},
  {\"name\": \"reduce\", \"tasks\": [{\"cmd\": [\"sh\", \"-c\",
   \"sort | uniq -c | while read n w; do echo \$w \$n; done > r{i}; head -n 5 r{i};
     if mkdir $T/failed-{i} 2>/dev/null; then exit 3; fi; tail -n +6 r{i}\"],
   \"input\": \"map\"}]}]}")
check "outputs to files (--output) succeed, a first attempt failing each" \
  submit --master "$M" --output "$T/result" "$J"
check "... nothing on standard output" test ! -s "$T/out"
check "... exactly part-00000 to part-00003 and _SUCCESS" \
  same <(ls "$T/result") <( (printf 'part-0000%d\n' 0 1 2 3; echo _SUCCESS) | sort)
check "... the words counted right, once each" \
  same <(cat "$T/result"/part-* | sort) "$T/counts.ref"
submit --master "$M" --output "$T/result" --event-log "$T/ev-refused" "$J"
check "an output directory holding an output is refused as a usage error (exit 2)" \
  test $? -eq 2
check "... saying so, and that nothing ran" \
  grep -q 'stage reduce: the output directory .* already holds an output .*nothing was run' "$T/err"
check "... before any application started (no event log)" test ! -e "$T/ev-refused"
J=$(job outkey "{\"name\": \"outkey\", \"stages\": [
  {\"name\": \"s\", \"output\": \"rel-out\",
   \"tasks\": [{\"cmd\": [\"echo\", \"part {i}\"], \"count\": 3}]}]}")
check "\"output\" in the job file, relative to the current directory" \
  bash -c "cd '$T' && '$BIN/hearth-submit' --master '$M' '$J' >'$T/out' 2>'$T/err'"
check "... the part files hold the results" \
  same <(cat "$T/rel-out"/part-*) <(printf 'part %d\n' 0 1 2)

# Mistakes refused before anything runs.
J=$(job badcount '{"name": "badcount", "stages": [
  {"name": "map", "partitions": 4, "tasks": [{"cmd": ["true"]}]},
  {"name": "reduce", "tasks": [{"cmd": ["cat"], "input": "map",
   "count": 3}]}]}')
check "a count that disagrees with the partitions is refused" \
  expect_fail submit --master "$M" "$J"
check "... naming both numbers" grep -q '4 partitions.*count is 3' "$T/err"
J=$(job badparts '{"name": "b", "stages": [
  {"name": "map", "partitions": 0, "tasks": [{"cmd": ["true"]}]}]}')
check "partitions 0 is refused" expect_fail submit --master "$M" "$J"
check "... with its place" grep -q 'stages\[0\].partitions' "$T/err"

# The README's example: the partitioned word count agrees with the plain one.
check "examples/wordcount.json runs" \
  submit --master "$M" "$SRC/examples/wordcount.json" "$SRC"/examples/data/*.txt
cp "$T/out" "$T/top.plain"
check "examples/wordcount-partitioned.json runs" \
  submit --master "$M" "$SRC/examples/wordcount-partitioned.json" \
  "$SRC"/examples/data/*.txt
check "... and finds the same top ten words" same "$T/out" "$T/top.plain"
check "... ten of them" test "$(wc -l <"$T/out")" -eq 10
check "... and with --output, as the README has it, writes them to part-00000" \
  submit --master "$M" --output "$T/top" \
  "$SRC/examples/wordcount-partitioned.json" "$SRC"/examples/data/*.txt
check "... the same ten (an output task reading a stage's results whole)" \
  same "$T/top/part-00000" "$T/top.plain"

# A function reducer gets its partition as input bytes, up to the
# application's max-input-bytes (told to the executors by the driver).
J=$(job fnreduce '{"name": "fnreduce", "stages": [
  {"name": "map", "partitions": 1,
   "tasks": [{"cmd": ["sh", "-c", "seq 1 1000"], "count": 2}]},
  {"name": "reduce", "tasks": [{"fn": "cat", "input": "map"}]}]}')
check "a function reducer gets its partition as input bytes" \
  submit --master "$M" --lib "$TASKS_LIB" "$J"
check "... all of it, in map order" same "$T/out" <(seq 1 1000; seq 1 1000)
check "... and past --max-input-bytes the task fails" \
  expect_fail submit --master "$M" --lib "$TASKS_LIB" --max-input-bytes 4K \
  --max-failures 1 "$J"
check "... saying both sizes" \
  grep -q 'reduce input of partition 0 is 7786 bytes, over max-input-bytes (4096)' "$T/err"

# A stage read whole: each result with one trailing newline removed and
# one added, in task order (an empty result is an empty line), the same
# for every task of every stage reading it, command or function; the
# stage read keeps no result in the driver.
J=$(job whole '{"name": "whole", "stages": [
  {"name": "gen", "tasks": [{"cmd": ["printf", "a"]}, {"cmd": ["true"]},
   {"cmd": ["printf", "b\\n"]}, {"cmd": ["printf", "c\\n\\n"]},
   {"fn": "echo", "arg": "d"}]},
  {"name": "twice", "tasks": [{"cmd": ["sh", "-c", "cat > '"$T"'/twice.{i}"],
   "count": 2, "input": "gen"}]},
  {"name": "fn", "tasks": [{"fn": "cat", "input": "gen"}]}]}')
check "a stage read whole by two stages, command and function" \
  submit --master "$M" --lib "$TASKS_LIB" "$J"
printf 'a\n\nb\nc\n\nd\n' >"$T/whole.ref"
check "... each command reader gets every result, in task order" \
  eval 'same "$T/twice.0" "$T/whole.ref" && same "$T/twice.1" "$T/whole.ref"'
check "... and the function reader too" same "$T/out" "$T/whole.ref"

# What does not fit a message is refused with its size, never dropped.
J=$(job seq1 '{"name": "one", "stages": [{"name": "s", "tasks": [{"cmd": ["true"]}]}]}')
check "--max-result-bytes over what a message carries is refused" \
  expect_fail submit --master "$M" --max-result-bytes 300M "$J"
check "... naming both sizes" grep -q 'max-result-bytes 300M is over the 256M' "$T/err"
# A stage read whole (an unpartitioned input) travels like a
# one-partition shuffle: each task's result stays on its node, the reader
# fetches them in task order, and nothing of it goes through the driver
# (issue 42: it used to hold every result, then fail the job past 256
# MiB).  Five results of 52 MiB, 260 MiB in all, without their trailing
# newline: the reader counts each one's bytes and the newline added.
J=$(job big '{"name": "big", "stages": [
  {"name": "gen", "tasks": [{"cmd": ["sh", "-c",
   "head -c 54525952 /dev/zero | tr \"\\\\0\" x"], "count": 5}]},
  {"name": "all", "tasks": [{"cmd": ["wc", "-c"], "input": "gen"}]}]}')
# (run directly, not through submit(), so that $! is the driver itself;
# a liveness of 5 s: under the sanitizers, moving five 52 MiB blocks can
# keep an executor busy past the usual 1 s)
"$BIN/hearth-submit" --heartbeat-interval "${INTERVAL_MS}ms" \
  --heartbeat-liveness 25 --master "$M" "$J" >"$T/out" 2>"$T/err" &
SUB=$!
PIDS+=($SUB)
# The driver's peak resident memory (VmHWM, which only grows), read
# until it exits: holding the input would take it past 260 MiB.
peak=0
while kill -0 "$SUB" 2>/dev/null; do
  hwm=$(awk '/^VmHWM/ {print $2}' "/proc/$SUB/status" 2>/dev/null)
  [[ -n $hwm ]] && ((hwm > peak)) && peak=$hwm
  sleep 0.05
done
wait "$SUB"
check "an unpartitioned input of 260 MiB is read whole" test $? -eq 0
check "... exactly: 5 x 52 MiB and a newline each" \
  test "$(tr -d ' ' <"$T/out")" = 272629765
check "... the driver's memory stays far below it ($((peak / 1024)) MiB at most)" \
  test "$peak" -gt 0 -a "$peak" -lt $((200 * 1024))

check "no shuffle file is left in the temporary directory" \
  test -z "$(find "$T" -name '*.index' -path '*shuffle*')"
check "no master, worker or executor is left" no_leftovers
finish
