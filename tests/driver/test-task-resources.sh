#!/usr/bin/env bash
# Custom resources per task (issue 15), the driver's side: a job file
# stage's "resources" is checked where it is read (exit 2 with where and
# why), and a stage asking for what the executors do not get is refused
# at submit with a message naming both numbers: a name the executors get
# none of, more per task than per executor (--executor-resource), any in
# local[N].  The tasks themselves, on a local-cluster whose workers hold
# fake addresses, are at the end.
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
finish
