#!/usr/bin/env bash
# Broadcast files (issue 38): a job file's top-level "broadcast" and the C
# API's hearth_broadcast_file.
# - A job file with "broadcast": {"REF": "ref.txt"} (found beside it), on
#   a hand-started cluster of 2 workers: each of 4 command tasks reads
#   the file at $HEARTH_BROADCAST_REF, exact; that path is in its node's
#   cache, read-only (mode 400), and no copy is in any work dir.
# - The same in local-cluster.
# - Bad names refused before anything runs, with the rule: lower case,
#   a leading digit, a '-', an empty one; a file that is not there.
# - The C API (test-broadcast-api): its refusals (the names, a missing
#   file, one name twice, a file added once a job was submitted: EBUSY),
#   and function tasks reading the file by hearth_task_broadcast and
#   command tasks by the variable, exact.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 300
export TMPDIR=$T

mkdir -p "$T/jobs"
printf 'first line\nsecond line\n' >"$T/jobs/ref.txt"
# each task: the file's bytes, then what it found about where it is
TASK='cat \"$HEARTH_BROADCAST_REF\"; case $HEARTH_BROADCAST_REF in */.ship/*-REF) echo in-cache;; esac; stat -c mode-%a \"$HEARTH_BROADCAST_REF\"; ls | grep -c REF || true'
bjob() { # bjob NAME BROADCAST-OBJECT
  printf '%s\n' "{\"name\": \"$1\", \"broadcast\": $2, \"stages\":
    [{\"name\": \"s\", \"tasks\": [{\"cmd\": [\"sh\", \"-c\", \"$TASK\"],
    \"count\": 4}]}]}" >"$T/jobs/$1.json"
  echo "$T/jobs/$1.json"
}
expected() {
  for i in 1 2 3 4; do printf 'first line\nsecond line\nin-cache\nmode-400\n0\n'; done
}

start_master || { fail "master"; finish; exit 1; }
CORES=2 start_worker w1 || fail "worker w1"
CORES=2 start_worker w2 || fail "worker w2"
J=$(bjob ref '{"REF": "ref.txt"}')
check "a job file's broadcast REF on 2 workers" \
  submit --master "$MASTER_URL" --executor-cores 1 --total-executor-cores 4 "$J"
check "... each task read it at \$HEARTH_BROADCAST_REF, in its node's cache, mode 400, no copy in its work dir" \
  same "$T/out" <(expected)
check "... in the nodes' caches, read-only" \
  eval 'test -n "$(find "$T"/w[12]/app-*/.ship -name "*-REF")" &&
    test -z "$(find "$T"/w[12]/app-*/.ship -name "*-REF" ! -perm 400)"'
check "... no work dir holds it" \
  test -z "$(find "$T"/w[12]/app-*/[0-9]* -name '*REF*')"

check "local-cluster: the same" \
  submit --master 'local-cluster[2,1,512]' "$J"
check "... exact" same "$T/out" <(expected)

refused() { # refused DESCRIPTION BROADCAST-OBJECT MESSAGE
  local j
  j=$(bjob bad "$2")
  expect_fail submit --master 'local[1]' "$j" && grep -qF -- "$3" "$T/err" ||
    { say "$(cat "$T/err")"; return 1; }
}
RULE="a name is upper-case letters, digits and _, not starting with a digit"
check "a lower-case name is refused, with the rule" \
  refused lower '{"ref": "ref.txt"}' "broadcast variable 'ref': $RULE"
check "a name starting with a digit is refused" \
  refused digit '{"1REF": "ref.txt"}' "broadcast variable '1REF': $RULE"
check "a name with a '-' is refused" \
  refused dash '{"RE-F": "ref.txt"}' "broadcast variable 'RE-F': $RULE"
check "an empty name is refused" refused empty '{"": "ref.txt"}' "$RULE"
check "a file that is not there is refused" \
  refused missing '{"REF": "nothere.txt"}' "broadcast REF: cannot read"
check "a broadcast that is not an object is refused" \
  refused list '["ref.txt"]' "broadcast: expected an object"

# --- the C API ------------------------------------------------------------
api_expected() {
  cat <<EOF
refused: data (EINVAL): broadcast variable 'data': $RULE, at most 64 of them (it becomes HEARTH_BROADCAST_NAME)
refused: 1DATA (EINVAL): broadcast variable '1DATA': $RULE, at most 64 of them (it becomes HEARTH_BROADCAST_NAME)
refused: DA-TA (EINVAL): broadcast variable 'DA-TA': $RULE, at most 64 of them (it becomes HEARTH_BROADCAST_NAME)
refused:  (EINVAL): broadcast variable '': $RULE, at most 64 of them (it becomes HEARTH_BROADCAST_NAME)
refused: NOFILE (EINVAL): broadcast NOFILE: /nonexistent/file: No such file or directory
refused: DATA (EINVAL): broadcast DATA: named twice
fn 0: first line
second line
fn 1: first line
second line
cmd 0: first line
second line
cmd 1: first line
second line
refused: LATE (EBUSY): broadcast LATE: a job was submitted already: broadcast files are added before the first job
EOF
}
check "the C API in local-cluster: refusals, then function and command tasks" \
  submit --master 'local-cluster[2,1,512]' --lib "$TASKS_LIB" \
  "$BIN/tests/driver/test-broadcast-api" "$T/jobs/ref.txt"
check "... exact" same "$T/out" <(api_expected)
finish
