#!/usr/bin/env bash
# The outputs a driver records after its leader died, before it knows,
# reach the new leader (issue 39): test-resume-master-gone.sh's case, on
# a cluster of masters elected through ZooKeeper, where the loss was
# silent.
#
# Masters a (leading) and b (its standby), two workers of 4 cores, a
# client-mode 2-stage job given both URLs: a map of 8 tasks (4 at a
# time) into 4 partitions whose 4 last tasks wait for $T/go-map, and a
# count of 4 reducers that waits for $T/go-count and prints its counts.  With the 4 first map
# tasks done (recorded, and streamed to b), kill -9 of a, and the map
# tasks let go: they end while the driver still holds its link to a
# for up (liveness x interval), and it tells their outputs into it.  b
# leads, the driver registers again with it, the count starts; then the
# driver is killed and its application resumed on b.  The map's 8
# outputs are held on the live workers: b must hold them all, and no
# map task may run again.
#
# Before the fix b held 4, and the resume ran the 4 others again: the
# records went with the dead leader's DEALER when the driver moved to the
# next URL.  Now the driver tells every output of its running stages
# again once registered with b (libhearth/record.h).
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
. "$(dirname "$0")/../lib/zk.sh"
deadline 150
export TMPDIR=$T LC_ALL=C

zk_require
SESSION=${SESSION:-3000}
ZKP=$(zk_free_port)
ZK=127.0.0.1:$ZKP
HA_MASTER_ARGS="--resume-window 60s"
. "$(dirname "$0")/../lib/hamasters.sh"

start_zk z1 "$ZKP" || { fail "ZooKeeper starts on $ZKP"; finish; exit 1; }
start_ha a || { fail "master a starts"; finish; exit 1; }
check "(master a leads)" wait_for 30 eval '[[ $(role a) == LEADER ]]'
start_ha b || { fail "master b starts"; finish; exit 1; }
check "(master b is its standby)" wait_for 30 settled
LIST="${URL[a]},${URL[b]}"
MASTER_URL=$LIST CORES=4 start_worker w1 || { finish; exit 1; }
MASTER_URL=$LIST CORES=4 start_worker w2 || { finish; exit 1; }
word_files 8 2000 200 11

RUNS=$T/runs
mkdir -p "$RUNS"
# gate NAME: a shell loop waiting for $T/NAME (at most 60 s)
gate() { echo "n=0; while [ ! -e $T/$1 ] && [ \$n -lt 600 ]; do sleep 0.1; n=\$((n+1)); done"; }
J=$(job gone "{\"name\": \"gone\", \"stages\": [
  {\"name\": \"map\", \"partitions\": 4,
   \"tasks\": [{\"cmd\": [\"sh\", \"-c\", \"echo x >> $RUNS/map.{i}; if [ {i} -ge 4 ]; then $(gate go-map); fi; cat $T/in/{i}.txt\"],
                \"count\": 8}]},
  {\"name\": \"count\",
   \"tasks\": [{\"cmd\": [\"sh\", \"-c\", \"echo x >> $RUNS/count.{i}; $(gate go-count); sort | uniq -c | while read n w; do echo \\\"\$w \$n\\\"; done\"],
                \"input\": \"map\"}]}]}")
app_field() {
  state_json | jq -r --arg id "$APP" "[.apps[]? | select(.id == \$id)][0] | $1"
}

"$BIN/hearth-submit" --master "$LIST" --log-level info \
  --heartbeat-interval "${INTERVAL_MS}ms" --heartbeat-liveness "$LIVENESS" \
  "$J" >"$T/first.out" 2>"$T/first.err" &
DRV=$!
PIDS+=($DRV)
check "the 4 first map tasks are done, the 4 last run (and wait)" \
  wait_for 30 eval '[[ $(cat $RUNS/map.* 2>/dev/null | wc -l) -eq 8 ]]'
sleep 0.5 # the 4 first outputs reach a, and b
APP=$(sed -n 's/.*application \(app-[0-9-]*\) registered with.*/\1/p' "$T/first.err" | head -1)
check "the driver registered its application ($APP)" test -n "$APP"

stop_ha a KILL
touch "$T/go-map"
check "after kill -9 of the leader a, b leads" \
  wait_for $((SESSION / 1000 + 15)) eval '[[ $(role b) == LEADER ]]'
MASTER_URL=${URL[b]}
check "the driver registers again with b" \
  wait_for 20 grep -q "application $APP registered again with ${URL[b]}" "$T/first.err"
check "the map is done: the count runs" \
  wait_for 20 eval '[[ $(cat $RUNS/count.* 2>/dev/null | wc -l) -ge 1 ]]'
sleep 1 # a few ticks: anything still waiting reaches b
kill9 "$DRV"
check "the driver killed, its application is RELAUNCHING on b" \
  wait_for 15 eval '[[ $(app_field .state) == RELAUNCHING ]]'
n=$(app_field '.outputs // 0')
say "b holds $n outputs of the application (the map left 8)"
check "... b holds the map's 8 outputs ($n)" test "$n" -ge 8

touch "$T/go-count"
submit --master "$LIST" --resume "$APP" "$J"
check "hearth-submit --resume finishes the job" test $? -eq 0
check "... the output is exact" same <(sort "$T/out") "$T/counts.ref"
check "... no map task ran again (their outputs are held: $(cat "$RUNS"/map.* | wc -l) runs of 8)" \
  test "$(cat "$RUNS"/map.* | wc -l)" -eq 8
finish
