#!/usr/bin/env bash
# A launch that names no submitter, on a worker with keys (issue 35's
# review, item 4): a master started without keys records a cluster-mode
# driver, then starts again with keys on the same journal; the driver it
# restores names no key, and the keyed root worker it is placed on would
# run it as root.  The worker refuses it (DRIVER_STATE_CHANGED ERROR,
# which hearth-submit --status says): it would run it only with
# --allow-root-tasks (tests/unit/test_runas.c).
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
. "$(dirname "$0")/../lib/security.sh"
need_root
deadline 120
export TMPDIR=$T
JOURNAL=$T/journal

"$BIN/hearth-keygen" "$K" >/dev/null &&
  "$BIN/hearth-keygen" --client alice --user nobody "$K" >/dev/null &&
  "$BIN/hearth-keygen" --worker w1 "$K" >/dev/null ||
  { fail "keys"; finish; exit 1; }

# The driver: a program that says who ran it.
printf '#!/bin/sh\nid -u >"%s/ran.$HEARTH_DRIVER_ID"\n' "$T" >"$T/whoami.sh"
chmod 0755 "$T/whoami.sh"
chmod 0711 "$T"

start_master --journal "$JOURNAL" || { fail "a master without keys starts"; finish; exit 1; }
"$BIN/hearth-submit" --master "$MASTER_URL" --deploy-mode cluster --no-wait \
  "$T/whoami.sh" >"$T/out" 2>"$T/err"
check "a cluster-mode driver is submitted to the master without keys" test $? -eq 0
DRV=$(head -1 "$T/out")
check "... it waits for a worker (none yet)" grep -q '^driver-' "$T/out"
kill -INT "$MASTER_PID" && wait "$MASTER_PID"

# shellcheck disable=SC2046
start_master --journal "$JOURNAL" --curve-secret "$K/master.key_secret" \
  --curve-allow "$K/clients" --curve-allow-workers "$K/workers" ||
  { fail "the master starts again, with keys"; finish; exit 1; }
# shellcheck disable=SC2046
status() { "$BIN/hearth-submit" --master "$MASTER_URL" $(client_keys alice) --status "$DRV" 2>&1; }
state() { status | awk '$1 == "state:" {print $2}'; }
check "... and restores the driver, naming no key" eval '[[ $(state) == SUBMITTED ]]'

# shellcheck disable=SC2046
CORES=2 start_worker w1 $(client_keys w1) --conf allow-root-tasks=false ||
  fail "a keyed root worker starts"
check "the worker refuses the driver" \
  wait_for 15 grep -q "driver $DRV could not start: the launch names no key" "$T/w1.log"
check "... hearth-submit --status says ERROR and why" \
  wait_for 5 eval '[[ $(state) == ERROR ]] && status | grep -q "names no key.*--allow-root-tasks"'
check "... the driver did not run" test ! -e "$T/ran.$DRV"
check "... nor as root" eval '! grep -q "driver $DRV (launch 1) started" "$T/w1.log"'

kill -INT "$PID_w1" "$MASTER_PID" && wait "$PID_w1" "$MASTER_PID"
check "nothing is left running" wait_for 10 no_leftovers
finish
