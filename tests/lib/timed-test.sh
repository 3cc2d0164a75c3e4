#!/bin/sh
# timed-test.sh TEST [ARGS...] - the test harness's LOG_COMPILER
# (Makefile.am): runs one test and, when HEARTH_TEST_TIMES names a file
# (scripts/test sets it), adds a line "MILLISECONDS TEST" to it, so that
# the suite can say which tests make it long.  Exits with the test's
# status; the test's output goes where the harness sent this one's.
[ -n "${HEARTH_TEST_TIMES:-}" ] || exec "$@"
start=$(date +%s%N)
"$@"
rc=$?
end=$(date +%s%N)
echo "$(((end - start) / 1000000)) $1" >>"$HEARTH_TEST_TIMES"
exit $rc
