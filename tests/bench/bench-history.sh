#!/usr/bin/env bash
# bench-history.sh - hearth-history's benchmarks (docs/performance.md,
# "hearth-history"), run by run-bench.sh (group history):
#
#   bench-history.sh [--apps N] [--tasks T] [--events E] [--reps R]
#
#   15. listing N (10,000) synthetic logs of T (40) tasks each
#       (bench-histgen dir, seeded): cold (no index: every log read, the
#       index written) and warm (the index valid), beside `cat DIR/* | wc
#       -l` (every byte read once: what any reader without an index pays)
#       and `ls -l DIR` (a stat of every file: what noticing a change
#       costs), each the median of R (3) runs, alternating.
#   16. summarizing one log of E (1,000,000) task events (bench-histgen
#       one), beside `wc -l` of the same file (the floor: one pass over
#       its bytes) and, when jq is installed, `jq -c 'select(.event ==
#       "task_end")'` over it once (what a user would run without
#       hearth-history).
#
# The page cache is warm in every run (the files were just written, and
# each tool reads them the same way): the figures are CPU, not disk.
# Prints FIGURE lines (key median min max unit reps).  Environment:
# HEARTH_BIN_DIR (the build), HEARTH_BENCH_DIR (default
# $HEARTH_BIN_DIR/tests/bench).
set -u
set -o pipefail
bin=${HEARTH_BIN_DIR:?HEARTH_BIN_DIR must name the build directory}
gen=${HEARTH_BENCH_DIR:-$bin/tests/bench}/bench-histgen
hist=$bin/hearth-history
apps=10000 tasks=40 events=1000000 reps=3
while [ $# -gt 0 ]; do
    case $1 in
    --apps) apps=$2; shift ;;
    --tasks) tasks=$2; shift ;;
    --events) events=$2; shift ;;
    --reps) reps=$2; shift ;;
    *) echo "bench-history: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done

T=$(mktemp -d "${TMPDIR:-/tmp}/hearth-bench-history.XXXXXX")
trap 'rm -rf "$T"' EXIT
export LC_ALL=C
die() { echo "bench-history: $*" >&2; exit 1; }
now_ns() { date +%s%N; }
# secs CMD...: run CMD (output discarded), print its wall time in seconds
secs() {
    local t0 t1
    t0=$(now_ns)
    "$@" >/dev/null 2>&1 || die "failed: $*"
    t1=$(now_ns)
    awk -v ns=$((t1 - t0)) 'BEGIN { printf "%.4f", ns / 1e9 }'
}
figures() { # KEY UNIT VALUES...: median, min, max of the values
    local key=$1 unit=$2; shift 2
    printf '%s\n' "$@" | sort -g | awk -v k="$key" -v u="$unit" \
        '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
          printf "FIGURE %s %.6g %.6g %.6g %s %d\n", k, m, v[1], v[NR], u, NR }'
}
catwc() { find "$1" -maxdepth 1 -name '*.events*' -print0 | xargs -0 cat | wc -l; }

# --- 15. listing ------------------------------------------------------------
mkdir -p "$T/many"
echo "generating $apps logs of $tasks tasks"
"$gen" dir "$T/many" "$apps" "$tasks" 15 || die "bench-histgen dir failed"
echo "  $(du -sh "$T/many" | cut -f1) in $(find "$T/many" -name '*.events' | wc -l) files"
# the listing must be right before it is timed: every log listed
rows=$("$hist" --dir "$T/many" --no-index | tail -n +2 | wc -l)
[ "$rows" -eq "$apps" ] || die "listed $rows applications of $apps"
cold=() warm=() ref=() statref=()
for _ in $(seq "$reps"); do
    rm -rf "$T/many/.hearth-history"
    cold+=("$(secs "$hist" --dir "$T/many")")
    [ -s "$T/many/.hearth-history/index" ] || die "no index written"
    warm+=("$(secs "$hist" --dir "$T/many")")
    ref+=("$(secs catwc "$T/many")")
    statref+=("$(secs ls -l "$T/many")")
done
figures history.list.cold_s s "${cold[@]}"
figures history.list.warm_s s "${warm[@]}"
figures history.list.cat_s s "${ref[@]}"
figures history.list.ls_s s "${statref[@]}"
rm -rf "$T/many"

# --- 16. one application ----------------------------------------------------
mkdir -p "$T/one"
echo "generating one log of $events task events"
"$gen" one "$T/one/app-bench-one.events" "$events" 16 || die "bench-histgen one failed"
echo "  $(du -sh "$T/one" | cut -f1), $(wc -l <"$T/one/app-bench-one.events") lines"
# the summary must be right before it is timed: every task succeeded
if command -v jq >/dev/null; then
    ok=$("$hist" --dir "$T/one" app-bench-one --json | jq -r .tasks.succeeded)
    [ "$ok" = $((events / 2)) ] || die "the summary says $ok tasks succeeded, not $((events / 2))"
fi
app=() wcl=()
for _ in $(seq "$reps"); do
    app+=("$(secs "$hist" --dir "$T/one" app-bench-one)")
    wcl+=("$(secs wc -l "$T/one/app-bench-one.events")")
done
figures history.app.s s "${app[@]}"
figures history.app.wc_s s "${wcl[@]}"
if command -v jq >/dev/null; then
    jqs=$(secs jq -c 'select(.event == "task_end")' "$T/one/app-bench-one.events")
    figures history.app.jq_s s "$jqs"
else
    echo "jq not installed: no jq reference"
fi
