#!/usr/bin/env bash
# A shipped library's chunks as a real hearth-executor fetches them from
# exec-tool, which plays the driver (FETCH_FILE in, FILE_CHUNK out): a
# chunk that arrives damaged (a wrong CRC-32C) is asked for again, alone,
# and the library is loaded and used; one damaged every time is given up
# after 4 asks, and the function tasks fail with that error, not with
# "no such function" (test-shipfiles.sh covers the rest, on a cluster).
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 120
APP=app-20260101000000-0001

# run NAME CORRUPT: exec-tool damaging the first CORRUPT chunks, and an
# executor of its own; one function task (echo "hi"); waits for its end.
run() {
  local name=$1 fd
  mkfifo "$T/$name.in"
  "$TBIN/exec-tool" --lib "$TASKS_LIB" --corrupt "$2" <"$T/$name.in" \
    >"$T/$name.out" 2>"$T/$name.err" &
  PIDS+=($!)
  exec {fd}>"$T/$name.in"
  wait_for 10 grep -q '^LISTENING ' "$T/$name.out" || return 1
  mkdir -p "$T/$name"
  HEARTH_TOKEN=t "$BIN/hearth-executor" --app-id "$APP" --cores 1 \
    --driver-url "$(awk '/^LISTENING/{print $2}' "$T/$name.out")" \
    --work-dir "$T/$name" --heartbeat-interval 200ms >"$T/$name.log" 2>&1 &
  PIDS+=($!)
  printf '{"tid": 7, "attempt": 0, "fn": "echo", "arg": "hi"}\n' >&"$fd"
  wait_for 60 grep -q '^UPDATE 7 0 ' "$T/$name.out"
  exec {fd}>&-
}
# asks NAME: how many times chunk 0 was asked for.
asks() { grep -c '^FETCH 0 ' "$T/$1.out"; }

run once 1
check "a chunk damaged once: the task runs with the library" \
  grep -q '^UPDATE 7 0 FINISHED' "$T/once.out"
check "... the chunk was asked for again, once" test "$(asks once)" = 2
check "... the executor said why" \
  grep -q 'chunk 0 arrived corrupted (its CRC-32C or length): asked for again' \
  "$T/once.log"
check "... the library is in the cache, whole" \
  cmp -s "$TASKS_LIB" "$T/once/.files/$(sha1sum <"$TASKS_LIB" | cut -c1-40 |
    tr a-f A-F)-libtesttasks.so"

run always 1000
check "a chunk damaged every time: asked for 4 times" test "$(asks always)" = 4
check "... the task fails with that error" \
  grep -q '^UPDATE 7 0 FAILED.*libtesttasks.so: chunk 0: arrived corrupted' \
  "$T/always.out"
check "... nothing of it in the cache" \
  test -z "$(ls -A "$T/always/.files")"
finish
