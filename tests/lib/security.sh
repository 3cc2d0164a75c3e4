# security.sh - what the security tests add to tests/lib/cluster.sh and
# tests/lib/driver.sh (sourced after them).

K=$T/keys
# authz-probe: sends the master commands as one key (tests/security).
PROBE=$BIN/tests/security/authz-probe

# make_keys: a cluster's keys in $K (master, "client", and the workers').
make_keys() {
  "$BIN/hearth-keygen" "$K" >/dev/null &&
    "$BIN/hearth-keygen" --client w1 "$K" >/dev/null &&
    "$BIN/hearth-keygen" --client w2 "$K" >/dev/null
}

# The flags of a client holding key NAME.
client_keys() {
  echo "--curve-secret $K/$1.key_secret --master-key $K/master.key"
}

# secure_master [ARGS...]: start_master with the cluster's keys.
secure_master() {
  start_master --curve-secret "$K/master.key_secret" \
    --curve-allow "$K/clients" "$@"
}

# state_as NAME: MASTER_STATE JSON as client NAME (fails when refused).
state_as() {
  # shellcheck disable=SC2046
  "$BIN/hearth-tail" --master "$MASTER_URL" --state --json --timeout 2s \
    $(client_keys "$1")
}

# served NAME: client NAME can read the state.
served() {
  state_as "$1" >/dev/null 2>&1
}

# worker_count_as NAME: number of ALIVE workers, asked as client NAME.
alive_workers() {
  state_as client | jq '[.workers[] | select(.state == "ALIVE")] | length'
}

# need_nobody WHY: skip the test (77) unless it runs as root with setpriv
# (WHY: what it runs as nobody); then give nobody a home of its own,
# $NOBODY_HOME, and let it through the test's directory (mode 0711).
need_nobody() {
  if [[ $(id -u) != 0 ]]; then
    echo "$TEST_NAME: SKIPPED: not root ($1)"
    exit 77
  fi
  command -v setpriv >/dev/null || { echo "$TEST_NAME: SKIPPED: no setpriv"; exit 77; }
  chmod 0711 "$T"
  NOBODY_HOME=$T/nobody
  mkdir -m 700 "$NOBODY_HOME" && chown 65534:65534 "$NOBODY_HOME"
}

# as_nobody CMD...: CMD as nobody, with its home $NOBODY_HOME (need_nobody)
# and no HEARTH_COOKIE: its tools look for their cookie there.
as_nobody() {
  env -u HEARTH_COOKIE HOME="$NOBODY_HOME" \
    setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
}
