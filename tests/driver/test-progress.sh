#!/usr/bin/env bash
# hearth-submit's progress display on a terminal: one line per active
# stage, up to 3 and then "+N more", each
# "[Stage NAME: ===>   (FINISHED + RUNNING) / TOTAL] ELAPSED, N failed",
# RUNNING never more than the cores; redrawn at a bounded rate, never
# wider than the terminal; a log line (here the warning of a lost
# executor) printed on a line of its own above the display, never glued
# onto it; the display erased before the results are printed; off a
# terminal nothing of it is written.  `script` (util-linux, in every
# Debian) gives the job a terminal; test-vt renders what it received.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 90
export TMPDIR=$T TERM=xterm # whatever terminal make check runs in
COLS=100
VT=$BIN/tests/driver/test-vt

# Four stages that run at once, then one after them: task a/0 fails once,
# task b/1 kills its executor once (the driver warns that it was lost).
sleepy='"cmd":["sh","-c","sleep 0.4; echo {i}"],"count":4'
J=$(job bar '{"name":"bar","stages":[
 {"name":"a","tasks":[{"cmd":["sh","-c","sleep 0.4; if [ {i} = 0 ] && [ ! -e '"$T"'/failed ]; then touch '"$T"'/failed; exit 3; fi; echo {i}"],"count":4}]},
 {"name":"b","tasks":[{"cmd":["sh","-c","sleep 0.4; if [ {i} = 1 ] && [ ! -e '"$T"'/killed ]; then touch '"$T"'/killed; kill -9 $PPID; exit 1; fi; echo {i}"],"count":4}]},
 {"name":"c","tasks":[{'"$sleepy"'}]},
 {"name":"d","tasks":[{'"$sleepy"'}]},
 {"name":"end","after":["a","b","c","d"],"tasks":[{"cmd":["echo","result-ok"]}]}]}')

printf -v cmd '%q ' "$BIN/hearth-submit" --master 'local[2]' \
  --heartbeat-interval 200ms "$J"
# stdout and stderr both on the terminal, as a person runs it
start=$(now_ms)
script -qfec "stty cols $COLS rows 40 2>/dev/null; $cmd" "$T/typescript" \
  </dev/null >/dev/null
rc=$?
took=$(($(now_ms) - start))
check "the job succeeds on a terminal" test $rc -eq 0
check "... the executor was killed once" test -e "$T/killed"

# Every piece of text drawn, each cursor move or erase a line break.
sed 's/\x1b\[[0-9;]*[A-Za-z]/\n/g' "$T/typescript" | tr '\r' '\n' |
  grep -v '^$' >"$T/drawn"
grep -E '^(\[Stage |\+[0-9]+ more stage)' "$T/drawn" >"$T/bars"
say "$(wc -l <"$T/bars") stage lines drawn, e.g. '$(sed -n 8p "$T/bars")'"
form='^(\[Stage (a|b|c|d|end): [=> ]+ \([0-9]+ \+ [0-9]+\) / [0-9]+\] [0-9hms]+(, [0-9]+ failed)?|\+1 more stage)$'
check "stage lines are drawn" test -s "$T/bars"
check "... every one of the form [Stage NAME: ==>  (F + R) / T] TIME" \
  eval '! grep -Evq "$form" "$T/bars"'
check "... showing tasks finishing" grep -Eq '\(([1-9]) \+ [0-9]+\) / 4\]' \
  "$T/bars"
check "... and running on both cores" grep -q ' + 2) / 4\]' "$T/bars"
check "... never more running than the 2 cores" \
  eval '! grep -Eq " \+ ([3-9]|[1-9][0-9]+)\) /" "$T/bars"'
check "... the failed attempt counted" grep -Eq '^\[Stage a: .*, 1 failed$' \
  "$T/bars"
stacked() { grep -A1 '^\[Stage a: ' "$T/drawn" | grep -q '^\[Stage b: '; }
check "... several stages at once, one per line" stacked
check "... the fourth as '+1 more stage'" grep -qx '+1 more stage' "$T/bars"
check "... no line as wide as the terminal" \
  awk -v c=$COLS 'length($0) >= c { bad = 1 } END { exit bad }' "$T/bars"
draws=$(grep -o $'\033\\[J' "$T/typescript" | wc -l)
logs=$(grep -c ' WARN ' "$T/drawn")
say "$draws redraws in $took ms, $logs warnings"
check "... redrawn at most every 200 ms (and once per log line)" \
  test "$draws" -le $((took / 200 + logs + 3))

# The terminal's screen, without script's own header line: it ends with
# a bare line feed, which a terminal renders without a carriage return,
# so that the job's first line (a warning, when a task fails at once)
# would start where the header stopped, not at its line's start.
sed '1{/^Script started/d}' "$T/typescript" | "$VT" >"$T/screen"
check "on the screen at the end: the lost executor's warning" \
  grep -Eq ' WARN executor [0-9]+ lost' "$T/screen"
check "... on a line of its own, not glued onto the display" \
  grep -Eq '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z hearth-submit\[[0-9]+\] WARN executor [0-9]+ lost' \
  "$T/screen"
check "... every warning at the start of its line" \
  eval '! grep -E " WARN " "$T/screen" | grep -Evq "^[0-9]{4}-[0-9]{2}-[0-9]{2}T"'
check "... nothing left of the display" eval '! grep -q "Stage" "$T/screen"'
check "... and the result" grep -qx result-ok "$T/screen"
check "the display was erased before the result was printed" \
  eval '! sed -n "/result-ok/,\$p" "$T/drawn" | grep -q "^\[Stage "'

rm -f "$T/failed" "$T/killed"
submit --master 'local[2]' "$J"
check "off a terminal the job succeeds" test $? -eq 0
check "... with its result" grep -qx result-ok "$T/out"
no_display() { ! grep -q "Stage" "$T/err" && ! grep -q $'\033' "$T/err"; }
check "... and writes nothing of the display" no_display
check "... but the warnings, as they were" grep -q ' WARN executor [0-9]* lost' \
  "$T/err"
finish
