#!/usr/bin/env bash
# The worker's web server: two workers asking for one port take it and
# the next; each sends its web_url in REGISTER_WORKER (the master's state,
# /json's webuiaddress, hearth-tail --state's "web:" lines); its
# /api/v1/state lists its executors, running and ended, with their log
# sizes, and its Spark /json the same under Spark's names; /log serves their bytes by offset and length, and nothing else:
# ids with "..", symbolic links in the work dir, absurd offsets and
# lengths, unknown ids are answered 400, 403 or 404, never with a byte
# from outside.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
. "$(dirname "$0")/web.sh"
deadline 150
export TMPDIR=$T

BASE=$(free_port_range 8)
start_master --web-port "$BASE" || exit 1
CORES=2 start_worker w1 --web-port "$((BASE + 1))" || exit 1
CORES=2 start_worker w2 --web-port "$((BASE + 1))" || exit 1
W1=http://127.0.0.1:$((BASE + 1))
W2=http://127.0.0.1:$((BASE + 2))
check "two workers on one --web-port: the second takes the next one" \
  eval 'grep -q "worker web pages at $W1" "$T/w1.log" && grep -q "worker web pages at $W2" "$T/w2.log"'
check "MASTER_STATE has each worker's web_url" jq_state \
  "(.workers[] | select(.id == \"$ID_w1\") | .web_url == \"$W1\") and
   (.workers[] | select(.id == \"$ID_w2\") | .web_url == \"$W2\")"
"$BIN/hearth-tail" --master "$MASTER_URL" --state --full-ids >"$T/table.txt"
check "hearth-tail --state shows them (web: lines) and the master's" \
  eval 'grep -A1 "^$ID_w1 " "$T/table.txt" | grep -qx "    web: $W1" &&
    grep -q "^MASTER .*  web http://127.0.0.1:$BASE\$" "$T/table.txt"'
http_get "http://127.0.0.1:$BASE/json" "$T/spark.json"
check "/json's webuiaddress is the worker's" jq -e --arg w "$W1" --arg id "$ID_w1" \
  '.workers[] | select(.id == $id) | .webuiaddress == $w' "$T/spark.json"

http_get "$W1/api/v1/state" "$T/w1.json"
check "the worker's /api/v1/state: id, REGISTERED, its URLs, resources" jq -e \
  --arg id "$ID_w1" --arg w "$W1" --arg m "$MASTER_URL" --arg mw "http://127.0.0.1:$BASE" \
  '.id == $id and .state == "REGISTERED" and .web_url == $w and .master == $m
   and .master_web_url == $mw and .cores == 2 and .memory_mb == 4096
   and .cores_used == 0 and .executors == [] and .drivers == []
   and .started_ms > 0 and .time_ms >= .started_ms' "$T/w1.json"

# A job whose tasks write a mark to stderr and wait: its executors are
# listed RUNNING while it runs, then ended, with their logs' sizes.
J=$(job marks '{"name":"marks","stages":[{"name":"m","tasks":[
  {"cmd":["sh","-c","echo WEB-MARK-{i} >&2; sleep 2; echo {i}"],"count":4}]}]}')
submit --master "$MASTER_URL" "$J" &
SUB=$!
check "while the job runs, w1 lists an executor RUNNING with its start" \
  wait_for 20 eval 'http_get "$W1/api/v1/state" "$T/w1.json" &&
    jq -e "[.executors[] | select(.state == \"RUNNING\" and .started_ms > 0 and .pid > 0 and .cores > 0)] | length >= 1" "$T/w1.json" >/dev/null'
http_get "$W1/json" "$T/w1.spark"
check "... and its Spark /json: the worker's fields, the executor running" jq -e \
  --arg id "$ID_w1" --arg m "$MASTER_URL" --arg mw "http://127.0.0.1:$BASE" \
  --slurpfile st "$T/w1.json" \
  '.id == $id and .masterurl == $m and .masterwebuiurl == $mw and .cores == 2
   and .memory == 4096 and .coresused > 0 and .memoryused > 0
   and ([.executors[] | select(.state == "RUNNING" and .cores > 0 and .memory > 0
          and .starttime > 0 and .appid == ($st[0].executors[0].app_id)
          and .id == ($st[0].executors[0].exec_id))] | length >= 1)
   and .finishedexecutors == [] and .drivers == [] and .finisheddrivers == []' \
  "$T/w1.spark"
wait "$SUB"
check "the job ran, its output exact" eval 'sort -n "$T/out" | tr "\n" " " | grep -qx "0 1 2 3 "'
check "after it, w1 lists its ended executor with its end and sizes" \
  wait_for 20 eval 'http_get "$W1/api/v1/state" "$T/w1.json" &&
    jq -e "[.executors[] | select(.ended_ms >= .started_ms and .started_ms > 0
      and (.exit_reason | length) > 0 and .stderr_bytes > 0)] | length >= 1" "$T/w1.json" >/dev/null'
http_get "$W1/json/" "$T/w1.spark"
check "... and in /json/ under finishedexecutors, none running" jq -e \
  '.executors == [] and .coresused == 0 and ([.finishedexecutors[] |
     select(.state != "RUNNING" and .appid != "" and .starttime > 0)] | length >= 1)' \
  "$T/w1.spark"
APP=$(jq -r '.executors[0].app_id' "$T/w1.json")
EXEC=$(jq -r '.executors[0].exec_id' "$T/w1.json")
F=$T/w1/$APP/$EXEC/stderr
check "its stderr_bytes is the file's size" \
  test "$(jq -r .executors[0].stderr_bytes "$T/w1.json")" = "$(stat -c %s "$F")"

L="$W1/log?app=$APP&exec=$EXEC&stream=stderr"
http_get "$L" "$T/log"
check "/log: the whole (small) stderr, the executor's own lines" \
  eval 'test "$(http_status)" = 200 && cmp -s "$T/log" "$F" && grep -q "executor $EXEC of $APP" "$T/log"'
check "... X-Hearth-Offset 0 and X-Hearth-Total the size" \
  eval 'test "$(http_header X-Hearth-Offset)" = 0 && test "$(http_header X-Hearth-Total)" = "$(stat -c %s "$F")"'
http_get "$L&offset=3&length=5" "$T/log"
check "offset=3&length=5: those 5 bytes" eval 'cmp -s "$T/log" <(tail -c +4 "$F" | head -c 5) &&
  test "$(http_header X-Hearth-Offset)" = 3'
http_get "$L&offset=-10" "$T/log"
check "offset=-10: the last 10 bytes" eval 'cmp -s "$T/log" <(tail -c 10 "$F") &&
  test "$(http_header X-Hearth-Offset)" = "$(( $(stat -c %s "$F") - 10 ))"'
http_get "$L&offset=-99999999999" "$T/log"
check "offset far before the start: from byte 0" eval 'cmp -s "$T/log" "$F"'
http_get "$L&offset=999999999999" "$T/log"
check "offset past the end: 200, empty, at the end" eval 'test "$(http_status)" = 200 &&
  test ! -s "$T/log" && test "$(http_header X-Hearth-Offset)" = "$(stat -c %s "$F")"'
http_get "$L&length=99999999999999" "$T/log"
check "an absurd length is cut to 1 MiB (here the whole file)" \
  eval 'test "$(http_status)" = 200 && cmp -s "$T/log" "$F"'
head -c 3000000 /dev/zero | tr '\0' x >"$T/w1/$APP/$EXEC/stdout"
http_get "$W1/log?app=$APP&exec=$EXEC&stream=stdout&offset=0&length=2000000" "$T/log"
check "... a 3 MB file read with length 2000000: 1 MiB" test "$(stat -c %s "$T/log")" = 1048576
http_get "$W1/log?app=$APP&exec=$EXEC&stream=stdout" "$T/log"
check "no offset or length: the last 64 KiB" eval 'test "$(stat -c %s "$T/log")" = 65536 &&
  test "$(http_header X-Hearth-Offset)" = $((3000000 - 65536))'

# refused: status STATUS for URL, and not a byte of /etc/passwd
refused() {
  http_get "$2" "$T/bad"
  [[ $(http_status) == "$1" ]] && ! grep -q 'root:' "$T/bad"
}
for q in "offset=abc" "offset=99999999999999999999999" "length=-1" \
  "length=1e9" "offset=" "offset=+-1"; do
  check "bad argument $q: 400" refused 400 "$L&$q"
done
for e in 1x -1 99999999999 "" "%201"; do
  check "bad executor id '$e': 400" refused 400 "$W1/log?app=$APP&exec=$e&stream=stderr"
done
check "app=../../../etc: 400" refused 400 "$W1/log?app=../../../etc&exec=0&stream=stdout"
check "app=%2e%2e: 400" refused 400 "$W1/log?app=%2e%2e&exec=0&stream=stdout"
check "exec=../../..: 400" refused 400 "$W1/log?app=$APP&exec=../../..&stream=stdout"
check "stream=../../../../etc/passwd: 400" refused 400 "$W1/log?app=$APP&exec=$EXEC&stream=../../../../etc/passwd"
check "stream=stdin: 400" refused 400 "$W1/log?app=$APP&exec=$EXEC&stream=stdin"
check "driver=../etc: 400" refused 400 "$W1/log?driver=../etc&stream=stdout"
check "both app and driver: 400" refused 400 "$W1/log?app=$APP&exec=0&driver=driver-20200101000000-0000&stream=stdout"
check "no ids: 400" refused 400 "$W1/log?stream=stdout"
check "an unknown application: 404" refused 404 "$W1/log?app=app-20200101000000-0000&exec=0&stream=stdout"
check "an unknown executor: 404" refused 404 "$W1/log?app=$APP&exec=77&stream=stdout"
check "an unknown driver: 404" refused 404 "$W1/log?driver=driver-20200101000000-0000&stream=stderr"
# Symbolic links in the work dir: an application directory, an executor
# directory, a log file, each pointing out of it.
ln -s /etc "$T/w1/app-20200101000000-0001"
mkdir -p "$T/w1/app-20200101000000-0002" "$T/w1/app-20200101000000-0003/0"
ln -s /etc "$T/w1/app-20200101000000-0002/0"
ln -s /etc/passwd "$T/w1/app-20200101000000-0003/0/stdout"
ln -s /etc/passwd "$T/w1/$APP/$EXEC/stderr.link"
mkdir -p "$T/w1/app-20200101000000-0004/0/stdout"
check "a linked application directory: 403" refused 403 "$W1/log?app=app-20200101000000-0001&exec=0&stream=stdout"
check "a linked executor directory: 403" refused 403 "$W1/log?app=app-20200101000000-0002&exec=0&stream=stdout"
check "a linked log file: 403" refused 403 "$W1/log?app=app-20200101000000-0003&exec=0&stream=stdout"
check "a directory as the log: 403" refused 403 "$W1/log?app=app-20200101000000-0004&exec=0&stream=stdout"
check "the worker is still up and ALIVE" eval 'kill -0 "$PID_w1" && test "$(worker_state "$ID_w1")" = ALIVE'
finish
