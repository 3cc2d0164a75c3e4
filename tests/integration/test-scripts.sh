#!/usr/bin/env bash
# The cluster scripts: start-cluster.sh with conf/workers naming localhost
# twice starts a master and two workers (pid files, logs, ephemeral port,
# temporary dirs from hearth-env.sh) that run a job; a second
# start-cluster.sh starts nothing more; the daemons reopen their logs on
# SIGHUP and refuse a second instance on the same pid file;
# stop-cluster.sh, with a cluster-mode job still running, stops exactly
# those processes, and nothing is left: no daemon, and no driver,
# executor or task in the workers' dirs.  HEARTH_WORKER_RESOURCE becomes
# each worker's --resource flags.
. "$(dirname "$0")/../lib/cluster.sh"
deadline 120
SRC=${HEARTH_SRC_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
S=$SRC/scripts

export HEARTH_CONF_DIR=$T/conf
mkdir -p "$HEARTH_CONF_DIR"
printf '# two workers here\nlocalhost\n\nlocalhost   # the second\n' \
  >"$HEARTH_CONF_DIR/workers"
# --decommission-timeout 0: SIGTERM stops a worker at once, as this test
# expects of stop-cluster.sh with a cluster-mode job still running, like
# the workers of tests/lib/cluster.sh (DECOM_TIMEOUT).  Without it each
# worker decommissions first, for its default 30 s (this test's job
# would keep it that long); decommissioning is test-decommission's.
cat >"$HEARTH_CONF_DIR/hearth-env.sh" <<EOF
HEARTH_MASTER_PORT=0
HEARTH_PID_DIR=$T/run
HEARTH_LOG_DIR=$T/logs
HEARTH_WORKER_DIR=$T/work
HEARTH_WORKER_CORES=2
HEARTH_WORKER_MEMORY=1G
HEARTH_MASTER_OPTS="--heartbeat-interval ${INTERVAL_MS}ms --log-level debug"
HEARTH_WORKER_OPTS="--kill-grace 1s --decommission-timeout 0"
HEARTH_WORKER_RESOURCE="gpu=0,1;fpga=a"
HEARTH_START_TIMEOUT=20
EOF
R=$T/run
ME=${USER:-$(id -un)}
HOST=$(hostname -s 2>/dev/null || hostname)

# Every daemon this test starts through the scripts is stopped by PID in
# the EXIT trap too, should a check fail half-way.
track() {
  local f
  for f in "$R"/*.pid; do [[ -r $f ]] && PIDS+=("$(cat "$f")"); done
}
# daemon_pids: the pids in the pid files, sorted.
daemon_pids() { cat "$R"/*.pid 2>/dev/null | sort -n | tr '\n' ' '; }
# in_work: "N PROGRAM, " for the processes working in the workers' dirs:
# drivers, executors and their tasks (an executor's command line does not
# name $T, its working directory does: worker/execs.c).
in_work() {
  local p
  for p in $(procs_in "$T/work"); do cat "/proc/$p/comm" 2>/dev/null; done |
    sort | uniq -c | awk '{printf "%s %s, ", $1, $2}'
}
alive_workers() {
  state_json | jq '[.workers[] | select(.state == "ALIVE")] | length'
}

check "start-cluster.sh starts a cluster" "$S/start-cluster.sh" >"$T/start1" 2>&1
track
cat "$T/start1"
check "... with pid files for the master and two workers" \
  test -s "$R/hearth-$ME-master.pid" -a -s "$R/hearth-$ME-worker-1.pid" \
  -a -s "$R/hearth-$ME-worker-2.pid"
check "... and log files" test -s "$T/logs/hearth-$ME-master-$HOST.log"
MASTER_URL=$(head -1 "$R/hearth-$ME-master.url")
check "... the master on an ephemeral port" grep -Eq '^tcp://127\.0\.0\.1:[0-9]+$' <<<"$MASTER_URL"
check "... both workers registered" wait_for 10 eval '[[ $(alive_workers) == 2 ]]'
check "... offering HEARTH_WORKER_RESOURCE's gpu 0,1 and fpga a" \
  jq_state '[.workers[] | select(.resources == {"gpu": ["0","1"], "fpga": ["a"]})]
    | length == 2'
check "... each in its own work dir" test -d "$T/work/worker-1" -a -d "$T/work/worker-2"
check "... the master keeping its journal in HEARTH_PID_DIR" \
  eval 'ls "$T"/run/journal/journal.* >/dev/null 2>&1'
check "exactly one master and two workers run" \
  test "$(ours hearth-master | wc -l) $(ours hearth-worker | wc -l)" = "1 2"

printf '%s\n' '{"name":"n","stages":[{"name":"s","tasks":[{"cmd":["sh","-c","echo {i}"],"count":6}]},{"name":"c","tasks":[{"cmd":["wc","-l"],"input":"s"}]}]}' >"$T/job.json"
check "the cluster runs a job (client mode)" \
  "$BIN/hearth-submit" --master "$MASTER_URL" --executor-memory 256M \
  "$T/job.json" >"$T/out1"
check "... with its result" grep -qx 6 "$T/out1"
check "... and in cluster mode" \
  "$BIN/hearth-submit" --master "$MASTER_URL" --deploy-mode cluster \
  --executor-memory 256M --driver-memory 256M "$T/job.json" >"$T/out2" 2>&1

before=$(daemon_pids)
check "a second start-cluster.sh succeeds" "$S/start-cluster.sh" >"$T/start2" 2>&1
check "... saying everything already runs" \
  test "$(grep -c 'already runs' "$T/start2")" = 3
check "... and starts nothing more" test "$(daemon_pids)" = "$before"
check "... still one master and two workers" \
  test "$(ours hearth-master | wc -l) $(ours hearth-worker | wc -l)" = "1 2"
check "... two workers in the master's state" test "$(alive_workers)" = 2

# Log files are reopened on SIGHUP (logrotate moves them first).
for role in master worker-1; do
  log=$T/logs/hearth-$ME-$role-$HOST.log
  mv "$log" "$log.1"
  kill -HUP "$(cat "$R/hearth-$ME-$role.pid")"
  check "$role reopens its log file on SIGHUP" wait_for 5 test -e "$log"
done
"$BIN/hearth-master" --port 0 --pid-file "$R/hearth-$ME-master.pid" \
  >"$T/second" 2>&1
check "a second master on the same pid file is refused" test $? -eq 1
check "... naming the running one" \
  grep -q "held by process $(cat "$R/hearth-$ME-master.pid")" "$T/second"

# A cluster-mode job still running when the cluster is stopped.
printf '%s\n' '{"name":"long","stages":[{"name":"s","tasks":[{"cmd":["sleep","600"],"count":2}]}]}' >"$T/long.json"
check "a long cluster-mode job is left running" \
  "$BIN/hearth-submit" --master "$MASTER_URL" --deploy-mode cluster --no-wait \
  --executor-memory 256M --driver-memory 256M --executor-cores 1 \
  --total-executor-cores 2 "$T/long.json" >"$T/out3" 2>&1
# (one executor may hold both tasks, one running, one queued)
check "... its driver, 2 executors and their tasks running in the work dirs" \
  wait_for 20 eval '[[ $(in_work) =~ ^"1 hearth-driver, 2 hearth-executor, "[12]" sleep, "$ ]]'

check "stop-cluster.sh stops the cluster" "$S/stop-cluster.sh" >"$T/stop" 2>&1
cat "$T/stop"
check "... leaving no master or worker running" \
  test -z "$(ours hearth-master; ours hearth-worker)"
check "... and no driver, executor or task (${IN_WORK:=$(in_work)})" \
  test -z "$IN_WORK"
check "... and no pid file" test -z "$(ls "$R"/*.pid 2>/dev/null)"
check "a second stop-cluster.sh has nothing to stop" "$S/stop-cluster.sh" >"$T/stop2" 2>&1
check "... and says so" grep -q "no hearth-master" "$T/stop2"
"$S/start-worker.sh" 2>"$T/usage"
check "start-worker.sh without a master URL is a usage error" test $? -ne 0
check "... saying how to call it" grep -q "usage: start-worker.sh MASTER_URL" "$T/usage"
finish
