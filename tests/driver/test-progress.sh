#!/usr/bin/env bash
# hearth-submit's progress line: on a terminal, stderr shows
# "[STAGE] FINISHED + RUNNING / TOTAL", RUNNING never more than the cores
# (tasks queued ahead on an executor are not running), and the line is
# erased at the end; off a terminal nothing of it is written.  `script`
# (util-linux, in every Debian) gives the job a terminal.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 60
export TMPDIR=$T

J=$(job steps '{"name":"steps","stages":[{"name":"steps","tasks":[
  {"cmd":["sh","-c","sleep 0.3; echo {i}"],"count":8}]}]}')
seq 0 7 >"$T/expected"

printf -v cmd '%q ' "$BIN/hearth-submit" --master 'local[2]' "$J"
# stdout to a file, stderr on the terminal; the typescript keeps it
script -qec "$cmd >$T/out" "$T/typescript" </dev/null >/dev/null
check "the job succeeds on a terminal" test $? -eq 0
check "... with its results" same "$T/out" "$T/expected"
tr '\r' '\n' <"$T/typescript" | grep -o '\[steps\] [0-9]* + [0-9]* / 8' \
  >"$T/lines"
say "$(wc -l <"$T/lines") progress lines, e.g. '$(sed -n 3p "$T/lines")'"
check "progress lines are drawn" test -s "$T/lines"
check "... with tasks finishing" grep -q '\[steps\] [1-9] + ' "$T/lines"
check "... and running on both cores" grep -q ' + 2 / 8' "$T/lines"
check "... never more running than the 2 cores" \
  awk '$4 > 2 { bad = 1 } END { exit bad }' "$T/lines"
check "... then erased" grep -q $'\r\033\\[K' "$T/typescript"

submit --master 'local[2]' "$J"
check "off a terminal the job succeeds" test $? -eq 0
check "... and writes no progress line" eval '! grep -q "\[steps\]" "$T/err"'
finish
