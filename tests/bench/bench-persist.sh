#!/usr/bin/env bash
# bench-persist.sh - benchmark 28, persisted stages (docs/performance.md,
# "Persisted stages"), run by run-bench.sh (group persist):
#
#   bench-persist.sh [--size BYTES] [--passes N] [--maps M] [--parts P]
#                    [--reps N]
#
#   An iterative job (bench-persist run): a file of --size bytes (1 GiB)
#   of points, M map tasks (16) parsing slices of it into P partitions
#   (16), persisted in memory (--cache-memory 1G an executor), and
#   --passes (10) passes of P tasks each summing and
#   counting per key over the persisted records, on
#   local-cluster[2,1,2048].  Beside it, alternating, the single-process
#   reference (bench-persist ref): the file read and parsed into memory
#   once, then the same passes over it on one core.  Every pass's totals
#   must equal the reference's (else an error, not a figure).
#   Figures: persist.first_ms (pass 1, which reads and parses the file),
#   persist.pass_ms (the median of passes 2..N in a run), persist.speedup
#   (first / pass), persist.ref_ms (the reference's median pass) and
#   persist.ratio (reference pass / Hearth pass: 1 is as fast as one
#   process over the data in memory), each the median of --reps (3) runs.
# Environment: HEARTH_BIN_DIR (the build), HEARTH_BENCH_DIR (default
# $HEARTH_BIN_DIR/tests/bench).
set -u
. "$(dirname "$0")/benchlib.sh"
set -o pipefail
bin=${HEARTH_BIN_DIR:?HEARTH_BIN_DIR must name the build directory}
dir=${HEARTH_BENCH_DIR:-$bin/tests/bench}
tool=$dir/bench-persist
size=$((1 << 30)) passes=10 maps=16 parts=16 reps=3
# each of the 2 executors keeps its half of the records in memory (about
# 290 MB of 580 at 1 GiB: the default cache-memory, 256M, is short)
cache=1G
while [ $# -gt 0 ]; do
    case $1 in
    --size) size=$2; shift ;;
    --passes) passes=$2; shift ;;
    --maps) maps=$2; shift ;;
    --parts) parts=$2; shift ;;
    --reps) reps=$2; shift ;;
    *) echo "bench-persist: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done
master='local-cluster[2,1,2048]'
T=$(mktemp -d "${TMPDIR:-/tmp}/hearth-bench-persist.XXXXXX")
trap 'rm -rf "$T"' EXIT
export TMPDIR=$T LC_ALL=C
die() { echo "bench-persist: $*" >&2; exit 1; }
free_bytes() { df -P -B1 "$T" | awk 'NR == 2 { print $4 }'; }
# median of the numbers on stdin
median() { sort -g | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# the file and the records persisted from it, on this disk
(($(free_bytes) > size * 3)) || die "$(($(free_bytes) >> 30)) GiB free, $((size * 3 >> 30)) needed"
"$tool" gen "$T/points" "$size" || die "gen failed"
echo "input: $size bytes of points; $maps maps into $parts partitions," \
    "$passes passes, on $master, $reps repetitions"

firsts=() pass_ms=() speedups=() refs=() ratios=()
for ((r = 0; r < reps; r++)); do
    "$tool" ref "$T/points" "$passes" >"$T/ref" || die "ref failed"
    "$bin/hearth-submit" --master "$master" --lib "$dir/libbenchtasks.so" \
        --cache-memory "$cache" \
        "$tool" run "$T/points" "$passes" "$maps" "$parts" >"$T/run" 2>"$T/err" ||
        { tail -5 "$T/err" >&2; die "run failed"; }
    # every pass's totals are the reference's
    [ "$(wc -l <"$T/run")" -eq "$passes" ] || die "run: $(wc -l <"$T/run") passes of $passes"
    want=$(awk 'NR == 1 { print $4, $5 }' "$T/ref")
    bad=$(awk -v w="$want" '$4 " " $5 != w' "$T/run")
    [ -z "$bad" ] || die "wrong totals: $bad (want $want)"
    first=$(awk '$2 == 1 { print $3 }' "$T/run")
    pass=$(awk '$2 > 1 { print $3 }' "$T/run" | median)
    ref=$(awk '{ print $3 }' "$T/ref" | median)
    firsts+=("$first") pass_ms+=("$pass") refs+=("$ref")
    speedups+=("$(div "$first" "$pass")") ratios+=("$(div "$ref" "$pass")")
    echo "run $r: first pass $first ms, later passes $pass ms (median), reference $ref ms"
done
stats persist.first_ms ms "${firsts[@]}"
stats persist.pass_ms ms "${pass_ms[@]}"
stats persist.speedup x "${speedups[@]}"
stats persist.ref_ms ms "${refs[@]}"
stats persist.ratio x "${ratios[@]}"
