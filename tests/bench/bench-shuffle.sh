#!/usr/bin/env bash
# bench-shuffle.sh - the partitioned shuffle's benchmarks (docs/performance.md,
# "Shuffle"), run by run-bench.sh (group shuffle):
#
#   bench-shuffle.sh [--size BYTES] [--big BYTES|0] [--maps M] [--reduces R]
#                    [--reps N] [--wide M,R,BYTES|0] [--only PARTS]
#
#   11. unsorted: a file of --size bytes (2 GiB) of 100-byte records
#       (bench-shuffle gen, seeded, about a million keys), M map tasks (32)
#       each reading its slice, R reducers (32) on local-cluster[2,1,2048]:
#       input MB/s (10^6 bytes) from hearth-submit's start to its exit,
#       beside the single-process reference (bench-shuffle ref) on the
#       same file and disk, alternating with it, --reps times (3).
#   12. sorted: the same with "sort": true, beside
#       `LC_ALL=C sort --parallel=2 -S 1G` of the same file (output to the
#       same disk), alternating; and MB/s per core (nproc).
#   13. the driver's peak RSS (VmHWM of hearth-submit, which is the driver
#       in local-cluster mode, read every 50 ms until it exits) for the
#       --size shuffles and for one of --big bytes (8 GiB; 0 or too little
#       disk: skipped, saying why), and each reducer's executor's peak RSS
#       (bench-shuffle check --rss) against --fetch-max-in-flight plus
#       --shuffle-memory.
#   14. wide: M x R tasks (1000 x 1000, a million blocks) over BYTES
#       (100 MB): the driver's peak RSS minus that of the same maps with one
#       reducer (R = 1, a thousand blocks): what a million-entry
#       map-output table costs.
#
# Every run's reducers print checksum lines that must add up to the
# input's (bench-shuffle verify: every record once, in the right partition,
# sorted where asked); a run that does not is an error, not a figure.
# Prints FIGURE lines (key median min max unit reps).  --only takes a
# comma list of unsorted, sorted, big, wide.  Environment: HEARTH_BIN_DIR
# (the build), HEARTH_BENCH_DIR (default $HEARTH_BIN_DIR/tests/bench).
set -u
. "$(dirname "$0")/benchlib.sh"
set -o pipefail
bin=${HEARTH_BIN_DIR:?HEARTH_BIN_DIR must name the build directory}
tool=${HEARTH_BENCH_DIR:-$bin/tests/bench}/bench-shuffle
size=$((2 << 30)) big=$((8 << 30)) maps=32 reduces=32 reps=3
wide=1000,1000,100000000 only=unsorted,sorted,big,wide
while [ $# -gt 0 ]; do
    case $1 in
    --size) size=$2; shift ;;
    --big) big=$2; shift ;;
    --maps) maps=$2; shift ;;
    --reduces) reduces=$2; shift ;;
    --reps) reps=$2; shift ;;
    --wide) wide=$2; shift ;;
    --only) only=$2; shift ;;
    *) echo "bench-shuffle: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done
master='local-cluster[2,1,2048]'
cores=$(nproc)
# what a reducer's executor may hold: its fetches in flight and, having
# run map tasks, their records before a spill (the defaults)
fetch_mib=48 shuffle_mib=64

T=$(mktemp -d "${TMPDIR:-/tmp}/hearth-bench-shuffle.XXXXXX")
run_pid=
cleanup() {
    [ -n "$run_pid" ] && kill -TERM "$run_pid" 2>/dev/null
    wait 2>/dev/null
    rm -rf "$T"
}
trap cleanup EXIT
export TMPDIR=$T LC_ALL=C
die() { echo "bench-shuffle: $*" >&2; exit 1; }
wants() { [[ ",$only," == *",$1,"* ]]; }
figure() { echo "FIGURE $1 $2 $2 $2 $3 1"; }
mb_s() { awk -v b="$1" -v ns="$2" 'BEGIN { printf "%.2f", b / 1e6 / (ns / 1e9) }'; }
free_bytes() { df -P -B1 "$T" | awk 'NR == 2 { print $4 }'; }

# gen BYTES NAME: the input file $T/NAME.dat and its checksum $T/NAME.sum.
gen() {
    "$tool" gen --bytes "$1" --seed 1 "$T/$2.dat" >"$T/$2.sum" || die "gen failed"
}

# job NAME FILE M R SORT: a job file of M map slices of FILE, R reducers
# checking their partitions (and their order when SORT is true).
job() {
    local sorted=
    [ "$5" = true ] && sorted='"--sorted", '
    cat >"$T/$1.json" <<EOF
{"name": "$1", "stages": [
  {"name": "map", "partitions": $4, "sort": $5,
   "tasks": [{"cmd": ["$tool", "slice", "$2", "{i}", "$3", "--rss"], "count": $3}]},
  {"name": "reduce",
   "tasks": [{"cmd": ["$tool", "check", $sorted"--partition", "{i}", "--of", "$4", "--rss"],
              "input": "map"}]}]}
EOF
}

# shuffle NAME FILE M R SORT: run the job; sets ns (wall time), hwm (the
# driver's peak KiB) and red (the largest reducer executor peak KiB);
# dies unless every record arrived once, where it should.
shuffle() {
    local name=$1 sum=${2%.dat}.sum k
    job "$@"
    run_watched "$T/hwm" "$bin/hearth-submit" --master "$master" "$T/$name.json" \
        >"$T/out" 2>"$T/err" || { tail -5 "$T/err" >&2; die "$name: hearth-submit failed"; }
    "$tool" verify "$sum" "$4" <"$T/out" || die "$name: wrong output"
    red=$(awk 'NF >= 7 && $7 > m { m = $7 } END { print m + 0 }' "$T/out")
}

reduce_budget_kb=$(((fetch_mib + shuffle_mib) << 10))
if wants unsorted || wants sorted; then
    need=$((size * 7 / 2))
    (($(free_bytes) > need)) || die "$(($(free_bytes) >> 30)) GiB free, $((need >> 30)) needed"
    gen "$size" main
    echo "input: $size bytes, $(awk '{print $2}' "$T/main.sum") records;" \
        "$maps maps x $reduces reducers on $master, $reps repetitions"
fi

if wants unsorted; then
    refs=() figs=() ratios=() hwms=() reds=()
    for ((r = 0; r < reps; r++)); do
        mkdir -p "$T/ref"
        out=$("$tool" ref "$T/main.dat" "$T/ref" "$reduces") || die "ref failed"
        rm -rf "$T/ref"
        "$tool" verify "$T/main.sum" 1 <<<"$(sed -n 2p <<<"$out" | awk '{$1 = 0; print}')" ||
            die "the reference's checksum is wrong"
        ref=$(mb_s "$size" "$(awk 'NR == 1 { printf "%.0f", $2 * 1e9 }' <<<"$out")")
        shuffle unsorted "$T/main.dat" "$maps" "$reduces" false
        fig=$(mb_s "$size" "$ns")
        echo "  rep $r: reference $ref MB/s, shuffle $fig MB/s, driver peak $hwm KiB," \
            "largest reducer $red KiB"
        refs+=("$ref") figs+=("$fig") ratios+=("$(div "$fig" "$ref")")
        hwms+=("$hwm") reds+=("$red")
    done
    stats shuffle.ref.mb_s MB/s "${refs[@]}"
    stats shuffle.unsorted.mb_s MB/s "${figs[@]}"
    stats shuffle.unsorted.ratio x "${ratios[@]}"
    stats shuffle.driver_rss_kb KiB "${hwms[@]}"
    stats shuffle.unsorted.reducer_rss_kb KiB "${reds[@]}"
    figure shuffle.reducer_budget_kb "$reduce_budget_kb" KiB
fi

if wants sorted; then
    refs=() figs=() ratios=() percore=() reds=()
    for ((r = 0; r < reps; r++)); do
        now_ns t0
        sort --parallel=2 -S 1G -o "$T/sorted.txt" "$T/main.dat" || die "sort failed"
        now_ns t1
        ref=$(mb_s "$size" $((t1 - t0)))
        rm -f "$T/sorted.txt"
        shuffle sorted "$T/main.dat" "$maps" "$reduces" true
        fig=$(mb_s "$size" "$ns")
        echo "  rep $r: GNU sort $ref MB/s, sorted shuffle $fig MB/s, largest reducer $red KiB"
        refs+=("$ref") figs+=("$fig") ratios+=("$(div "$fig" "$ref")")
        percore+=("$(div "$fig" "$cores")") reds+=("$red")
    done
    stats shuffle.sort.mb_s MB/s "${refs[@]}"
    stats shuffle.sorted.mb_s MB/s "${figs[@]}"
    stats shuffle.sorted.ratio x "${ratios[@]}"
    stats shuffle.sorted.mb_s_per_core MB/s "${percore[@]}"
    stats shuffle.sorted.reducer_rss_kb KiB "${reds[@]}"
fi
rm -f "$T/main.dat"

if wants big; then
    need=$((big * 5 / 2))
    if [ "$big" = 0 ]; then
        echo "big: skipped (--big 0)"
    elif (($(free_bytes) < need)); then
        echo "big: skipped: $(($(free_bytes) >> 30)) GiB free, $((need >> 30)) needed"
        figure shuffle.big.driver_rss_kb.skipped $(($(free_bytes) >> 30)) GiB
    else
        # the reference: the same shuffle of --size bytes, unless it ran
        if ! wants unsorted; then
            gen "$size" small
            shuffle small "$T/small.dat" "$maps" "$reduces" false
            rm -f "$T/small.dat"
            figure shuffle.driver_rss_kb "$hwm" KiB
        fi
        gen "$big" big
        shuffle big "$T/big.dat" "$maps" "$reduces" false
        rm -f "$T/big.dat"
        echo "  $big bytes: $(mb_s "$big" "$ns") MB/s, driver peak $hwm KiB," \
            "largest reducer $red KiB"
        figure shuffle.big.driver_rss_kb "$hwm" KiB
        figure shuffle.big.mb_s "$(mb_s "$big" "$ns")" MB/s
        figure shuffle.big.reducer_rss_kb "$red" KiB
    fi
fi

if wants wide && [ "$wide" != 0 ]; then
    IFS=, read -r wm wr wbytes <<<"$wide"
    gen "$wbytes" wide
    shuffle wide1 "$T/wide.dat" "$wm" 1 false
    base=$hwm base_s=$(div "$ns" 1e9)
    shuffle wide "$T/wide.dat" "$wm" "$wr" false
    echo "  wide: $wm x 1 driver peak $base KiB (${base_s} s);" \
        "$wm x $wr driver peak $hwm KiB ($(div "$ns" 1e9) s)"
    figure shuffle.wide.base_kb "$base" KiB
    figure shuffle.wide.driver_kb "$hwm" KiB
    figure shuffle.wide.growth_kb $((hwm - base)) KiB
fi
exit 0
