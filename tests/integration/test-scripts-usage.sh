#!/usr/bin/env bash
# The cluster scripts' usage (docs/operations.md): every script answers
# --help (anywhere among its arguments) with its usage and the settings it
# reads, exit 0, and starts or stops nothing; a script refuses an argument
# it does not take (exit 2, naming it); start-master.sh passes its flags
# to hearth-master, which refuses one it does not know.  Against a running
# master: stop-master.sh --help and stop-cluster.sh --help leave it
# running, and start-cluster.sh --help starts no worker.
. "$(dirname "$0")/../lib/cluster.sh"
deadline 90
SRC=${HEARTH_SRC_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
S=$SRC/scripts

export HEARTH_CONF_DIR=$T/conf HEARTH_PID_DIR=$T/run HEARTH_LOG_DIR=$T/logs
export HEARTH_WORKER_DIR=$T/work HEARTH_MASTER_PORT=0 HEARTH_START_TIMEOUT=20
mkdir -p "$HEARTH_CONF_DIR"
printf 'localhost\n' >"$HEARTH_CONF_DIR/workers"
ME=${USER:-$(id -un)}

nothing_started() { test -z "$(ours hearth-master; ours hearth-worker)"; }

for s in start-master start-worker start-cluster stop-cluster stop-master \
  stop-worker; do
  "$S/$s.sh" --help >"$T/$s.help" 2>&1
  check "$s.sh --help exits 0" test $? -eq 0
  check "... with its usage first" grep -q "^Usage: $s.sh" "$T/$s.help"
  check "... and the settings every script reads" \
    grep -q "HEARTH_CONF_DIR" "$T/$s.help"
done
check "start-master.sh --help names the master's settings" \
  grep -q "HEARTH_MASTER_PORT" "$T/start-master.help"
check "start-worker.sh --help names the worker's settings" \
  grep -q "HEARTH_WORKER_CORES" "$T/start-worker.help"
# stop-worker.sh's wait before its SIGKILL outlasts a worker's own stop
# with the defaults (its decommission, then its children's kill grace):
# when both were 30 s, a worker holding running tasks raced the SIGKILL.
secs() { sed -n "s/.*$1 .*(default: \([0-9]*\)s)$/\1/p"; }
decom=$("$BIN/hearth-worker" --help | secs --decommission-timeout)
grace=$("$BIN/hearth-worker" --help | secs --kill-grace)
stop=$(sed -n 's/.*HEARTH_STOP_TIMEOUT .*(default \([0-9]*\)).*/\1/p' "$T/stop-worker.help")
check "the scripts' default stop timeout ($stop s) outlasts a worker's decommission ($decom s) and kill grace ($grace s)" \
  test -n "$decom" -a -n "$grace" -a -n "$stop" -a "${stop:-0}" -gt "$((decom + grace))"
"$S/start-master.sh" --port 0 --help >"$T/late.help" 2>&1
check "--help after other flags is answered by the script too" \
  grep -q "^Usage: start-master.sh" "$T/late.help"
check "... and none of that started a daemon" nothing_started
check "... or wrote a pid file" test -z "$(ls "$T/run"/*.pid 2>/dev/null)"

for s in start-cluster stop-cluster stop-master; do
  "$S/$s.sh" --bogus >/dev/null 2>"$T/$s.bad"
  check "$s.sh --bogus is refused with exit 2" test $? -eq 2
  check "... naming the argument" grep -q "unexpected argument '--bogus'" "$T/$s.bad"
done
"$S/stop-worker.sh" 1 --bogus >/dev/null 2>"$T/stop-worker.bad"
check "stop-worker.sh takes instance numbers only" test $? -eq 2
"$S/start-master.sh" --bogus >"$T/master.bad" 2>&1
check "start-master.sh --bogus fails as a usage mistake (exit 2, as hearth-master's)" \
  test $? -eq 2
check "... with hearth-master's refusal" grep -q "unknown option --bogus" "$T/master.bad"
check "... and leaves nothing running" nothing_started

# The programs' usage mistakes exit 2 too (issue 42 item 8): a worker
# without a master or with a master that is no URL, a bad label, and a
# driver's master that is none of the forms.
"$BIN/hearth-worker" --work-dir "$T/w-usage" >/dev/null 2>&1
check "hearth-worker without --master: exit 2" test $? -eq 2
"$BIN/hearth-worker" --master 127.0.0.1:7077 --work-dir "$T/w-usage" >/dev/null 2>&1
check "hearth-worker --master 127.0.0.1:7077: exit 2" test $? -eq 2
"$BIN/hearth-worker" --master tcp://127.0.0.1:1 --label "a b" --work-dir "$T/w-usage" >/dev/null 2>&1
check "hearth-worker --label 'a b': exit 2" test $? -eq 2
"$BIN/hearth-worker" --master tcp://127.0.0.1:1 --conf speculaton=true --work-dir "$T/w-usage" >/dev/null 2>"$T/worker.conf"
check "hearth-worker --conf speculaton=true: exit 2, as hearth-master's" test $? -eq 2
check "... naming the unknown setting" grep -q "unknown setting 'speculaton'" "$T/worker.conf"
printf '{"name": "u", "stages": [{"name": "s", "tasks": [{"cmd": ["true"]}]}]}\n' >"$T/u.json"
"$BIN/hearth-submit" --master 127.0.0.1:7077 "$T/u.json" >/dev/null 2>"$T/submit.bad"
check "hearth-submit --master 127.0.0.1:7077: exit 2" test $? -eq 2
check "... naming the forms a master takes" grep -q "unknown master '127.0.0.1:7077' (expected local\[N\]" "$T/submit.bad"
"$BIN/hearth-driver" --master 127.0.0.1:7077 "$T/u.json" >/dev/null 2>&1
check "hearth-driver --master 127.0.0.1:7077: exit 2" test $? -eq 2
check "... and none of that started a daemon" nothing_started

# With a master running, the --help of the scripts that stop or start
# things changes nothing.
"$S/start-master.sh" >"$T/start" 2>&1
check "start-master.sh starts the master" test $? -eq 0
pid=$(cat "$T/run/hearth-$ME-master.pid" 2>/dev/null)
[[ -n $pid ]] && PIDS+=("$pid")
"$S/stop-master.sh" --help >/dev/null 2>&1
"$S/stop-cluster.sh" --help >/dev/null 2>&1
"$S/stop-master.sh" --bogus >/dev/null 2>&1
check "stop-master.sh and stop-cluster.sh with --help or a bad flag stop nothing" \
  kill -0 "$pid"
"$S/start-cluster.sh" --help >/dev/null 2>&1
check "start-cluster.sh --help starts no worker" test -z "$(ours hearth-worker)"
check "stop-master.sh then stops it" "$S/stop-master.sh" >/dev/null 2>&1
check "... and it is gone" wait_for 10 bash -c "! kill -0 $pid"

# A worker pointed at a port nobody listens on (issue 42 item 10: it said
# nothing, and the script nothing of why): the worker warns, and the
# script repeats why it has not registered.
HEARTH_START_TIMEOUT=3 "$S/start-worker.sh" tcp://127.0.0.1:9 \
  >"$T/refused" 2>&1
refused_rc=$?
wpid=$(cat "$T/run/hearth-$ME-worker-1.pid" 2>/dev/null)
[[ -n $wpid ]] && PIDS+=("$wpid")
check "start-worker.sh against a closed port says the connection is refused" \
  grep -q "has not registered with .*: cannot connect to the master at .*: connection refused" "$T/refused"
check "... and exits 1 (the cluster does not have it), its worker still trying" \
  eval '[[ $refused_rc -eq 1 ]] && kill -0 "$wpid"'
check "... as the worker's log does" \
  grep -q "WARN cannot connect to the master at .*: connection refused .*; still trying" "$T"/logs/hearth-"$ME"-worker-1-*.log
"$S/stop-worker.sh" >/dev/null 2>&1
finish
