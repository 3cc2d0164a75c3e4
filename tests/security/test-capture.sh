#!/usr/bin/env bash
# The traffic of a worker's registration and a job on a cluster with
# keys, captured on the loopback ports of its master and of its driver,
# each port checked on its own, holds none of the protocol's tag, command
# names or task arguments in clear text -- while the same run without
# keys (--insecure, on all addresses) shows them on each port (so the
# checks can fail).  On loopback without keys the master's links speak
# CURVE with the user's cookie (docs/security.md, "Local users"): its
# port shows none of them either.  Skipped where no capture is possible.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
. "$(dirname "$0")/../lib/security.sh"
deadline 180
export TMPDIR=$T

if ! command -v tcpdump >/dev/null; then
  say "SKIP: tcpdump is not installed"; exit 77
fi
tcpdump -Z root -i lo -U -w "$T/probe.pcap" 'tcp port 9' >/dev/null 2>"$T/probe.err" &
probe=$!
sleep 0.5
if ! kill -0 "$probe" 2>/dev/null; then
  say "SKIP: cannot capture on lo here: $(head -1 "$T/probe.err")"; exit 77
fi
kill "$probe"; wait "$probe" 2>/dev/null

J=$(job marked '{"name":"marked","stages":[{"name":"s","tasks":[{"cmd":["echo","sekrit-argument-{i}"],"count":20}]}]}')

# run_captured NAME SUBMIT-ARGS...: a worker (with $WORKER_KEYS) and then
# the job on the current master, captured from before the worker
# registers; the traffic of the master's port in $T/NAME-master.txt, of
# the driver's port in $T/NAME-driver.txt.
run_captured() {
  local name=$1; shift
  tcpdump -Z root -i lo --immediate-mode -U -w "$T/$name.pcap" tcp >/dev/null 2>"$T/$name.tcpdump" &
  local cap=$!
  PIDS+=($cap)
  wait_for 10 grep -q 'listening on' "$T/$name.tcpdump" || return 1
  # shellcheck disable=SC2086
  start_worker "$name" $WORKER_KEYS || return 1
  submit --master "$MASTER_URL" --log-level info "$@" "$J"
  local rc=$?
  sleep 0.5
  kill -INT "$cap"; wait "$cap" 2>/dev/null
  local dport
  dport=$(sed -n 's/.*executors connect to tcp:[^ ]*:\([0-9]*\).*/\1/p' "$T/err" | head -1)
  tcpdump -r "$T/$name.pcap" -A "tcp port $MASTER_PORT" \
    >"$T/$name-master.txt" 2>/dev/null
  tcpdump -r "$T/$name.pcap" -A "tcp port ${dport:-1}" \
    >"$T/$name-driver.txt" 2>/dev/null
  return $rc
}
# The words that give a link away: the protocol's tag and command names
# the master's port carries, the driver's commands and a task's argument.
MASTER_WORDS=(HEARTH/ HEARTBEAT REGISTER_WORKER REGISTER_APPLICATION LAUNCH_EXECUTOR)
DRIVER_WORDS=(HEARTH/ LAUNCH_TASKS STATUS_UPDATE sekrit-argument)
shows() { grep -q -F -- "$2" "$1"; }

# --insecure on all addresses: the clients reach it by the address it
# advertises (not 127.0.0.1: that asks for the cookie), still through lo.
start_master --host 0.0.0.0 --insecure || exit 1
WORKER_KEYS=
check "without keys, the job runs" run_captured plain
for w in "${MASTER_WORDS[@]}"; do
  check "... the master's port shows $w in clear" shows "$T/plain-master.txt" "$w"
done
for w in "${DRIVER_WORDS[@]}"; do
  check "... the driver's port shows $w in clear" shows "$T/plain-driver.txt" "$w"
done
kill -TERM "$MASTER_PID" "$PID_plain"; wait "$MASTER_PID" "$PID_plain" 2>/dev/null

start_master || exit 1
check "on loopback without keys (the cookie), the job runs" run_captured cookie
check "... the capture of the master's port is not empty" \
  test "$(grep -c 'length [1-9]' "$T/cookie-master.txt")" -gt 10
for w in "${MASTER_WORDS[@]}"; do
  check "... the master's port shows no $w" eval "! shows '$T/cookie-master.txt' '$w'"
done
kill -TERM "$MASTER_PID" "$PID_cookie"; wait "$MASTER_PID" "$PID_cookie" 2>/dev/null

make_keys || exit 1
secure_master || exit 1
WORKER_KEYS=$(client_keys w1)
# shellcheck disable=SC2046
check "with keys, the job runs" run_captured secure $(client_keys client)
check "... the capture of the master's port is not empty" \
  test "$(grep -c 'length [1-9]' "$T/secure-master.txt")" -gt 10
check "... nor that of the driver's port" \
  test "$(grep -c 'length [1-9]' "$T/secure-driver.txt")" -gt 2
for w in "${MASTER_WORDS[@]}"; do
  check "... the master's port shows no $w" eval "! shows '$T/secure-master.txt' '$w'"
done
for w in "${DRIVER_WORDS[@]}"; do
  check "... the driver's port shows no $w" eval "! shows '$T/secure-driver.txt' '$w'"
done
finish
