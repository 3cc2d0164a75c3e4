#!/usr/bin/env bash
# The driver, its executors and (in local-cluster mode) its master and
# workers under valgrind, following every Hearth child: jobs that succeed
# and jobs that fail end with no memory error and no leak in any of them
# (small outputs kept by the driver, part files committed with its leave
# and read back by "foreach": {"parts": DIR} among them).
# Runs only in a build without sanitizers.
command -v valgrind >/dev/null || { echo "valgrind not installed: skipped"; exit 77; }
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 300
export TMPDIR=$T

# vg_run PROGRAM ARGS...: $BIN/PROGRAM (hearth-driver or hearth-submit)
# and every child but system programs under valgrind; stdout to $T/out,
# stderr to $T/err.  Liveness 10 s: under valgrind on a loaded 2-core
# machine an executor once missed 2.5 s of heartbeats and the
# local-cluster job was lost (CI, load average 5).
# --child-silent-after-fork: a child between its fork and its exec is
# still its parent's copy (a worker's executor joining its cgroup there
# when clone3 is refused, as under valgrind); one killed in that window
# would have its parent's heap reported as its own leaks.
vg_run() {
  local program=$1
  shift
  valgrind -q --trace-children=yes --trace-children-skip='/bin/*,/usr/bin/*' \
    --child-silent-after-fork=yes --leak-check=full --errors-for-leak-kinds=definite,indirect \
    --error-exitcode=9 --log-file="$T/valgrind-%p.txt" \
    "$BIN/$program" --heartbeat-interval 500ms --heartbeat-liveness 20 \
    "$@" >"$T/out" 2>"$T/err"
}
vg_submit() { vg_run hearth-driver "$@"; }

J=$(job ok '{"name":"ok","lib":"libtesttasks.so","stages":[
  {"name":"m","tasks":[{"cmd":["sh","-c","echo {i}"],"count":30}, {"fn":"echo","arg":"f{i}","count":10}]},
  {"name":"r","tasks":[{"fn":"cat","input":"m"}]}]}')
check "a local job succeeds under valgrind" vg_submit --master 'local[2]' --lib "$TASKS_LIB" "$J"
check "... with its 40 results" test "$(wc -l <"$T/out")" -eq 40

J=$(job bad '{"name":"bad","lib":"libtesttasks.so","stages":[
  {"name":"m","tasks":[{"cmd":["sh","-c","exit {i}"],"count":3}, {"fn":"fail","arg":"x"}]}]}')
vg_submit --master 'local[2]' --lib "$TASKS_LIB" --max-failures 2 "$J"
check "a failing local job fails under valgrind (exit 1)" test $? -eq 1

J=$(job lc '{"name":"lc","stages":[{"name":"m","tasks":[{"cmd":["echo","{i}"],"count":20}]}]}')
check "a local-cluster job succeeds under valgrind" \
  vg_submit --master 'local-cluster[2,1,512]' "$J"
check "... with its 20 results" test "$(wc -l <"$T/out")" -eq 20
# part files committed with the driver's leave (ASK_COMMIT), their
# manifest written, then read back one task per part
JO=$(job out '{"name":"out","stages":[{"name":"w","output":"'"$T"'/out.d",
  "tasks":[{"cmd":["echo","p{i}"],"count":6}]}]}')
check "an output stage succeeds under valgrind" \
  vg_submit --master 'local-cluster[2,1,512]' "$JO"
JP=$(job parts '{"name":"parts","stages":[{"name":"r","tasks":[{"cmd":["cat","{item}"],
  "foreach":{"parts":"'"$T"'/out.d"}}]}]}')
check "... and its parts read back, one task each" \
  vg_submit --master 'local[2]' "$JP"
check "... exact" same "$T/out" <(printf 'p%d\n' 0 1 2 3 4 5)
# hearth-submit runs a job file's driver in its own process (jobrun.h):
# the same job through it, its options and hearth-driver's both freed.
check "a local job through hearth-submit succeeds under valgrind" \
  vg_run hearth-submit --master 'local[2]' "$J"
check "... with its 20 results" test "$(wc -l <"$T/out")" -eq 20
check "valgrind followed the master, workers and executors too" \
  test "$(ls "$T"/valgrind-*.txt | wc -l)" -ge 6
check "no valgrind report from any process" no_valgrind_report
check "nothing is left running" no_leftovers
finish
