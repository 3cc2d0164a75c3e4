#!/usr/bin/env bash
# local-cluster[W,C,M]: a real master and workers started and stopped by
# the driver; 1,000 command tasks print exactly the expected lines in
# order, and nothing is left running afterwards; workers that cannot
# start fail the job at once.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 180
export TMPDIR=$T

J=$(job seq '{"name":"seq","stages":[{"name":"s","tasks":[{"cmd":["echo","line {i}"],"count":1000}]}]}')
check "1,000 command tasks on local-cluster[2,2,512] succeed" \
  submit --master 'local-cluster[2,2,512]' "$J"
for i in $(seq 0 999); do echo "line $i"; done >"$T/expected"
check "... printing exactly the 1,000 expected lines in order" \
  same "$T/out" "$T/expected"

check "function tasks with a shipped library run on local-cluster" \
  submit --master 'local-cluster[2,1,512]' --lib "$BIN/examples/libpi.so" \
  "$SRC/examples/pi.json"
check "... and pi is estimated" grep -q '^Pi is roughly 3\.1' "$T/out"

# The daemons serve no pages unless HEARTH_WEB_PORT asks: then the
# master's /json answers while the job runs (a task fetches it, with the
# token of this user's pages: docs/security.md, "Web pages").
WEB_PORT=$((20000 + RANDOM % 20000))
WEB_TOKEN=$("$BIN/hearth-admin" web-token)
JW=$(job web "{\"name\":\"web\",\"stages\":[{\"name\":\"s\",\"tasks\":[{\"cmd\":[\"sh\",\"-c\",\"curl -s -m 5 -H 'Authorization: Bearer $WEB_TOKEN' http://127.0.0.1:$WEB_PORT/json | jq -r .status\"]}]}]}")
web_job() {
  HEARTH_WEB_PORT=$WEB_PORT "$BIN/hearth-submit" \
    --master 'local-cluster[1,1,512]' "$JW" >"$T/out" 2>"$T/err"
}
check "HEARTH_WEB_PORT=$WEB_PORT: a local cluster with pages runs its job" web_job
check "... and its master's /json answers during the job (status ALIVE)" \
  grep -qx ALIVE "$T/out"

# Workers that cannot start (a setting they refuse, through the
# environment they inherit): the job fails at once, saying why, rather
# than waiting for executors that will never come (before: for ever).
J1=$(job one '{"name":"one","stages":[{"name":"s","tasks":[{"cmd":["true"]}]}]}')
HEARTH_ISOLATION=bogus timeout 60 "$BIN/hearth-submit" \
  --master 'local-cluster[2,1,512]' "$J1" >"$T/out" 2>"$T/err"
rc=$?
check "workers that cannot start fail the job (exit 1, not a timeout: $rc)" \
  test "$rc" -eq 1
check "... saying that every worker exited" \
  grep -q 'every local-cluster worker exited (worker [01] exited with status 1)' "$T/err"
check "... after the workers' own reason" grep -q "bad --isolation 'bogus'" "$T/err"

check "no master, worker or executor is left" no_leftovers
finish
