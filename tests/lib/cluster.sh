# cluster.sh - shared helpers of every shell test (sourced, not run).
#
# Every test starts real processes on 127.0.0.1 with ephemeral ports, in a
# private temporary directory, and stops every one of them by PID in an
# EXIT trap, even when it fails.  Checks are counted; `finish` prints
# "N passed, N failed" and exits non-zero on any failure.
#
# Environment (set by `make check`, see local.mk):
#   HEARTH_BIN_DIR       where hearth-master, hearth-worker... were built
#   HEARTH_TEST_BIN_DIR  where test-app (a small test driver) was built
# WRAP, when set, prefixes the daemons' command lines (valgrind).
set -u
WRAP=${WRAP:-}

: "${HEARTH_BIN_DIR:?HEARTH_BIN_DIR must name the build directory}"
: "${HEARTH_TEST_BIN_DIR:=$HEARTH_BIN_DIR/tests/integration}"
BIN=$HEARTH_BIN_DIR
TBIN=$HEARTH_TEST_BIN_DIR
# Short intervals keep the tests fast: dead after 5 x 200 ms.
INTERVAL_MS=${INTERVAL_MS:-200}
LIVENESS=${LIVENESS:-5}

# The tests' keyed clusters are single-user clusters: their workers run
# as root, and so do the tasks of keys that name no user, as they did
# before tasks ran as their keys' users (--allow-root-tasks,
# docs/security.md).  test-run-as.sh and test-cgroup-escape.sh give their
# workers --conf allow-root-tasks=false.
export HEARTH_ALLOW_ROOT_TASKS=${HEARTH_ALLOW_ROOT_TASKS:-true}

T=$(mktemp -d "${TMPDIR:-/tmp}/hearth-it.XXXXXX")
# The local cookie of this test's masters and tools (libcore/cookie.h):
# its own, not the user's ~/.hearth/cookie (the first master makes it,
# and its directory, mode 0700).
export HEARTH_COOKIE=$T/cookie.d/cookie
PIDS=()
WORKER_GROUPS=() # cgroups of the workers start_worker started (gone at the end)
PASSED=0
FAILED=0
TEST_NAME=$(basename "$0" .sh)

say() { printf '%s: %s\n' "$TEST_NAME" "$*"; }

# Milliseconds on a monotonic-enough clock.
now_ms() { date +%s%3N; }

# Kill what this test started: the PIDs it recorded, then any process
# whose working directory is inside the test's directory (executors).
# A recorded PID is signalled only while it is still this shell's child:
# one the test already reaped may belong to another test's process by
# now (pid_max is 32768 here, and a suite goes through it in minutes).
child_pids() {
  local pid stat
  for pid in "${PIDS[@]}"; do
    stat=$(cat "/proc/$pid/stat" 2>/dev/null) || continue
    stat=${stat##*) }  # after "pid (comm) ": state ppid ...
    set -- $stat
    [[ $2 == "$$" ]] && echo "$pid"
  done
  return 0
}
# Commands that say more when a test fails or is stopped (a library adds
# its own: zk.sh prints the ZooKeeper servers' last lines, which go with
# $T on a CI machine).
FAIL_REPORTS=()
cleanup() {
  local pid p cwd ours r
  if ((FAILED > 0)) || [[ -n ${INTERRUPTED:-} ]]; then
    for r in "${FAIL_REPORTS[@]}"; do "$r"; done
  fi
  ours=$(child_pids)
  for pid in $ours; do kill -TERM "$pid" 2>/dev/null; done
  for _ in $(seq 1 30); do
    local alive=0
    for pid in $ours; do kill -0 "$pid" 2>/dev/null && alive=1; done
    ((alive)) || break
    sleep 0.1
  done
  for pid in $ours; do kill -KILL "$pid" 2>/dev/null; done
  # Drivers the test ran in the foreground, and what they started, name
  # the test's directory on their command lines: stop them cleanly first.
  pkill -TERM -f -- "$T" 2>/dev/null && sleep 0.5
  pkill -KILL -f -- "$T" 2>/dev/null
  for p in /proc/[0-9]*; do
    cwd=$(readlink "$p/cwd" 2>/dev/null) || continue
    [[ $cwd == "$T"/* ]] && kill -KILL "${p#/proc/}" 2>/dev/null
  done
  wait 2>/dev/null
  # The control groups of its workers: one killed with SIGKILL leaves its
  # own (docs/failures.md), and a test machine would gather them.  Only
  # empty ones go (rmdir), deepest first; only this test's, by their
  # whole names (ID.HASH-OF-WORK-DIR): tests that give their workers the
  # same ids run side by side, and a pattern on the id alone removed the
  # other test's groups under its workers (test-tail-defaults failed so).
  local group
  for group in "${WORKER_GROUPS[@]}"; do
    find /sys/fs/cgroup/ -depth -type d \( -path "*/hearth/$group" \
      -o -path "*/hearth/$group/*" \) -exec rmdir {} + 2>/dev/null
  done
  if ((FAILED == 0)) && [[ -z ${KEEP_TMP:-} ]]; then
    rm -rf "$T"
  else
    say "files kept in $T"
  fi
}
trap cleanup EXIT
trap 'INTERRUPTED=1; say "interrupted"; exit 1' INT TERM

# A watchdog: the whole test fails after $1 seconds.
deadline() {
  local self=$$
  (
    trap 'kill "$sp" 2>/dev/null; exit 0' TERM
    sleep "$1" & sp=$!
    wait "$sp"
    echo "$TEST_NAME: deadline of $1 s passed" >&2
    kill -TERM "$self"
    # bash runs its trap only once the command in the foreground ends: a
    # client waiting on a master that can never answer (a ZooKeeper
    # quorum lost) held a test for 13 minutes past its deadline
    pkill -TERM -P "$self"
  ) 2>/dev/null &
  PIDS+=($!)
}

# kill9 PID: SIGKILL a process this test started and reap it quietly.
kill9() {
  kill -9 "$1" 2>/dev/null
  wait "$1" 2>/dev/null
}

pass() { PASSED=$((PASSED + 1)); say "ok - $*"; }
fail() { FAILED=$((FAILED + 1)); say "not ok - $*"; }

# check DESCRIPTION COMMAND...: pass if the command succeeds.
check() {
  local desc=$1; shift
  if "$@"; then pass "$desc"; else fail "$desc"; fi
}

# wait_for SECONDS COMMAND...: poll every 50 ms until it succeeds.
wait_for() {
  local limit=$1; shift
  local end=$(( $(now_ms) + limit * 1000 ))
  while (( $(now_ms) < end )); do
    "$@" 2>/dev/null && return 0
    sleep 0.05
  done
  return 1
}

# no_valgrind_report: no valgrind log of this test ($T/valgrind-*.txt)
# holds anything; those that do are printed, since $T goes with the test.
no_valgrind_report() {
  local f bad=0
  for f in "$T"/valgrind-*.txt; do
    [[ -s $f ]] || continue
    bad=1
    say "valgrind report in ${f##*/}:"
    head -n 60 "$f"
  done
  return "$bad"
}

finish() {
  say "$PASSED passed, $FAILED failed"
  ((FAILED == 0))
}

# The programs the workers run: the real ones (integration tests run the
# real parts).  Workers find them through HEARTH_BIN_DIR=$T/bin.
setup_bin() {
  mkdir -p "$T/bin"
  local p
  for p in hearth-master hearth-worker hearth-tail hearth-executor \
    hearth-driver; do
    [[ -x $BIN/$p ]] && ln -sf "$BIN/$p" "$T/bin/$p"
  done
}
setup_bin

# start_master [ARGS...]: a master on ephemeral ports; sets MASTER_URL,
# EVENTS_URL, MASTER_PID, MASTER_PORT.
start_master() {
  rm -f "$T/master.ready"
  $WRAP "$BIN/hearth-master" --port "${PORT:-0}" --events-port 0 \
    --ready-file "$T/master.ready" --heartbeat-interval "${INTERVAL_MS}ms" \
    --heartbeat-liveness "$LIVENESS" --log-level debug "$@" \
    >>"$T/master.log" 2>&1 &
  MASTER_PID=$!
  PIDS+=($MASTER_PID)
  if ! wait_for 10 test -s "$T/master.ready"; then
    say "master did not start:"; tail -20 "$T/master.log"; return 1
  fi
  MASTER_URL=$(sed -n 1p "$T/master.ready")
  EVENTS_URL=$(sed -n 2p "$T/master.ready")
  MASTER_PORT=${MASTER_URL##*:}
}

# start_worker NAME [ARGS...]: a worker with its own work dir; waits until
# it has registered, sets WORKER_ID and the variable PID_NAME.  Its
# --decommission-timeout is DECOM_TIMEOUT, 0 unless set: SIGTERM stops it
# at once, as the tests written before the decommission expect (issue 18;
# tests/integration/test-decommission.sh sets it).
start_worker() {
  local name=$1; shift
  rm -f "$T/$name.ready"
  HEARTH_BIN_DIR="$T/bin" $WRAP "$BIN/hearth-worker" --master "$MASTER_URL" \
    --work-dir "$T/$name" --ready-file "$T/$name.ready" \
    --heartbeat-interval "${INTERVAL_MS}ms" --heartbeat-liveness "$LIVENESS" \
    --cores "${CORES:-4}" --memory "${MEMORY:-4G}" --kill-grace 1s \
    --decommission-timeout "${DECOM_TIMEOUT:-0}" \
    --log-level debug "$@" >>"$T/$name.log" 2>&1 &
  local pid=$!
  PIDS+=($pid)
  printf -v "PID_$name" '%s' "$pid"
  if ! wait_for 10 test -s "$T/$name.ready"; then
    say "worker $name did not register:"; tail -20 "$T/$name.log"; return 1
  fi
  WORKER_ID=$(cat "$T/$name.ready")
  # its group's name, as the worker says it: "isolation: cgroup v1 under
  # /sys/fs/cgroup/memory/.../hearth/ID.HASH"
  local group
  group=$(sed -n 's|.* isolation: cgroup v[12] under .*/hearth/||p' \
    "$T/$name.log" | tail -1)
  if [[ -n $group ]]; then WORKER_GROUPS+=("$group"); fi
  printf -v "ID_$name" '%s' "$WORKER_ID"
}

# state_json: the master's MASTER_STATE as JSON.
state_json() {
  "$BIN/hearth-tail" --master "$MASTER_URL" --state --json --timeout 3s
}

# jq_state FILTER: true when the filter yields true on the state.
jq_state() {
  state_json | jq -e "$1" >/dev/null
}

# worker_state ID: that worker's state in MASTER_STATE.
worker_state() {
  state_json | jq -r --arg id "$1" '.workers[] | select(.id == $id) | .state'
}

# start_app NAME [ARGS...]: the test driver, output to $T/NAME.out; sets
# APP_PID and APP_ID (once registered).
start_app() {
  local name=$1; shift
  "$TBIN/test-app" --master "$MASTER_URL" --name "$name" \
    --interval "${INTERVAL_MS}ms" "$@" >"$T/$name.out" 2>"$T/$name.err" &
  APP_PID=$!
  PIDS+=($APP_PID)
  wait_for 10 grep -q '^REGISTERED ' "$T/$name.out" || return 1
  APP_ID=$(awk '/^REGISTERED /{print $2; exit}' "$T/$name.out")
}

# count_lines FILE PATTERN: lines of FILE matching PATTERN.
count_lines() {
  grep -c -- "$2" "$1" 2>/dev/null || true
}

# log_ms FILE PATTERN: the time (ms since the epoch) of the first line of a
# Hearth log matching PATTERN (lines start with an ISO 8601 UTC stamp).
log_ms() {
  local stamp
  stamp=$(grep -m1 -- "$2" "$1" 2>/dev/null | cut -d' ' -f1)
  [[ -n $stamp ]] && date -d "$stamp" +%s%3N
}

# procs_in DIR: the pids of the (live, not zombie) processes working in
# DIR or below it: executors and their tasks run in WORK_DIR/APP/EXEC.
# Builtins only, in a subshell of its own whose cd -P reads each work
# dir: a readlink per process made a scan take seconds on a loaded
# machine, longer than some waits of the tests that use it.
procs_in() (
  local p
  for p in /proc/[0-9]*; do
    cd -P "$p/cwd" 2>/dev/null || continue
    if [[ $PWD == "$1" || $PWD == "$1"/* ]]; then echo "${p#/proc/}"; fi
  done
)

# ours PROGRAM: processes of that name whose command line names $T (the
# daemons: their pid files, logs and work dirs are there).
ours() {
  local p
  for p in $(pgrep -x "$1"); do
    tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -qF -- "$T" && echo "$p"
  done
  return 0
}

# none_in DIR: no process works in DIR.
none_in() {
  [[ -z $(procs_in "$1") ]]
}
