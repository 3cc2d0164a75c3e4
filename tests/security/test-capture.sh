#!/usr/bin/env bash
# The traffic of a job on a cluster with keys, captured on the loopback
# ports of its master and driver, holds none of the command names or task
# arguments in clear text -- while the same job without keys shows them
# (so the check can fail).  Skipped where no capture is possible.
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/../driver/lib-driver.sh"
. "$(dirname "$0")/lib-security.sh"
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

# run_captured NAME SUBMIT-ARGS...: the job on the current cluster, with
# the traffic of the master's and the driver's ports in $T/NAME.txt.
run_captured() {
  local name=$1; shift
  tcpdump -Z root -i lo --immediate-mode -U -w "$T/$name.pcap" tcp >/dev/null 2>"$T/$name.tcpdump" &
  local cap=$!
  PIDS+=($cap)
  wait_for 10 grep -q 'listening on' "$T/$name.tcpdump" || return 1
  submit --master "$MASTER_URL" --log-level info "$@" "$J"
  local rc=$?
  sleep 0.5
  kill -INT "$cap"; wait "$cap" 2>/dev/null
  local dport
  dport=$(sed -n 's/.*executors connect to tcp:[^ ]*:\([0-9]*\).*/\1/p' "$T/err" | head -1)
  tcpdump -r "$T/$name.pcap" -A "tcp port $MASTER_PORT or tcp port $dport" \
    >"$T/$name.txt" 2>/dev/null
  return $rc
}
secrets_in() { grep -c -e REGISTER_WORKER -e LAUNCH_TASKS -e STATUS_UPDATE -e sekrit-argument "$1"; }

start_master || exit 1
start_worker plain || exit 1
check "without keys, the job runs" run_captured plain
check "... and its capture shows commands and arguments in clear" \
  test "$(secrets_in "$T/plain.txt")" -gt 0
kill -TERM "$MASTER_PID" "$PID_plain"; wait "$MASTER_PID" "$PID_plain" 2>/dev/null

make_keys || exit 1
secure_master || exit 1
# shellcheck disable=SC2046
start_worker w1 $(client_keys w1) || exit 1
# shellcheck disable=SC2046
check "with keys, the job runs" run_captured secure $(client_keys client)
check "... its capture is not empty" test -s "$T/secure.txt"
check "... and shows no command name and no task argument" \
  test "$(secrets_in "$T/secure.txt")" -eq 0
finish
