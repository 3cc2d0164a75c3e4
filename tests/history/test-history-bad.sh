#!/usr/bin/env bash
# hearth-history on bad input: each gets a clear error and a non-zero exit
# (1: what was asked for cannot be read; 2: a bad command line), never a
# crash, and what can be read is still listed:
# a missing directory, no --dir, a file that cannot be read, files in DIR
# that are not logs (ignored by name, or named *.events and said), an
# empty log, an unknown APP_ID, a log whose last line is cut, bad
# --since / --state, two APP_IDs, an index that cannot be written, an
# index file damaged, an index directory that is a symbolic link (left in
# a shared DIR: never read nor written through, the file it names kept,
# said once), FIFOs at the index's, its directory's and a log's names
# (never waited on; the reader of a log made a FIFO after the listing is
# tests/history/test_hist_dir.c's).
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 120
export TMPDIR=$T
unset HEARTH_EVENT_LOG_DIR
H=$BIN/hearth-history

# hist ARGS...: hearth-history, stdout to $T/hout, stderr to $T/herr; its
# exit status in $rc
hist() { "$H" "$@" >"$T/hout" 2>"$T/herr"; rc=$?; }
said() { grep -q "$1" "$T/herr" || { cat "$T/herr" >&2; return 1; }; }
rows() { tail -n +2 "$T/hout" | wc -l; }

J=$(job one '{"name":"one","stages":[{"name":"s","tasks":[{"cmd":["echo","{i}"],"count":3}]}]}')
check "a real log to start from" submit --master 'local[2]' --event-log "$T/ev" "$J"
ID=$(basename "$(ls "$T"/ev/*.events)" .events)

hist --dir "$T/nope"
check "a missing directory: exit 1" test $rc -eq 1
check "... saying so, with its name" said "cannot read the directory $T/nope: No such file"
hist
check "no --dir and no HEARTH_EVENT_LOG_DIR: exit 2" test $rc -eq 2
check "... saying --dir is required" said "dir DIR is required"
HEARTH_EVENT_LOG_DIR=$T/ev hist
check "HEARTH_EVENT_LOG_DIR stands for --dir" test $rc -eq 0 -a "$(rows)" -eq 1
hist --dir "$T/ev/$ID.events"
check "a file as --dir: exit 1, not a directory" test $rc -eq 1
check "... said" said "Not a directory"

echo "hello" >"$T/ev/README"
echo "not json" >"$T/ev/junk.events"
: >"$T/ev/empty.events"
hist --dir "$T/ev"
check "files that are not logs: exit 1" test $rc -eq 1
check "... junk.events said not an event log" said "junk.events is not an event log"
check "... an empty one too" said "empty.events is not an event log"
check "... README ignored (not a log's name)" test "$(grep -c README "$T/herr")" -eq 0
check "... and the real log still listed" test "$(rows)" -eq 1
hist --dir "$T/ev" junk
check "a summary of a file that is not a log: exit 1" test $rc -eq 1
check "... said" said "junk.events is not an event log"
rm "$T/ev/junk.events" "$T/ev/empty.events"

# a file that cannot be read: mode 000 (or, as root, who reads any mode, a
# symbolic link to /proc/self/mem: a link at a log's name is never
# followed, and said)
if [ "$(id -u)" = 0 ]; then
  ln -s /proc/self/mem "$T/ev/unreadable.events"
else
  echo x >"$T/ev/unreadable.events" && chmod 000 "$T/ev/unreadable.events"
fi
hist --dir "$T/ev"
check "an unreadable file: exit 1" test $rc -eq 1
check "... named, with the system's reason" said "unreadable.events: "
check "... the real log still listed" test "$(rows)" -eq 1
hist --dir "$T/ev" unreadable
check "its summary: exit 1, said" test $rc -eq 1 -a -s "$T/herr"
rm -f "$T/ev/unreadable.events"

hist --dir "$T/ev" app-00000000000000-1
check "an unknown APP_ID: exit 1" test $rc -eq 1
check "... saying there is no such application" said "no application app-00000000000000-1 in $T/ev"

# a cut last line (a driver killed mid-write): ignored, said in the summary
head -c -20 "$T/ev/$ID.events" >"$T/ev/cut.events"
hist --dir "$T/ev" --json
check "a log with a cut last line: listed, exit 0" test $rc -eq 0
check "... (cut_last_line true, no app_end: FAILED)" \
  test "$(jq -r '.applications[] | select(.id == "cut") | [.cut_last_line, .state] | map(tostring) | join(" ")' "$T/hout")" = "true FAILED"
hist --dir "$T/ev" cut
check "... its summary reads: exit 0" test $rc -eq 0
check "... and says the last line was cut" grep -q "the last one cut (ignored)" "$T/hout"
rm "$T/ev/cut.events"

hist --dir "$T/ev" --since yesterday
check "a bad --since: exit 2" test $rc -eq 2
check "... with the forms it takes" said "a duration back from now"
hist --dir "$T/ev" --state DONE
check "a bad --state: exit 2, naming the states" test $rc -eq 2
check "... said" said "RUNNING, FINISHED, FAILED or KILLED"
hist --dir "$T/ev" "$ID" other
check "two APP_IDs: exit 2" test $rc -eq 2
check "... said" said "unexpected argument 'other'"

# the index cannot be written (its directory's name taken by a file): the
# listing goes on in memory
rm -rf "$T/ev/.hearth-history" && echo x >"$T/ev/.hearth-history"
hist --dir "$T/ev"
check "an index that cannot be written: exit 0, listed" test $rc -eq 0 -a "$(rows)" -eq 1
check "... silently" test ! -s "$T/herr"
rm "$T/ev/.hearth-history"
# a damaged index: not trusted, rewritten
hist --dir "$T/ev" && cp "$T/hout" "$T/good"
printf '{"hearth_history_index":2}\n{"id":"%s","files":[["%s.events",1,1,1]],"app":{"id":"x"}}\ngarbage\n' \
  "$ID" "$ID" >"$T/ev/.hearth-history/index"
hist --dir "$T/ev"
check "a damaged index: the same listing" same "$T/good" "$T/hout"
check "... the index rewritten whole" jq -e . "$T/ev/.hearth-history/index" >/dev/null

# .hearth-history a symbolic link to another directory holding an
# "index" (a shared DIR: anyone may leave one): not written through
mkdir "$T/elsewhere" && printf 'precious\n' >"$T/elsewhere/index"
rm -rf "$T/ev/.hearth-history" && ln -s "$T/elsewhere" "$T/ev/.hearth-history"
hist --dir "$T/ev"
check "an index directory that is a link: exit 0, the same listing" eval \
  '(( rc == 0 )) && same "$T/good" "$T/hout"'
check "... the file in the directory it names untouched" test "$(cat "$T/elsewhere/index")" = precious
check "... nothing else written there" test "$(ls -A "$T/elsewhere")" = index
check "... said once, naming it" eval \
  '[[ $(grep -c "$T/ev/.hearth-history is a symbolic link" "$T/herr") == 1 ]]'
rm "$T/ev/.hearth-history"

# FIFOs left in a shared DIR (opening one would wait for a writer, for
# ever): at the index's name, at its directory's, at a log's.  Each run
# is bounded (timeout 10 s: exit 124 if it hangs).
mkdir -p "$T/ev/.hearth-history" && rm -f "$T/ev/.hearth-history/index"
mkfifo "$T/ev/.hearth-history/index"
timeout 10 "$H" --dir "$T/ev" >"$T/hout" 2>"$T/herr"
rc=$?
check "a FIFO at the index's name: not waited on, the same listing (exit $rc)" \
  eval '(( rc == 0 )) && same "$T/good" "$T/hout"'
rm -rf "$T/ev/.hearth-history" && mkfifo "$T/ev/.hearth-history"
timeout 10 "$H" --dir "$T/ev" >"$T/hout" 2>"$T/herr"
rc=$?
check "a FIFO at the index directory's name: not waited on, the same listing (exit $rc)" \
  eval '(( rc == 0 )) && same "$T/good" "$T/hout"'
rm "$T/ev/.hearth-history"
mkfifo "$T/ev/fifo.events"
timeout 10 "$H" --dir "$T/ev" fifo >"$T/hout" 2>"$T/herr"
rc=$?
check "a FIFO at a log's name: not a log, at once (exit $rc)" test "$rc" -eq 1
check "... said" said "no application fifo in $T/ev"
rm "$T/ev/fifo.events"
check "nothing is left running" wait_for 10 no_leftovers
finish
