#!/usr/bin/env bash
# Multi-host: the master and two workers each in a network namespace of
# their own, on addresses of their own (10.213.1.0/24 and 10.213.2.0/24,
# two veth pairs through the master's namespace), with the cluster's keys
# (a master on an address other than loopback needs them).  A job runs
# across them: executors on both "hosts" connect back to a driver in the
# master's namespace, and a shuffle whose reducers fetch from the other
# host's block server.  Then one host's worker is killed (-9) mid-job: the
# job still ends with exactly its output.  Nothing uses an address outside loopback and these
# namespaces, which the test creates and deletes (trap), with every process
# in them.  Skipped (77) where network namespaces cannot be created.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
. "$(dirname "$0")/../lib/security.sh"
. "$(dirname "$0")/../lib/netns.sh"
deadline 180
export TMPDIR=$T

NS_M=hearth-$$-m NS_1=hearth-$$-w1 NS_2=hearth-$$-w2
M1=10.213.1.1 H1=10.213.1.2 M2=10.213.2.1 H2=10.213.2.2
netns_first "$NS_M"
setup() {
  ip netns add "$NS_1" && MADE+=("$NS_1") && ip netns add "$NS_2" &&
    MADE+=("$NS_2") || return 1
  local ns
  for ns in "$NS_M" "$NS_1" "$NS_2"; do ip -n "$ns" link set lo up || return 1; done
  # veth pairs created with their ends inside the namespaces: master <-> w1,
  # master <-> w2; the workers route everything through the master's side,
  # which forwards between them.
  ip -n "$NS_M" link add m1 type veth peer name w netns "$NS_1" &&
    ip -n "$NS_M" link add m2 type veth peer name w netns "$NS_2" &&
    ip -n "$NS_M" addr add "$M1/24" dev m1 && ip -n "$NS_M" addr add "$M2/24" dev m2 &&
    ip -n "$NS_1" addr add "$H1/24" dev w && ip -n "$NS_2" addr add "$H2/24" dev w &&
    ip -n "$NS_M" link set m1 up && ip -n "$NS_M" link set m2 up &&
    ip -n "$NS_1" link set w up && ip -n "$NS_2" link set w up &&
    ip -n "$NS_1" route add default via "$M1" &&
    ip -n "$NS_2" route add default via "$M2" &&
    # the two hosts reach each other through the master's namespace (a
    # reducer fetches from the other host's block server)
    ip netns exec "$NS_M" sysctl -qw net.ipv4.ip_forward=1
}
if ! setup 2>"$T/netns.err"; then
  say "SKIP: cannot set up the namespaces' network ($(head -1 "$T/netns.err"))"
  exit 77
fi
pass "3 network namespaces, 2 veth pairs"

make_keys || { fail "keys"; finish; exit 1; }
WRAP="ip netns exec $NS_M" start_master --host "$M1" \
  --curve-secret "$K/master.key_secret" --curve-allow "$K/clients" ||
  { fail "the master starts in its namespace on $M1"; finish; exit 1; }
# shellcheck disable=SC2046
WRAP="ip netns exec $NS_1" CORES=2 start_worker w1 --host "$H1" \
  $(client_keys w1) || { fail "worker w1 registers from $H1"; finish; exit 1; }
# shellcheck disable=SC2046
# (w2 without --host: it advertises its address facing the master)
WRAP="ip netns exec $NS_2" CORES=2 start_worker w2 \
  $(client_keys w2) || { fail "worker w2 registers from $H2"; finish; exit 1; }
say "master $MASTER_URL"
check "the master listens on its namespace's address" test "${MASTER_URL%:*}" = "tcp://$M1"

in_m() { ip netns exec "$NS_M" "$@"; }
# shellcheck disable=SC2046
ns_state() {
  in_m "$BIN/hearth-tail" --master "$MASTER_URL" --state --json --timeout 3s \
    $(client_keys client)
}
hosts_alive() {
  ns_state | jq -e "[.workers[] | select(.state == \"ALIVE\") | .host] | sort
    == [\"$H1\", \"$H2\"]" >/dev/null
}
check "both workers ALIVE, each on its own address" hosts_alive

N=40
J=$(job hosts "{\"name\":\"hosts\",\"stages\":[{\"name\":\"s\",\"tasks\":[
  {\"cmd\":[\"sh\",\"-c\",\"sleep 0.1; echo {i} \$(basename \$(dirname \$(dirname \$PWD)))\"],
   \"count\":$N}]}]}")
# shellcheck disable=SC2046
in_m "$BIN/hearth-submit" --master "$MASTER_URL" $(client_keys client) \
  --heartbeat-interval "${INTERVAL_MS}ms" --heartbeat-liveness "$LIVENESS" \
  --executor-cores 2 --log-level info "$J" >"$T/out" 2>"$T/err"
check "a job runs across the namespaces" test $? -eq 0
check "... with every result, in order" \
  same <(cut -d' ' -f1 "$T/out") <(seq 0 $((N - 1)))
check "... tasks ran on the worker at $H1" grep -q ' w1$' "$T/out"
check "... and on the worker at $H2" grep -q ' w2$' "$T/out"
check "its executors registered from both addresses" \
  bash -c "grep -q 'registered from $H1' '$T/err' && grep -q 'registered from $H2' '$T/err'"
check "the driver listened on the master's namespace address" \
  grep -q "executors connect to tcp://$M1:" "$T/err"
check "every address the cluster shows is one of the test's own" \
  eval '! ns_state | grep -oE "[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+" |
    grep -vE "^(10\.213\.[12]\.[12]|127\.0\.0\.1)$"'

# A shuffle across the hosts, over CURVE: 8 map tasks each write 5
# records (value: the worker it ran on) into 3 partitions; each reducer
# says where it ran, how many records it got and from which workers.
J=$(job shuffle "{\"name\":\"shuffle\",\"stages\":[
  {\"name\":\"map\",\"partitions\":3,\"tasks\":[{\"cmd\":[\"sh\",\"-c\",
   \"w=\$(basename \$(dirname \$(dirname \$PWD))); sleep 0.5;
     for k in a b c d e; do printf '%s\\\\t%s\\\\n' \$k-{i} \$w; done\"],\"count\":8}]},
  {\"name\":\"reduce\",\"tasks\":[{\"cmd\":[\"sh\",\"-c\",
   \"cat > r{i}; echo \$(basename \$(dirname \$(dirname \$PWD))) \$(wc -l < r{i}) \$(cut -f2 r{i} | sort -u)\"],
   \"input\":\"map\"}]}]}")
# shellcheck disable=SC2046
in_m "$BIN/hearth-submit" --master "$MASTER_URL" $(client_keys client) \
  --heartbeat-interval "${INTERVAL_MS}ms" --heartbeat-liveness "$LIVENESS" \
  --executor-cores 2 --task-prefetch 0 "$J" >"$T/out" 2>"$T/err"
check "a shuffle runs across the namespaces (block servers with keys)" test $? -eq 0
check "... every record reaches one reducer" \
  test "$(awk '{s += $2} END {print s}' "$T/out")" -eq 40
check "... and some reducer fetched records from the other host" \
  awk '{for (i = 3; i <= NF; i++) if ($i != $1) x = 1} END {exit !x}' "$T/out"

# kill -9 of one "host"'s worker mid-job: its executor goes with it, the
# master declares it DEAD, the driver runs its tasks again on the other
# host, and the output is still exact.
N=200
J=$(job kill "{\"name\":\"kill\",\"stages\":[{\"name\":\"s\",\"tasks\":[
  {\"cmd\":[\"sh\",\"-c\",\"sleep 0.1; echo {i}\"], \"count\":$N}]}]}")
# shellcheck disable=SC2046
in_m "$BIN/hearth-submit" --master "$MASTER_URL" $(client_keys client) \
  --heartbeat-interval "${INTERVAL_MS}ms" --heartbeat-liveness "$LIVENESS" \
  --executor-cores 2 --log-level info "$J" >"$T/out" 2>"$T/err" &
SUB=$!
PIDS+=($SUB)
on_both() {
  ns_state | jq -e '[.apps[] | select(.state == "RUNNING") | .executors[]
    | select(.state == "RUNNING")] | length == 2' >/dev/null
}
check "a second job runs on both hosts" wait_for 30 on_both
kill9 "$PID_w2"
w2_dead() {
  ns_state | jq -e --arg h "$H2" '.workers[] | select(.host == $h)
    | .state == "DEAD"' >/dev/null
}
check "the worker at $H2, killed, is DEAD" wait_for 10 w2_dead
wait "$SUB"
check "... and the job still succeeds" test $? -eq 0
check "... with exactly its output" same "$T/out" <(seq 0 $((N - 1)))
check "... its lost tasks run again" grep -q 'tasks to run again' "$T/err"
finish
