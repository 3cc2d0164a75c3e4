#!/usr/bin/env bash
# A C driver built as docs/driver.md says runs after `make install`, with
# no LD_LIBRARY_PATH: directly, through hearth-submit --lib, and in
# cluster mode on a worker.  `make install` refreshes the dynamic linker's
# cache when the library directory is one the linker searches
# (scripts/install-ldconfig); to test that without touching the system's
# own directories, this test installs into a prefix of its own, which it
# names in a file of /etc/ld.so.conf.d for its duration.  Needs root for
# that (skipped otherwise).  Also: a prefix the linker does not search gets
# a note saying what a program needs, and a worker installed there gives
# its cluster-mode drivers that library directory (issue 42 item 9).
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 240
: "${MAKE:=make}"
if [[ $(id -u) -ne 0 ]] || ! command -v ldconfig >/dev/null; then
  echo "SKIP: needs root and ldconfig"
  exit 77
fi
B=$HEARTH_BIN_DIR
P=$T/prefix
CONF=/etc/ld.so.conf.d/zz-hearth-test-$$.conf
# The linker's configuration goes back as it was, even on failure.
trap 'rm -f "$CONF"; ldconfig; cleanup' EXIT
install_to() {
  $MAKE -s -C "$B" install prefix="$1" systemdunitdir="$1/lib/systemd/system" \
    >"$T/install-$2.log" 2>&1
}

# A prefix the linker does not search: the install says what to do.
check "make install to a prefix the linker does not search succeeds" \
  install_to "$T/other" other
check "... and says how a program finds the library" \
  grep -q "which the dynamic linker does not search" "$T/install-other.log"
check "... naming LD_LIBRARY_PATH and rpath" \
  grep -q "LD_LIBRARY_PATH=$T/other/lib" "$T/install-other.log"

# A prefix the linker searches.
mkdir -p "$P/lib"
echo "$P/lib" >"$CONF"
check "make install to a prefix the linker searches succeeds" install_to "$P" sys
check "... and refreshes the linker's cache" \
  eval 'ldconfig -p | grep -q "libhearth.so.0 .*=> $P/lib/libhearth.so.0"'

eval "$($MAKE -s --no-print-directory -C "$B" print-install-dirs)"
cd "$T" || exit 1
# hearth.pc names the prefix configure was given; this install moved it.
export PKG_CONFIG_PATH=$P/lib/pkgconfig
# shellcheck disable=SC2086,SC2046
${CC:-cc} $san_cflags -o pi-driver "$P/share/hearth/examples/pi_driver.c" \
  $(pkg-config --define-variable=prefix="$P" --cflags --libs hearth) 2>cc.err
check "pi_driver.c builds outside the build tree with the installed hearth.pc" \
  test -x pi-driver || cat cc.err
unset LD_LIBRARY_PATH
export HEARTH_BIN_DIR=$P/bin
HEARTH_MASTER='local[2]' HEARTH_LIB=$P/share/hearth/examples/libpi.so \
  ./pi-driver 4 1000 >direct.out 2>direct.err
check "it runs directly, loading the installed libhearth" \
  grep -q '^Pi is roughly 3' direct.out || tail -3 direct.err
"$P/bin/hearth-submit" --master 'local[2]' \
  --lib "$P/share/hearth/examples/libpi.so" ./pi-driver 4 1000 \
  >submit.out 2>submit.err
check "... and through hearth-submit --lib" \
  grep -q '^Pi is roughly 3' submit.out || tail -3 submit.err

# Cluster mode: a worker of the installed programs runs the program.
BIN=$P/bin
setup_bin
start_master || fail "master"
CORES=2 MEMORY=2G start_worker w1 || fail "worker"
"$P/bin/hearth-submit" --master "$MASTER_URL" --deploy-mode cluster \
  --executor-memory 512M --lib "$P/share/hearth/examples/libpi.so" \
  ./pi-driver 4 1000 >cluster.out 2>cluster.err
check "... and in cluster mode on a worker" test $? -eq 0 || tail -3 cluster.err
ID=$(head -1 cluster.out)
check "... printing pi in its driver's stdout" \
  grep -q '^Pi is roughly 3' "$T/w1/$ID/stdout"

# A prefix the linker does not search ($T/other): the driver program
# finds libhearth only because the worker that runs it names the lib
# directory of its own install in the driver's LD_LIBRARY_PATH.
kill -TERM "$MASTER_PID" "$PID_w1" 2>/dev/null
wait "$MASTER_PID" "$PID_w1" 2>/dev/null
rm -f "$CONF"
ldconfig
check "with the searched prefix gone, the program alone no longer loads" \
  eval '! ./pi-driver 1 1 >/dev/null 2>&1'
BIN=$T/other/bin
setup_bin
start_master || fail "master of the other prefix"
CORES=2 MEMORY=2G start_worker w2 || fail "worker of the other prefix"
# hearth-submit itself is run with the library path; the worker is not.
LD_LIBRARY_PATH=$T/other/lib "$BIN/hearth-submit" --master "$MASTER_URL" \
  --deploy-mode cluster --executor-memory 512M \
  --lib "$T/other/share/hearth/examples/libpi.so" ./pi-driver 4 1000 \
  >other.out 2>other.err
check "a worker of an unsearched prefix runs the program in cluster mode" \
  test $? -eq 0 || tail -3 other.err
ID=$(head -1 other.out)
check "... which loads libhearth from the worker's lib directory" \
  grep -q '^Pi is roughly 3' "$T/w2/$ID/stdout" ||
  tail -3 "$T/w2/$ID/stderr"
finish
