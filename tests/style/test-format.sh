#!/usr/bin/env bash
# Every C source and header is formatted by the checked-in .clang-format:
# clang-format --dry-run -Werror on all of them, naming the files that are not.
# Skipped (77) when clang-format is absent; scripts/install-deps installs it.
set -uo pipefail

srcdir=${srcdir:-$(dirname "$0")/../..}
if ! command -v clang-format >/dev/null; then
    echo "SKIP: clang-format not installed"
    exit 77
fi

# One clang-format over every file (one process a file took half a
# minute), which names each misformatted file in its errors.  Every
# folder of the source tree, as test-file-size.sh reads it (a fixed list
# of folders had left history/ out): build trees inside it (a folder
# holding config.status) and hidden folders are skipped.
files=()
while IFS= read -r -d '' f; do files+=("$f"); done < <(find "$srcdir" -mindepth 1 \
    \( -name '.*' -o -type d -exec test -e '{}/config.status' \; \) -prune \
    -o -type f -name '*.[ch]' -print0 | sort -z)
out=$(clang-format --style=file --dry-run -Werror "${files[@]}" 2>&1)
rc=$?
bad=$(sed -n 's/^\(.*\.[ch]\):[0-9]*:[0-9]*: error: .*/\1/p' <<<"$out" | sort -u)
for f in $bad; do
    echo "not formatted: ${f#"$srcdir"/} (clang-format -i ${f#"$srcdir"/})"
done
failed=$(grep -c . <<<"$bad")
passed=$((${#files[@]} - failed))
if ((rc != 0 && failed == 0)); then # it failed, but named no file
    echo "clang-format failed: $(head -3 <<<"$out")"
    failed=1
fi
echo "$passed passed, $failed failed"
[ "$passed" -gt 0 ] && [ "$failed" -eq 0 ]
