#!/usr/bin/env bash
# Every C source and header is formatted by the checked-in .clang-format:
# clang-format --dry-run -Werror on each, naming the files that are not.
# Skipped (77) when clang-format is absent; scripts/install-deps installs it.
set -uo pipefail

srcdir=${srcdir:-$(dirname "$0")/../..}
if ! command -v clang-format >/dev/null; then
    echo "SKIP: clang-format not installed"
    exit 77
fi

passed=0 failed=0
while IFS= read -r -d '' f; do
    if clang-format --style=file --dry-run -Werror "$f" >/dev/null 2>&1; then
        passed=$((passed + 1))
    else
        echo "not formatted: ${f#"$srcdir"/} (clang-format -i ${f#"$srcdir"/})"
        failed=$((failed + 1))
    fi
done < <(find "$srcdir"/libcore "$srcdir"/master "$srcdir"/worker \
    "$srcdir"/executor "$srcdir"/driver "$srcdir"/tools "$srcdir"/examples \
    "$srcdir"/tests -name '*.[ch]' -print0 | sort -z)

echo "$passed passed, $failed failed"
[ "$passed" -gt 0 ] && [ "$failed" -eq 0 ]
