# security.sh - what the security tests add to tests/lib/cluster.sh and
# tests/lib/driver.sh (sourced after them).

K=$T/keys

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

# need_root USER...: skip the test (exit 77) unless it runs as root and
# every USER exists here: only a worker running as root runs tasks as
# their users.
need_root() {
  if [[ $(id -u) != 0 ]]; then
    echo "$TEST_NAME: SKIPPED: not root (only a worker running as root changes users)"
    exit 77
  fi
  local u
  for u in "$@"; do
    if ! id -u "$u" >/dev/null 2>&1; then
      echo "$TEST_NAME: SKIPPED: no user $u on this machine"
      exit 77
    fi
  done
}
