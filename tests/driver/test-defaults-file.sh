#!/usr/bin/env bash
# The defaults file (issue 13, as Spark's spark-defaults.conf):
# $HEARTH_CONF_DIR/hearth-defaults.conf, read by hearth-submit and by
# libhearth (hearth-driver here), below everything else.  Precedence,
# checked on an application's name and executor memory as the master
# records them: flags > environment > --conf FILE > defaults file >
# built-in defaults, in client and cluster mode; a bad line or an
# unknown key names the file and the line; and --conf KEY=VALUE or FILE
# refuses an unknown setting in hearth-submit and hearth-master.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 150
export TMPDIR=$T
mkdir -p "$T/conf" "$T/empty"
export HEARTH_CONF_DIR=$T/conf
DEFAULTS=$T/conf/hearth-defaults.conf

start_master || exit 1
start_worker w1 || exit 1
J=$(job ok '{"name":"ok","stages":[{"name":"s","tasks":[{"cmd":["true"],"count":2}]}]}')

cat >"$DEFAULTS" <<EOF
# the cluster, and what applications ask for
master = $MASTER_URL
name = dflt-name
executor-memory = 300M
heartbeat-interval = ${INTERVAL_MS}ms
EOF
printf 'name = file-name\nexecutor-memory = 400M\n' >"$T/file.conf"

# app NAME: the application called NAME, as MASTER_STATE shows it.
app() { state_json | jq -c --arg n "$1" '[.apps[] | select(.name == $n)] | last'; }
# runs_as NAME MEMORY_MB: an application NAME ran, FINISHED, with executors
# of MEMORY_MB.
runs_as() {
  local a; a=$(app "$1")
  [[ $(jq -r .state <<<"$a") == FINISHED &&
    $(jq -r .memory_per_executor_mb <<<"$a") == "$2" ]] ||
    { echo "app $1: $a" >&2; return 1; }
}
# sub ARGS...: hearth-submit, without --master unless given.
sub() { "$BIN/hearth-submit" "$@" >"$T/out" 2>"$T/err"; }

check "the defaults file alone: its master, name and memory" sub "$J"
check "... the application ran as dflt-name with 300 MiB executors" \
  runs_as dflt-name 300
check "--conf FILE beats the defaults file" sub --conf "$T/file.conf" "$J"
check "... file-name, 400 MiB" runs_as file-name 400
check "the environment beats --conf FILE" \
  env HEARTH_NAME=env-name "$BIN/hearth-submit" --conf "$T/file.conf" "$J" \
  >/dev/null
check "... env-name, 400 MiB (the file's, the environment has none)" \
  runs_as env-name 400
check "a flag beats the environment" \
  env HEARTH_NAME=env-name HEARTH_EXECUTOR_MEMORY=500M "$BIN/hearth-submit" \
  --conf "$T/file.conf" --name flag-name "$J" >/dev/null
check "... flag-name, 500 MiB (the environment's over the file's)" \
  runs_as flag-name 500
check "without a defaults file, the built-in defaults" \
  env HEARTH_CONF_DIR="$T/empty" "$BIN/hearth-submit" --master "$MASTER_URL" \
  "$J" >/dev/null
check "... the job's own name and 1024 MiB executors" runs_as ok 1024

# libhearth reads it too: hearth-driver run directly, no flag at all.
check "hearth-driver (libhearth) reads the defaults file" \
  eval '"$BIN/hearth-driver" "$J" >/dev/null'
check "... dflt-name again, 300 MiB, from its master" \
  eval '[[ $(state_json | jq "[.apps[] | select(.name == \"dflt-name\")] | length") == 2 ]]'

# Cluster mode: what was given on the command line travels with the
# driver; the driver on its worker reads that machine's defaults file
# (here the same file: the worker passes HEARTH_CONF_DIR on) for the rest.
check "cluster mode: --conf FILE travels with the driver" \
  sub --deploy-mode cluster --driver-memory 256M --conf "$T/file.conf" "$J"
check "... its application is file-name, 400 MiB" runs_as file-name 400
check "cluster mode: a flag travels too" \
  sub --deploy-mode cluster --driver-memory 256M --name cm-flag "$J"
check "... cm-flag, with the defaults file's 300 MiB" runs_as cm-flag 300

# Mistakes name the file and the line.
cp "$DEFAULTS" "$T/good.conf"
printf 'executor-memory: 2G\n' >>"$DEFAULTS"
check "a bad line: hearth-submit exits 2" \
  eval 'sub "$J"; [[ $? == 2 ]]'
check "... naming the file and the line" \
  grep -q "^hearth-submit: $DEFAULTS:6: expected 'key = value'" "$T/err"
cp "$T/good.conf" "$DEFAULTS"
printf 'exector-memory = 2G\n' >>"$DEFAULTS"
check "an unknown key: hearth-submit refuses it" eval '! sub "$J"'
check "... naming the file, the line and the key" \
  grep -q "$DEFAULTS:6: unknown setting 'exector-memory'" "$T/err"
cp "$T/good.conf" "$DEFAULTS"
printf 'executor-memory = lots\n' >>"$DEFAULTS"
check "a bad value: refused, naming the file and the line" \
  eval '! sub "$J" && grep -q "$DEFAULTS:6: defaults file: bad value for executor-memory" "$T/err"'
check "hearth-submit --help still answers, and names the file" \
  eval '"$BIN/hearth-submit" --help | grep -q "HEARTH_CONF_DIR/hearth-defaults.conf"'
cp "$T/good.conf" "$DEFAULTS"

# --conf is as strict as the defaults file in hearth-submit and
# hearth-master (issue 42 item 4: a misspelt setting used to run).
sub --conf speculaton=true "$J"
check "hearth-submit --conf speculaton=true is refused (exit 2)" test $? -eq 2
check "... naming the setting" \
  grep -q "^hearth-submit: --conf speculaton: unknown setting 'speculaton' (hearth-submit --help lists them)" "$T/err"
printf 'executor-memory = 400M\nspeculaton = true\n' >"$T/typo.conf"
sub --conf "$T/typo.conf" "$J"
check "a --conf FILE with a misspelt setting is refused (exit 2)" test $? -eq 2
check "... naming the file, the line and the setting" \
  grep -q "$T/typo.conf:2: unknown setting 'speculaton'" "$T/err"
"$BIN/hearth-master" --port 0 --conf heartbeat-intervall=1s >"$T/m.out" 2>&1
check "hearth-master --conf with a misspelt setting is refused (exit 2)" test $? -eq 2
check "... naming it" grep -q "unknown setting 'heartbeat-intervall'" "$T/m.out"
"$BIN/hearth-master" --port 0 --conf "$T/typo.conf" >"$T/m.out" 2>&1
check "... and so is a --conf FILE holding another program's setting" test $? -eq 2
check "... naming the file and the line" \
  grep -q "$T/typo.conf:1: unknown setting 'executor-memory'" "$T/m.out"
finish
