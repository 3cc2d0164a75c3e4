#!/usr/bin/env bash
# A cluster started by hand (a master and two workers): a job file and a C
# driver program run on it in client mode, executors are placed by the
# master, and the application ends FINISHED with its executors gone.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 180
export TMPDIR=$T

start_master || { fail "master"; finish; exit 1; }
CORES=2 start_worker w1 || fail "worker w1"
CORES=2 start_worker w2 || fail "worker w2"

J=$(job mr '{"name":"by-hand","stages":[
  {"name":"map","tasks":[{"cmd":["sh","-c","echo $(hostname) {i}"],"count":200}]},
  {"name":"count","tasks":[{"cmd":["wc","-l"],"input":"map"}]}]}')
check "a job runs on the cluster" submit --master "$MASTER_URL" "$J"
check "... and its reduce counted all 200 map results" grep -qx '200' "$T/out"

check "a C driver program runs on the cluster" \
  submit --master "$MASTER_URL" --lib "$BIN/examples/libpi.so" \
  "$BIN/examples/pi-driver" 8 1000
check "... and prints its estimate" grep -q '^Pi is roughly .*(8000 darts' "$T/out"

check "the applications ended FINISHED" \
  wait_for 10 jq_state '[.apps[] | select(.state == "FINISHED")] | length == 2'
check "... and none of their executors is left" \
  wait_for 10 jq_state '[.apps[].executors[] | select(.state == "RUNNING" or .state == "LAUNCHING")] | length == 0'
check "no executor process is left" \
  wait_for 10 eval '! executors_running'
finish
