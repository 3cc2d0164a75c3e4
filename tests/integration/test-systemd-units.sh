#!/usr/bin/env bash
# The installed systemd units: `systemd-analyze verify` finds nothing wrong
# with them, and `systemd-analyze security` rates their exposure at most
# 2.0 for the master (a network server that starts no process) and 5.0 for
# the worker (hardened as far as its executors' tasks allow: see
# docs/operations.md, "systemd").  Skipped without systemd-analyze
# (scripts/install-deps installs it).
. "$(dirname "$0")/../lib/cluster.sh"
deadline 120
: "${MAKE:=make}"
if ! command -v systemd-analyze >/dev/null; then
  echo "SKIP: systemd-analyze not installed"
  exit 77
fi
B=$HEARTH_BIN_DIR
D=$T/root
$MAKE -s -C "$B" install DESTDIR="$D" >"$T/install.log" 2>&1
check "make install DESTDIR=... succeeds" test $? -eq 0
eval "$($MAKE -s --no-print-directory -C "$B" print-install-dirs)"

# exposure UNIT: the overall exposure level systemd-analyze gives it.
exposure() {
  systemd-analyze security --offline=yes "$1" 2>/dev/null |
    sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p'
}
for u in hearth-master:2.0 hearth-worker:5.0; do
  name=${u%:*} max=${u#*:}
  unit=$D$systemdunitdir/$name.service
  # verify checks that ExecStart runs: point it at the staged program.
  sed "s|^ExecStart=|ExecStart=$D|" "$unit" >"$T/$name.service"
  systemd-analyze verify --man=no "$T/$name.service" >"$T/$name.verify" 2>&1
  check "systemd-analyze verify accepts $name.service" \
    test $? -eq 0 -a ! -s "$T/$name.verify" || cat "$T/$name.verify"
  level=$(exposure "$unit")
  check "$name.service's exposure ($level) is at most $max" \
    awk -v l="$level" -v m="$max" 'BEGIN { exit !(l != "" && l + 0 <= m + 0) }'
done
finish
