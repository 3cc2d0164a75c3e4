#!/usr/bin/env bash
# Files written into directories that others may write (issue 35 item 7,
# docs/security.md "Files written in shared directories"): a symbolic link
# left at a name a Hearth process is about to write, pointing at a file
# the test owns (as root: as a root-only file would be), is never written
# through:
# - a job's --output directory: a link at OUT/_temporary (where the tasks
#   write) refuses the job, saying so; the directory it names untouched;
#   one put there while the job runs fails the attempts, and what is
#   removed of them is never looked for through it;
# - the master's --ready-file: a link at its temporary name (PATH.tmp.PID,
#   the pid guessed as a shell's that execs the master) is removed, not
#   followed, and the ready file written; the worker's the same;
# - the master's --log-file and --pid-file: a link there refuses the
#   start with the reason;
# - a FIFO at the master's --log-file (which would block its start until
#   someone reads it) is refused at once, with the reason.
# The event log and hearth-history's index have theirs in
# tests/driver/test-event-log.sh and tests/history/test-history-bad.sh.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 120
export TMPDIR=$T

S=$T/shared
mkdir -p "$S" && chmod 1777 "$S"
# victim: a file of the test's, only its owner may read it; untouched:
# its content is still the test's
printf 'precious\n' >"$T/victim" && chmod 600 "$T/victim"
untouched() { [[ $(cat "$T/victim") == precious ]]; }

# --- a job's output directory ----------------------------------------------
mkdir -p "$T/elsewhere" && printf 'precious\n' >"$T/elsewhere/part-00000.0"
mkdir -p "$S/out" && ln -s "$T/elsewhere" "$S/out/_temporary"
J=$(job out '{"name":"out","stages":[{"name":"s","tasks":[{"cmd":["echo","{i}"],"count":2}]}]}')
submit --master 'local[2]' --output "$S/out" "$J"
rc=$?
check "a link at OUT/_temporary: the job is refused (exit $rc)" test "$rc" -ne 0
check "... saying so" grep -q "cannot use $S/out/_temporary: it is a symbolic link" "$T/err"
check "... the directory it names untouched" eval \
  '[[ $(ls "$T/elsewhere") == part-00000.0 && $(cat "$T/elsewhere/part-00000.0") == precious ]]'
rm -f "$S/out/_temporary" # (the job's end removed it: the link, never what it names)
check "without it, the same job writes its part files" submit --master 'local[2]' --output "$S/out" "$J"
check "... each a file of its own" eval '[[ $(cat "$S"/out/part-* | sort | tr "\n" " ") == "0 1 " ]]'

# A link put at OUT/_temporary while the job runs (by a task: any user
# who may write OUT could), naming a directory that holds files named as
# the attempts' files: the attempts fail (their files cannot be
# committed or made there) and what the driver and the executor remove
# of a failed attempt is never looked for through the link.
mkdir -p "$T/elsewhere2"
for a in 0 1 2 3; do printf 'precious\n' >"$T/elsewhere2/part-00001.$a"; done
J=$(job swap "{\"name\":\"swap\",\"stages\":[{\"name\":\"s\",\"tasks\":[
  {\"cmd\":[\"sh\",\"-c\",\"if [ {i} = 1 ] && [ ! -L $S/out2/_temporary ]; then
    mv $S/out2/_temporary $S/out2/_moved && ln -s $T/elsewhere2 $S/out2/_temporary; fi; echo {i}\"],
   \"count\":2}]}]}")
submit --master 'local[1]' --output "$S/out2" "$J"
rc=$?
check "a link put at OUT/_temporary while the job runs: the job fails (exit $rc)" \
  test "$rc" -ne 0
check "... the files the link names untouched" eval \
  '[[ $(cat "$T"/elsewhere2/part-00001.* | tr "\n" " ") == "precious precious precious precious " ]]'

# --- ready files -------------------------------------------------------------
# as_pid_of_shell LINKNAME PROGRAM ARGS...: a shell links $S/LINKNAME.PID
# (PID: its own) to the victim, then execs PROGRAM ARGS in the background
# (same pid: the program's); its pid in $XPID.
as_pid_of_shell() {
  local name=$1; shift
  sh -c 'ln -s "$1" "$2.$$" && shift 2 && exec "$@"' sh "$T/victim" "$S/$name" "$@" &
  XPID=$!
  PIDS+=($XPID)
}
as_pid_of_shell master.ready.tmp "$BIN/hearth-master" --port 0 --events-port 0 \
  --ready-file "$S/master.ready" >"$T/master.log" 2>&1
check "a link at the master's temporary ready file: the master starts" \
  wait_for 10 test -s "$S/master.ready"
check "... the ready file its own, with its URLs" eval \
  '[[ ! -L $S/master.ready && $(sed -n 1p "$S/master.ready") == tcp://* ]]'
check "... the file the link named untouched" untouched
MASTER_URL=$(sed -n 1p "$S/master.ready")
MASTER_PID=$XPID

as_pid_of_shell w1.ready.tmp "$BIN/hearth-worker" --master "$MASTER_URL" \
  --work-dir "$T/w1" --ready-file "$S/w1.ready" --cores 1 --memory 1G \
  --decommission-timeout 0 \
  >"$T/w1.log" 2>&1
check "a link at the worker's temporary ready file: the worker registers" \
  wait_for 10 test -s "$S/w1.ready"
check "... the ready file its own, with its id" eval \
  '[[ ! -L $S/w1.ready && $(cat "$S/w1.ready") == worker-* ]]'
check "... the file the link named untouched" untouched
kill "$XPID" "$MASTER_PID"
wait "$XPID" "$MASTER_PID" 2>/dev/null

# --- log and pid files -------------------------------------------------------
# linked_start OPTION FILE MESSAGE: a master given OPTION $S/FILE, FILE a
# link to the victim, is refused (a master that starts anyway is stopped
# after 10 s: exit 124), saying MESSAGE, the victim untouched.
linked_start() {
  ln -s "$T/victim" "$S/$2"
  timeout 10 "$BIN/hearth-master" --port 0 --events-port 0 "$1" "$S/$2" \
    >"$T/$2.out" 2>&1
  local rc=$?
  check "a link at the master's $1: refused (exit $rc)" test "$rc" -ne 0 -a "$rc" -ne 124
  check "... saying so" grep -q "$3 $S/$2: it is a symbolic link" "$T/$2.out"
  check "... the file it names untouched" untouched
}
linked_start --log-file master.log "cannot open log file"
linked_start --pid-file master.pid "cannot open the pid file"

# --- a FIFO at a log file's name --------------------------------------------
# Opening it for writing would wait for a reader, for ever: the master
# must refuse it at once (timeout 10 s: exit 124 if it hangs).
mkfifo "$S/fifo.log"
timeout 10 "$BIN/hearth-master" --port 0 --events-port 0 --log-file "$S/fifo.log" \
  >"$T/fifo.out" 2>&1
rc=$?
check "a FIFO at the master's --log-file: refused at once (exit $rc)" \
  test "$rc" -ne 0 -a "$rc" -ne 124
check "... saying so" grep -q "cannot open log file $S/fifo.log: it is not a regular file" "$T/fifo.out"
check "nothing is left running" wait_for 10 no_leftovers
finish
