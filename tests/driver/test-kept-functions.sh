#!/usr/bin/env bash
# Function tasks of a stage read whole, whose result becomes the output
# the driver keeps on their own thread, with no map role unless it proves
# too large (executor/shuffletask.h, shuffletask_whole_result), in
# local[2]:
# - at the bound (an output shorter than 64 KiB, room for its newline):
#   65,534 bytes and a newline (the longest kept), 65,535 without one
#   (kept, its newline added by the driver), 65,535 and a newline or
#   65,536 without (on disk after all); 32,767 and a newline (one full
#   frame when the driver frames it for a reader that also fetches) and
#   32,768 without (its newline makes two frames), kept; empty, nothing
#   at all, binary bytes with a newline
#   inside and none at the end: every reader (commands, a function) gets
#   the same bytes in task order, and the event log's
#   result_bytes of each is what its readers get of it;
# - tasks that fail at random (a seed) and are retried, --max-failures
#   high: each task's line once, in order;
# - a first attempt past its "timeout" (abandoned: its result comes after
#   the failure was reported) and a retry: the retry's result only;
# and in local-cluster[2,1,512], kept outputs of functions and commands
# between large ones on either node (a reader's inline blocks beside its
# local and fetched ones), read by three commands, one failing after
# 1,000 bytes at its first attempt, and two functions: the same bytes,
# in task order, at every reader; a straggling function task speculated
# (its copy wins, it is killed while it runs): the copy's result only.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 200
export TMPDIR=$T LC_ALL=C
M='local[2]'

COUNT="find '$T' -path '*shuffle*' -name '*.index' | wc -l > '$T/ondisk.{i}'"
ys() { head -c "$1" /dev/zero | tr '\0' y; }
# all_same REF FILE...: each FILE holds exactly REF's bytes
all_same() {
  local f ref=$1
  shift
  for f; do same "$f" "$ref" || return 1; done
}

J=$(job bounds '{"name": "bounds", "stages": [
  {"name": "gen", "tasks": [{"fn": "ys", "arg": "65534 nl"},
   {"fn": "ys", "arg": "65535"}, {"fn": "ys", "arg": "65536"},
   {"fn": "ys", "arg": "65535 nl"}, {"fn": "ys", "arg": "0"},
   {"fn": "noop"}, {"fn": "bin", "count": 2}, {"fn": "ys", "arg": "3 nl"},
   {"fn": "ys", "arg": "32767 nl"}, {"fn": "ys", "arg": "32768"}]},
  {"name": "read", "tasks": [{"cmd": ["sh", "-c",
   "'"$COUNT"'; cat > '"$T"'/read.{i}"], "count": 2, "input": "gen"}]},
  {"name": "fn", "tasks": [{"fn": "cat", "input": "gen"}]}]}')
check "$M: function outputs at the bound of what the driver keeps" \
  submit --master "$M" --lib "$TASKS_LIB" --event-log "$T/ev" "$J"
{
  ys 65534; echo; ys 65535; echo; ys 65536; echo; ys 65535; echo
  printf '\n\n\000\377\n6\001\n\000\377\n7\001\nyyy\n'
  ys 32767; echo; ys 32768; echo
} >"$T/bounds.ref"
check "... every reader gets every output, in task order" \
  all_same "$T/bounds.ref" "$T/out" "$T/read.0" "$T/read.1"
check "... the two outputs past the bound were on disk ($(cat "$T/ondisk.0" 2>/dev/null))" \
  test "$(cat "$T/ondisk.0" 2>/dev/null)" = 2
L=$(ls "$T"/ev/*.events | head -1)
check "... the event log's result_bytes are the bytes read of each" \
  test "$(jq -r 'select(.event == "task_end" and .stage == '"$(jq 'select(.event == "stage_start" and .name == "gen") | .stage' "$L")"') | "\(.index) \(.result_bytes // 0)"' "$L" | sort -n | tr '\n' ' ')" \
  = "0 65535 1 65536 2 65537 3 65536 4 1 5 1 6 6 7 6 8 4 9 32768 10 32769 "

N=300
J=$(job flaky '{"name": "flaky", "stages": [
  {"name": "gen", "tasks": [{"fn": "flaky", "arg": "7 30", "count": '$N'}]},
  {"name": "read", "tasks": [{"cmd": ["sh", "-c",
   "'"$COUNT"'; cat > '"$T"'/flaky.{i}"], "count": 2, "input": "gen"}]},
  {"name": "fn", "tasks": [{"fn": "cat", "input": "gen"}]}]}')
check "$M: $N tasks failing at random, retried" \
  submit --master "$M" --lib "$TASKS_LIB" --max-failures 20 "$J"
seq 0 $((N - 1)) | sed 's/^/line /' >"$T/flaky.ref"
check "... each line once, in order, at every reader" \
  all_same "$T/flaky.ref" "$T/out" "$T/flaky.0" "$T/flaky.1"
check "... none on disk ($(cat "$T/ondisk.0" 2>/dev/null))" \
  test "$(cat "$T/ondisk.0" 2>/dev/null)" = 0

J=$(job slow '{"name": "slow", "stages": [
  {"name": "gen", "tasks": [{"fn": "slow_first", "arg": "1500",
   "timeout": "300ms"}, {"fn": "echo", "arg": "task 1"}]},
  {"name": "read", "tasks": [{"cmd": ["sh", "-c", "sleep 2; cat"],
   "input": "gen"}]}]}')
# (the reader sleeps: the abandoned attempt returns while the job runs)
check "$M: first attempts past their timeout, retried" \
  submit --master "$M" --lib "$TASKS_LIB" "$J"
check "... the retries' results only" \
  same "$T/out" <(printf 'task 0 attempt 1\ntask 1\n')

LC='local-cluster[2,1,512]'
BIG='head -c 102400 /dev/zero | tr \"\\\\0\" '
LONG=$(head -c 70000 /dev/zero | tr '\0' b)
FIRST="if [ ! -e '$T/failed.{i}' ]; then touch '$T/failed.{i}'; head -c 1000 >/dev/null; exit 3; fi"
J=$(job mixed '{"name": "mixed", "stages": [
  {"name": "gen", "tasks": [{"fn": "echo", "arg": "s0"},
   {"cmd": ["sh", "-c", "'"$BIG"'a"]}, {"cmd": ["printf", "s2"]},
   {"fn": "echo_all", "arg": "'"$LONG"'"}, {"fn": "ys", "arg": "5"},
   {"cmd": ["sh", "-c", "'"$BIG"'c"]}, {"fn": "bin"},
   {"fn": "ys", "arg": "70000"}, {"fn": "noop"},
   {"cmd": ["sh", "-c", "'"$BIG"'e; echo"]}, {"fn": "echo", "arg": "s10"},
   {"cmd": ["sh", "-c", "'"$BIG"'f"]}, {"cmd": ["printf", "s12\\n"]}]},
  {"name": "read", "tasks": [{"cmd": ["sh", "-c",
   "'"$FIRST"'; cat > '"$T"'/mixed.{i}"], "count": 3, "input": "gen"}]},
  {"name": "fn", "tasks": [{"fn": "cat", "input": "gen", "count": 2}]}]}')
check "$LC: kept outputs between large ones on either node, readers retried" \
  submit --master "$LC" --lib "$TASKS_LIB" "$J"
big() { head -c 102400 /dev/zero | tr '\0' "$1"; echo; }
{
  echo s0; big a; echo s2; echo "$LONG"; echo yyyyy; big c
  printf '\000\377\n6\001\n'; ys 70000; echo; echo; big e; echo s10
  big f; echo s12
} >"$T/mixed.ref"
check "... each command reader gets every output, in task order" \
  all_same "$T/mixed.ref" "$T/mixed.0" "$T/mixed.1" "$T/mixed.2"
check "... after its first attempt failed mid-read" \
  test -e "$T/failed.0" -a -e "$T/failed.1" -a -e "$T/failed.2"
check "... and each function reader too (twice in its result)" \
  same "$T/out" <(cat "$T/mixed.ref" "$T/mixed.ref")

J=$(job spec '{"name": "spec", "stages": [
  {"name": "gen", "tasks": [{"fn": "slow_first", "arg": "200", "count": 11},
   {"fn": "slow_first", "arg": "4000"}]},
  {"name": "read", "tasks": [{"cmd": ["sh", "-c", "sleep 0.5; cat"],
   "input": "gen"}]}]}')
# (the reader sleeps: the driver outlives the straggler's kill)
check "$LC: a straggling function task speculated" \
  submit --master "$LC" --lib "$TASKS_LIB" --conf speculation=true \
  --log-level info "$J"
check "... the copy's result, the others' first ones" \
  same "$T/out" <(printf 'task %d attempt 0\n' $(seq 0 10)
                  echo 'task 11 attempt 1')
check "... the straggler was killed" \
  grep -q 'task 11, attempt 0: killed as asked' "$T/err"

check "nothing is left running" no_leftovers
finish
