#!/usr/bin/env bash
# Cluster deploy mode on a master with CURVE keys: hearth-submit talks to
# it with its client key, the driver the worker starts reaches the master
# with the key the master made for its launch (HEARTH_CURVE_SECRET, in its
# directory, mode 0600; HEARTH_MASTER_KEY, absolute paths), never with the
# worker's, --status and --logs work with keys, and without a key submit
# is refused.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
. "$(dirname "$0")/../lib/security.sh"
deadline 120
export TMPDIR=$T

make_keys || { fail "keys"; finish; exit 1; }
secure_master || { fail "a master with keys starts"; finish; exit 1; }
# The worker's key given relative to its directory: drivers still find it.
cp "$K/w1.key_secret" "$K/master.key" "$T/" && chmod 600 "$T/w1.key_secret"
cd "$T" || exit 1
CORES=2 start_worker w1 --curve-secret w1.key_secret --master-key master.key ||
  fail "worker w1 registers with its key"
cd - >/dev/null || exit 1
# shellcheck disable=SC2207
KEYS=($(client_keys client))
M=(--master "$MASTER_URL" "${KEYS[@]}")

J=$(job n '{"name":"keys","stages":[
  {"name":"s","tasks":[{"cmd":["echo","{i}"],"count":30}]},
  {"name":"n","tasks":[{"cmd":["wc","-l"],"input":"s"}]}]}')
check "a job runs in cluster mode with keys" \
  submit "${M[@]}" --deploy-mode cluster --executor-memory 256M "$J"
ID=$(head -1 "$T/out")
check "... its driver FINISHED" grep -q "driver $ID FINISHED" "$T/err"
"$BIN/hearth-submit" "${M[@]}" --logs "$ID" >"$T/logs"
check "... --logs with keys returns its result" grep -qx 30 "$T/logs"
printf '#!/bin/sh\nenv | grep "^HEARTH_" | sort\n' >"$T/env.sh"
chmod +x "$T/env.sh"
check "a program in cluster mode with keys" \
  submit "${M[@]}" --deploy-mode cluster "$T/env.sh"
ENV=$(head -1 "$T/out")
"$BIN/hearth-submit" "${M[@]}" --logs "$ENV" >"$T/env"
check "... gets a key of its own, in its directory" \
  grep -qx "HEARTH_CURVE_SECRET=$T/w1/$ENV/.driver.key_secret" "$T/env"
check "... and the master's key, as an absolute path" \
  grep -qx "HEARTH_MASTER_KEY=$T/master.key" "$T/env"
check "... and none of the submitter's own" eval '! grep -q "client.key_secret" "$T/env"'
check "... nor the worker's" eval '! grep -q "w1.key_secret" "$T/env"'
check "... its key file is mode 0600" \
  test "$(stat -c %a "$T/w1/$ENV/.driver.key_secret")" = 600
check "... and holds another key than the worker's" eval \
  '! cmp -s <(grep public-key "$T/w1/$ENV/.driver.key_secret") <(grep public-key "$T/w1.key_secret")'
"$BIN/hearth-submit" --master "$MASTER_URL" --timeout 2s --status "$ID" 2>"$T/err"
check "without keys, --status gets no answer" test $? -ne 0
finish
