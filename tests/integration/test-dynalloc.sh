#!/usr/bin/env bash
# Dynamic allocation (issue 18): on a hand-started cluster of four 1-core
# workers, an application alone grows to all four cores under a backlog,
# shrinks to its minimum while a long single task runs (idle timeout
# 2 s), and a second application gets the freed cores meanwhile; then
# the first grows again.  Results are exact, no task runs twice (every
# task_end is attempt 0), and every removal says "released by dynamic
# allocation".  The master journals the target: a master restarted from
# its journal shows the same executor_target.  Then, on local-cluster, a
# bursty job (bursts one second apart, under the 2 s idle timeout) makes
# no executor go at all: no flapping.
. "$(dirname "$0")/../lib/cluster.sh"
deadline 150

IDLE=2s
# job NAME TASKS GAP_S: a stage of TASKS 0.4 s tasks, a single GAP_S task,
# then TASKS more; the last stage's results go to stdout.
job() {
  cat >"$T/$1.json" <<JOB
{"name": "$1", "stages": [
  {"name": "a", "tasks": [{"cmd": ["sh", "-c", "sleep 0.4; echo a{i}"], "count": $2}]},
  {"name": "gap", "after": ["a"], "tasks": [{"cmd": ["sh", "-c", "sleep $3; echo gap"]}]},
  {"name": "b", "after": ["gap"], "tasks": [{"cmd": ["sh", "-c", "sleep 0.4; echo b{i}"], "count": $2}]}
]}
JOB
}
# submit_bg NAME [ARGS...]: job NAME through hearth-submit, in the
# background, with its event log in $T/ev-NAME; sets SUBMIT_PID.
submit_bg() {
  local name=$1; shift
  mkdir -p "$T/ev-$name"
  "$BIN/hearth-submit" --master "$MASTER_URL" --name "$name" \
    --executor-memory 256M --executor-cores 1 \
    --heartbeat-interval "${INTERVAL_MS}ms" --event-log "$T/ev-$name" \
    --log-level info "$@" "$T/$name.json" >"$T/$name.out" 2>"$T/$name.err" &
  SUBMIT_PID=$!
  PIDS+=($SUBMIT_PID)
}
# execs NAME TEST: application NAME's live executors' count passes TEST
# (a jq comparison such as "== 4").
execs() {
  state_json | jq -e --arg n "$1" \
    "[.apps[] | select(.name == \$n and .state == \"RUNNING\")][0] | (.executors | length) $2" \
    >/dev/null
}
events() { cat "$T/ev-$1"/*.events; }
# exact NAME N: the output is b0..b(N-1), once each.
exact() {
  [[ $(sort "$T/$1.out") == $(for ((i = 0; i < $2; i++)); do echo "b$i"; done | sort) ]]
}
# no_rerun NAME TASKS: every task_end is attempt 0, and there are TASKS of
# them.
no_rerun() {
  local ends
  ends=$(events "$1" | jq -c 'select(.event == "task_end")')
  [[ $(jq -s 'length' <<<"$ends") -eq $2 ]] &&
    [[ $(jq -s '[.[] | select(.attempt != 0)] | length' <<<"$ends") -eq 0 ]]
}
# removals NAME: executors given back by dynamic allocation.
removals() {
  events "$1" | jq -s '[.[] | select(.event == "executor_removed" and (.reason | test("released by dynamic allocation")))] | length'
}

# --- a hand-started cluster of four 1-core workers ---------------------------
start_master --journal "$T/journal" || exit 1
for w in w1 w2 w3 w4; do CORES=1 MEMORY=1G start_worker $w || exit 1; done

job grow 24 8
submit_bg grow --dynamic-allocation --min-executors 1 \
  --executor-idle-timeout "$IDLE" --scheduler-backlog-timeout 500ms \
  --sustained-scheduler-backlog-timeout 500ms
GROW_PID=$SUBMIT_PID
check "alone with a backlog, the application grows to all 4 cores" \
  wait_for 20 execs grow "== 4"
check "its executor_target is in the state" wait_for 5 jq_state \
  '[.apps[] | select(.name == "grow")][0].executor_target >= 1'
check "... and in the text view" bash -c \
  "'$BIN/hearth-tail' --master '$MASTER_URL' --state --timeout 3s | grep -q 'executor_target:'"
check "during its long single task it shrinks to 1 (its minimum)" \
  wait_for 15 execs grow "== 1"
check "... its target is 1" jq_state \
  '[.apps[] | select(.name == "grow")][0].executor_target == 1'

job other 6 0.1
submit_bg other
OTHER_PID=$SUBMIT_PID
check "a second application gets the 3 cores the first gave back" \
  wait_for 15 execs other ">= 3"
check "... and its job completes" wait_for 30 bash -c "! kill -0 $OTHER_PID"
wait "$OTHER_PID"
check "... hearth-submit exiting 0 with exact results" exact other 6
check "the first grows again for its last stage" wait_for 20 execs grow ">= 2"
check "the first application completes" wait_for 60 bash -c "! kill -0 $GROW_PID"
wait "$GROW_PID"
check "... hearth-submit exiting 0" test $? -eq 0
check "... with exact results" exact grow 24
check "... no task ran twice (49 task ends, all attempt 0)" no_rerun grow 49
n=$(removals grow)
check "... 3 executors given back during the gap ($n)" test "$n" -ge 3
check "... the driver logged no lost executor" \
  bash -c "! grep -q 'WARN executor .* lost' '$T/grow.err'"
check "the master logged the release" grep -q 'released by dynamic allocation' "$T/master.log"

# The target survives the master's restart (journaled with the app): a
# third application, idle on its last executors, is kept in the journal.
job keep 4 30
submit_bg keep --dynamic-allocation --min-executors 1 \
  --executor-idle-timeout "$IDLE" --scheduler-backlog-timeout 200ms \
  --sustained-scheduler-backlog-timeout 200ms
KEEP_PID=$SUBMIT_PID
check "a third application settles at target 1" wait_for 20 jq_state \
  '[.apps[] | select(.name == "keep")][0] | .executor_target == 1 and (.executors | length) == 1'
kill -KILL "$MASTER_PID"
wait "$MASTER_PID" 2>/dev/null
PORT=$MASTER_PORT start_master --journal "$T/journal" || exit 1
check "a master restarted from its journal has the same target" \
  wait_for 10 jq_state '[.apps[] | select(.name == "keep")][0].executor_target == 1'
kill -TERM "$KEEP_PID" 2>/dev/null
wait "$KEEP_PID" 2>/dev/null

# --- local-cluster: a bursty load makes nothing flap -------------------------
cat >"$T/bursty.json" <<'JOB'
{"name": "bursty", "stages": [
  {"name": "b0", "tasks": [{"cmd": ["sh", "-c", "sleep 0.3; echo x"], "count": 8}]},
  {"name": "g0", "after": ["b0"], "tasks": [{"cmd": ["sh", "-c", "sleep 1"]}]},
  {"name": "b1", "after": ["g0"], "tasks": [{"cmd": ["sh", "-c", "sleep 0.3; echo x"], "count": 8}]},
  {"name": "g1", "after": ["b1"], "tasks": [{"cmd": ["sh", "-c", "sleep 1"]}]},
  {"name": "b2", "after": ["g1"], "tasks": [{"cmd": ["sh", "-c", "sleep 0.3; echo x"], "count": 8}]},
  {"name": "g2", "after": ["b2"], "tasks": [{"cmd": ["sh", "-c", "sleep 1"]}]},
  {"name": "b3", "after": ["g2"], "tasks": [{"cmd": ["sh", "-c", "sleep 0.3; echo {i}"], "count": 8}]}
]}
JOB
mkdir -p "$T/ev-bursty"
bursty() {
  "$BIN/hearth-driver" --master 'local-cluster[4,1,256]' --dynamic-allocation \
    --executor-cores 1 --executor-idle-timeout "$IDLE" \
    --scheduler-backlog-timeout 300ms --sustained-scheduler-backlog-timeout 300ms \
    --event-log "$T/ev-bursty" --log-level info "$T/bursty.json" \
    >"$T/bursty.out" 2>"$T/bursty.err"
}
check "local-cluster: a bursty job under dynamic allocation completes" bursty
check "... with exact results" test "$(sort -n "$T/bursty.out" | tr '\n' ' ')" = "0 1 2 3 4 5 6 7 "
check "... it grew past one executor" bash -c \
  "[[ \$(cat '$T/ev-bursty'/*.events | jq -s '[.[] | select(.event == \"executor_added\")] | length') -ge 2 ]]"
n=$(removals bursty)
check "... no executor given back between bursts 1 s apart (idle timeout $IDLE): $n" \
  test "$n" -eq 0
check "... no task ran twice" no_rerun bursty 35

finish
