#!/usr/bin/env bash
# Under HEARTH_NO_SKIP=1 (scripts/test, and so CI, sets it once every
# package is installed) a test's skip is a failure, but for the host
# reasons tests/lib/may-skip.txt lists: tests/lib/timed-test.sh, which
# runs every test, turns exit 77 into 1 with a line that says so.  Fake
# tests exercise it: a skip with and without the variable, a skip the
# list allows (the message it names) and the same test skipping for
# another reason, and a pass and a failure, which keep their statuses.
. "$(dirname "$0")/../lib/cluster.sh"
deadline 60
RUN=$(cd "$(dirname "$0")/../lib" && pwd)/timed-test.sh

# fake PATH EXIT MESSAGE: a test at $T/src/PATH that prints MESSAGE and
# exits EXIT.
fake() {
  mkdir -p "$T/src/$(dirname "$1")"
  printf '#!/bin/sh\necho "%s"\nexit %s\n' "$3" "$2" >"$T/src/$1"
  chmod +x "$T/src/$1"
}
# run NAME TEST [VAR=VALUE...]: runs TEST through timed-test.sh as the
# harness does (its output into a log file, $T/NAME.log); prints the status.
run() {
  local name=$1 test=$2; shift 2
  env -u HEARTH_NO_SKIP -u HEARTH_TEST_TIMES "$@" \
    sh "$RUN" "$T/src/$test" >"$T/$name.log" 2>&1
  echo $?
}

fake tests/style/test-skips.sh 77 "SKIP: clang-format not installed"
check "a skip without HEARTH_NO_SKIP stays a skip (77)" \
  test "$(run plain tests/style/test-skips.sh)" = 77
check "... with HEARTH_NO_SKIP=1 it is a failure (1)" \
  test "$(run strict tests/style/test-skips.sh HEARTH_NO_SKIP=1)" = 1
check "... whose log says why" grep -q 'skipped (exit 77) under HEARTH_NO_SKIP=1' "$T/strict.log"
check "... after the test's own output" grep -q 'SKIP: clang-format not installed' "$T/strict.log"
check "... and with the test times noted too" \
  test "$(run timed tests/style/test-skips.sh HEARTH_NO_SKIP=1 HEARTH_TEST_TIMES="$T/times")" = 1
check "... whose time is noted" grep -q "test-skips.sh" "$T/times"

fake tests/integration/test-cgroup-oom.sh 77 \
  "test-cgroup-oom: SKIPPED: no cgroup v1 memory hierarchy mounted"
check "a listed test skipping for its listed reason stays a skip" \
  test "$(run listed tests/integration/test-cgroup-oom.sh HEARTH_NO_SKIP=1)" = 77
fake tests/integration/test-cgroup-oom.sh 77 \
  "test-cgroup-oom: SKIPPED: not root (cgroups need it here)"
check "the same test skipping for another reason fails" \
  test "$(run unlisted tests/integration/test-cgroup-oom.sh HEARTH_NO_SKIP=1)" = 1

fake tests/unit/test-passes.sh 0 "all good"
fake tests/unit/test-fails.sh 1 "not ok"
fake tests/unit/test-hard.sh 99 "hard error"
check "a pass stays a pass" test "$(run pass tests/unit/test-passes.sh HEARTH_NO_SKIP=1)" = 0
check "a failure stays a failure" test "$(run fails tests/unit/test-fails.sh HEARTH_NO_SKIP=1)" = 1
check "a hard error stays a hard error (99)" \
  test "$(run hard tests/unit/test-hard.sh HEARTH_NO_SKIP=1)" = 99

# Every line of the list names a test of the suite, a pattern and a reason.
list=$(dirname "$RUN")/may-skip.txt
while IFS=$'\t' read -r name pattern why; do
  [[ $name == \#* || -z $name ]] && continue
  check "may-skip.txt: $name exists" test -f "$(dirname "$RUN")/../../$name"
  check "may-skip.txt: $name has a pattern and a reason" test -n "$pattern" -a -n "$why"
done <"$list"
finish
