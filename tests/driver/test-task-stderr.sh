#!/usr/bin/env bash
# A command task's standard error (issue 21): a failed one's error shows
# the last 4 KiB of it, whole lines, the earlier bytes counted in a marker
# line, within the protocol's 4096-byte text; a short one whole.  A
# successful task's stderr goes to its executor's log (info), at most
# 4 KiB of it, after a line saying how much was not kept: in local[2]
# (the driver's stderr, with --log-level info) and local-cluster (the
# executor's log file in its worker's work dir).  Terminal sequences in a
# failed task's stderr are shown escaped, its lines kept.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 180
export TMPDIR=$T

# 200 numbered lines of 40 bytes (8,000 bytes) on stderr, then exit 3.
LONG=$(job long '{"name": "long", "stages": [{"name": "s", "tasks": [
  {"cmd": ["sh", "-c", "i=1; while [ $i -le 200 ]; do printf \"stderr line %03d .......................\\n\" $i >&2; i=$((i+1)); done; exit 3"]}]}]}')
check "local[2]: a failing command with 8,000 bytes of stderr fails the job" \
  test "$(submit --master 'local[2]' --max-failures 1 "$LONG"; echo $?)" = 1
check "... its error shows the last line" grep -qF "stderr line 200 ....." "$T/err"
check "... and the lines before it, back to about 4 KiB" \
  grep -qF "stderr line 110 ....." "$T/err"
check "... not the first ones" test "$(grep -c 'stderr line 001' "$T/err")" = 0
check "... with a line counting what was left out" \
  grep -qE 'status 3: \[[0-9]+ earlier bytes of stderr left out\]$' "$T/err"
first=$(grep -m1 -o 'stderr line [0-9]*' "$T/err" | grep -o '[0-9]*$')
left=$(grep -o '\[[0-9]* earlier' "$T/err" | grep -o '[0-9]*')
check "... the count is exactly the bytes before the first line shown" \
  test "$left" = "$(( (10#$first - 1) * 40 ))"
check "... whole lines only" \
  test "$(grep -c '^stderr line [0-9]* \.\{23\}$' "$T/err")" = "$((201 - 10#$first))"
bytes=$(sed -n '/failed 1 time; last error: /,$p' "$T/err" | wc -c)
check "... the error within the protocol's 4096 bytes" test "$bytes" -lt 4300

SHORT=$(job short '{"name": "short", "stages": [{"name": "s", "tasks": [
  {"cmd": ["sh", "-c", "echo one >&2; echo two >&2; exit 1"]}]}]}')
submit --master 'local[2]' --max-failures 1 "$SHORT"
check "a short stderr is shown whole: its first line" \
  grep -qF "sh exited with status 1: one" "$T/err"
check "... and its last" grep -qx "two" "$T/err"
check "... with no marker" test "$(grep -c 'left out' "$T/err")" = 0

# Terminal sequences in a failed task's stderr (issue 35 item 8): its
# lines are kept, everything else that would drive the terminal escaped.
ESCS=$(job esc '{"name": "esc", "stages": [{"name": "s", "tasks": [
  {"cmd": ["sh", "-c", "printf \"red \\033[31m\\rline\\n\\033]0;title\\007two\\n\" >&2; exit 1"]}]}]}')
submit --master 'local[2]' --max-failures 1 "$ESCS"
check "a stderr with terminal sequences: shown escaped" \
  grep -qF 'sh exited with status 1: red \x1b[31m\rline' "$T/err"
check "... its lines kept" grep -qxF '\x1b]0;title\x07two' "$T/err"
check "... no raw ESC, CR or BEL" eval '! grep -q "[$(printf "\033\r\007")]" "$T/err"'

# A successful task's stderr: 8,000 bytes, and a short one.
OK=$(job ok '{"name": "ok", "stages": [{"name": "s", "tasks": [
  {"cmd": ["sh", "-c", "i=1; while [ $i -le 200 ]; do printf \"ok line %03d ...........................\\n\" $i >&2; i=$((i+1)); done; echo done"]},
  {"cmd": ["sh", "-c", "echo just a note >&2; echo fine"]}]}]}')
check "local[2]: tasks writing stderr succeed" \
  submit --master 'local[2]' --log-level info "$OK"
check "... their results as usual" test "$(cat "$T/out")" = "done
fine"
check "... a short stderr in the executor's log" \
  grep -qE 'attempt 0 stderr: just a note$' "$T/err"
check "... a long one's last line" grep -qE 'stderr: ok line 200 \.+$' "$T/err"
check "... at most 4 KiB of it" \
  test "$(grep -c 'stderr: ok line' "$T/err")" -le 103
check "... after a line saying how much was not kept" \
  grep -qE 'earlier bytes of its stderr not kept' "$T/err"

check "local-cluster: the same job" \
  submit --master 'local-cluster[1,2,512]' --work-dir "$T/lc" "$OK"
check "... the short stderr in the executor's log file" \
  grep -rqE 'stderr: just a note$' "$T/lc"
check "... the long one's end too" grep -rqE 'stderr: ok line 200 \.+$' "$T/lc"
finish
