#!/bin/sh
# timed-test.sh TEST [ARGS...] - the test harness's LOG_COMPILER
# (Makefile.am): runs one test and, when HEARTH_TEST_TIMES names a file
# (scripts/test sets it), adds a line "MILLISECONDS TEST" to it, so that
# the suite can say which tests make it long.  Exits with the test's
# status; the test's output goes where the harness sent this one's.
#
# With HEARTH_NO_SKIP=1 (scripts/test sets it, once it has installed every
# package the tests need) a skip is a failure: a test that exits 77 exits
# 1 instead, saying so, unless tests/lib/may-skip.txt lists the test with
# the skip message it printed (a reason of the host's, not a missing
# package).  The message is read back from the test's log: the harness
# sends this script's output to that file (a skip whose output is not a
# file, as when run by hand into a pipe, cannot be checked and fails).
if [ -z "${HEARTH_TEST_TIMES:-}" ] && [ "${HEARTH_NO_SKIP:-}" != 1 ]; then
    exec "$@"
fi

# Whether the may-skip list has test $1 with a skip message that the last
# lines of its log match.
s_may_skip() {
    list=$(dirname "$0")/may-skip.txt
    log=$(readlink "/proc/$$/fd/1" 2>/dev/null) || return 1
    [ -f "$log" ] && [ -f "$list" ] || return 1
    tab=$(printf '\t')
    grep -v '^#' "$list" | while IFS="$tab" read -r name pattern why; do
        case "$1" in
        *"$name") tail -n 20 "$log" | grep -Eq -- "$pattern" && echo yes ;;
        esac
    done | grep -q yes
}

start=$(date +%s%N)
"$@"
rc=$?
end=$(date +%s%N)
if [ -n "${HEARTH_TEST_TIMES:-}" ]; then
    echo "$(((end - start) / 1000000)) $1" >>"$HEARTH_TEST_TIMES"
fi
if [ "$rc" -eq 77 ] && [ "${HEARTH_NO_SKIP:-}" = 1 ] && ! s_may_skip "$1"; then
    echo "FAIL: $1 skipped (exit 77) under HEARTH_NO_SKIP=1, where every" \
        "package it needs was installed: a skip is a failure here" \
        "(tests/lib/may-skip.txt lists the host's reasons that are not)"
    exit 1
fi
exit $rc
