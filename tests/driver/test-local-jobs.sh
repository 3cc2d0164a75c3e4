#!/usr/bin/env bash
# Jobs in local mode: command and function tasks, a map/reduce, the
# examples and a C driver program, each checked against its expected
# output, exactly.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 180
export TMPDIR=$T

J=$(job seq '{"name":"seq","stages":[{"name":"s","tasks":[{"cmd":["echo","{i}"],"count":1000}]}]}')
check "1,000 command tasks succeed" submit --master 'local[2]' "$J"
seq 0 999 >"$T/expected"
check "... and print 0 to 999, in order, once each" same "$T/out" "$T/expected"

J=$(job mr '{"name":"mr","stages":[
  {"name":"map","tasks":[{"cmd":["sh","-c","echo token-{i}"],"count":50}]},
  {"name":"reduce","tasks":[{"cmd":["sort"],"input":"map"}]}]}')
check "a map/reduce job succeeds" submit --master 'local[2]' "$J"
for i in $(seq 0 49); do echo "token-$i"; done | sort >"$T/expected"
check "... and its reduce saw each of the 50 map results once" \
  same "$T/out" "$T/expected"

J=$(job fn '{"name":"fn","lib":"libtesttasks.so","stages":[
  {"name":"e","tasks":[{"fn":"echo","arg":"hello {i}","count":20}]},
  {"name":"c","tasks":[{"fn":"cat","input":"e"}]}]}')
check "function tasks from a shipped library succeed" \
  submit --master 'local[3]' --lib "$TASKS_LIB" "$J"
for i in $(seq 0 19); do echo "hello $i"; done >"$T/expected"
check "... and the input of a function is its parent's results" \
  same "$T/out" "$T/expected"

check "the pi example runs" \
  submit --master 'local[2]' --lib "$BIN/examples/libpi.so" "$SRC/examples/pi.json"
check "... and estimates pi from 20,000,000 darts" \
  grep -Eq '^Pi is roughly 3\.1[34][0-9]* \(20000000 darts' "$T/out"

check "the word count example runs" \
  submit "$SRC/examples/wordcount.json" "$SRC"/examples/data/*.txt
cat "$SRC"/examples/data/*.txt | tr -cs 'A-Za-z' '\n' | tr 'A-Z' 'a-z' |
  grep -v '^$' | sort | uniq -c | awk '{print $1, $2}' |
  sort -k1,1nr -k2,2 | head -n 10 >"$T/expected"
check "... and counts what one pipeline over all files counts" \
  same "$T/out" "$T/expected"

check "a C driver program runs through hearth-submit" \
  submit --master 'local[2]' --lib "$BIN/examples/libpi.so" \
  "$BIN/examples/pi-driver" 10 1000
check "... and prints its estimate" grep -q '^Pi is roughly .*(10000 darts' "$T/out"

check "nothing is left running" no_leftovers
finish
