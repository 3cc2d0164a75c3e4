#!/usr/bin/env bash
# What the programs say when the user got something wrong, or the master
# does not answer (issues 13 and 14.9):
# - a master URL without a port says "missing port", in every program
#   that parses one, at once;
# - a public key given as --curve-secret says it is the public half and
#   names the secret one, instead of advising chmod;
# - hearth-submit running a job file names itself in the driver's
#   messages, not hearth-driver;
# - hearth-submit --kill against a master that does not answer says so,
#   as --status does, not "out of memory".
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 90
export TMPDIR=$T HEARTH_CONF_DIR=$T/conf

J=$(job ok '{"name":"ok","stages":[{"name":"s","tasks":[{"cmd":["true"]}]}]}')

# said WHAT RC CMD...: CMD exits RC within 5 s, its stderr naming WHAT.
said() {
  local what=$1 want=$2; shift 2
  timeout 5 "$@" >"$T/said.out" 2>"$T/said.err"
  local rc=$?
  if [[ $rc -ne $want ]] || ! grep -q -- "$what" "$T/said.err"; then
    echo "exit $rc (wanted $want):" >&2
    cat "$T/said.err" >&2
    return 1
  fi
}

# --- a URL without a port ---------------------------------------------
NOPORT=tcp://127.0.0.1
check "hearth-submit (client mode) says missing port" \
  said "missing port" 2 "$BIN/hearth-submit" --master $NOPORT "$J"
check "hearth-submit --deploy-mode cluster says missing port" \
  said "missing port" 2 "$BIN/hearth-submit" --master $NOPORT \
  --deploy-mode cluster "$J"
check "hearth-submit --kill says missing port" \
  said "missing port" 2 "$BIN/hearth-submit" --master $NOPORT \
  --kill app-20200101000000-0001
check "hearth-driver says missing port" \
  said "missing port" 2 "$BIN/hearth-driver" --master $NOPORT "$J"
check "hearth-tail says missing port" \
  said "missing port" 2 "$BIN/hearth-tail" --master $NOPORT --state
# The worker exits 2 for a bad --master, a usage mistake as in every
# other program (issue 42 item 8).
check "hearth-worker says missing port" \
  said "missing port" 2 "$BIN/hearth-worker" --master $NOPORT
check "... and its message is not garbled" \
  grep -q "bad --master: 'tcp://127.0.0.1': missing port" "$T/said.err"
check "tcp://HOST: (an empty port) is a missing port too" \
  said "missing port" 2 "$BIN/hearth-tail" --master tcp://127.0.0.1: --state
check "a bad port is named" \
  said "bad port 'x'" 2 "$BIN/hearth-tail" --master tcp://127.0.0.1:x --state
check "a missing host is named" \
  said "missing host" 2 "$BIN/hearth-tail" --master tcp://:7077 --state

# --- a public key where the secret one goes ---------------------------
"$BIN/hearth-keygen" "$T/keys" >/dev/null
check "hearth-tail: a public key as --curve-secret is named as one" \
  said "is a public key" 2 "$BIN/hearth-tail" --master tcp://127.0.0.1:7077 \
  --curve-secret "$T/keys/client.key" --master-key "$T/keys/master.key" --state
check "... naming the secret half to give" \
  grep -q "$T/keys/client.key_secret" "$T/said.err"
check "... without advising chmod" eval '! grep -q chmod "$T/said.err"'
check "hearth-submit --kill says the same" \
  said "is a public key" 2 "$BIN/hearth-submit" --master tcp://127.0.0.1:7077 \
  --curve-secret "$T/keys/client.key" --master-key "$T/keys/master.key" \
  --kill app-20200101000000-0001
chmod 644 "$T/keys/client.key_secret"
check "a secret key others may read is still refused with chmod advice" \
  said "chmod 600" 2 "$BIN/hearth-tail" --master tcp://127.0.0.1:7077 \
  --curve-secret "$T/keys/client.key_secret" --master-key "$T/keys/master.key" \
  --state

# --- the program the user ran -----------------------------------------
printf '{"name":"bad","stages":[]}\n' >"$T/bad.json"
check "hearth-submit BAD.json: the job file's error names hearth-submit" \
  said "^hearth-submit: " 2 "$BIN/hearth-submit" "$T/bad.json"
check "... and not hearth-driver" eval '! grep -q hearth-driver "$T/said.err"'
# A port nobody listens on: the driver gives up registering.
check "hearth-submit JOB against no master: names hearth-submit" \
  said "^hearth-submit: " 1 "$BIN/hearth-submit" \
  --master tcp://127.0.0.1:1 --register-timeout 1s "$J"
check "... in its log lines too" eval '! grep -q hearth-driver "$T/said.err"'
check "hearth-driver run directly still names itself" \
  said "^hearth-driver: " 2 "$BIN/hearth-driver" "$T/bad.json"

# --- a master that does not answer (14.9) -----------------------------
start_master || exit 1
kill -STOP "$MASTER_PID"
check "--kill APP_ID: a master that does not answer is said so" \
  said "no answer from the master" 1 "$BIN/hearth-submit" \
  --master "$MASTER_URL" --timeout 1s --kill app-20200101000000-0001
check "... not out of memory" eval '! grep -q "out of memory" "$T/said.err"'
check "--kill DRIVER_ID: the same" \
  said "no answer from the master" 1 "$BIN/hearth-submit" \
  --master "$MASTER_URL" --timeout 1s --kill driver-20200101000000-0001
check "... not out of memory" eval '! grep -q "out of memory" "$T/said.err"'
check "--status DRIVER_ID says so too" \
  said "no answer from the master" 1 "$BIN/hearth-submit" \
  --master "$MASTER_URL" --timeout 1s --status driver-20200101000000-0001
kill -CONT "$MASTER_PID"
check "once it answers, --kill of an unknown application says so" \
  said "no such application" 1 "$BIN/hearth-submit" \
  --master "$MASTER_URL" --kill app-20200101000000-0001
finish
