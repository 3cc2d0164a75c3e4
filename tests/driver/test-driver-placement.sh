#!/usr/bin/env bash
# Where the master puts cluster-mode drivers (master/drivers.c, DESIGN §5):
# --driver-cores and --driver-memory are held on the driver's worker in
# MASTER_STATE (cores_used, memory_used_mb) while it runs and given back
# when it is killed; a driver asking for more cores, or more memory, than
# any worker has stays SUBMITTED (--status says what it waits for) without
# blocking smaller drivers behind it, is placed when a big enough worker
# joins, and one killed while it waits ends KILLED, never launched.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 120
export TMPDIR=$T

start_master || exit 1
CORES=4 MEMORY=2G start_worker w1 || exit 1
M=(--master "$MASTER_URL")
printf '#!/bin/sh\nexec sleep 600\n' >"$T/sleeper.sh"
chmod +x "$T/sleeper.sh"

# launch CORES MEMORY: a sleeping driver with those needs, not followed;
# prints its id.
launch() {
  submit "${M[@]}" --deploy-mode cluster --no-wait --driver-cores "$1" \
    --driver-memory "$2" "$T/sleeper.sh" && head -1 "$T/out"
}
# driver ID FILTER: the filter is true on that driver in MASTER_STATE.
driver() {
  state_json | jq -e --arg id "$1" ".drivers[] | select(.id == \$id) | $2" >/dev/null
}
# usage WORKER_ID: "cores_used memory_used_mb" of that worker.
usage() {
  state_json | jq -r --arg id "$1" \
    '.workers[] | select(.id == $id) | "\(.cores_used) \(.memory_used_mb)"'
}
status_of() { "$BIN/hearth-submit" "${M[@]}" --status "$1" 2>&1; }
kill_driver() { "$BIN/hearth-submit" "${M[@]}" --kill "$1" >/dev/null 2>&1; }

# --- a driver holds its cores and memory --------------------------------------
D1=$(launch 3 1536M)
check "a 3-core 1536 MiB driver runs on the 4-core 2 GiB worker" \
  wait_for 20 driver "$D1" ".state == \"RUNNING\" and .worker_id == \"$ID_w1\""
check "... MASTER_STATE shows what it holds" \
  driver "$D1" '.cores == 3 and .memory_mb == 1536'
check "... and its worker uses 3 cores and 1536 MiB" \
  test "$(usage "$ID_w1")" = "3 1536"
"$BIN/hearth-tail" "${M[@]}" --state --full-ids >"$T/table"
check "... as hearth-tail --state shows too" \
  grep -Eq "^$ID_w1 +127\.0\.0\.1 +ALIVE +3/4 +1536/2048 " "$T/table"
check "... and in its DRIVERS row" \
  grep -Eq "^$D1 +\S+ +RUNNING +$ID_w1 +3 +1536 " "$T/table"
check "--kill stops it" kill_driver "$D1"
check "... KILLED" driver "$D1" '.state == "KILLED"'
check "... its worker's cores and memory given back" \
  wait_for 10 eval '[[ $(usage "$ID_w1") == "0 0" ]]'

# --- more cores than any worker has ---------------------------------------------
D2=$(launch 6 512M)
check "a 6-core driver is SUBMITTED, not placed" \
  wait_for 5 driver "$D2" '.state == "SUBMITTED"'
sleep 1
check "... and still SUBMITTED a second later, on no worker" \
  driver "$D2" '.state == "SUBMITTED" and (.worker_id // "") == "" and .launches == 0'
check "... --status says what it waits for" eval \
  'status_of "$D2" | grep -q "waiting for a worker with 6 free cores and 512 MiB of free memory"'
check "... nothing held on the small worker" test "$(usage "$ID_w1")" = "0 0"
CORES=8 MEMORY=4G start_worker w2 || exit 1
check "an 8-core worker joins: the driver runs there" \
  wait_for 20 driver "$D2" ".state == \"RUNNING\" and .worker_id == \"$ID_w2\""
check "... holding 6 cores and 512 MiB of it" test "$(usage "$ID_w2")" = "6 512"
check "... its program running in its directory there" \
  wait_for 10 eval '[[ -n $(procs_in "$T/w2/$D2") ]]'

# --- more memory than any worker has ----------------------------------------------
D3=$(launch 1 8G)
check "a driver wanting 8 GiB is SUBMITTED" \
  wait_for 5 driver "$D3" '.state == "SUBMITTED"'
D4=$(launch 1 256M)
check "a small driver submitted after it is not held up: it runs" \
  wait_for 20 driver "$D4" '.state == "RUNNING"'
check "... while the big one still waits" driver "$D3" '.state == "SUBMITTED"'
"$BIN/hearth-submit" "${M[@]}" --kill "$D3" >"$T/kill3" 2>&1
check "--kill on the waiting driver says it is KILLED" \
  grep -qx "driver $D3 KILLED" "$T/kill3"
check "... KILLED" driver "$D3" '.state == "KILLED" and .launches == 0'
status_of "$D3" >"$T/status3"
check "... --status: KILLED by request, no launch, no worker" \
  eval 'grep -Eq "^state: +KILLED" "$T/status3" &&
    grep -Eq "^error: +killed by request" "$T/status3" &&
    grep -Eq "^launches: +0" "$T/status3" && ! grep -q "^worker:" "$T/status3"'
CORES=2 MEMORY=16G start_worker w3 || exit 1
sleep 1
check "a worker with 16 GiB joins: the killed driver stays KILLED" \
  driver "$D3" '.state == "KILLED" and .launches == 0'
check "... never launched anywhere" \
  eval '[[ -z $(ls -d "$T"/w[123]/"$D3" 2>/dev/null) ]]'
check "... the new worker holds nothing" test "$(usage "$ID_w3")" = "0 0"

for d in "$D2" "$D4"; do kill_driver "$d"; done
check "the others killed, every worker's cores and memory are free" wait_for 10 \
  jq_state 'all(.workers[]; .cores_used == 0 and .memory_used_mb == 0)'
check "... and nothing of any driver is left running" \
  wait_for 10 eval '[[ -z $(test_pids sleep) ]]'
finish
