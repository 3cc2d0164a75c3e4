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

# held_shuffle KEY MAPS MAP_SH REDUCE_SH: KEY's shuffle job in the
# background: MAPS map tasks run MAP_SH (a shell line, as it goes in a
# JSON string; {i} is the map's index) into 2 partitions; its 2 reducers
# run REDUCE_SH, print their input and wait for $T/go, so that the map
# outputs stay on the workers meanwhile; 2 executors of 1 core.  Output
# in $T/shuf.out and $T/shuf.err; sets SHUF_PID, and S_APP once the
# application registered (false when it did not within 15 s).
held_shuffle() {
  local file
  file=$(job shuf "{\"name\":\"shuf\",\"stages\":[
    {\"name\":\"map\",\"partitions\":2,\"tasks\":[{\"cmd\":[\"sh\",\"-c\",
      \"$3\"],\"count\":$2}]},
    {\"name\":\"reduce\",\"tasks\":[{\"cmd\":[\"sh\",\"-c\",
      \"${4}cat; while [ ! -e $T/go ]; do sleep 0.1; done\"],\"input\":\"map\",
      \"count\":2}]}]}")
  # shellcheck disable=SC2046
  "$BIN/hearth-submit" --master "$MASTER_URL" $(client_keys "$1") --log-level info \
    --heartbeat-interval "${INTERVAL_MS}ms" --total-executor-cores 2 \
    --executor-cores 1 "$file" >"$T/shuf.out" 2>"$T/shuf.err" &
  SHUF_PID=$!
  PIDS+=($SHUF_PID)
  wait_for 15 grep -q 'application app-[0-9-]* registered' "$T/shuf.err" || return 1
  S_APP=$(sed -n 's/.*application \(app-[0-9-]*\) registered.*/\1/p' "$T/shuf.err" | head -1)
}

# w1_blocks APP TOKEN: ask w1's block server, with TOKEN, for both
# partitions of every map output of APP on w1 (held_shuffle's), as a
# reducer would: block-probe's lines.  The server's address and key are
# what w1's executors tell their driver (here: w1's log and public key).
w1_blocks() {
  local url key index rel shuffle file p
  url=$(sed -n 's/.*serving this node.s map outputs at \(tcp:[^ ]*\).*/\1/p' "$T/w1.log")
  key=$(sed -n 's/.*public-key = "\(.*\)"/\1/p' "$K/w1.key")
  for index in "$T/w1/shuffle/$1"/*/*.index; do
    rel=${index#"$T/w1/shuffle/$1/"}
    shuffle=${rel%%/*}
    file=${rel#*/}
    file=${file%.index}
    for p in 0 1; do
      "$BIN/tests/security/block-probe" "$url" "$key" "$1" "$2" "$shuffle" \
        "${file%.*}" "${file#*.}" "$p"
    done
  done
}

# user_cluster "NAME=USER..." [MASTER ARGS...]: the cluster's keys (the
# master's, a client key NAME naming USER for each word, the worker key
# w1) and a master with role directories (clients, workers) and ARGS.
user_cluster() {
  local c
  "$BIN/hearth-keygen" "$K" >/dev/null || return 1
  for c in $1; do
    "$BIN/hearth-keygen" --client "${c%%=*}" --user "${c#*=}" "$K" >/dev/null || return 1
  done
  "$BIN/hearth-keygen" --worker w1 "$K" >/dev/null || return 1
  start_master --curve-secret "$K/master.key_secret" --curve-allow "$K/clients" \
    --curve-allow-workers "$K/workers" "${@:2}"
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
