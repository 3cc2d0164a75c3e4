#!/usr/bin/env bash
# Readiness for systemd's Type=notify (docs/operations.md, "systemd"):
# started with NOTIFY_SOCKET naming a datagram socket the test listens on
# (notify-listen), the master says READY=1 once it serves (its sockets
# bound and its journal replayed: after its ready file), the worker once
# its link is started (it does not wait for a master, which may be down:
# it says READY=1 with none at all), and both say STOPPING=1 on SIGTERM.
# Nothing they start inherits NOTIFY_SOCKET.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 90
export TMPDIR=$T

# listen NAME FILE: notify-listen on $T/NAME.sock, watching FILE; lines to
# $T/NAME.notify.
listen() {
  "$TBIN/notify-listen" "$T/$1.sock" "$2" >"$T/$1.notify" 2>&1 &
  PIDS+=($!)
  wait_for 5 grep -q LISTENING "$T/$1.notify"
}
said() { grep -q -- "$2" "$T/$1.notify"; }

# --- the master ---------------------------------------------------------
check "a listener for the master" listen master "$T/master.ready"
NOTIFY_SOCKET=$T/master.sock start_master --journal "$T/journal" || exit 1
check "the master says READY=1" wait_for 5 said master '^READY=1 '
check "... after its ready file is written" said master '^READY=1 file=yes'
check "... with a STATUS naming its URL" said master "^STATUS=master $MASTER_URL up"
check "... once" test "$(count_lines "$T/master.notify" '^READY=1')" -eq 1

# --- a worker -----------------------------------------------------------
check "a listener for the worker" listen w1 "$T/w1.ready"
NOTIFY_SOCKET=$T/w1.sock start_worker w1 || exit 1
check "the worker says READY=1" wait_for 5 said w1 '^READY=1 '
check "... with a STATUS naming its master" said w1 "^STATUS=worker .* registering with $MASTER_URL"
J=$(job env '{"name":"env","stages":[{"name":"s","tasks":[
  {"cmd":["sh","-c","echo \"[${NOTIFY_SOCKET:-none}]\""]}]}]}')
check "a job runs on it" submit --master "$MASTER_URL" "$J"
check "... whose task does not inherit NOTIFY_SOCKET" grep -qx '\[none\]' "$T/out"

# A worker whose master is not there is ready all the same: its boot does
# not wait for the master.
check "a listener for a lone worker" listen lone "$T/lone.ready"
mkdir -p "$T/lone"
NOTIFY_SOCKET=$T/lone.sock HEARTH_BIN_DIR="$T/bin" "$BIN/hearth-worker" \
  --master tcp://127.0.0.1:1 --work-dir "$T/lone" --ready-file "$T/lone.ready" \
  --cores 1 --memory 1G --log-level debug >>"$T/lone.log" 2>&1 &
LONE=$!
PIDS+=($LONE)
check "a worker with no master says READY=1" wait_for 5 said lone '^READY=1 file=no'
check "... although it has not registered" test ! -e "$T/lone.ready"

# --- stopping -----------------------------------------------------------
kill -TERM "$LONE" "$PID_w1"
check "the worker says STOPPING=1 on SIGTERM" wait_for 5 said w1 '^STOPPING=1'
check "... and the lone one" wait_for 5 said lone '^STOPPING=1'
kill -TERM "$MASTER_PID"
check "the master says STOPPING=1 on SIGTERM" wait_for 5 said master '^STOPPING=1'
wait "$MASTER_PID"
check "... and exits 0" test $? -eq 0
finish
