#!/usr/bin/env bash
# Files of one concept stay small enough to read.  Every C source and
# header of the project (every folder of the source tree: the programs,
# libcore, tools, examples, tests) is checked:
#   - past 800 lines, a warning is printed (the file may be growing a
#     second concept: look before it does), and the test still passes;
#   - past 1,000 lines, the test fails: split the file by concept
#     (STYLE.md).
# The limits shape files by concept, not by their comments: never shorten
# a comment that says why to fit under a line count (issue 36: a check at
# 700 lines had files squeezed back under it by trimming their comments).
# Build trees inside the source tree (a folder holding config.status) and
# hidden folders (.git) are not the project's sources and are skipped.
set -uo pipefail

srcdir=${srcdir:-$(dirname "$0")/../..}
warn=800
max=1000
passed=0 failed=0 warned=0
while IFS= read -r -d '' f; do
    n=$(wc -l <"$f")
    name=${f#"$srcdir"/}
    if [ "$n" -gt "$max" ]; then
        echo "too long: $name has $n lines (at most $max): split it by concept"
        failed=$((failed + 1))
    else
        if [ "$n" -gt "$warn" ]; then
            echo "warning: $name has $n lines (over $warn): does it hold" \
                "more than one concept?"
            warned=$((warned + 1))
        fi
        passed=$((passed + 1))
    fi
done < <(find "$srcdir" -mindepth 1 \
    \( -name '.*' -o -type d -exec test -e '{}/config.status' \; \) -prune \
    -o -type f -name '*.[ch]' -print0 | sort -z)
echo "$passed passed ($warned over $warn lines), $failed failed"
[ "$passed" -gt 0 ] && [ "$failed" -eq 0 ]
