# hamasters.sh - standby masters for the HA tests (sourced after
# cluster.sh and zk.sh; ZK, SESSION, INTERVAL_MS and LIVENESS set by the
# test): start_ha, ask, role, alive, settled (sets LEADER), epoch,
# ha_pair (ZooKeeper, two masters, two workers), two_stages, events.
# ZKDIR (default /hearth-test) is their --zookeeper-dir; with
# HA_SAME_PORT set, a master started again binds the port it had, as a
# restarted master does in production, so that a list of URLs given to
# the clients stays true.  HA_MASTER_ARGS: more options for every master
# (split on blanks).
# HA_ASK_WRAP prefixes hearth-tail's command line (a test in network
# namespaces asks from one of them: "ip netns exec NS").
HA_ASK_WRAP=${HA_ASK_WRAP:-}

declare -A MPID URL WEB
# start_ha NAME [ARGS...]: a master with its own journal, ports and web
# port, and ARGS.
start_ha() {
  local n=$1 port=0
  [[ -n ${HA_SAME_PORT:-} && -n ${URL[$n]:-} ]] && port=${URL[$n]##*:}
  rm -f "$T/$n.ready"
  WEB[$n]=$(zk_free_port)
  $WRAP "$BIN/hearth-master" --port "$port" --events-port 0 --web-port "${WEB[$n]}" \
    --ready-file "$T/$n.ready" --journal "$T/$n.journal" \
    --zookeeper "$ZK" --zookeeper-dir "${ZKDIR:-/hearth-test}" \
    --zookeeper-session "${SESSION}ms" \
    --heartbeat-interval "${INTERVAL_MS}ms" --heartbeat-liveness "$LIVENESS" \
    ${HA_MASTER_ARGS:-} --log-level debug "${@:2}" >>"$T/$n.log" 2>&1 &
  MPID[$n]=$!
  PIDS+=($!)
  wait_for 10 test -s "$T/$n.ready" || { say "master $n did not start"; return 1; }
  URL[$n]=$(sed -n 1p "$T/$n.ready")
}
# ask NAME: its MASTER_STATE (JSON) on stdout, or hearth-tail's error
# (after ASK_TIMEOUT, 2 s by default, per master it tries: a standby that
# names a dead leader costs that long).
ask() {
  $HA_ASK_WRAP "$BIN/hearth-tail" --master "${URL[$1]}" --state --json \
    --timeout "${ASK_TIMEOUT:-2s}" --log-level error 2>&1
}
# role NAME: LEADER, STANDBY:URL (the leader it names), STANDBY:none,
# or DOWN.
role() {
  local out
  out=$(ask "$1")
  if [[ $out == '{'* ]]; then
    # hearth-tail follows a standby to its leader only when the leader is
    # one of its list (here the URL asked alone): an answer is then the
    # master's own state; a standby's is the error below
    local r l
    r=$(jq -r '.role' <<<"$out") l=$(jq -r '.leader // empty' <<<"$out")
    if [[ $r == LEADER && -n $l && $l != "${URL[$1]}" ]]; then
      echo "STANDBY:$l"
    else
      echo "$r"
    fi
  elif [[ $out =~ "standby; the leader is "([^ ,\;\)]*) ]]; then
    echo "STANDBY:${BASH_REMATCH[1]}"
  elif [[ $out == *"standby; no leader is known"* ]]; then
    echo STANDBY:none
  else
    echo DOWN
  fi
}
# alive: the masters running now
alive() {
  local n
  for n in "${!MPID[@]}"; do
    [[ -n ${MPID[$n]} ]] && kill -0 "${MPID[$n]}" 2>/dev/null && echo "$n"
  done | sort
}
# settled: exactly one live master leads, every other names its URL;
# sets LEADER.
settled() {
  local n r l=() others=()
  for n in $(alive); do
    r=$(role "$n")
    if [[ $r == LEADER ]]; then l+=("$n"); else others+=("$n=$r"); fi
  done
  [[ ${#l[@]} == 1 ]] || return 1
  for r in "${others[@]}"; do
    [[ ${r#*=} == "STANDBY:${URL[${l[0]}]}" ]] || return 1
  done
  LEADER=${l[0]}
}
epoch() { ask "$1" | jq -r '.epoch'; }
stop_ha() { # NAME SIGNAL: stop and reap it; sets RC
  kill "-$2" "${MPID[$1]}" 2>/dev/null
  wait "${MPID[$1]}" 2>/dev/null
  RC=$?
  MPID[$1]=
}

# ha_pair CORES: ZooKeeper z1 on ZKP, master a leading, b its standby,
# LIST their URLs, workers w1 and w2 of CORES cores given the list;
# fails (a check said why) if one does not start.
ha_pair() {
  start_zk z1 "$ZKP" || { fail "ZooKeeper starts on $ZKP"; return 1; }
  start_ha a || { fail "master a starts"; return 1; }
  check "(master a leads)" wait_for 30 eval '[[ $(role a) == LEADER ]]'
  start_ha b || { fail "master b starts"; return 1; }
  check "(master b is its standby)" wait_for 30 settled
  LIST="${URL[a]},${URL[b]}"
  MASTER_URL=$LIST CORES=$1 start_worker w1 || return 1
  MASTER_URL=$LIST CORES=$1 start_worker w2
}
# two_stages NAME N: a job file of N tasks of 0.3 s, then one that sorts
# their output (driver.sh's job).
two_stages() {
  job "$1" "{\"name\": \"$1\", \"stages\": [
    {\"name\": \"s\", \"tasks\": [{\"cmd\": [\"sh\", \"-c\", \"sleep 0.3; echo {i}\"], \"count\": $2}]},
    {\"name\": \"t\", \"tasks\": [{\"cmd\": [\"sh\", \"-c\", \"sort -n | tr '\\\\n' ' '\"], \"input\": \"s\"}]}]}"
}
# events DIR FILTER: how many events of the log in DIR pass FILTER.
events() { jq -c "select($2)" "$1"/*.events | wc -l; }
