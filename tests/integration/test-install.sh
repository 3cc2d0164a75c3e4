#!/usr/bin/env bash
# `make install DESTDIR=...` puts everything a node needs in place: the
# programs, the cluster scripts (with the installed paths filled in), the
# header, the library and hearth.pc, the sample configuration and the
# systemd units; every program documents its flags in --help; uninstall
# removes it all again.
. "$(dirname "$0")/../lib/cluster.sh"
deadline 240
: "${MAKE:=make}"
B=$HEARTH_BIN_DIR
D=$T/root

$MAKE -s -C "$B" install DESTDIR="$D" >"$T/install.log" 2>&1
check "make install DESTDIR=... succeeds" test $? -eq 0 || tail -20 "$T/install.log"
eval "$($MAKE -s --no-print-directory -C "$B" print-install-dirs)"
for p in hearth-master hearth-worker hearth-executor hearth-driver \
  hearth-submit hearth-tail hearth-keygen hearth-admin; do
  check "installs $p" test -x "$D$bindir/$p"
done
for s in start-master start-worker start-cluster stop-cluster stop-master \
  stop-worker; do
  check "installs hearth-$s.sh" test -x "$D$sbindir/hearth-$s.sh"
done
check "installs hearth-common.sh beside them" test -f "$D$sbindir/hearth-common.sh"
check "... with the installed bindir and configuration directory in it" \
  grep -q "^hearth_installed_bindir='$bindir'$" "$D$sbindir/hearth-common.sh"
check "... no placeholder left" \
  eval '! grep -q "@bindir@\|@hearthconfdir@" "$D$sbindir"/hearth-*.sh'
# Installed, the scripts' --help names them and their siblings as they
# are installed (hearth-start-master.sh), never by their source names.
for s in "$D$sbindir"/hearth-st*.sh; do
  HEARTH_CONF_DIR=$T "$s" --help >"$T/script.help" 2>&1
  check "$(basename "$s") --help names the installed scripts" \
    eval '! grep -E "(^|[^-])(start|stop)-(master|worker|cluster)\.sh" "$T/script.help"'
done
check "installs the header" test -f "$D$includedir/hearth.h"
check "installs libhearth" eval 'ls "$D$libdir"/libhearth.so* >/dev/null'
check "installs hearth.pc" grep -q '^Libs: .*-lhearth' "$D$pkgconfigdir/hearth.pc"
lib=$(ls "$D$libdir"/libhearth.so.* 2>/dev/null | head -1)
# (a static inline function of the header, defined there for libraries
# that link nothing, is not the library's to export)
check "libhearth exports exactly the functions hearth.h declares" \
  test "$(nm -D --defined-only "$lib" | awk '{print $3}' | sort -u)" = \
  "$(grep -oE '\bhearth_[a-z_]+ \(' "$D$includedir/hearth.h" | tr -d ' (' |
    grep -vxF -e "$(awk 'prev ~ /^static inline/ { print $1 } { prev = $0 }' \
      "$D$includedir/hearth.h")" | sort -u)"
for c in workers.template hearth-env.sh.template master.env.template \
  worker.env.template hearth-defaults.conf.template; do
  check "installs the sample $c" test -f "$D$hearthconfdir/$c"
done
for u in hearth-master.service hearth-worker.service; do
  check "installs the systemd unit $u" test -f "$D$systemdunitdir/$u"
  check "... running $bindir/${u%.service}" \
    grep -qx "ExecStart=$bindir/${u%.service}" "$D$systemdunitdir/$u"
done
check "installs docs/operations.md" test -f "$D$docdir/operations.md"
check "installs the README" test -f "$D$docdir/README.md"
# Every page an installed page or man page names (a bare FILE.md, as they
# link each other, or perf-log/DATE-SUBJECT.md, a benchmarks' pass) is
# installed beside them (issue 42 item 6: three were not); the passes'
# own pages name the others as ../FILE.md, checked the same.
# (roff writes a hyphen \-)
for named in $(cat "$D$docdir"/*.md "$D$docdir"/perf-log/*.md \
  "$D$mandir"/man*/* 2>/dev/null | sed 's/\\-/-/g' |
  grep -oE '\b(perf-log/[0-9a-z-]+|[a-z][a-z-]*)\.md\b' | sort -u); do
  check "installs $named, which an installed page names" test -f "$D$docdir/$named"
done

# Every installed program answers --help, and the daemons document the
# operating flags.
for p in hearth-master hearth-worker hearth-executor hearth-driver \
  hearth-submit hearth-tail hearth-keygen hearth-admin; do
  check "$p --help" eval '"$D$bindir/$p" --help >"$T/$p.help" 2>&1'
done
for f in --pid-file --log-file --ready-file --max-submit-size \
  --driver-relaunch-delay; do
  check "hearth-master --help documents $f" grep -q -- "$f" "$T/hearth-master.help"
done
for f in --pid-file --log-file --driver-retention --work-dir; do
  check "hearth-worker --help documents $f" grep -q -- "$f" "$T/hearth-worker.help"
done
for f in --deploy-mode --driver-cores --driver-memory --supervise --no-wait \
  --status --kill --logs; do
  check "hearth-submit --help documents $f" grep -q -- "$f" "$T/hearth-submit.help"
done

# A driver program built against the installed header, library and
# hearth.pc, as docs/driver.md shows (the sanitizers' flags when this build
# has them: the library needs their run-time), run by the installed
# hearth-submit with the installed example library.
export PKG_CONFIG_PATH="$D$pkgconfigdir" PKG_CONFIG_SYSROOT_DIR="$D"
# shellcheck disable=SC2086,SC2046
${CC:-cc} $san_cflags -o "$T/pi-driver" "$D$pkgdatadir/examples/pi_driver.c" \
  $(pkg-config --cflags --libs hearth) 2>"$T/cc.err"
check "examples/pi_driver.c builds with pkg-config --cflags --libs hearth" \
  test -x "$T/pi-driver" || cat "$T/cc.err"
LD_LIBRARY_PATH="$D$libdir" HEARTH_BIN_DIR="$D$bindir" "$D$bindir/hearth-submit" \
  --master 'local[2]' --lib "$D$pkgdatadir/examples/libpi.so" "$T/pi-driver" \
  20 10000 >"$T/pi.out" 2>"$T/pi.err"
check "... and runs on the installed programs" grep -q '^Pi is roughly 3' "$T/pi.out" ||
  tail -5 "$T/pi.err"
# the example's task library too: its source included the header by its
# path in the source tree, and did not build from the installed copy
# shellcheck disable=SC2046
${CC:-cc} -shared -fPIC -o "$T/libpi.so" "$D$pkgdatadir/examples/pi_tasks.c" \
  $(pkg-config --cflags hearth) 2>"$T/cc-tasks.err"
check "examples/pi_tasks.c builds with pkg-config --cflags hearth" \
  test -f "$T/libpi.so" || cat "$T/cc-tasks.err"
unset PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR

$MAKE -s -C "$B" uninstall DESTDIR="$D" >"$T/uninstall.log" 2>&1
check "make uninstall succeeds" test $? -eq 0
check "... and leaves no file behind" test -z "$(find "$D" -type f)"
finish
