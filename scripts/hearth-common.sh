# shellcheck shell=bash
# hearth-common.sh - sourced by the cluster scripts (start-master.sh,
# start-worker.sh, start-cluster.sh, stop-*.sh); not run by itself.
#
# It finds the configuration directory and reads hearth-env.sh there, finds
# the programs, sets every default, and holds the helpers that start and
# stop one daemon through its pid file.  Installed as
# $(sbindir)/hearth-common.sh beside the hearth-*.sh scripts; `make
# install` fills in the two paths below.

hearth_installed_bindir='@bindir@'
hearth_installed_confdir='@hearthconfdir@'

hearth_me=$(basename "$0")
# "hearth-" when installed (hearth-start-worker.sh), empty in the source
# tree: how a script's --help names its siblings.
hearth_prefix=
[[ $hearth_me == hearth-* ]] && hearth_prefix=hearth-
hearth_script_dir=$(cd "$(dirname "$0")" && pwd)

die() {
  echo "$hearth_me: $*" >&2
  exit 1
}
say() { echo "$hearth_me: $*"; }

# What every script reads, for the end of its --help.
hearth_env_help() {
  cat <<'EOF'

Settings come from the environment, or from hearth-env.sh in the
configuration directory (docs/operations.md):
  HEARTH_CONF_DIR       the configuration directory (default: the installed
                        one, or conf/ beside scripts/ in the source tree)
  HEARTH_BIN_DIR        where hearth-master and hearth-worker are
  HEARTH_PID_DIR        pid files and the master's URL file
                        (default /tmp/hearth-$USER)
  HEARTH_LOG_DIR        log files (default $HEARTH_PID_DIR/logs)
  HEARTH_IDENT_STRING   part of every pid and log file name (default $USER)
  HEARTH_START_TIMEOUT  seconds to wait for a daemon to start (default 30)
  HEARTH_STOP_TIMEOUT   seconds before SIGKILL when stopping (default 60)
EOF
}

# Refuse an argument a script does not take, pointing to --help (exit 2,
# as the programs do).
hearth_bad_arg() {
  echo "$hearth_me: unexpected argument '$1' (see $hearth_me --help)" >&2
  exit 2
}

# Before anything below can fail or start: --help (or -h) anywhere among
# the arguments prints the script's usage (its usage function, defined
# before this file is sourced) and exits; then the script's check_args,
# when it has one, refuses what it does not take.  Sourced without
# arguments, this file sees the script's own.
for hearth_arg in "$@"; do
  case $hearth_arg in
    -h | --help)
      usage
      hearth_env_help
      exit 0
      ;;
  esac
done
unset hearth_arg
if declare -F check_args >/dev/null; then check_args "$@"; fi

# The configuration directory: $HEARTH_CONF_DIR, else the installed one,
# else conf/ beside scripts/ in the source tree.
if [[ -z ${HEARTH_CONF_DIR:-} ]]; then
  if [[ $hearth_installed_confdir != @* ]]; then
    HEARTH_CONF_DIR=$hearth_installed_confdir
  else
    HEARTH_CONF_DIR=$(cd "$hearth_script_dir/.." && pwd)/conf
  fi
fi
export HEARTH_CONF_DIR
if [[ -f $HEARTH_CONF_DIR/hearth-env.sh ]]; then
  # shellcheck source=/dev/null
  . "$HEARTH_CONF_DIR/hearth-env.sh" ||
    die "$HEARTH_CONF_DIR/hearth-env.sh failed"
fi

# The programs: $HEARTH_BIN_DIR, else the installed bindir, else build/
# beside scripts/ (scripts/quickstart builds there), else the PATH.
if [[ -z ${HEARTH_BIN_DIR:-} ]]; then
  if [[ $hearth_installed_bindir != @* ]]; then
    HEARTH_BIN_DIR=$hearth_installed_bindir
  elif [[ -x $hearth_script_dir/../build/hearth-master ]]; then
    HEARTH_BIN_DIR=$(cd "$hearth_script_dir/../build" && pwd)
  elif command -v hearth-master >/dev/null; then
    HEARTH_BIN_DIR=$(dirname "$(command -v hearth-master)")
  else
    die "cannot find hearth-master: set HEARTH_BIN_DIR (in $HEARTH_CONF_DIR/hearth-env.sh)"
  fi
fi
export HEARTH_BIN_DIR

# Defaults of everything hearth-env.sh may set (see hearth-env.sh.template).
HEARTH_IDENT_STRING=${HEARTH_IDENT_STRING:-${USER:-$(id -un)}}
HEARTH_PID_DIR=${HEARTH_PID_DIR:-/tmp/hearth-$HEARTH_IDENT_STRING}
HEARTH_LOG_DIR=${HEARTH_LOG_DIR:-$HEARTH_PID_DIR/logs}
HEARTH_MASTER_HOST=${HEARTH_MASTER_HOST:-127.0.0.1}
HEARTH_MASTER_PORT=${HEARTH_MASTER_PORT:-7077}
HEARTH_MASTER_EVENTS_PORT=${HEARTH_MASTER_EVENTS_PORT:-}
HEARTH_MASTER_OPTS=${HEARTH_MASTER_OPTS:-}
# set but empty: no journal
HEARTH_MASTER_JOURNAL=${HEARTH_MASTER_JOURNAL-$HEARTH_PID_DIR/journal}
HEARTH_WORKER_DIR=${HEARTH_WORKER_DIR:-$HEARTH_PID_DIR/work}
HEARTH_WORKER_CORES=${HEARTH_WORKER_CORES:-}
HEARTH_WORKER_MEMORY=${HEARTH_WORKER_MEMORY:-}
HEARTH_WORKER_HOST=${HEARTH_WORKER_HOST:-}
HEARTH_WORKER_OPTS=${HEARTH_WORKER_OPTS:-}
# custom resources, ';'-separated: "gpu=0,1;fpga=0", "gpu=/etc/hearth/gpus.sh"
HEARTH_WORKER_RESOURCE=${HEARTH_WORKER_RESOURCE:-}
HEARTH_WORKER_RESOURCE_DISCOVERY=${HEARTH_WORKER_RESOURCE_DISCOVERY:-}
HEARTH_SSH_OPTS=${HEARTH_SSH_OPTS:--o BatchMode=yes -o ConnectTimeout=10}
HEARTH_START_TIMEOUT=${HEARTH_START_TIMEOUT:-30}
# above a worker's --decommission-timeout (30 s) and --kill-grace (5 s),
# as the systemd units' TimeoutStopSec
HEARTH_STOP_TIMEOUT=${HEARTH_STOP_TIMEOUT:-60}

hearth_host=$(hostname -s 2>/dev/null || hostname)

# hearth_file ROLE EXT: the pid (EXT pid), URL, id or log file of a role
# ("master", "worker-2").
hearth_file() {
  case $2 in
    log | out) echo "$HEARTH_LOG_DIR/hearth-$HEARTH_IDENT_STRING-$1-$hearth_host.$2" ;;
    *) echo "$HEARTH_PID_DIR/hearth-$HEARTH_IDENT_STRING-$1.$2" ;;
  esac
}

# hearth_script NAME: the path of a sibling script, as it is named in the
# source tree (start-worker.sh) or installed (hearth-start-worker.sh).
hearth_script() {
  if [[ -x $hearth_script_dir/$1 ]]; then
    echo "$hearth_script_dir/$1"
  elif [[ -x $hearth_script_dir/hearth-$1 ]]; then
    echo "$hearth_script_dir/hearth-$1"
  else
    die "cannot find $1 beside $0"
  fi
}

# hearth_running PIDFILE PROGRAM: print the pid and succeed when the pid
# file names a live process of that program.
hearth_running() {
  local pid comm
  [[ -r $1 ]] || return 1
  pid=$(head -c 32 "$1" 2>/dev/null | tr -dc 0-9)
  [[ -n $pid ]] || return 1
  comm=$(ps -p "$pid" -o comm= 2>/dev/null) || return 1
  [[ $comm == "$2" ]] || return 1
  echo "$pid"
}

# hearth_launch PROGRAM ROLE ARGS...: start a daemon in the background,
# detached from this shell, with its pid file, log file and the stdout/
# stderr of its first moments in the log directory.  Fails, showing the
# end of its output, when it has not written its pid file within the
# start timeout or exits.
hearth_launch() {
  local program=$1 role=$2 pidfile out log pid i
  shift 2
  pidfile=$(hearth_file "$role" pid)
  out=$(hearth_file "$role" out)
  log=$(hearth_file "$role" log)
  mkdir -p "$HEARTH_PID_DIR" "$HEARTH_LOG_DIR" ||
    die "cannot create $HEARTH_PID_DIR or $HEARTH_LOG_DIR"
  [[ -x $HEARTH_BIN_DIR/$program ]] || die "no $HEARTH_BIN_DIR/$program"
  echo "--- $(date '+%Y-%m-%d %H:%M:%S') $program $*" >>"$out"
  nohup setsid "$HEARTH_BIN_DIR/$program" --pid-file "$pidfile" \
    --log-file "$log" "$@" </dev/null >>"$out" 2>&1 &
  pid=$!
  local gone=0 status=0
  for ((i = 0; i < HEARTH_START_TIMEOUT * 10 && gone < 10; i++)); do
    if hearth_running "$pidfile" "$program" >/dev/null; then
      return 0
    fi
    # Gone without a pid file: it refused to start (give a forking setsid
    # a second to show its child's pid file first).
    if ! kill -0 "$pid" 2>/dev/null; then
      if ((gone == 0)); then wait "$pid" 2>/dev/null || status=$?; fi
      gone=$((gone + 1))
    fi
    sleep 0.1
  done
  echo "$hearth_me: $program did not start; the end of $out and $log:" >&2
  tail -n 5 "$out" "$log" >&2 2>/dev/null || true
  # a usage mistake (its flags refused: status 2) is the script's too
  [[ $status == 2 ]] && return 2
  return 1
}

# hearth_stop PROGRAM ROLE: stop the daemon of that pid file (SIGTERM,
# then SIGKILL after the stop timeout) and wait for it to go.
hearth_stop() {
  local program=$1 role=$2 pidfile pid i
  pidfile=$(hearth_file "$role" pid)
  if ! pid=$(hearth_running "$pidfile" "$program"); then
    say "no $program ($role) to stop"
    rm -f "$pidfile"
    return 0
  fi
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < HEARTH_STOP_TIMEOUT * 10; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
    say "$program ($role, pid $pid) still runs after ${HEARTH_STOP_TIMEOUT}s: SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$pidfile"
  say "stopped $program ($role, pid $pid)"
}

# hearth_workers: the hosts of conf/workers, one a line, without comments
# and blank lines; "localhost" when there is no such file.
hearth_workers() {
  local file=$HEARTH_CONF_DIR/workers
  if [[ ! -f $file ]]; then
    echo localhost
    return
  fi
  sed -e 's/#.*//' -e 's/[[:space:]]//g' "$file" | grep -v '^$' || true
}

# hearth_is_local HOST: HOST is this machine (no ssh needed).
hearth_is_local() {
  case $1 in
    localhost | 127.* | ::1 | "$hearth_host" | "$(hostname)") return 0 ;;
  esac
  [[ $1 == "$(hostname -f 2>/dev/null)" ]]
}

# hearth_on HOST SCRIPT ARGS...: run a sibling script on HOST, over ssh
# unless HOST is this machine.  The other node must have Hearth at the same
# path, and HEARTH_CONF_DIR (and HEARTH_BIN_DIR, when set) is passed on.
hearth_on() {
  local host=$1 script=$2 cmd
  shift 2
  if hearth_is_local "$host"; then
    "$(hearth_script "$script")" "$@"
    return
  fi
  printf -v cmd '%q ' "HEARTH_CONF_DIR=$HEARTH_CONF_DIR" \
    "HEARTH_BIN_DIR=$HEARTH_BIN_DIR" \
    "HEARTH_WORKER_HOST=${HEARTH_WORKER_HOST:-}" \
    "$(hearth_script "$script")" "$@"
  # shellcheck disable=SC2086,SC2029 # options split; cmd is quoted for there
  ssh $HEARTH_SSH_OPTS "$host" "env $cmd"
}
