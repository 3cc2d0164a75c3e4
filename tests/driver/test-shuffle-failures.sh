#!/usr/bin/env bash
# The shuffle when things break, on hand-started clusters (a master and two
# workers of 2 cores), each job a sorted word count of 8 map tasks into 4
# reducers checked against sort/uniq:
# - kill -9 of a worker and its executors once every map output is
#   written, before the reducers fetch: the job succeeds, and the driver
#   runs again exactly as many map tasks as that worker held (told by a
#   refused fetch or by the master, whichever comes first: both are
#   tested apart in test-shuffle-worker-lost.sh);
# - a byte of a map output flipped on disk: the reducer's checksum
#   catches it, the map is run again, and the result is still right;
# - a keyed cluster (CURVE): reducers fetch from the block servers with
#   the workers' keys;
# - a shuffle directory on a full disk (a 1 MiB tmpfs): the map task fails
#   saying so, and no partial block is left;
# - the master shows each worker's shuffle bytes on disk;
# - after each application, no shuffle file is left on any worker.
# (A stage abandoned after 4 rounds of lost inputs is tested with the task
# set in tests/unit/test_driver_shuffle: deleting outputs as they appear
# raced the reducers that fetched them first.)
# A "gate" stage holds the reducers back until the test has done its
# damage (the reduce stage runs after it).
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
. "$(dirname "$0")/../lib/security.sh"
deadline 420
export TMPDIR=$T LC_ALL=C

word_files 8 5000 800 3
J=$(job gated "{\"name\": \"gated\", \"stages\": [
  {\"name\": \"map\", \"partitions\": 4, \"sort\": true,
   \"tasks\": [{\"cmd\": [\"sh\", \"-c\", \"sleep 0.3; cat $T/in/{i}.txt\"], \"count\": 8}]},
  $(gate_stage),
  {\"name\": \"reduce\", \"after\": [\"gate\"], \"tasks\": [{\"cmd\": [\"sh\", \"-c\",
   \"uniq -c | while read n w; do echo \$w \$n; done\"], \"input\": \"map\"}]}]}")

all_written() { (($(outputs wa) + $(outputs wb) == 8)); }
# run_gated ARGS...: submit the gated job in the background (SUBMIT_PID).
run_gated() {
  rm -f "$T/go"
  submit "$@" "$J" &
  SUBMIT_PID=$!
  PIDS+=($SUBMIT_PID)
}

# --- a worker killed with its executors after the maps ----------------------
start_master
CORES=2 start_worker wa
CORES=2 start_worker wb
# (no prefetch, and maps of 0.3 s: the executor that registers first
# cannot take all 8 maps before the other one is there; the checks below
# need outputs on both workers)
run_gated --master "$MASTER_URL" --executor-memory 256M --event-log "$T/ev" \
  --task-prefetch 0
check "every map output is written on the two workers' disks" \
  wait_for 60 all_written
HELD=$(outputs wb)
say "worker wb holds $HELD of the 8 map outputs"
check "... and the master shows their bytes on disk (hearth-tail --state)" \
  wait_for 10 jq_state '[.workers[] | select(.shuffle_bytes > 0)] | length == 2'
check "... in the table too" eval \
  '"$BIN/hearth-tail" --master "$MASTER_URL" --state --full-ids | grep -E "^worker-.* ALIVE .* [0-9.]+[KM] +[0-9]+ ms ago" >/dev/null'
check "... some on each worker" test "$HELD" -gt 0 -a "$(outputs wa)" -gt 0
kill -9 $(procs_in "$T/wb") "$PID_wb" 2>/dev/null
touch "$T/go"
wait "$SUBMIT_PID"
check "with worker wb killed before the fetch, the job succeeds" test $? -eq 0
check "... counting right" same <(sort "$T/out") "$T/counts.ref"
# The driver drops wb's outputs at the first of: a reducer's fetch refused
# there, the master's word that wb is lost (the gate's task, on wb's
# executor, may only run again after that).
WB_URL=$(grep -o 'serving this node.s map outputs at tcp://[0-9.:]*' "$T/wb.log" |
  awk '{print $NF}')
check "... the driver named wb's block server ($WB_URL): a fetch failed, or wb was lost" \
  grep -Eq "could not be fetched from $WB_URL|block server $WB_URL is gone" "$T/err"
check "... and exactly the $HELD map tasks wb held ran again" \
  test "$(lost_total)" -eq "$HELD"
check "... worker wa's shuffle files are gone with the application" \
  wait_for 10 test "$(outputs wa)" -eq 0
EV=$(ls "$T"/ev/*.events)
check "... its event log: the map stage started again, attempt 1, $HELD tasks" \
  test "$(jq -r 'select(.event == "stage_start" and .name == "map") | "\(.attempt):\(.tasks)"' "$EV" | tr '\n' ' ')" = "0:8 1:$HELD "
check "... and ended twice, SUCCEEDED" \
  test "$(jq -r 'select(.event == "stage_end" and .name == "map") | "\(.attempt):\(.state):\(.finished)"' "$EV" | tr '\n' ' ')" = "0:SUCCEEDED:8 1:SUCCEEDED:$HELD "

# --- a corrupted block --------------------------------------------------------
CORES=2 start_worker wb
run_gated --master "$MASTER_URL" --executor-memory 256M
check "(a second job's map outputs are written)" wait_for 60 all_written
DATA=$(find "$T/wa/shuffle" "$T/wb/shuffle" -name '*.index' | head -1)
DATA=${DATA%.index}
SIZE=$(stat -c %s "$DATA")
# flip one byte in the middle of the first partition's frames
printf '\xff' | dd of="$DATA" bs=1 seek=$((SIZE / 2)) conv=notrunc 2>/dev/null
touch "$T/go"
wait "$SUBMIT_PID"
check "with a byte of a map output flipped, the job succeeds" test $? -eq 0
check "... counting right" same <(sort "$T/out") "$T/counts.ref"
check "... the checksum caught it" grep -q 'checksum' "$T/err"
check "... and the lost outputs ran again" test "$(lost_total)" -ge 1
check "no shuffle file is left on either worker" \
  wait_for 10 test "$(outputs wa)" -eq 0 -a "$(outputs wb)" -eq 0
kill "$PID_wa" "$PID_wb" "$MASTER_PID" 2>/dev/null
wait "$PID_wa" "$PID_wb" "$MASTER_PID" 2>/dev/null

# --- a full disk ----------------------------------------------------------------
# A worker whose shuffle directory is a 1 MiB tmpfs: the map task that
# cannot write its output fails saying so, leaving no partial block.
start_master
mkdir -p "$T/wf/shuffle"
if mount -t tmpfs -o size=1m tmpfs "$T/wf/shuffle" 2>"$T/mount.err"; then
  MOUNTED=$T/wf/shuffle
  trap 'cleanup; umount "$MOUNTED" 2>/dev/null' EXIT
  CORES=2 start_worker wf
  J2=$(job full "{\"name\": \"full\", \"stages\": [
    {\"name\": \"map\", \"partitions\": 2,
     \"tasks\": [{\"cmd\": [\"sh\", \"-c\", \"seq 1 400000\"]}]},
    {\"name\": \"reduce\", \"tasks\": [{\"cmd\": [\"wc\", \"-l\"], \"input\": \"map\"}]}]}")
  submit --master "$MASTER_URL" --executor-memory 256M --max-failures 2 "$J2"
  check "a map output that does not fit the disk fails the job" test $? -ne 0
  check "... saying why" grep -q 'No space left on device' "$T/err"
  check "... and leaves no block behind" test "$(find "$T/wf/shuffle" -type f | wc -l)" -eq 0
  kill "$PID_wf" 2>/dev/null
  wait "$PID_wf" 2>/dev/null
  umount "$MOUNTED"
else
  say "SKIP the full-disk case: cannot mount a tmpfs ($(head -1 "$T/mount.err"))"
fi
kill "$MASTER_PID" 2>/dev/null
wait "$MASTER_PID" 2>/dev/null

# --- a keyed cluster ----------------------------------------------------------
make_keys || fail "keys"
secure_master
CORES=2 start_worker ka --curve-secret "$K/w1.key_secret" --master-key "$K/master.key"
CORES=2 start_worker kb --curve-secret "$K/w2.key_secret" --master-key "$K/master.key"
touch "$T/go"
# shellcheck disable=SC2046
submit --master "$MASTER_URL" $(client_keys client) --executor-memory 256M "$J"
check "on a keyed cluster, the shuffle runs" test $? -eq 0
check "... counting right" same <(sort "$T/out") "$T/counts.ref"
check "... its block servers are encrypted (CURVE, with the workers' keys)" \
  grep -q "serving this node's map outputs at tcp:.* (CURVE)" "$T/ka.log"
kill "$PID_ka" "$PID_kb" "$MASTER_PID" 2>/dev/null
wait "$PID_ka" "$PID_kb" "$MASTER_PID" 2>/dev/null
check "no master, worker or executor is left" wait_for 10 no_leftovers
finish
