#!/usr/bin/env bash
# Small outputs of a stage read whole are kept by the driver
# (libhearth/inlineout.h): each went to a map output of its own on its
# node, two files a task, which made 20,000 one-line tasks and their
# reader take 8 s where 0.1 s had been enough.  Now an output whose block
# is within the driver's share comes back in its task's update and goes
# to the readers in their launch message; a larger one still lies on its
# node and is fetched.  Checked on local-cluster (workers, block
# servers): the readers get every result exactly, in task order, kept
# and fetched mixed, command and function readers alike; while they
# run, the node holds exactly the large outputs (a reader counts the map
# outputs on disk); and a job of 2,000 one-line tasks leaves none.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 300
export TMPDIR=$T LC_ALL=C
M='local-cluster[2,1,512]'

# the map outputs on disk under $T now, and the reader's input kept
COUNT="find '$T' -path '*shuffle*' -name '*.index' | wc -l > '$T/ondisk.{i}'"
# 100 KiB of 'y' without a newline: over the most a task may keep (64 KiB)
BIG='head -c 102400 /dev/zero | tr \"\\\\0\" y'
J=$(job mixed '{"name": "mixed", "stages": [
  {"name": "gen", "tasks": [{"cmd": ["printf", "a"]}, {"cmd": ["true"]},
   {"cmd": ["sh", "-c", "'"$BIG"'"]}, {"cmd": ["printf", "b\\n"]},
   {"cmd": ["sh", "-c", "'"$BIG"'"]}, {"fn": "echo", "arg": "c"}]},
  {"name": "read", "tasks": [{"cmd": ["sh", "-c",
   "'"$COUNT"'; cat > '"$T"'/read.{i}"], "count": 2, "input": "gen"}]},
  {"name": "fn", "tasks": [{"fn": "cat", "input": "gen"}]}]}')
check "$M: a stage read whole, small and large outputs mixed" \
  submit --master "$M" --lib "$TASKS_LIB" "$J"
{
  printf 'a\n\n'
  head -c 102400 /dev/zero | tr '\0' y
  printf '\nb\n'
  head -c 102400 /dev/zero | tr '\0' y
  printf '\nc\n'
} >"$T/mixed.ref"
check "... each command reader gets every result, in task order" \
  eval 'same "$T/read.0" "$T/mixed.ref" && same "$T/read.1" "$T/mixed.ref"'
check "... and the function reader too" same "$T/out" "$T/mixed.ref"
check "... only the two large outputs were on disk ($(cat "$T/ondisk.0" 2>/dev/null) map outputs)" \
  test "$(cat "$T/ondisk.0" 2>/dev/null)" = 2

# Many one-line tasks and a reader: all kept, none on disk.
J=$(job many '{"name": "many", "stages": [
  {"name": "gen", "tasks": [{"fn": "echo", "arg": "line {i}", "count": 2000}]},
  {"name": "all", "tasks": [{"cmd": ["sh", "-c", "'"$COUNT"'; cat"],
   "input": "gen"}]}]}')
check "$M: 2,000 one-line tasks read whole" \
  submit --master "$M" --lib "$TASKS_LIB" "$J"
check "... every line, in task order" \
  same "$T/out" <(seq 0 1999 | sed 's/^/line /')
check "... and no map output on disk ($(cat "$T/ondisk.0" 2>/dev/null))" \
  test "$(cat "$T/ondisk.0" 2>/dev/null)" = 0

# A function reading whole a stage whose outputs are all kept gets them
# as its input frame, bound by max-input-bytes as a reduce input is.
J=$(job fnall '{"name": "fnall", "stages": [
  {"name": "gen", "tasks": [{"fn": "echo", "arg": "line {i}", "count": 2000}]},
  {"name": "all", "tasks": [{"fn": "cat", "input": "gen"}]}]}')
check "$M: a function reads 2,000 kept outputs" \
  submit --master "$M" --lib "$TASKS_LIB" "$J"
check "... every line, in task order" \
  same "$T/out" <(seq 0 1999 | sed 's/^/line /')
check "... and past --max-input-bytes the task fails" \
  expect_fail submit --master "$M" --lib "$TASKS_LIB" --max-input-bytes 4K \
  --max-failures 1 "$J"
check "... saying both sizes" \
  grep -q 'the input is 18890 bytes, over max-input-bytes (4096)' "$T/err"

# Function tasks keep their result as their output without a role until
# it proves too large (executor/shuffletask.h, shuffletask_whole_result):
# one of 70,000 bytes goes to disk after all, beside kept ones, and an
# empty result is an empty line.
LONG=$(head -c 70000 /dev/zero | tr '\0' z)
J=$(job fnbig '{"name": "fnbig", "stages": [
  {"name": "gen", "tasks": [{"fn": "echo", "arg": "small"},
   {"fn": "echo_all", "arg": "'"$LONG"'"}, {"fn": "echo", "arg": ""},
   {"fn": "echo", "arg": "last"}]},
  {"name": "all", "tasks": [{"cmd": ["sh", "-c", "'"$COUNT"'; cat"],
   "input": "gen"}]}]}')
check "$M: function outputs read whole, one over what a task may keep" \
  submit --master "$M" --lib "$TASKS_LIB" "$J"
check "... every output, in task order" \
  same "$T/out" <(printf 'small\n%s\n\nlast\n' "$LONG")
check "... and only the large one on disk ($(cat "$T/ondisk.0" 2>/dev/null))" \
  test "$(cat "$T/ondisk.0" 2>/dev/null)" = 1

check "no master, worker or executor is left" no_leftovers
finish
