#!/usr/bin/env bash
# Locality across hosts (issue 37): three worker "hosts", each a network
# namespace on an address of its own and a mount namespace in which
# $T/local is its own disk (a directory no other host sees: a task
# elsewhere cannot read it), plus the master's namespace.  A job of 12
# tasks, each reading one part file that exists only on one host's disk
# and preferring that host, runs 100 % NODE_LOCAL with exact output.  An
# "output" stage on the hosts' own disks commits each part where it ran
# and names its host in the driver's _SUCCESS, leaving no _temporary on
# any host once its executors end; "foreach": {"parts": DIR}
# then reads each part on its host, 100 % NODE_LOCAL.
# Then one host's worker is killed: the same job, its tasks falling back
# to a replica directory when their disk is not there, still ends exact,
# the killed host's tasks run elsewhere at once (no executor is there or
# coming: nothing to wait for), reported NO_PREF, the others NODE_LOCAL.
# Skipped (77) where namespaces cannot be created.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
. "$(dirname "$0")/../lib/security.sh"
. "$(dirname "$0")/../lib/netns.sh"
. "$(dirname "$0")/../lib/hosts.sh"
deadline 180
export TMPDIR=$T

NS_M=hearth-$$-lm
netns_first "$NS_M"
NS=() M=() H=()
for k in 1 2 3; do
  NS[k]=hearth-$$-l$k M[k]=10.214.$k.1 H[k]=10.214.$k.2
done
if ! hosts_star "$NS_M" MADE 2>"$T/netns.err"; then
  say "SKIP: cannot set up the namespaces' network ($(head -1 "$T/netns.err"))"
  say "0 passed, 0 failed"
  exit 77
fi
if ! unshare -m --propagation private true 2>"$T/unshare.err"; then
  say "SKIP: cannot make a mount namespace ($(head -1 "$T/unshare.err"))"
  say "0 passed, 0 failed"
  exit 77
fi
pass "4 network namespaces, 3 veth pairs"

# Each host's disk: parts 4(k-1) to 4k-1, "part J on host K"; a replica
# of every part that any host may read.
mkdir -p "$T/local" "$T/replica"
for k in 1 2 3; do
  mkdir -p "$T/disk-$k"
  for j in $(seq $((4 * (k - 1))) $((4 * k - 1))); do
    echo "part $j on host $k" >"$T/disk-$k/part-$j"
    echo "part $j on host $k" >"$T/replica/part-$j"
  done
done
# onhost DISK COMMAND...: COMMAND with DISK at $T/local, in a mount
# namespace of its own (the worker, its executors and their tasks).
hosts_onhost "$T/onhost" "$T/local"

{ make_keys && "$BIN/hearth-keygen" --client w3 "$K" >/dev/null; } ||
  { fail "keys"; finish; exit 1; }
WRAP="ip netns exec $NS_M" start_master --host "${M[1]}" \
  --curve-secret "$K/master.key_secret" --curve-allow "$K/clients" ||
  { fail "the master starts in its namespace"; finish; exit 1; }
for k in 1 2 3; do
  # shellcheck disable=SC2046
  WRAP="ip netns exec ${NS[k]} unshare -m --propagation private $T/onhost $T/disk-$k" \
    CORES=1 start_worker "w$k" --host "${H[k]}" $(client_keys "w$k") ||
    { fail "worker w$k registers from ${H[k]}"; finish; exit 1; }
done
check "a host's tasks see its own disk only" \
  eval '[ -e "$T/disk-1/part-0" ] && ! [ -e "$T/local/part-0" ]'

in_m() { ip netns exec "$NS_M" "$@"; }
# job NAME FALLBACK: 12 tasks, task J reading part J and preferring its
# host; with FALLBACK, the replica when the part is not on this disk.
parts_job() {
  local tasks="" j k cmd
  for j in $(seq 0 11); do
    k=$((j / 4 + 1))
    cmd="cat $T/local/part-$j"
    [[ -n $2 ]] && cmd="$cmd 2>/dev/null || cat $T/replica/part-$j"
    tasks+="${tasks:+,}{\"cmd\": [\"sh\", \"-c\", \"$cmd\"], \"prefer\": \"${H[k]}\"}"
  done
  job "$1" "{\"name\": \"$1\", \"stages\": [{\"name\": \"read\", \"tasks\": [$tasks]}]}"
}
run_job() { # run_job JOBFILE EVENTDIR
  # shellcheck disable=SC2046
  in_m "$BIN/hearth-submit" --master "$MASTER_URL" $(client_keys client) \
    --heartbeat-interval "${INTERVAL_MS}ms" --heartbeat-liveness "$LIVENESS" \
    --executor-cores 1 --event-log "$2" "$1" >"$T/out" 2>"$T/err"
}
levels() { # "INDEX LEVEL" of each task's first attempt
  jq -r 'select(.event == "task_start" and .attempt == 0) | "\(.index) \(.locality // "NO_PREF")"' "$1"/*.events | sort -n
}
expected() { for j in $(seq 0 11); do echo "part $j on host $((j / 4 + 1))"; done; }

check "12 tasks, each preferring the host of its part" run_job "$(parts_job near "")" "$T/ev1"
check "... exact output" same "$T/out" <(expected)
check "... every task NODE_LOCAL" \
  same <(levels "$T/ev1") <(for j in $(seq 0 11); do echo "$j NODE_LOCAL"; done)

# An output on each host's own disk: each part file is committed where
# its task ran (ASK_COMMIT), and the driver's _SUCCESS says where; a job
# of "foreach": {"parts": DIR} then reads every part where it lies.
job write "{\"name\": \"write\", \"stages\": [{\"name\": \"w\",
  \"output\": \"$T/local/out\", \"tasks\": [{\"cmd\": [\"sh\", \"-c\",
  \"echo line {i}\"], \"count\": 12}]}]}" >/dev/null
check "an output stage of 12 tasks on the hosts' own disks" \
  run_job "$T/write.json" "$T/ev-w"
check "... each part on exactly one host's disk" \
  same <(ls "$T"/disk-*/out/ | grep '^part-' | sort) \
  <(for j in $(seq 0 11); do printf 'part-%05d\n' "$j"; done)
# host 10.214.K.2's disk is disk-K
on_its_host() {
  jq -r '.parts[] | "\(.name) \(.host)"' "$T/local/out/_SUCCESS" >"$T/manifest"
  [ "$(wc -l <"$T/manifest")" = 12 ] || return 1
  local n h
  while read -r n h; do
    [ -e "$T/disk-$(echo "$h" | cut -d. -f3)/out/$n" ] || return 1
  done <"$T/manifest"
}
check "... and the driver's _SUCCESS names the host of each" on_its_host
# the attempts' directory goes on every host, not only the driver's: each
# executor removes its node's (empty) DIR/_temporary as it ends
no_temporary() { ! ls -d "$T"/disk-*/out/_temporary >/dev/null 2>&1; }
check "... and no host's disk keeps a _temporary once the executors end" \
  wait_for 15 no_temporary
job readparts "{\"name\": \"readparts\", \"stages\": [{\"name\": \"r\",
  \"tasks\": [{\"cmd\": [\"cat\", \"{item}\"],
  \"foreach\": {\"parts\": \"$T/local/out\"}}]}]}" >/dev/null
check "a job of \"foreach\": {\"parts\": DIR} reads every part" \
  run_job "$T/readparts.json" "$T/ev-r"
check "... exact, in part order" same "$T/out" <(seq 0 11 | sed 's/^/line /')
check "... every task NODE_LOCAL" \
  same <(levels "$T/ev-r") <(for j in $(seq 0 11); do echo "$j NODE_LOCAL"; done)

kill9 "$PID_w3"
w3_dead() {
  # shellcheck disable=SC2046
  in_m "$BIN/hearth-tail" --master "$MASTER_URL" --state --json --timeout 3s \
    $(client_keys client) | jq -e --arg h "${H[3]}" \
    '.workers[] | select(.host == $h) | .state == "DEAD"' >/dev/null
}
check "host 3's worker, killed, is DEAD" wait_for 10 w3_dead
check "the job again, reading replicas where its disk is gone" \
  run_job "$(parts_job fallback yes)" "$T/ev2"
check "... exact output" same "$T/out" <(expected)
check "... hosts 1 and 2's tasks NODE_LOCAL, host 3's NO_PREF at once" \
  same <(levels "$T/ev2") <(for j in $(seq 0 11); do
    if ((j < 8)); then echo "$j NODE_LOCAL"; else echo "$j NO_PREF"; fi; done)
finish
