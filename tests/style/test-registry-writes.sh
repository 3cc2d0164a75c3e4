#!/usr/bin/env bash
# Only the master's registry writes its records (master/regrecords.h,
# docs/architecture.md).  regrecords.h hands out read-only
# views (reg_worker_t is a const struct reg_worker, and so on), so that a
# write to a record's field anywhere else does not compile; what could
# still write is the writable spelling, `struct reg_worker` and its
# kind, and registry_int.h's registry__*_rw() that give it.  This check
# holds that:
#   - regrecords.h's four record types are const views;
#   - outside the registry's own files (master_libregistry_la_SOURCES in
#     master/local.mk, with the headers that define the structs) no C file
#     spells `struct reg_worker|app|exec|driver` or includes
#     registry_int.h; the unit tests of the registry's insides
#     (tests/unit/test_reg*.c) may, to set up states no API reaches;
#   - the registry's files do write that way (the pattern is alive).
set -uo pipefail

srcdir=${srcdir:-$(dirname "$0")/../..}
passed=0
failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "$*"; }

# The registry's files: master/local.mk's master_libregistry_la_SOURCES.
registry=$(awk '/^master_libregistry_la_SOURCES *=/ { on = 1 }
  on { for (i = 1; i <= NF; i++) if ($i ~ /\.[ch]$/) print $i
       if ($NF != "\\") exit }' "$srcdir/master/local.mk" | sort -u)
if [[ -z $registry ]]; then
    bad "master/local.mk lists no master_libregistry_la_SOURCES"
fi

for kind in worker app exec driver; do
    if grep -q "^typedef const struct reg_$kind reg_${kind}_t;" \
        "$srcdir/master/regrecords.h"; then
        ok
    else
        bad "master/regrecords.h: reg_${kind}_t is not 'const struct reg_$kind'"
    fi
done

writable='struct reg_(worker|app|exec|driver)\b|registry_int\.h|registry__[a-z]+_rw\b'
in_registry=0
while IFS= read -r -d '' f; do
    rel=${f#"$srcdir"/}
    if grep -qx -- "$rel" <<<"$registry"; then
        n=$(grep -cE "$writable" "$f")
        in_registry=$((in_registry + n))
        continue
    fi
    case $rel in
    tests/unit/test_reg*.c) continue ;;
    esac
    hits=$(grep -nE "$writable" "$f")
    if [[ -n $hits ]]; then
        bad "$rel may write the registry's records (only the registry's files may: master/local.mk's libregistry):"
        sed 's/^/    /' <<<"$hits"
    else
        ok
    fi
done < <(find "$srcdir" -path "$srcdir/build*" -prune -o \
    -path "$srcdir/.*" -prune -o -name '*.[ch]' -print0 | sort -z)

if ((in_registry > 0)); then
    ok
else
    bad "the registry's own files never spell 'struct reg_*': this check" \
        "looks for the wrong pattern"
fi
echo "$passed passed, $failed failed"
[ "$passed" -gt 0 ] && [ "$failed" -eq 0 ]
