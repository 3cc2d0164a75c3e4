#!/usr/bin/env bash
# An executor's custom resources (issue 15), with a real hearth-executor
# driven by exec-tool (which plays the driver): --resource gpu=0,1,2,3 on
# an 8-core executor is reported in REGISTER_EXECUTOR; 40 command tasks
# asking gpu=1, all sent at once, each log "START addr task ns" and
# "END addr task ns" of $HEARTH_RESOURCE_GPU around a short sleep: no two
# intervals of one address overlap, all 4 addresses are used, every task
# ran once, CUDA_VISIBLE_DEVICES says the same; function tasks see theirs
# in hearth_task_in_t (libtesttasks.so's res_log); gpu=2 gives two
# distinct addresses; a task without resources sees neither variable
# (not even the ones the executor inherited); one asking more than the
# executor holds, or a name it does not hold, fails at once saying so; a
# bad --resource exits 1 naming it.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 120
APP=app-20261201000000-0001

mkfifo "$T/tool.in"
mkdir -p "$T/res" "$T/ex"
"$TBIN/exec-tool" --lib "$TASKS_LIB" --results "$T/res" \
  <"$T/tool.in" >"$T/tool.out" 2>"$T/tool.err" &
PIDS+=($!)
exec {FD}>"$T/tool.in"
wait_for 10 grep -q '^LISTENING ' "$T/tool.out" || { fail "exec-tool"; finish; exit 1; }
URL=$(awk '/^LISTENING/{print $2}' "$T/tool.out")
# Variables inherited from outside must not reach tasks that hold nothing.
HEARTH_RESOURCE_GPU=inherited HEARTH_RESOURCE_NIC=inherited \
  CUDA_VISIBLE_DEVICES=inherited \
  "$BIN/hearth-executor" --driver-url "$URL" --app-id "$APP" --cores 8 \
  --resource gpu=0,1,2,3 --resource fpga=f0 --work-dir "$T/ex" \
  --heartbeat-interval 200ms >"$T/ex.log" 2>&1 &
PIDS+=($!)
check "the executor registers" wait_for 20 grep -q '^REGISTERED ' "$T/tool.out"
check "... with its addresses in REGISTER_EXECUTOR resources" \
  grep -qx 'RESOURCES {"gpu":\["0","1","2","3"\],"fpga":\["f0"\]}' "$T/tool.out"

tid() { echo $((($1 << 32) + $2)); }
send() { printf '%s\n' "$1" >&"$FD"; }
# count STAGE [STATE]: final updates of STAGE's tasks (in STATE).
count() {
  awk -v lo=$(($1 << 32)) -v hi=$((($1 + 1) << 32)) -v s="${2:-}" \
    '$1 == "UPDATE" && $2 >= lo && $2 < hi && (s == "" || $4 == s)' \
    "$T/tool.out" | wc -l
}
# finished STAGE N: wait until N tasks of STAGE have a final update.
finished() { wait_for 60 eval "[[ \$(count $1) -ge $2 ]]"; }

# 40 command tasks of gpu=1, sent at once to 8 cores and 4 gpus.
LOG=$T/cmd.log
for i in $(seq 0 39); do
  send "{\"tid\":$(tid 1 "$i"),\"attempt\":0,\"resources\":{\"gpu\":1},\"cmd\":[\"sh\",\"-c\",\"echo START \$HEARTH_RESOURCE_GPU $i.0 \$(date +%s%N) >>$LOG; echo CUDA \$HEARTH_RESOURCE_GPU \$CUDA_VISIBLE_DEVICES >>$T/cuda.log; sleep 0.05; echo END \$HEARTH_RESOURCE_GPU $i.0 \$(date +%s%N) >>$LOG\"]}"
done
check "40 gpu=1 command tasks finish" finished 1 40
check "... all FINISHED" test "$(count 1 FINISHED)" = 40
check "... every task ran once" \
  test "$(grep -c '^START ' "$LOG")-$(grep -c '^END ' "$LOG")-$(awk '$1 == "START" {print $3}' "$LOG" | sort -u | wc -l)" = 40-40-40
OV=$(overlaps "$LOG")
check "... no two intervals of one address overlap${OV:+: $OV}" test -z "$OV"
check "... all 4 addresses used, and only those" \
  test "$(awk '$1 == "START" {print $2}' "$LOG" | sort -u | tr '\n' ' ')" = "0 1 2 3 "
check "... CUDA_VISIBLE_DEVICES is HEARTH_RESOURCE_GPU" \
  test "$(awk '$2 != $3' "$T/cuda.log" | wc -l)-$(wc -l <"$T/cuda.log")" = 0-40

# gpu=2: two distinct addresses each, never shared.
LOG2=$T/cmd2.log
for i in $(seq 0 9); do
  send "{\"tid\":$(tid 2 "$i"),\"attempt\":0,\"resources\":{\"gpu\":2,\"fpga\":1},\"cmd\":[\"sh\",\"-c\",\"echo START \$HEARTH_RESOURCE_GPU $i.0 \$(date +%s%N) \$HEARTH_RESOURCE_FPGA >>$LOG2; sleep 0.05; echo END \$HEARTH_RESOURCE_GPU $i.0 \$(date +%s%N) >>$LOG2\"]}"
done
check "10 gpu=2 tasks finish" finished 2 10
check "... all FINISHED" test "$(count 2 FINISHED)" = 10
check "... each got two distinct addresses" \
  test "$(awk '$1 == "START" { split($2, a, ","); if (length(a) == 2 && a[1] != a[2]) n++ } END { print n + 0 }' "$LOG2")" = 10
check "... and fpga f0" test "$(awk '$1 == "START" && $5 == "f0"' "$LOG2" | wc -l)" = 10
OV=$(overlaps "$LOG2")
check "... never one address to two at once${OV:+: $OV}" test -z "$OV"

# Function tasks: hearth_task_in_t's resources.
LOG3=$T/fn.log
for i in $(seq 0 19); do
  send "{\"tid\":$(tid 3 "$i"),\"attempt\":0,\"resources\":{\"gpu\":1},\"fn\":\"res_log\",\"arg\":\"$LOG3\"}"
done
check "20 gpu=1 function tasks finish" finished 3 20
check "... all FINISHED" test "$(count 3 FINISHED)" = 20
check "... each got one address" \
  test "$(awk '$1 == "START" && $2 ~ /^[0-3]$/' "$LOG3" | wc -l)" = 20
OV=$(overlaps "$LOG3")
check "... no two intervals of one address overlap${OV:+: $OV}" test -z "$OV"
check "... all 4 used" \
  test "$(awk '$1 == "START" {print $2}' "$LOG3" | sort -u | wc -l)" = 4
check "... its result says it" grep -qx 'gpu=[0-3]' "$T/res/$(tid 3 0).0"

# Tasks without resources see neither variable.
send "{\"tid\":$(tid 4 0),\"attempt\":0,\"cmd\":[\"sh\",\"-c\",\"env | grep -E '^(HEARTH_RESOURCE_|CUDA_VISIBLE_DEVICES)' || echo none\"]}"
send "{\"tid\":$(tid 4 1),\"attempt\":0,\"fn\":\"res_log\",\"arg\":\"$T/fn-none.log\"}"
check "tasks without resources finish" finished 4 2
check "... a command sees no HEARTH_RESOURCE_GPU nor CUDA_VISIBLE_DEVICES" \
  test "$(cat "$T/res/$(tid 4 0).0")" = none
check "... a function gets no resources" \
  test "$(cat "$T/res/$(tid 4 1).0")" = gpu=none

# More than the executor holds, or a name it does not hold: a clear
# failure, at once (no wait for ever).
send "{\"tid\":$(tid 5 0),\"attempt\":0,\"resources\":{\"gpu\":5},\"cmd\":[\"true\"]}"
send "{\"tid\":$(tid 5 1),\"attempt\":0,\"resources\":{\"nic\":1},\"cmd\":[\"true\"]}"
check "impossible asks end" finished 5 2
check "... gpu=5 on 4: FAILED, saying both numbers" \
  grep -q "^UPDATE $(tid 5 0) 0 FAILED .*error=the task needs 5 gpu; this executor holds 4" "$T/tool.out"
check "... nic: FAILED, saying it holds none" \
  grep -q "^UPDATE $(tid 5 1) 0 FAILED .*error=the task needs 1 nic; this executor holds 0" "$T/tool.out"
check "the executor logged its resources" grep -q 'resource gpu=0,1,2,3' "$T/ex.log"

# A bad --resource: exit 1, naming it.
"$BIN/hearth-executor" --driver-url "$URL" --app-id "$APP" \
  --resource gpu=0,0 >"$T/bad.out" 2>&1
check "--resource gpu=0,0: exit status 1" test $? = 1
check "... naming the repeated address" grep -q -- '--resource gpu=0,0: .*address 0 is given twice' "$T/bad.out"
"$BIN/hearth-executor" --driver-url "$URL" --app-id "$APP" \
  --resource gpu >"$T/bad2.out" 2>&1
check "--resource gpu (no addresses): exit status 1" test $? = 1
exec {FD}>&-
finish
