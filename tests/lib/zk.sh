# zk.sh - real ZooKeeper servers for the high-availability tests (sourced
# after tests/lib/cluster.sh): Debian's package (scripts/install-deps
# installs it), each server in $T/zk-NAME on a free port of 127.0.0.1,
# started in the foreground (its PID is the JVM's) and stopped by the
# test's trap like every other process.

ZK_SERVER=${ZK_SERVER:-/usr/share/zookeeper/bin/zkServer.sh}
# Where the servers listen, and a prefix of their command lines (a test
# in network namespaces sets ZK_HOST to an address of one and ZK_WRAP to
# "ip netns exec NS").
ZK_HOST=${ZK_HOST:-127.0.0.1}
ZK_WRAP=${ZK_WRAP:-}

# zk_available: the server and a Java runtime are installed.
zk_available() {
  [[ -x $ZK_SERVER ]] && command -v java >/dev/null
}

# zk_require: skip the test (exit 77) unless zk_available.
zk_require() {
  zk_available && return 0
  say "SKIP: no ZooKeeper server ($ZK_SERVER) or no java: scripts/install-deps installs them"
  exit 77
}

# zk_free_port: a free port below the ephemeral range.
zk_free_port() {
  python3 - <<'PY'
import random, socket
for _ in range(200):
    p = random.randrange(20000, 32000)
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", p))
    except OSError:
        continue
    finally:
        s.close()
    print(p)
    break
PY
}

# zk_ruok PORT: the server on PORT answers "imok".
zk_ruok() {
  [[ $($ZK_WRAP timeout 2 bash -c "exec 3<>/dev/tcp/$ZK_HOST/$1 && echo ruok >&3 && cat <&3" 2>/dev/null) == imok ]]
}

# start_zk NAME PORT [SERVERS]: a standalone server (or, with SERVERS, a
# member of the ensemble "1=127.0.0.1:P1:E1,2=..." whose id is NAME's
# digits) on ZK_HOST:PORT with its data in $T/zk-NAME (kept across a
# restart of the same NAME); sets ZK_PID[NAME].  Short ticks (200 ms) so
# that sessions of 1 s and up are allowed.  Waits until it answers,
# unless ZK_NOWAIT is set (an ensemble member waits for its quorum).
declare -A ZK_PID
start_zk() {
  local name=$1 port=$2 servers=${3:-} dir=$T/zk-$1
  mkdir -p "$dir/data"
  cat >"$dir/zoo.cfg" <<CFG
tickTime=200
initLimit=25
syncLimit=10
dataDir=$dir/data
clientPort=$port
clientPortAddress=$ZK_HOST
admin.enableServer=false
minSessionTimeout=400
maxSessionTimeout=60000
4lw.commands.whitelist=ruok,srvr,stat,mntr
CFG
  if [[ -n $servers ]]; then
    local s
    for s in ${servers//,/ }; do echo "server.${s%%=*}=${s#*=}" >>"$dir/zoo.cfg"; done
    echo "${name//[!0-9]/}" >"$dir/data/myid"
  fi
  cp /etc/zookeeper/conf_example/log4j.properties "$dir/" 2>/dev/null
  (cd "$dir" && ZOOCFGDIR=$dir ZOO_LOG_DIR=$dir JVMFLAGS="-Xmx192m" \
    exec $ZK_WRAP "$ZK_SERVER" start-foreground "$dir/zoo.cfg" >"$dir/out" 2>&1) &
  ZK_PID[$name]=$!
  PIDS+=($!)
  [[ -n ${ZK_NOWAIT:-} ]] && return 0
  wait_for 60 zk_ruok "$port"
}

# zk_report: each server's state and its last lines, for a test that
# failed (cluster.sh's FAIL_REPORTS): a lost quorum once held CI with no
# trace of why the members had gone.
zk_report() {
  local name out
  for name in "${!ZK_PID[@]}"; do
    out=$T/zk-$name/out
    if [[ -n ${ZK_PID[$name]} ]] && kill -0 "${ZK_PID[$name]}" 2>/dev/null; then
      say "zk $name: running (pid ${ZK_PID[$name]})"
    elif [[ -n ${ZK_PID[$name]} ]]; then
      wait "${ZK_PID[$name]}" 2>/dev/null
      say "zk $name: gone, exit status $? (pid ${ZK_PID[$name]})"
    else
      say "zk $name: stopped by the test"
    fi
    [[ -f $out ]] && tail -n 12 "$out" | sed "s/^/  zk $name: /"
  done
  return 0
}
FAIL_REPORTS+=(zk_report)

# stop_zk NAME [SIGNAL]: stop that server (TERM by default) and reap it.
stop_zk() {
  local pid=${ZK_PID[$1]:-}
  [[ -n $pid ]] || return 0
  kill "-${2:-TERM}" "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  ZK_PID[$1]=
}

# zkcli COMMAND...: one anonymous zkCli.sh session on $ZK running the
# commands (one per argument); its output, without the client's chatter.
zkcli() {
  printf '%s\n' "$@" quit |
    ZOO_LOG_DIR=$T ZOO_LOG4J_PROP=ERROR,CONSOLE timeout 30 \
      /usr/share/zookeeper/bin/zkCli.sh -server "$ZK" 2>&1 |
    grep -v -e SLF4J -e WATCHER -e WatchedEvent -e '^Connecting' \
      -e '^Welcome' -e '^JLine' -e '^$'
}
# zkcli_as CREDENTIALS COMMAND...: the same, authenticated as
# user:password (ZooKeeper's digest scheme).
zkcli_as() { local cred=$1; shift; zkcli "addauth digest $cred" "$@"; }

# acl PATH [CREDENTIALS]: its ACL, one "scheme,id: rights" line per entry
# (the digest's hash left out), sorted.
acl() {
  zkcli_as "${2:-nobody:x}" "getAcl $1" | paste - - |
    sed -E "s/^'([a-z]+),'([^:]*)(:[^\t]*)?\t: /\1,\2: /" | sort
}

# leader_node: the lowest node (the leader's) of $ZKDIR/election, by
# sequence.
leader_node() {
  zkcli "ls $ZKDIR/election" | grep '^\[' | tr -d '[] ' | tr ',' '\n' |
    sort -t_ -k3 | head -1
}
