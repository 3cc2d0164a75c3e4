#!/usr/bin/env bash
# local-cluster[W,C,M]: a real master and workers started and stopped by
# the driver; 1,000 command tasks print exactly the expected lines in
# order, and nothing is left running afterwards.
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

check "no master, worker or executor is left" no_leftovers
finish
