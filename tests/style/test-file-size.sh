#!/usr/bin/env bash
# Files of one concept stay small enough to read: no C source or header
# of the project (programs, libcore, tools, examples, tests) is over 700
# lines.  A file that grows past it is split by concept (STYLE.md), not
# let through here.
set -uo pipefail

srcdir=${srcdir:-$(dirname "$0")/../..}
max=700
passed=0 failed=0
while IFS= read -r -d '' f; do
    n=$(wc -l <"$f")
    if [ "$n" -gt "$max" ]; then
        echo "too long: ${f#"$srcdir"/} has $n lines (at most $max): split it by concept"
        failed=$((failed + 1))
    else
        passed=$((passed + 1))
    fi
done < <(find "$srcdir"/libcore "$srcdir"/master "$srcdir"/worker \
    "$srcdir"/executor "$srcdir"/driver "$srcdir"/tools "$srcdir"/examples \
    "$srcdir"/tests -name '*.[ch]' -print0 | sort -z)
echo "$passed passed, $failed failed"
[ "$passed" -gt 0 ] && [ "$failed" -eq 0 ]
