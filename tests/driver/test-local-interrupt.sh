#!/usr/bin/env bash
# Ctrl-C in local mode (issue 13, defect 7) stops at once and quietly, as
# against a cluster: SIGINT to hearth-submit, or to its whole process
# group as a terminal's Ctrl-C sends it, ends a local[2] job of long
# tasks within a second with exit 130, no warning about lost executors or
# re-runs, and nothing left running.  Likewise local-cluster mode.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 120
export TMPDIR=$T

J=$(job long '{"name":"long","stages":[{"name":"s","tasks":[
  {"cmd":["sleep","60"],"count":4}]}]}')

# interrupt NAME MASTER WHO: run the job on MASTER in a session of its
# own (its own process group, as in a terminal), SIGINT to WHO ("pid":
# hearth-submit alone, "group": its process group, as Ctrl-C does) once
# its tasks run; check what happens.
interrupt() {
  local name=$1 master=$2 who=$3
  setsid "$BIN/hearth-submit" --heartbeat-interval "${INTERVAL_MS}ms" \
    --heartbeat-liveness "$LIVENESS" --master "$master" --log-level info \
    "$J" >"$T/$name.out" 2>"$T/$name.err" &
  local pid=$!
  PIDS+=($pid)
  check "$name: the tasks run" wait_for 30 eval \
    '[[ $(pgrep -s "$pid" -x sleep | wc -l) -ge 2 ]]'
  local start target=$pid
  [[ $who == group ]] && target=-$pid
  start=$(now_ms)
  kill -INT -- "$target"
  wait "$pid"
  local rc=$? took=$(($(now_ms) - start))
  say "$name: exit $rc after $took ms"
  check "$name: hearth-submit exits 130" test "$rc" -eq 130
  check "$name: within 1 s ($took ms)" test "$took" -lt 1000
  check "$name: quietly (no lost executor, no re-run, no warning)" eval \
    "! grep -Eiq 'lost|run again|trying again|WARN|ERROR' '$T/$name.err'"
  check "$name: the executor was stopped by its driver, not by the signal" \
    eval "! grep -q 'signal 2: stopping' '$T/$name.err'"
  check "$name: nothing is left running" wait_for 2 eval \
    "[[ -z \$(pgrep -s $pid) ]]"
}

interrupt local-pid 'local[2]' pid
interrupt local-group 'local[2]' group
interrupt local-group-again 'local[2]' group
interrupt cluster-group 'local-cluster[1,2,512]' group
check "nothing of this test is left running" no_leftovers
finish
