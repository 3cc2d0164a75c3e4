#!/usr/bin/env bash
# A worker given more cores or memory than its machine has (issue 13,
# smaller items) says so once at start, naming both figures, and still
# offers what it was told (more is allowed: an operator may overbook on
# purpose).  One given its machine's figures or less says nothing.
. "$(dirname "$0")/../lib/cluster.sh"
deadline 60
NCPU=$(getconf _NPROCESSORS_ONLN)
MEM_MB=$(($(getconf _PHYS_PAGES) * $(getconf PAGESIZE) / 1048576))
MANY=$((NCPU * 2 + 1))
HUGE=$((MEM_MB * 4))

start_master || exit 1
CORES=$MANY MEMORY=1G start_worker cores || exit 1
check "--cores $MANY on a $NCPU-core machine: one WARN naming both" \
  test "$(grep WARN "$T/cores.log" | grep -c "$MANY cores.*this machine has $NCPU")" = 1
check "... and it still offers $MANY cores" \
  jq_state "[.workers[] | select(.id == \"$ID_cores\")][0].cores == $MANY"
CORES=1 MEMORY=${HUGE}M start_worker mem || exit 1
check "--memory ${HUGE}M on a $MEM_MB MiB machine: one WARN naming both" \
  test "$(grep WARN "$T/mem.log" | grep -c "$HUGE MiB.*this machine has $MEM_MB MiB")" = 1
CORES=$MANY MEMORY=${HUGE}M start_worker both || exit 1
check "both at once: one WARN line with the four figures" \
  test "$(grep WARN "$T/both.log" | grep -c "$MANY cores and $HUGE MiB.*this machine has ($NCPU cores and $MEM_MB MiB)")" = 1
CORES=$NCPU MEMORY=1G start_worker fits || exit 1
check "a worker within its machine warns about nothing of the kind" \
  bash -c "! grep -q 'this machine has' '$T/fits.log'"
finish
