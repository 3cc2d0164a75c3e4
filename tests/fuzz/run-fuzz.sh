#!/bin/sh
# run-fuzz.sh - run the wire decoder's libFuzzer target for a bounded time.
#
# `make check` runs it for FUZZ_SECONDS=20 (the default here); `make fuzz`
# runs it for FUZZ_SECONDS=60 unless told otherwise.  It runs from the top
# of the build tree, builds tests/fuzz/fuzz_decode there if it is missing,
# fuzzes a fresh copy of the seed corpus in tests/fuzz/fuzz-work/, and
# fails on any crash, leak, timeout or sanitizer report, leaving the
# work directory (crash-*, leak-*, fuzz.log) for inspection.  Without
# clang it exits 77, which the test harness reports as SKIP.
set -u

seconds=${FUZZ_SECONDS:-20}
srcdir=${srcdir:-$(dirname "$0")/../..}
fuzzer=tests/fuzz/fuzz_decode
work=tests/fuzz/fuzz-work
seeds=$srcdir/tests/fuzz/corpus/decode

if [ ! -x "$fuzzer" ]; then
    if ! command -v clang >/dev/null 2>&1 \
        && ! command -v clang-14 >/dev/null 2>&1; then
        echo "run-fuzz: SKIP: clang not found, so the libFuzzer target" \
            "cannot be built (install the Debian package clang, then" \
            "re-run configure)"
        exit 77
    fi
    # MAKEFLAGS of a parent make would point at its jobserver
    MAKEFLAGS= ${MAKE:-make} "$fuzzer" || {
        echo "run-fuzz: FAIL: cannot build $fuzzer" >&2
        exit 1
    }
fi

rm -rf "$work"
mkdir -p "$work/corpus" || exit 1
cp "$seeds"/* "$work/corpus/" && chmod u+w "$work/corpus"/* || exit 1

# libFuzzer's own exit code for a finding is 77 by default: the harness
# would read that as SKIP, so make every finding exit 1.
echo "run-fuzz: fuzzing the decoder for ${seconds}s (log: $work/fuzz.log)"
"$fuzzer" -max_total_time="$seconds" -max_len=8192 -timeout=10 \
    -rss_limit_mb=2048 -error_exitcode=1 -timeout_exitcode=1 \
    -print_final_stats=1 -dict="$srcdir/tests/fuzz/decode.dict" \
    -artifact_prefix="$work/" "$work/corpus" >"$work/fuzz.log" 2>&1
status=$?

runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/fuzz.log")
if [ $status -ne 0 ] \
    || grep -q -e 'ERROR: AddressSanitizer' -e 'ERROR: LeakSanitizer' \
        -e 'runtime error:' -e 'deadly signal' -e '^fuzz_decode:' \
        "$work/fuzz.log"; then
    tail -n 60 "$work/fuzz.log"
    echo "run-fuzz: FAIL: exit status $status after ${runs:-?} runs;" \
        "artifacts in $work/" >&2
    exit 1
fi
corpus=$(ls "$work/corpus" | wc -l)
echo "run-fuzz: PASS: ${runs:-?} runs in ${seconds}s, no findings," \
    "corpus grew to $corpus inputs"
rm -rf "$work"
exit 0
