#!/usr/bin/env bash
# Outputs the driver keeps (libhearth/inlineout.h) at their bounds, in
# local[2]: a stage read whole by one task keeps an output shorter than
# 64 KiB (room for the newline the driver adds when its last line has
# none), as the task wrote it.
# - 65,534 bytes and a newline: 65,535, the longest kept;
# - 65,535 bytes without a newline: kept, 65,536 once the driver adds it;
# - 65,535 bytes and a newline, or 65,536 without: on disk;
# - an output that passes the bound between two of its stdout chunks,
#   and one of lines only then a large chunk: on disk, whole;
# - empty, one newline, no newline, NUL and 0xff bytes, CR, a function's
#   result and an empty one: kept;
# every reader (three tasks of one stage, a second stage of commands, a
# function) gets the same bytes, in task order.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 120
export TMPDIR=$T LC_ALL=C
M='local[2]'

# gen.sh N [nl]: N bytes of 'y', then a newline when asked
cat >"$T/gen.sh" <<'EOF'
#!/bin/sh
head -c "$1" /dev/zero | tr '\0' y
[ -n "${2:-}" ] && echo
exit 0
EOF
chmod +x "$T/gen.sh"
G=$T/gen.sh
# a reader counts the map outputs on disk under $T, then takes its input
COUNT="find '$T' -path '*shuffle*' -name '*.index' | wc -l > '$T/ondisk.{i}'"

J=$(job bounds '{"name": "bounds", "stages": [
  {"name": "gen", "tasks": [
   {"cmd": ["'"$G"'", "65534", "nl"]}, {"cmd": ["'"$G"'", "65535"]},
   {"cmd": ["'"$G"'", "65535", "nl"]}, {"cmd": ["'"$G"'", "65536"]},
   {"cmd": ["sh", "-c", "'"$G"' 40000; sleep 0.2; '"$G"' 40000 nl"]},
   {"cmd": ["sh", "-c", "echo a; echo b; sleep 0.2; '"$G"' 70000"]}]},
  {"name": "read", "tasks": [{"cmd": ["sh", "-c",
   "'"$COUNT"'; cat > '"$T"'/read.{i}"], "count": 3, "input": "gen"}]},
  {"name": "again", "tasks": [{"cmd": ["sh", "-c",
   "cat > '"$T"'/again.{i}"], "input": "gen"}]},
  {"name": "fn", "tasks": [{"fn": "cat", "input": "gen"}]}]}')
check "$M: outputs at the bound of what the driver keeps" \
  submit --master "$M" --lib "$TASKS_LIB" "$J"
{
  "$G" 65534 nl
  "$G" 65535 nl
  "$G" 65535 nl
  "$G" 65536 nl
  "$G" 80000 nl
  printf 'a\nb\n'
  "$G" 70000 nl
} >"$T/bounds.ref"
check "... the function reader gets every output, in task order" \
  same "$T/out" "$T/bounds.ref"
for f in read.0 read.1 read.2 again.0; do
  check "... and so does the command reader $f" same "$T/$f" "$T/bounds.ref"
done
check "... the four outputs past the bound were on disk, the two at it kept ($(cat "$T/ondisk.0" 2>/dev/null) map outputs)" \
  test "$(cat "$T/ondisk.0" 2>/dev/null)" = 4

J=$(job bytes '{"name": "bytes", "stages": [
  {"name": "gen", "tasks": [{"cmd": ["printf", "a\\000b\\377\\n\\n"]},
   {"cmd": ["true"]}, {"cmd": ["printf", "x"]}, {"cmd": ["printf", "\\n"]},
   {"fn": "echo", "arg": "fn{i}", "count": 2}, {"fn": "echo", "arg": ""},
   {"cmd": ["sh", "-c", "printf \"p\\tq\\r\\n\"; sleep 0.2; printf tail"]}]},
  {"name": "read", "tasks": [{"cmd": ["sh", "-c",
   "'"$COUNT"'; cat > '"$T"'/bytes.{i}"], "count": 2, "input": "gen"}]},
  {"name": "fn", "tasks": [{"fn": "cat", "input": "gen"}]}]}')
check "$M: small outputs of every shape" \
  submit --master "$M" --lib "$TASKS_LIB" "$J"
printf 'a\000b\377\n\n\nx\n\nfn0\nfn1\n\np\tq\r\ntail\n' >"$T/bytes.ref"
check "... the function reader gets them exactly" same "$T/out" "$T/bytes.ref"
check "... and so do the command readers" \
  eval 'same "$T/bytes.0" "$T/bytes.ref" && same "$T/bytes.1" "$T/bytes.ref"'
check "... none was on disk ($(cat "$T/ondisk.0" 2>/dev/null))" \
  test "$(cat "$T/ondisk.0" 2>/dev/null)" = 0

check "nothing is left running" no_leftovers
finish
