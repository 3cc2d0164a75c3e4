#!/usr/bin/env bash
# A cluster-mode driver's directory (its job, stdout and stderr) stays on
# its worker for --driver-retention after the driver ended, then goes;
# --logs can fetch its output meanwhile.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 60
export TMPDIR=$T

start_master || exit 1
CORES=2 start_worker w1 --driver-retention 2s --app-retention 2s || exit 1

J=$(job hello '{"name":"hello","stages":[{"name":"s","tasks":[{"cmd":["echo","hello"]}]}]}')
check "a cluster-mode job ends" \
  submit --master "$MASTER_URL" --deploy-mode cluster --executor-memory 512M "$J"
ID=$(head -1 "$T/out")
check "its directory is kept after the end" test -s "$T/w1/$ID/stdout"
check "... with its output" grep -qx hello "$T/w1/$ID/stdout"
"$BIN/hearth-submit" --master "$MASTER_URL" --logs "$ID" >"$T/logs" 2>&1
check "--logs fetches it meanwhile" grep -qx hello "$T/logs"
check "... and the directory goes after --driver-retention (2 s)" \
  wait_for 6 test ! -e "$T/w1/$ID"
check "the worker logged the removal" grep -q "removing $T/w1/$ID" "$T/w1.log"
finish
