#!/usr/bin/env bash
# hearth-history serves nothing outside its directory (docs/security.md,
# "Web pages": "they serve what the event-log directory holds ... and
# nothing outside it"): an event-log directory that every user's drivers
# share (mode 1777) may hold a symbolic link that another user (nobody)
# left, named like a log, to a log that user cannot read (here in a
# directory of root's, mode 0700).  hearth-history, run by someone who can
# read it (root), must not follow the link: the listing, the summary and
# --json show nothing of the private application, and the link is said on
# stderr, naming it, with exit 1 (as any file of DIR it cannot read).
# Before, the private application was listed and summarized (its name,
# its task's stderr, its settings) as if it were in the directory, and
# kept so in the directory's index, which anyone may read.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
. "$(dirname "$0")/../lib/security.sh"
need_nobody "nobody plants the link"
deadline 120
unset HEARTH_EVENT_LOG_DIR

mkdir -m 700 "$T/private"
mkdir -m 1777 "$T/shared"
J=$(job private '{"name":"private-payroll","stages":[{"name":"s","tasks":[
  {"cmd":["sh","-c","echo hush-hush >&2; exit 3"]}]}]}')
submit --master 'local[1]' --event-log "$T/private" "$J"
LOG=$(ls "$T/private")
check "root's private log is there" test -s "$T/private/$LOG"
as_nobody cat "$T/private/$LOG" >/dev/null 2>&1
check "... and nobody cannot read it" test $? -ne 0
LINK=app-20990101000000-0001
as_nobody ln -s "$T/private/$LOG" "$T/shared/$LINK.events"
check "nobody leaves a link named like a log in the shared directory" \
  test -L "$T/shared/$LINK.events"

# shows FILE: FILE holds something of the private application
shows() { grep -q 'private-payroll\|hush-hush' "$1"; }
"$BIN/hearth-history" --dir "$T/shared" >"$T/list" 2>"$T/list.err"
check "the listing does not follow the link: exit 1" test $? -eq 1
check "... it shows nothing of the private application" eval '! shows "$T/list"'
check "... and says why, naming the link" grep -q "$T/shared/$LINK.events" "$T/list.err"
"$BIN/hearth-history" --dir "$T/shared" --json >"$T/json" 2>/dev/null
check "--json shows nothing of it" eval '! shows "$T/json"'
"$BIN/hearth-history" --dir "$T/shared" "$LINK" >"$T/sum" 2>"$T/sum.err"
check "the summary by its name fails (exit 1)" test $? -eq 1
check "... showing nothing of it" eval '! shows "$T/sum" && ! shows "$T/sum.err"'
as_nobody cat "$T/shared/.hearth-history/index" >"$T/index" 2>/dev/null
check "the index (in the shared directory, readable by all) holds nothing of it" \
  eval '! shows "$T/index"'
check "the private log is untouched" test "$(stat -c %U "$T/private/$LOG")" = root
finish
