#!/usr/bin/env bash
# A task that fails for a reason a retry cannot change fails its job at
# the first attempt (issue 13, "smaller ones"): no such function in the
# shipped library, a command that is not found or cannot be executed.
# Other failures still get their max-failures attempts.  With the default
# max-failures (4) throughout; local mode and a cluster alike.  A function
# that no shipped library defines is refused before any task runs, and a
# file that is not a shared library before anything starts (issue 42
# item 11): the executor's one attempt remains for a library whose
# symbols the driver cannot read (no section headers).
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 120
export TMPDIR=$T

printf 'not a program\n' >"$T/not-executable"
chmod 0644 "$T/not-executable"

# permanent NAME WHAT ERROR JOB [ARGS...]: the job fails after one
# attempt, with an error naming WHAT.
permanent() {
  local name=$1 what=$2 error=$3 j=$4
  shift 4
  submit --log-level info "$@" "$j"
  check "$name: the job fails (exit 1)" test $? -eq 1
  check "$name: after one attempt" grep -q "task 0 failed 1 time; last error: $error" "$T/err"
  check "$name: not retried" eval "! grep -q 'trying again' '$T/err'"
  check "$name: the error names $what" grep -q -- "$what" "$T/err"
}

# refused: the job file's path and the run's error, nothing ran
refused() {
  local name=$1 error=$2
  shift 2
  submit --log-level info "$@"
  check "$name: refused (exit 1)" test $? -eq 1
  check "$name: saying why" grep -qF -- "$error" "$T/err"
  check "$name: before any task ran" eval "! grep -q 'failed 1 time' '$T/err'"
}
FN=$(job nofn '{"name":"nofn","lib":"libtesttasks.so","stages":[{"name":"f","tasks":[{"count":3,"fn":"echo","arg":"{i}"},{"fn":"no_such_fn"}]}]}')
refused "missing function" \
  'stage "f", task 3: no function no_such_fn in the shipped libraries (libtesttasks.so)' \
  --master 'local[2]' --lib "$TASKS_LIB" "$FN"
NOLIB=$(job nolib '{"name":"nolib","stages":[{"name":"f","tasks":[{"fn":"echo"}]}]}')
refused "a function and no library" \
  'stage "f", task 0: function echo, but the application ships no library (--lib)' \
  --master 'local[2]' "$NOLIB"
printf 'not a library\n' >"$T/libtext.so"
refused "a library that is not ELF" \
  "library $T/libtext.so is not a shared library: not an ELF file" \
  --master 'local[2]' --lib "$T/libtext.so" "$NOLIB"
refused "a program given as a library" "is a position-independent executable" \
  --master 'local[2]' --lib "$BIN/hearth-tail" "$NOLIB"
# The same library without its section headers loads (the dynamic
# linker reads program headers only), but the driver cannot list its
# functions: the executor finds the function missing, once.
cp "$TASKS_LIB" "$T/libtesttasks.so"
printf '\0\0\0\0\0\0\0\0' | dd of="$T/libtesttasks.so" bs=1 seek=40 \
  conv=notrunc status=none # e_shoff of an Elf64_Ehdr
FN0=$(job nofn0 '{"name":"nofn0","lib":"libtesttasks.so","stages":[{"name":"f","tasks":[{"fn":"no_such_fn"}]}]}')
permanent "missing function" no_such_fn 'no function no_such_fn in the shipped' \
  "$FN0" --master 'local[2]' --lib "$T/libtesttasks.so"
CMD=$(job nocmd '{"name":"nocmd","stages":[{"name":"m","tasks":[{"cmd":["no-such-command-xyz","a"]}]}]}')
permanent "command not in PATH" no-such-command-xyz \
  'cannot run no-such-command-xyz: No such file or directory' "$CMD" --master 'local[2]'
ABS=$(job abscmd '{"name":"abscmd","stages":[{"name":"m","tasks":[{"cmd":["/no/such/program"]}]}]}')
permanent "missing program" /no/such/program \
  'cannot run /no/such/program: No such file or directory' "$ABS" --master 'local[2]'
NX=$(job nxcmd "{\"name\":\"nxcmd\",\"stages\":[{\"name\":\"m\",\"tasks\":[{\"cmd\":[\"$T/not-executable\"]}]}]}")
permanent "file not executable" "$T/not-executable" \
  "cannot run $T/not-executable: Permission denied" "$NX" --master 'local[2]'

# Against a cluster: the same, one attempt.
start_master || exit 1
start_worker w1 || exit 1
permanent "cluster: missing command" no-such-command-xyz \
  'cannot run no-such-command-xyz: No such file or directory' "$CMD" \
  --master "$MASTER_URL" --executor-memory 512M
refused "cluster: missing function" \
  'stage "f", task 3: no function no_such_fn in the shipped libraries' \
  --master "$MASTER_URL" --executor-memory 512M --lib "$TASKS_LIB" "$FN"
permanent "cluster: missing function, symbols unread" no_such_fn \
  'no function no_such_fn in the shipped' \
  "$FN0" --master "$MASTER_URL" --executor-memory 512M --lib "$T/libtesttasks.so"

# A failure that may be transient still gets every attempt.
M=$T/attempts
J=$(job flaky "{\"name\":\"flaky\",\"stages\":[{\"name\":\"s\",\"tasks\":[{\"cmd\":
  [\"sh\",\"-c\",\"echo x >>$M; exit 1\"]}]}]}")
submit --master 'local[2]' "$J"
check "a command that exits 1 fails its job" test $? -eq 1
check "... after the default 4 attempts" test "$(wc -l <"$M")" -eq 4
check "nothing is left running" eval 'wait_for 10 none_in "$T/w1" && ! executors_running'
finish
