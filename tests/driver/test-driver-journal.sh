#!/usr/bin/env bash
# Cluster-mode drivers across a master restart on its journal: a driver
# that runs when the master is killed (kill -9) is re-adopted on its
# worker (same launch, same pid) with its application, and finishes; a
# driver still waiting for cores keeps its files in the journal and runs
# once the master is back and the cores are free.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 150
export TMPDIR=$T
JOURNAL=$T/journal

start_master --journal "$JOURNAL" || exit 1
CORES=2 MEMORY=2G start_worker w1 || exit 1
CM=(--master "$MASTER_URL" --deploy-mode cluster --executor-memory 512M
  --driver-memory 256M --executor-cores 1 --total-executor-cores 1)

J=$(job long '{"name":"long","stages":[
  {"name":"s","tasks":[{"cmd":["sh","-c","sleep 0.1; echo {i}"],"count":40}]},
  {"name":"n","tasks":[{"cmd":["wc","-l"],"input":"s"}]}]}')
check "a driver is submitted" submit "${CM[@]}" --no-wait "$J"
A=$(head -1 "$T/out")
# jq_driver ID FILTER: the filter is true on that driver in MASTER_STATE.
jq_driver() {
  state_json | jq -e --arg id "$1" ".drivers[] | select(.id == \$id) | $2" >/dev/null
}
check "... and runs, with its executor" wait_for 30 jq_state \
  "[.apps[] | select(.state == \"RUNNING\") | .executors[]] | length == 1"
check "a second driver is submitted and waits for cores" \
  submit "${CM[@]}" --no-wait "$J"
B=$(head -1 "$T/out")
check "... SUBMITTED" jq_driver "$B" '.state == "SUBMITTED"'
PID_A=$(state_json | jq -r --arg id "$A" '.drivers[] | select(.id == $id) | .pid')

kill9 "$MASTER_PID"
check "the journal keeps the waiting driver's files" test -d "$JOURNAL/files/$B"
PORT=$MASTER_PORT start_master --journal "$JOURNAL" || exit 1
alive() { jq_state '.status == "ALIVE"'; }
check "the master recovers" wait_for 15 alive
check "the running driver is RUNNING again, same launch and pid" \
  jq_driver "$A" ".state == \"RUNNING\" and .launches == 1 and .pid == $PID_A"
check "... with its application back" grep -q 'registered again with' "$T/w1/$A/stderr"
check "the waiting driver is back, still SUBMITTED" jq_driver "$B" '.state == "SUBMITTED"'
check "the first driver FINISHED" wait_for 30 jq_driver "$A" '.state == "FINISHED"'
check "... with its result" grep -qx 40 "$T/w1/$A/stdout"
check "the second driver ran from its journaled files and FINISHED" \
  wait_for 30 jq_driver "$B" '.state == "FINISHED" and .launches == 1'
check "... with its result" grep -qx 40 "$T/w1/$B/stdout"
check "its files left the journal once it ended" test ! -e "$JOURNAL/files/$B"
finish
