#!/usr/bin/env bash
# Big arguments never hang a job (issue 42, item 1).  Before, a task over
# the wire's limits (a 120,000-byte argument of examples/wordcount.json, a
# 1 MiB cmd element, an 8 MiB function arg, more than 4,096 argv
# strings, even an empty argument) made its LAUNCH_TASKS refused by the
# codec, and the driver waited for ever, the other tasks of the batch
# too.  Now, in local[2], local-cluster (client mode) and cluster mode:
# a task over a limit is refused before anything runs, naming its stage,
# task, field, size and the limit (exit 2); a function's big argument
# travels in a frame of its own and the job gives the exact result; an
# empty argument runs.  Defense in depth: an executor that refuses a
# LAUNCH_TASKS (fake-executor, in local[2]) fails the batch's tasks with
# its reason, which are retried (the job ends exactly right) or fail the
# job, never a hang; a refusal that names no batch fails only the one
# refused, not one the executor runs (no task runs twice); the real
# executor answers a LAUNCH_TASKS it cannot decode with an ERROR naming
# the batch and the last one it handled (exec-tool plays the driver).
# Every run is bounded by `timeout`: a hang fails its check.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 400
export TMPDIR=$T
BOUND=60 # seconds any one run may take: more is a hang

# run ARGS...: hearth-submit ARGS, bounded; exit status in RC.
RUNS_FAILED=0 # failed runs: their stderr is kept as err.rcN.K
run() {
  timeout "$BOUND" "$BIN/hearth-submit" --heartbeat-interval "${INTERVAL_MS}ms" \
    --heartbeat-liveness "$LIVENESS" "$@" >"$T/out" 2>"$T/err"
  RC=$?
  if [[ $RC -eq 124 ]]; then say "hung: hearth-submit $*" | cut -c1-300; fi
  if [[ $RC -ne 0 ]]; then cp "$T/err" "$T/err.rc$RC.$((++RUNS_FAILED))"; fi
}
# said TEXT: stderr of the last run holds TEXT.
said() { grep -qF -- "$1" "$T/err"; }
# same_bytes FILE1 FILE2: identical, else their sizes (lines of 8 MiB
# are not for a log).
same_bytes() {
  cmp -s "$1" "$2" && return 0
  say "differ: $1 ($(wc -c <"$1") bytes), $2 ($(wc -c <"$2") bytes)"
  return 1
}

A120K=$(head -c 120000 /dev/zero | tr '\0' a)
python3 - "$T" <<'EOF'
import json, sys
t = sys.argv[1]
def job(name, tasks):
    json.dump({"name": name, "stages": [{"name": "s", "tasks": tasks}]},
              open(f"{t}/{name}.json", "w"))
job("mib", [{"cmd": ["echo", "a" * (1 << 20)]}])
job("many", [{"cmd": ["sh", "-c", "echo $#"] + ["x"] * 5000}])
big = "b" * (8 << 20)
job("bigfn", [{"fn": "echo_all", "arg": big + "{i}", "count": 2},
              {"fn": "echo_all", "arg": "small"}])
with open(f"{t}/bigfn.expected", "w") as f:
    f.write(f"{big}0\n{big}1\nsmall\n")
job("grows", [{"cmd": ["echo", "c" * 65533 + "{i}"], "count": 1001}])
job("empty", [{"cmd": ["printf", "%s|", "", "x", ""]}])
job("unused", [{"cmd": ["true"]}])
EOF
WC=$SRC/examples/wordcount.json
too_big='cmd[4] is 120000 bytes, over the 65536 a command'"'"'s argument may be'

# refusals MODE...: the tasks over a limit are refused fast, in the job
# file's words, in deploy mode MODE (hearth-submit flags).
refusals() {
  local mode="$*"
  run "$@" "$WC" "$A120K"
  check "$mode: wordcount with a 120,000-byte argument exits 2, not a hang" \
    test "$RC" -eq 2
  check "... naming the stage, task, field, size and limit" \
    said "wordcount.json: stage \"count\", task 0 (stages[0].tasks[0]): $too_big"
  check "... never in wire words" eval '! said LAUNCH_TASKS && ! said SUBMIT_DRIVER'
  run "$@" "$T/mib.json"
  check "$mode: a 1 MiB cmd element is refused (exit 2)" test "$RC" -eq 2
  check "... saying so" said 'stage "s", task 0 (stages[0].tasks[0]): cmd[1] is 1048576 bytes, over the 65536'
  run "$@" "$T/many.json"
  check "$mode: 5,003 argv strings are refused (exit 2)" test "$RC" -eq 2
  check "... saying so" said 'cmd has 5003 strings, over the 4096 a command may have'
  run "$@" "$T/grows.json"
  check "$mode: the first task whose {i} grows past a limit is named" \
    said 'stage "s", task 1000 (stages[0].tasks[0]): cmd[1] is 65537 bytes'
}

# runs MODE...: what fits runs, with the exact result.
runs() {
  local mode="$*"
  run "$@" --lib "$TASKS_LIB" "$T/bigfn.json"
  check "$mode: an 8 MiB function argument runs (exit 0, no hang)" test "$RC" -eq 0
  check "... with the exact results, the small task's too" same_bytes "$T/out" "$T/bigfn.expected"
  run "$@" "$T/empty.json"
  check "$mode: empty arguments run" test "$RC" -eq 0
  check "... as they are" test "$(cat "$T/out")" = '|x||'
}

refusals --master 'local[2]'
runs --master 'local[2]'
run --master 'local[2]' --lib "$TASKS_LIB" "$BIN/tests/driver/test-ctx" big-args
check "C API: hearth_job_submit refuses a task over a limit, naming it" \
  grep -qF 'refused: stage "s", task 0: cmd[1] is 70001 bytes, over the 65536' "$T/out"
check "... and the first task of a group whose {i} grows past one" \
  grep -qF 'refused: stage "s", task 1000: cmd[1] is 65537 bytes' "$T/out"
check "... and runs an 8 MiB function argument exactly" \
  grep -qx 'result 0: 8388609 bytes, exact' "$T/out"
check "... exit 0" test "$RC" -eq 0

refusals --master 'local-cluster[1,2,1024]'
runs --master 'local-cluster[1,2,1024]'

# Cluster mode: refused by hearth-submit, before shipping.
start_master || exit 1
CORES=2 start_worker w1 || exit 1
CM=(--master "$MASTER_URL" --deploy-mode cluster --driver-memory 256M)
refusals "${CM[@]}"
check "cluster mode: nothing reached the master" \
  test "$(state_json | jq '.drivers | length')" = 0
run "${CM[@]}" "$T/unused.json" "$A120K"
check "cluster mode: an argument over what SUBMIT_DRIVER carries is refused here (exit 2)" \
  test "$RC" -eq 2
check "... in the command line's words" \
  said 'argument 1 after '"$T"'/unused.json is 120000 bytes, over the 65536 an argument may be in cluster mode'

# Defense in depth: an executor that refuses LAUNCH_TASKS (local[2]
# starts fake-executor as its executor; it runs echo_all itself, but the
# driver checks that a shipped library defines it).
mkdir -p "$T/fake"
ln -s "$BIN/tests/driver/fake-executor" "$T/fake/hearth-executor"
echo '{"name": "r", "stages": [{"name": "s", "tasks": [
  {"fn": "echo_all", "arg": "t{i}", "count": 3}]}]}' >"$T/r.json"
printf 't0\nt1\nt2\n' >"$T/r.expected"
HEARTH_BIN_DIR=$T/fake run --master 'local[2]' --lib "$TASKS_LIB" --max-failures 2 "$T/r.json"
check "an executor refusing every batch fails the job (exit 1), no hang" test "$RC" -eq 1
check "... with the executor's reason" \
  said 'task 0 failed 2 times; last error: executor 0 refused the task'"'"'s launch: LAUNCH_TASKS: this executor cannot decode it'
check "... after two refused batches" test "$(grep -c 'refused batch' "$T/err")" = 2
FAKE_REFUSE=1 HEARTH_BIN_DIR=$T/fake run --master 'local[2]' --lib "$TASKS_LIB" "$T/r.json"
check "one refused batch: its tasks run again (exit 0)" test "$RC" -eq 0
check "... none lost: the exact results" same_bytes "$T/out" "$T/r.expected"
FAKE_REFUSE=1 FAKE_NO_BATCH=1 HEARTH_BIN_DIR=$T/fake run --master 'local[2]' --lib "$TASKS_LIB" "$T/r.json"
check "a refusal naming no batch fails the one refused, run again (exit 0)" test "$RC" -eq 0
check "... the exact results" same_bytes "$T/out" "$T/r.expected"
# bigfn.json's first two tasks (8 MiB each) go in batch 1, the small one
# in batch 2; the executor runs batch 1 and refuses batch 2 without
# naming it, and the driver hears the refusal before batch 1's results.
FAKE_REFUSE_BATCH=2 FAKE_NO_BATCH=1 FAKE_HOLD=1 HEARTH_BIN_DIR=$T/fake \
  run --master 'local[2]' --lib "$TASKS_LIB" "$T/bigfn.json"
check "a refusal naming no batch, another running: the job ends right (exit 0)" \
  test "$RC" -eq 0
check "... the exact results" same_bytes "$T/out" "$T/bigfn.expected"
check "... the batch it ran is not failed: each task ran once (3 runs)" \
  test "$(grep -c 'fake-executor: ran tid' "$T/err")" = 3
check "... the refused one named in the driver's words" \
  said 'refused the task'"'"'s launch: LAUNCH_TASKS: this executor cannot decode it (a test double) (batch 2, the one it read after those it handled: 1 tasks)'
# The same from an executor that says neither (another build): which of
# the two it refused, the driver cannot tell; it drops the executor
# rather than fail the one running (or wait for ever), and the tasks run
# on the next one (local[2] starts it; that one refuses nothing).
FAKE_EXEC=0 FAKE_REFUSE_BATCH=2 FAKE_NO_BATCH=1 FAKE_NO_LAUNCHED=1 FAKE_HOLD=1 \
  HEARTH_BIN_DIR=$T/fake run --master 'local[2]' --lib "$TASKS_LIB" "$T/bigfn.json"
check "a refusal naming neither batch nor launched: the job ends right (exit 0)" \
  test "$RC" -eq 0
check "... the exact results" same_bytes "$T/out" "$T/bigfn.expected"
check "... the executor dropped, saying why" \
  said 'executor 0 lost (it refused a launch without saying which'

# The real executor answers a LAUNCH_TASKS it cannot decode.
mkfifo "$T/tool.in"
mkdir -p "$T/ex"
"$TBIN/exec-tool" --lib "$TASKS_LIB" <"$T/tool.in" >"$T/tool.out" 2>"$T/tool.err" &
PIDS+=($!)
exec {FD}>"$T/tool.in"
wait_for 10 grep -q '^LISTENING ' "$T/tool.out" || { fail "exec-tool"; finish; exit 1; }
URL=$(awk '/^LISTENING/{print $2}' "$T/tool.out")
"$BIN/hearth-executor" --driver-url "$URL" --app-id app-20261201000000-0001 \
  --cores 2 --work-dir "$T/ex" --heartbeat-interval 200ms >"$T/ex.log" 2>&1 &
PIDS+=($!)
check "an executor registers with exec-tool" wait_for 20 grep -q '^REGISTERED ' "$T/tool.out"
printf '{"tid":1,"attempt":0,"cmd":["echo","first"]}\n' >&"$FD"
check "a first batch runs" wait_for 20 grep -q '^UPDATE 1 0 FINISHED' "$T/tool.out"
printf 'UNCHECKED {"tid":2,"attempt":0,"cmd":["echo","%s"]}\n' "$(head -c 70000 /dev/zero | tr '\0' d)" >&"$FD"
printf '{"tid":3,"attempt":0,"cmd":["echo","fine"]}\n' >&"$FD"
check "a LAUNCH_TASKS over the limits is answered ERROR, naming its batch and the one handled before" \
  wait_for 20 grep -q "^ERROR bad_field batch=2 launched=1 command=LAUNCH_TASKS LAUNCH_TASKS: field 'tasks\[0\].cmd\[1\]'" "$T/tool.out"
check "the next batch runs" wait_for 20 grep -q '^UPDATE 3 0 FINISHED' "$T/tool.out"
check "... and the executor says it handled all three" wait_for 20 grep -qx 'LAUNCHED 3' "$T/tool.out"
# A task long enough for messages between its launch and its end
# (RUNNING, heartbeats): none of them tells the same "launched" again.
printf '{"tid":4,"attempt":0,"cmd":["sh","-c","sleep 0.5; echo slow"]}\n' >&"$FD"
check "a slower batch runs" wait_for 20 grep -q '^UPDATE 4 0 FINISHED' "$T/tool.out"
printf '{"tid":5,"attempt":0,"cmd":["echo","last"]}\n' >&"$FD"
check "... and the next" wait_for 20 grep -qx 'LAUNCHED 5' "$T/tool.out"
check "... the executor told each batch it handled once, not in every message" \
  eval "! grep -q '^LAUNCHED AGAIN' '$T/tool.out'"
exec {FD}>&-

finish
