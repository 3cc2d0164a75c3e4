#!/usr/bin/env bash
# The executor's side of the shuffle (issue 21), with real processes: a
# master, a worker (its block server), and real hearth-executors driven
# by exec-tool, which plays the driver (LAUNCH_TASKS in, STATUS_UPDATE
# out).  e1 is the worker's executor (started by the worker for an
# application whose driver is e1's exec-tool: it gets --shuffle-dir,
# --shuffle-url of the worker); e2 runs as in local[N] (its own
# --shuffle-dir, no server), fetching the worker's outputs over TCP.
#
# Map tasks (commands and functions, an empty output, a last line without
# '\n', a line of 1 MiB; R = 7, sorted and not, and R = 1), then reduce
# tasks reading them in place (e1) and over TCP (e2), chained shuffles,
# output tasks, checked byte for byte against a reference computed here
# (shuffle-tool partition, awk, sort -s); a damaged block is a fetch
# failure; a 300 MiB reduce input streamed to wc -c in bounded memory; a
# full shuffle directory (a 2 MiB tmpfs) is a clear error leaving nothing.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 400
TOOL=$TBIN/shuffle-tool
TOKEN=the-token-of-the-shuffle-app

# start_tool NAME: an exec-tool reading NAME's fifo (held open on fd
# FD_NAME); sets URL_NAME.
start_tool() {
  local name=$1 fd
  mkfifo "$T/$name.in"
  mkdir -p "$T/res.$name"
  "$TBIN/exec-tool" --lib "$TASKS_LIB" --results "$T/res.$name" \
    <"$T/$name.in" >"$T/$name.out" 2>"$T/$name.err" &
  PIDS+=($!)
  exec {fd}>"$T/$name.in"
  printf -v "FD_$name" '%s' "$fd"
  wait_for 10 grep -q '^LISTENING ' "$T/$name.out" || return 1
  printf -v "URL_$name" '%s' "$(awk '/^LISTENING/{print $2}' "$T/$name.out")"
}
# send NAME JSON: one task to NAME's executor.
send() {
  local fd="FD_$1"
  printf '%s\n' "$2" >&"${!fd}"
}
# tid STAGE INDEX
tid() { echo $((($1 << 32) + $2)); }
# update NAME TID: the final update of attempt 0 of TID (waits for it).
update() {
  wait_for 120 grep -q "^UPDATE $2 0 " "$T/$1.out" || return 1
  grep -m1 "^UPDATE $2 0 " "$T/$1.out"
}
# result NAME TID: its result bytes (none: empty).
result() { cat "$T/res.$1/$2.0" 2>/dev/null; }
# sizes LINE: the map_sizes of an update, one a line.
sizes() { grep -o 'map_sizes=[0-9,]*' <<<"$1" | cut -d= -f2 | tr , '\n'; }
# reference R P sorted|- FILES...: partition P of map inputs FILES (in
# map order), each record with its '\n', sorted by key (ties in map
# order) if asked.
reference() {
  local r=$1 p=$2 sort=$3 f
  shift 3
  for f in "$@"; do
    "$TOOL" partition "$r" <"$f" | awk -F'\t' -v p="$p" '$1 == p' | cut -f2-
  done | if [[ $sort == sorted ]]; then LC_ALL=C sort -s -t$'\t' -k1,1; else cat; fi
}

start_master || { fail "master"; finish; exit 1; }
CORES=2 MEMORY=2G start_worker w1 || { fail "worker"; finish; exit 1; }
WURL=$(grep -o 'serving this node.s map outputs at tcp://[0-9.:]*' "$T/w1.log" |
  awk '{print $NF}')
start_tool e1 || fail "exec-tool e1"
start_app app --token "$TOKEN" --max-cores 2 --cores-per-executor 2 \
  --driver-url "$URL_e1" || fail "the application registers"
check "the worker's executor registers with its block server's URL" \
  wait_for 20 grep -q "^REGISTERED [0-9]* [0-9]* $WURL -\$" "$T/e1.out" ||
  cat "$T/e1.out" "$T/w1.log"
start_tool e2 || fail "exec-tool e2"
mkdir -p "$T/e2" "$T/e3"
HEARTH_TOKEN=$TOKEN "$BIN/hearth-executor" --driver-url "$URL_e2" \
  --app-id "$APP_ID" --cores 2 --work-dir "$T/e2" --shuffle-dir "$T/local" \
  --shuffle-memory 8M --heartbeat-interval 200ms >>"$T/e2.log" 2>&1 &
E2_PID=$!
PIDS+=($E2_PID)
check "an executor without a block server registers without one" \
  wait_for 20 grep -q '^REGISTERED [0-9]* [0-9]* - -$' "$T/e2.out"

# --- map inputs ----------------------------------------------------------
# in.0: a command's, in.1: a function's, in.2: empty, in.3: its last line
# without '\n', in.4: a line of 1 MiB among others.
M=5 R=7
for m in 0 1 3 4; do
  awk -v m="$m" 'BEGIN { srand(4242 + m);
    for (i = 0; i < 2000; i++) printf "k%d\tmap%d-%d %s\n", int(rand() * 50),
      m, i, substr("abcdefghijklmnopqrstuvwxyz", 1, int(rand() * 26)) }' >"$T/in.$m"
done
: >"$T/in.2"
head -c -1 "$T/in.3" >"$T/in.3.cut" && mv "$T/in.3.cut" "$T/in.3"
{ printf 'longkey\t'; head -c 1048576 /dev/zero | tr '\0' x; echo; } >>"$T/in.4"
IN=("$T/in.0" "$T/in.1" "$T/in.2" "$T/in.3" "$T/in.4")

# map_task NAME STAGE M SHUFFLE R SORT: map task M of the inputs above.
map_task() {
  local run
  case $3 in
  1) run="\"fn\":\"cat\",\"input_file\":\"${IN[1]}\"" ;;
  2) run='"cmd":["true"]' ;;
  *) run="\"cmd\":[\"cat\",\"${IN[$3]}\"]" ;;
  esac
  send "$1" "{\"tid\":$(tid "$2" "$3"),\"attempt\":0,$run,\"map\":{\"shuffle\":$4,\"partitions\":$5,\"sort\":$6}}"
}
# blocks SERVER STAGE NMAPS P: the blocks of partition P of the map tasks
# of STAGE (their sizes from NAME's updates: $SIZES_STAGE_M).
blocks() {
  local m out="" v
  for ((m = 0; m < $3; m++)); do
    v="SIZES_$2_$m"
    out+="${out:+,}[$1,0,$(sed -n "$(($4 + 1))p" <<<"${!v}")]"
  done
  echo "[$out]"
}
# maps_done NAME STAGE NMAPS: wait for the map tasks; keep their sizes.
maps_done() {
  local m line ok=0
  for ((m = 0; m < $3; m++)); do
    line=$(update "$1" "$(tid "$2" "$m")") || return 1
    [[ $line == *" FINISHED "* ]] || { echo "$line" >&2; ok=1; }
    printf -v "SIZES_$2_$m" '%s' "$(sizes "$line")"
  done
  return $ok
}

for ((m = 0; m < M; m++)); do
  map_task e1 1 "$m" 1 "$R" false
  map_task e1 2 "$m" 2 "$R" true
  map_task e2 3 "$m" 3 1 false
done
check "map tasks of shuffle 1 (unsorted, R=7) finish with their sizes" maps_done e1 1 $M
check "map tasks of shuffle 2 (sorted, R=7) finish" maps_done e1 2 $M
check "map tasks of shuffle 3 (R=1, local[N]) finish" maps_done e2 3 $M
check "... their outputs are in the worker's shuffle dir" \
  test -s "$T/w1/shuffle/$APP_ID/2/4.0.index"
check "... and in e2's own" test -s "$T/local/$APP_ID/3/4.0.index"
check "the empty output has R empty partitions" \
  test "$(echo $SIZES_1_2)" = "0 0 0 0 0 0 0"
check "map_bytes counts the records' bytes (a '\\n' added to the last line)" \
  grep -q "^UPDATE $(tid 1 3) 0 FINISHED .* map_bytes=$(($(wc -c <"$T/in.3") + 1))" "$T/e1.out"

# --- reduce tasks ------------------------------------------------------------
for ((p = 0; p < R; p++)); do
  for s in 1 2; do
    sort=false && ((s == 2)) && sort=true
    send e1 "{\"tid\":$(tid $((10 + s)) $p),\"attempt\":0,\"cmd\":[\"cat\"],\"reduce\":{\"shuffle\":$s,\"partition\":$p,\"sort\":$sort,\"servers\":[{\"url\":\"$WURL\"}],\"blocks\":$(blocks 0 $s $M $p)}}"
    send e2 "{\"tid\":$(tid $((10 + s)) $p),\"attempt\":0,\"fn\":\"cat\",\"reduce\":{\"shuffle\":$s,\"partition\":$p,\"sort\":$sort,\"servers\":[{\"url\":\"$WURL\"}],\"blocks\":$(blocks 0 $s $M $p)}}"
  done
done
send e2 "{\"tid\":$(tid 13 0),\"attempt\":0,\"cmd\":[\"cat\"],\"reduce\":{\"shuffle\":3,\"partition\":0,\"servers\":[],\"blocks\":$(blocks -1 3 $M 0)}}"
# reduced NAME STAGE SHUFFLE_SORT: every partition's result is the
# reference.
reduced() {
  local p line sort=-
  [[ $3 == true ]] && sort=sorted
  for ((p = 0; p < R; p++)); do
    line=$(update "$1" "$(tid "$2" $p)") || return 1
    [[ $line == *" FINISHED"* ]] || { echo "$line" >&2; return 1; }
    same <(result "$1" "$(tid "$2" $p)") <(reference $R $p $sort "${IN[@]}") ||
      { say "partition $p differs"; return 1; }
  done
}
check "command reduces read in place (e1): every partition as the reference" \
  reduced e1 11 false
check "... sorted by key, ties in map order" reduced e1 12 true
check "function reduces fetch over TCP (e2): the same bytes" reduced e2 11 false
check "... sorted" reduced e2 12 true
check "R=1 in local[N]: every record, in map order" \
  same <(update e2 "$(tid 13 0)" >/dev/null; result e2 "$(tid 13 0)") \
  <(reference 1 0 - "${IN[@]}")
check "the reduces' fetched blocks are removed" \
  test -z "$(find "$T/e2" -name '.reduce-*')"

# --- a chain: reduce shuffle 2 and map into shuffle 4 ---------------------
for ((p = 0; p < R; p++)); do
  send e1 "{\"tid\":$(tid 20 $p),\"attempt\":0,\"cmd\":[\"cat\"],\"reduce\":{\"shuffle\":2,\"partition\":$p,\"sort\":true,\"servers\":[{\"url\":\"$WURL\"}],\"blocks\":$(blocks 0 2 $M $p)},\"map\":{\"shuffle\":4,\"partitions\":3,\"sort\":true}}"
  reference $R $p sorted "${IN[@]}" >"$T/mid.$p"
done
check "reduce-and-map tasks finish with map sizes" maps_done e1 20 $R
for q in 0 1 2; do
  send e2 "{\"tid\":$(tid 21 $q),\"attempt\":0,\"fn\":\"cat\",\"reduce\":{\"shuffle\":4,\"partition\":$q,\"sort\":true,\"servers\":[{\"url\":\"$WURL\"}],\"blocks\":$(blocks 0 20 $R $q)}}"
done
for q in 0 1 2; do
  check "chained shuffle, partition $q: as the reference" \
    same <(update e2 "$(tid 21 $q)" >/dev/null; result e2 "$(tid 21 $q)") \
    <(reference 3 $q sorted "$T"/mid.{0..6})
done

# --- outputs -----------------------------------------------------------------
OUT=$T/out/_temporary
send e1 "{\"tid\":$(tid 30 1),\"attempt\":0,\"cmd\":[\"cat\"],\"reduce\":{\"shuffle\":1,\"partition\":1,\"servers\":[{\"url\":\"$WURL\"}],\"blocks\":$(blocks 0 1 $M 1)},\"output\":\"$OUT/part-00001.0\"}"
send e1 "{\"tid\":$(tid 30 2),\"attempt\":0,\"fn\":\"echo\",\"arg\":\"hello\",\"output\":\"$OUT/part-00002.0\"}"
send e1 "{\"tid\":$(tid 30 3),\"attempt\":0,\"cmd\":[\"sh\",\"-c\",\"echo partial; exit 3\"],\"output\":\"$OUT/part-00003.0\"}"
line=$(update e1 "$(tid 30 1)")
check "an output task writes its file (its parent made), as the reference" \
  same "$OUT/part-00001.0" <(reference $R 1 - "${IN[@]}")
check "... reports output_bytes, and no result" \
  grep -q "FINISHED output_bytes=$(wc -c <"$OUT/part-00001.0") exit=0$" <<<"$line"
update e1 "$(tid 30 2)" >/dev/null
check "a function's result goes to its output file" \
  same "$OUT/part-00002.0" <(echo hello)
check "a failed output task: FAILED, its file removed" \
  eval 'update e1 "$(tid 30 3)" | grep -q "FAILED exit=3" && test ! -e "$OUT/part-00003.0"'

# --- a damaged block ---------------------------------------------------------
# The first partition with data of map 3 of shuffle 1, damaged on disk.
k=0
while (($(sed -n "$((k + 1))p" <<<"$SIZES_1_3") < 40)); do k=$((k + 1)); done
printf 'X' | dd of="$T/w1/shuffle/$APP_ID/1/3.0" bs=1 seek=20 conv=notrunc 2>/dev/null
send e1 "{\"tid\":$(tid 40 $k),\"attempt\":0,\"cmd\":[\"cat\"],\"reduce\":{\"shuffle\":1,\"partition\":$k,\"servers\":[{\"url\":\"$WURL\"}],\"blocks\":$(blocks 0 1 $M $k)}}"
send e2 "{\"tid\":$(tid 40 $k),\"attempt\":0,\"fn\":\"cat\",\"reduce\":{\"shuffle\":1,\"partition\":$k,\"servers\":[{\"url\":\"$WURL\"}],\"blocks\":$(blocks 0 1 $M $k)}}"
check "a damaged block read in place: FAILED with fetch_failed naming map 3" \
  grep -q "FAILED fetch_failed=1/3.0@$WURL .*error=fetch failed: map output 1/3.0 of $WURL: .*checksum" \
  <<<"$(update e1 "$(tid 40 $k)")"
check "... and fetched over TCP: the same" \
  grep -q "FAILED fetch_failed=1/3.0@$WURL .*checksum" <<<"$(update e2 "$(tid 40 $k)")"

# --- 300 MiB to a command's stdin, in bounded memory ----------------------
send e2 "{\"tid\":$(tid 50 0),\"attempt\":0,\"cmd\":[\"sh\",\"-c\",\"head -c 314572800 /dev/zero | tr '\\\\0' a | fold -w 99\"],\"map\":{\"shuffle\":50,\"partitions\":1}}"
check "a map task of 300 MiB finishes" maps_done e2 50 1
BYTES=$(grep -o "^UPDATE $(tid 50 0) 0 FINISHED .*map_bytes=[0-9]*" "$T/e2.out" | grep -o '[0-9]*$')
# A fresh executor on the same shuffle dir reads it: its peak RSS is the
# reduce's (e2's includes the map's buffers).
start_tool e4 || fail "exec-tool e4"
mkdir -p "$T/e4"
HEARTH_TOKEN=$TOKEN "$BIN/hearth-executor" --driver-url "$URL_e4" \
  --app-id "$APP_ID" --cores 1 --work-dir "$T/e4" --shuffle-dir "$T/local" \
  --max-input-bytes 64K --heartbeat-interval 200ms >>"$T/e4.log" 2>&1 &
E4_PID=$!
PIDS+=($E4_PID)
wait_for 20 grep -q '^REGISTERED' "$T/e4.out"
send e4 "{\"tid\":$(tid 51 0),\"attempt\":0,\"cmd\":[\"wc\",\"-c\"],\"reduce\":{\"shuffle\":50,\"partition\":0,\"servers\":[],\"blocks\":$(blocks -1 50 1 0)}}"
update e4 "$(tid 51 0)" >/dev/null
check "wc -c reads every byte of it ($BYTES)" test "$(result e4 "$(tid 51 0)")" = "$BYTES"
HWM=$(awk '/^VmHWM/{print $2}' "/proc/$E4_PID/status")
send e4 "{\"tid\":$(tid 52 0),\"attempt\":0,\"fn\":\"cat\",\"reduce\":{\"shuffle\":3,\"partition\":0,\"servers\":[],\"blocks\":$(blocks -1 3 $M 0)}}"
check "a function's reduce input over max-input-bytes: FAILED, naming both sizes" \
  grep -q "FAILED error=the reduce input of partition 0 is $(cat "${IN[@]}" | wc -c | awk '{print $1 + 1}') bytes, over max-input-bytes (65536)" \
  <<<"$(update e4 "$(tid 52 0)")"
say "the executor's peak RSS while it streamed $((BYTES >> 20)) MiB: $((HWM >> 10)) MiB"
check "... with the executor's RSS well below the input (< 64 MiB)" \
  test "$HWM" -lt $((64 * 1024))

# --- a full shuffle directory -----------------------------------------------
mkdir -p "$T/tiny"
if mount -t tmpfs -o size=2m tmpfs "$T/tiny" 2>/dev/null; then
  trap 'umount "$T/tiny" 2>/dev/null; cleanup' EXIT
  start_tool e3 || fail "exec-tool e3"
  HEARTH_TOKEN=$TOKEN "$BIN/hearth-executor" --driver-url "$URL_e3" \
    --app-id "$APP_ID" --cores 1 --work-dir "$T/e3" --shuffle-dir "$T/tiny" \
    --shuffle-memory 256K --heartbeat-interval 200ms >>"$T/e3.log" 2>&1 &
  PIDS+=($!)
  wait_for 20 grep -q '^REGISTERED' "$T/e3.out"
  BIG="head -c 4194304 /dev/zero | tr '\\\\0' b | fold -w 63"
  send e3 "{\"tid\":$(tid 60 0),\"attempt\":0,\"cmd\":[\"sh\",\"-c\",\"$BIG\"],\"map\":{\"shuffle\":60,\"partitions\":2}}"
  send e3 "{\"tid\":$(tid 60 1),\"attempt\":0,\"cmd\":[\"sh\",\"-c\",\"$BIG\"],\"output\":\"$T/tiny/out/part-00001.0\"}"
  check "a map task on a full disk: FAILED, saying so and naming its output" \
    grep -q "FAILED .*error=map output $T/tiny/$APP_ID/60/0.0: .*No space left on device" \
    <<<"$(update e3 "$(tid 60 0)")"
  check "... nothing of it is left" test -z "$(find "$T/tiny/$APP_ID" -type f)"
  check "an output task on a full disk: FAILED, naming its file" \
    grep -q "FAILED .*error=output $T/tiny/out/part-00001.0: No space left on device" \
    <<<"$(update e3 "$(tid 60 1)")"
  check "... and its file is removed" test ! -e "$T/tiny/out/part-00001.0"
else
  say "SKIP the full-disk cases: mount -t tmpfs is refused here"
fi
finish
