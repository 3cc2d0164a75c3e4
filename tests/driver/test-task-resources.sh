#!/usr/bin/env bash
# Custom resources per task (issue 15), the driver's side: a job file
# stage's "resources" is checked where it is read (exit 2 with where and
# why), and a stage asking for what the executors do not get is refused
# at submit with a message naming both numbers: a name the executors get
# none of, more per task than per executor (--executor-resource), any in
# local[N].  The tasks themselves, on a hand-started cluster whose worker
# holds fake addresses and on local-cluster (--worker-resource), are at
# the end.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 180
export TMPDIR=$T

stage() { # stage RESOURCES-JSON: a job of one such stage of one command
  echo "{\"name\":\"r\",\"stages\":[{\"name\":\"s\",\"resources\":$1,\"tasks\":[{\"cmd\":[\"true\"]}]}]}"
}
refused res-number "$(stage 5)" \
  'stages[0].resources: expected an object of amounts, like {"gpu": 1}'
AMOUNT='stages[0].resources: resource gpu: expected a whole amount in 1..1024'
refused res-zero "$(stage '{"gpu":0}')" "$AMOUNT"
refused res-big "$(stage '{"gpu":2000}')" "$AMOUNT"
refused res-text "$(stage '{"gpu":"1"}')" "$AMOUNT"
refused res-name "$(stage '{"g pu":1}')" \
  "stages[0].resources: resource name 'g pu': expected 1 to 32 of"

# failed_at_submit NAME MASTER JSON MESSAGE [ARGS...]: the job fails at
# once, saying MESSAGE.
failed_at_submit() {
  local name=$1 master=$2 json=$3 msg=$4 file
  shift 4
  file=$(job "$name" "$json")
  submit --master "$master" "$@" "$file"
  local rc=$?
  if [[ $rc -ne 0 ]] && grep -qF -- "$msg" "$T/err"; then
    pass "$name fails at submit: $msg"
  else
    fail "$name: exit $rc, stderr: $(tail -5 "$T/err")"
  fi
}
GPU1=$(stage '{"gpu":1}')
failed_at_submit local-n 'local[2]' "$GPU1" \
  'stage s: local[N] has no custom resources (gpu): use local-cluster[...] --worker-resource or a cluster'
failed_at_submit no-such 'local-cluster[1,1,256]' "$(stage '{"fpga":1}')" \
  'stage s: each task asks for 1 fpga, but the executors get no fpga: ask for it with --executor-resource fpga=N' \
  --executor-resource gpu=1
failed_at_submit too-many 'local-cluster[1,1,256]' "$(stage '{"gpu":2}')" \
  'stage s: each task asks for 2 gpu, more than each executor gets (1, --executor-resource gpu=1)' \
  --executor-resource gpu=1
# The C API: hearth_stage_set_resource refuses bad calls; a stage that
# asks for more than the executors get fails at submit the same way.
CTX=$BIN/tests/driver/test-ctx
submit --master 'local-cluster[1,1,256]' --executor-resource gpu=1 "$CTX" resources 2
check "libhearth: a stage asking 2 gpu of executors given 1 fails (exit $?)" \
  grep -qF 'stage gpu: each task asks for 2 gpu, more than each executor gets (1, --executor-resource gpu=1)' "$T/err"
check "... hearth_stage_set_resource refused the bad calls (EINVAL)" \
  grep -qx 'bad calls refused' "$T/out"
failed_at_submit none-asked 'local-cluster[1,1,256]' "$GPU1" \
  'stage s: each task asks for 1 gpu, but the executors get no gpu'

# The tasks, on a hand-started cluster whose worker holds four fake gpu
# addresses and one executor holds all four (--executor-resource gpu=4,
# 6 cores).  One job: 40 command tasks asking gpu=1, each logging "START
# addr task ns" / "END addr task ns" of $HEARTH_RESOURCE_GPU around a
# short sleep, beside a stage without resources that runs at the same
# time; then 10 asking gpu=2; then 20 function tasks of gpu=1
# (libtesttasks.so's res_log, hearth_task_in_t).
start_master || exit 1
CORES=6 MEMORY=2G start_worker w1 --resource gpu=0,1,2,3 || exit 1
cat >"$T/e2e.json" <<'JSON'
{"name": "e2e", "stages": [
  {"name": "gpu1", "resources": {"gpu": 1}, "tasks": [{"count": 40, "cmd": ["sh", "-c",
    "echo START $HEARTH_RESOURCE_GPU {i} $(date +%s%N) >>@T@/g1.log; echo $HEARTH_RESOURCE_GPU $CUDA_VISIBLE_DEVICES >>@T@/cuda.log; sleep 0.05; echo END $HEARTH_RESOURCE_GPU {i} $(date +%s%N) >>@T@/g1.log"]}]},
  {"name": "plain", "tasks": [{"count": 20, "cmd": ["sh", "-c",
    "echo START x {i} $(date +%s%N) >>@T@/plain.log; env | grep -E '^(HEARTH_RESOURCE_|CUDA_VISIBLE_DEVICES)'; sleep 0.05; echo END x {i} $(date +%s%N) >>@T@/plain.log"]}]},
  {"name": "gpu2", "after": ["gpu1"], "resources": {"gpu": 2}, "tasks": [{"count": 10, "cmd": ["sh", "-c",
    "echo START $HEARTH_RESOURCE_GPU {i} $(date +%s%N) >>@T@/g2.log; sleep 0.05; echo END $HEARTH_RESOURCE_GPU {i} $(date +%s%N) >>@T@/g2.log"]}]},
  {"name": "fn", "after": ["gpu2"], "resources": {"gpu": 1}, "tasks": [{"count": 20, "fn": "res_log", "arg": "@T@/fn.log"}]}]}
JSON
sed -i "s|@T@|$T|g" "$T/e2e.json"
submit --master "$MASTER_URL" --executor-resource gpu=4 --executor-cores 6 \
  --total-executor-cores 6 --lib "$TASKS_LIB" --log-level info \
  --event-log "$T/ev" "$T/e2e.json"
RC=$?
check "the job of gpu tasks succeeds (exit $RC)" test "$RC" -eq 0
check "... on one executor holding gpu=0,1,2,3" \
  grep -q 'executor [0-9]* holds gpu=0,1,2,3' "$T/err"
# The driver's count: gpus held by the attempts it has sent and not
# heard the end of (stages 1 and 4 hold 1 each, stage 3 two), in the
# order of its event log, never above the executor's 4 (no prefetch).
HELD=$(jq -r 'select(.event == "task_start" or .event == "task_end")
  | "\(.event) \(.stage)"' "$T"/ev/*.events | awk '
  { w = $2 == 1 || $2 == 4 ? 1 : $2 == 3 ? 2 : 0 }
  $1 == "task_start" { h += w; if (h > max) max = h } $1 == "task_end" { h -= w }
  END { print max + 0 }')
check "the driver never had more than 4 gpus in flight on the executor (most: $HELD)" \
  test "$HELD" -eq 4
L1=$T/g1.log
check "gpu=1: every task ran once" \
  test "$(grep -c '^START ' "$L1")-$(grep -c '^END ' "$L1")-$(awk '$1 == "START" {print $3}' "$L1" | sort -u | wc -l)" = 40-40-40
OV=$(overlaps "$L1")
check "... no two intervals of one address overlap${OV:+: $OV}" test -z "$OV"
check "... all 4 addresses used" \
  test "$(awk '$1 == "START" {print $2}' "$L1" | sort -u | tr '\n' ' ')" = "0 1 2 3 "
check "... CUDA_VISIBLE_DEVICES is HEARTH_RESOURCE_GPU" \
  test "$(awk '$1 != $2' "$T/cuda.log" | wc -l)-$(wc -l <"$T/cuda.log")" = 0-40
# The plain stage ran beside them: some plain task started while some
# gpu task held its address (the cores beyond the 4 gpus were used).
check "tasks without resources ran at the same time as gpu ones" \
  eval '[[ $(sort -k4,4n "$L1" "$T/plain.log" | awk '"'"'
    $1 == "START" && $2 != "x" { g++ } $1 == "END" && $2 != "x" { g-- }
    $1 == "START" && $2 == "x" && g > 0 { n++ } END { print n + 0 }'"'"') -gt 0 ]]'
check "... and saw no HEARTH_RESOURCE_ or CUDA_VISIBLE_DEVICES" \
  eval '! grep -qE "HEARTH_RESOURCE_|CUDA_VISIBLE_DEVICES" "$T/out"'
L2=$T/g2.log
check "gpu=2: each of 10 tasks got two distinct addresses" \
  test "$(awk '$1 == "START" { split($2, a, ","); if (length(a) == 2 && a[1] != a[2]) n++ } END { print n + 0 }' "$L2")" = 10
OV=$(overlaps "$L2")
check "... never one address to two at once${OV:+: $OV}" test -z "$OV"
L3=$T/fn.log
check "function tasks: 20 ran, each with one address" \
  test "$(awk '$1 == "START" && $2 ~ /^[0-3]$/' "$L3" | wc -l)" = 20
OV=$(overlaps "$L3")
check "... no two intervals of one address overlap${OV:+: $OV}" test -z "$OV"
check "... their results say their address" \
  test "$(grep -c '^gpu=[0-3]$' "$T/out")" = 20

# The C API on the cluster: each task's address, from
# hearth_stage_set_resource (gpu=1, then 2: the second call wins).
submit --master "$MASTER_URL" --executor-resource gpu=4 --executor-cores 6 \
  --total-executor-cores 6 "$CTX" resources 2
check "libhearth: a job of gpu=2 tasks succeeds (exit $?)" \
  grep -qx 'job 1: succeeded' "$T/out"
check "... each task got two addresses" \
  test "$(grep -cE '^result: [0-3],[0-3]$' "$T/out")" = 4

# local-cluster: its worker holds the addresses --worker-resource gives.
cat >"$T/lc.json" <<'JSON'
{"name": "lc", "stages": [
  {"name": "gpu1", "resources": {"gpu": 1}, "tasks": [{"count": 12, "cmd": ["sh", "-c",
    "echo START $HEARTH_RESOURCE_GPU {i} $(date +%s%N) >>@T@/lc.log; sleep 0.05; echo END $HEARTH_RESOURCE_GPU {i} $(date +%s%N) >>@T@/lc.log"]}]}]}
JSON
sed -i "s|@T@|$T|g" "$T/lc.json"
submit --master 'local-cluster[1,4,512]' --worker-resource gpu=a,b \
  --executor-resource gpu=2 --executor-cores 4 "$T/lc.json"
RC=$?
check "local-cluster --worker-resource gpu=a,b: gpu=1 tasks succeed (exit $RC)" \
  test "$RC" -eq 0
OV=$(overlaps "$T/lc.log")
check "... 12 ran, never one address to two at once${OV:+: $OV}" \
  eval '[[ -z $OV && $(grep -c "^START " "$T/lc.log") == 12 ]]'
check "... both addresses used" \
  test "$(awk '$1 == "START" {print $2}' "$T/lc.log" | sort -u | tr '\n' ' ')" = "a b "
finish
