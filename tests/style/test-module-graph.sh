#!/usr/bin/env bash
# The file-level call graph of each program has no circle but the intended
# ones.  For every object file of a program's directory, nm names the
# symbols it defines and the ones it uses; file A depends on file B when A
# uses a symbol B defines.  Files that reach each other form a circle; the
# only circles allowed are listed in `allowed` below, with the reason.
set -uo pipefail

builddir=${HEARTH_BIN_DIR:-.}
if ! command -v nm >/dev/null; then
    echo "SKIP: nm not installed"
    exit 77
fi

# Intended circles, as "dir: file file" (sorted names).  The master's
# registry and its cluster-mode drivers' part are one record store split
# in two files for size: each calls the other.
allowed=(
    "master: regdrivers registry"
)

# The objects of one program directory: its plain objects, or libtool's
# under .libs, and a library's built with its own flags (LIB_la-FILE.o,
# named FILE here); per-target copies built for unit tests are left out.
objects() {
    find "$builddir/$1" -maxdepth 2 -name '*.o' ! -name 'tests_*' \
        \( ! -name '*-*.o' -o -name '*_la-*.o' \) | sort
}

# "file symbol D|U" lines for the objects of one directory.
symbols() {
    local o name
    for o in $(objects "$1"); do
        name=$(basename "$o" .o)
        name=${name#*_la-}
        nm "$o" 2>/dev/null | awk -v f="$name" '
            $1 == "U" { print f, $2, "U"; next }
            NF == 3 && $2 ~ /^[TDBRC]$/ { print f, $3, "D" }'
    done
}

# The circles of one directory, one line each: "dir: a b c".
circles() {
    symbols "$1" | awk -v dir="$1" '
        $3 == "D" { def[$2] = $1; files[$1] = 1; next }
        { use[NR] = $1 " " $2 }
        END {
            for (i in use) {
                split(use[i], p, " ")
                if ((p[2] in def) && def[p[2]] != p[1]) reach[p[1], def[p[2]]] = 1
            }
            n = 0
            for (f in files) name[++n] = f
            for (k = 1; k <= n; k++) for (i = 1; i <= n; i++)
                if ((name[i], name[k]) in reach)
                    for (j = 1; j <= n; j++)
                        if ((name[k], name[j]) in reach) reach[name[i], name[j]] = 1
            for (i = 1; i <= n; i++) {
                if (seen[name[i]]) continue
                members = ""
                for (j = 1; j <= n; j++)
                    if (i == j || ((name[i], name[j]) in reach && (name[j], name[i]) in reach)) {
                        if (i != j || (name[i], name[i]) in reach) members = members " " name[j]
                        seen[name[j]] = 1
                    }
                if (split(members, m, " ") > 1) print members
            }
            for (i in use) {
                split(use[i], p, " ")
                if ((p[2] in def) && def[p[2]] != p[1]) edge[p[1] " -> " def[p[2]] ": " p[2]] = 1
            }
            for (e in edge) print e > "/dev/stderr"
        }' 2>"$tmp/edges.$1" | while read -r line; do
            echo "$1: $(tr ' ' '\n' <<<"$line" | sort | xargs)"
        done
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The calls between the files of one circle, to say what to cut.
edges_of() {
    local dir=${1%%:*} members=" ${1#*: } " a b rest
    sort "$tmp/edges.$dir" | while read -r a _ b rest; do
        b=${b%:}
        case "$members" in *" $a "*) ;; *) continue ;; esac
        case "$members" in *" $b "*) echo "    $a -> $b $rest" ;; esac
    done
}

passed=0 failed=0
for dir in libcore master worker executor libhearth jobfile submit tail history; do
    if [ -z "$(objects "$dir")" ]; then
        echo "no objects in $builddir/$dir: build first"
        failed=$((failed + 1))
        continue
    fi
    bad=0
    while read -r circle; do
        [ -n "$circle" ] || continue
        ok=0
        for a in "${allowed[@]}"; do [ "$a" = "$circle" ] && ok=1; done
        if [ $ok -eq 0 ]; then
            echo "circle in $circle"
            edges_of "$circle"
            bad=1
        fi
    done < <(circles "$dir")
    if [ $bad -eq 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
