#!/usr/bin/env bash
# Load: 1,000 TCP connections that send nothing or random bytes to the
# master's ROUTER, and 1,000 to a driver's executor ROUTER, while a job
# runs (a worker binds no socket: these are every listening socket of a
# cluster).  The daemons stay up and keep serving, the job's result is
# exact, memory stays bounded (RSS during and after the flood below
# 2 x before + 50 MB), and the refusals do not flood the log.  The master
# runs with keys, so that random bytes meet the CURVE handshake and its
# monitor.  CONNS overrides the number per socket; the figures of the same
# flood are in the benchmark (tests/bench/bench-load.sh).
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
. "$(dirname "$0")/../lib/security.sh"
deadline 150
export TMPDIR=$T
CONNS=${CONNS:-1000}
SEED=${SEED:-14}
# Every daemon must hold its peers and the flood's connections: raise the
# soft limit of open files (the children inherit it), or flood less.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || ulimit -n 4096 2>/dev/null
FDS=$(ulimit -n)
if [[ $FDS != unlimited ]] && ((FDS < CONNS + 256)); then
  say "open files limited to $FDS: $((FDS - 256)) connections per socket, not $CONNS"
  CONNS=$((FDS - 256))
fi
HALF=$((CONNS / 2))

rss_kb() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status" 2>/dev/null; }
bounded() { # NOW BEFORE: NOW below 2 x BEFORE + 50 MB
  (($1 < 2 * $2 + 50 * 1024))
}

make_keys || { fail "keys"; finish; exit 1; }
secure_master || { fail "the master starts"; finish; exit 1; }
# shellcheck disable=SC2046
CORES=2 start_worker w1 $(client_keys w1) || fail "worker w1 registers"
# shellcheck disable=SC2046
CORES=2 start_worker w2 $(client_keys w2) || fail "worker w2 registers"

# A job whose tasks wait at a gate until the flood is over; its result is
# 200 lines, one per task.
J=$(job gated '{"name":"gated","stages":[
  {"name":"s","tasks":[{"cmd":["sh","-c","while [ ! -e '"$T"'/gate ]; do sleep 0.05; done; echo t{i}"],"count":200}]},
  {"name":"all","tasks":[{"cmd":["sort"],"input":"s"}]}]}')
for i in $(seq 0 199); do echo "t$i"; done | sort >"$T/expected"
# shellcheck disable=SC2046
"$BIN/hearth-submit" --master "$MASTER_URL" $(client_keys client) \
  --heartbeat-interval "${INTERVAL_MS}ms" --log-level info "$J" \
  >"$T/job.out" 2>"$T/job.err" &
JOB=$!
PIDS+=($JOB)
check "the job starts" wait_for 15 grep -q 'executor [0-9]* registered' "$T/job.err"
DRIVER_URL=$(sed -n 's/.*executors connect to \(tcp:[^ ]*\).*/\1/p' "$T/job.err" | head -1)
check "its driver's executor socket is known ($DRIVER_URL)" test -n "$DRIVER_URL"
sleep 1
master_before=$(rss_kb "$MASTER_PID") driver_before=$(rss_kb "$JOB")
say "RSS before: master $master_before KiB, driver $driver_before KiB"

flood() { # NAME URL BYTES: HALF connections to URL, each sending BYTES
  "$TBIN/flood" --to "${2#tcp://}" --count "$HALF" --bytes "$3" \
    --seed "$SEED" --hold-ms 8000 >"$T/$1.flood" 2>&1 &
  PIDS+=($!)
  FLOODS+=($!)
}
FLOODS=()
flood master-idle "$MASTER_URL" 0
flood master-junk "$MASTER_URL" 4096
flood driver-idle "$DRIVER_URL" 0
flood driver-junk "$DRIVER_URL" 4096
for f in master-idle master-junk driver-idle driver-junk; do
  wait_for 60 grep -q "^OPEN" "$T/$f.flood"
  check "$HALF connections to the $f socket are open" \
    grep -q "^OPEN $HALF FAILED 0" "$T/$f.flood"
done
check "the master serves a client meanwhile" served client
master_during=$(rss_kb "$MASTER_PID") driver_during=$(rss_kb "$JOB")
say "RSS with the flood's connections open: master $master_during KiB, driver $driver_during KiB"
check "the master's memory is bounded with them open ($master_during KiB)" \
  bounded "$master_during" "$master_before"
check "... the driver's too ($driver_during KiB)" bounded "$driver_during" "$driver_before"
wait "${FLOODS[@]}"
sleep 1
master_after=$(rss_kb "$MASTER_PID") driver_after=$(rss_kb "$JOB")
say "RSS after: master $master_after KiB, driver $driver_after KiB"
check "the master's memory is bounded after ($master_after KiB)" \
  bounded "$master_after" "$master_before"
check "... the driver's too ($driver_after KiB)" bounded "$driver_after" "$driver_before"
check "the master and both workers are up" kill -0 "$MASTER_PID" "$PID_w1" "$PID_w2"
check "the job is still running" kill -0 "$JOB"

touch "$T/gate"
wait "$JOB"
check "the job ends well" test $? -eq 0
check "... with its exact result" same "$T/job.out" "$T/expected"
E=$(job echo '{"name":"echo","stages":[{"name":"s","tasks":[{"cmd":["echo","{i}"],"count":20}]},
  {"name":"n","tasks":[{"cmd":["wc","-l"],"input":"s"}]}]}')
# shellcheck disable=SC2046
check "another job runs after the flood" submit --master "$MASTER_URL" $(client_keys client) "$E"
check "... exactly" grep -qx 20 "$T/out"
refusals=$(count_lines "$T/master.log" 'refused 127.0.0.1')
check "the master logged the flood's refusals a few times, not $CONNS ($refusals lines)" \
  test "$refusals" -le 5
check "the driver did not log each bad connection" \
  test "$(wc -l <"$T/job.err")" -lt 200

# A master started with a low soft limit of open files (a login shell's
# 1024, or here 256) but a higher hard one raises its own: $CONNS idle
# connections leave room for the next client.  (Past its limit libzmq
# accepts nothing more: new peers go unanswered, and its I/O thread spins.)
if [[ $(ulimit -Hn) == unlimited ]] || (($(ulimit -Hn) >= CONNS + 512)); then
  kill -TERM "$MASTER_PID"; wait "$MASTER_PID" 2>/dev/null
  (ulimit -Sn 256 && start_master) >/dev/null
  MASTER_URL=$(sed -n 1p "$T/master.ready")
  MASTER_PID=$(pgrep -f -- "--ready-file $T/master.ready" | head -1)
  PIDS+=($MASTER_PID)
  check "a master started with a soft limit of 256 open files says it raised it" \
    wait_for 5 grep -q "open files: [0-9]* (raised from 256)" "$T/master.log"
  "$TBIN/flood" --to "${MASTER_URL#tcp://}" --count "$CONNS" --hold-ms 6000 \
    >"$T/low.flood" 2>&1 &
  PIDS+=($!)
  wait_for 60 grep -q "^OPEN" "$T/low.flood"
  check "... $CONNS idle connections opened to it" grep -q "^OPEN $CONNS FAILED 0" "$T/low.flood"
  check "... and it still answers a client" \
    eval '"$BIN/hearth-tail" --master "$MASTER_URL" --state --timeout 3s >/dev/null'
fi
finish
