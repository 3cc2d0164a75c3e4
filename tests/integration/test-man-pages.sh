#!/usr/bin/env bash
# The manual pages (man/local.mk): `make install` installs one per program
# (section 1) and cluster script (section 8), each naming every flag its
# --help lists, and hearth-job(5); groff formats each without a warning.
# Skipped when configure found no help2man (scripts/install-deps
# installs it).
. "$(dirname "$0")/../lib/cluster.sh"
deadline 120
: "${MAKE:=make}"
B=$HEARTH_BIN_DIR
if [[ ! -f $B/man/pages.stamp ]]; then
  echo "SKIP: built without help2man"
  exit 77
fi
D=$T/root
$MAKE -s -C "$B" install DESTDIR="$D" >"$T/install.log" 2>&1
check "make install DESTDIR=... succeeds" test $? -eq 0
eval "$($MAKE -s --no-print-directory -C "$B" print-install-dirs)"
M=$D$mandir

# flags PROGRAM ARGS...: the long flags its --help lists, one a line.
flags() { "$@" --help 2>&1 | grep -oE -- '(^|[ ,])--[a-z][a-z0-9-]*' | tr -d ' ,' | sort -u; }
# in_page PAGE FLAG: the page names the flag (help2man escapes '-').
in_page() { grep -qF -- "$(sed 's/-/\\-/g' <<<"$2")" "$1"; }
# clean_groff PAGE: groff formats it with every warning on, printing none.
clean_groff() {
  command -v groff >/dev/null || return 0
  test -z "$(groff -man -ww -z "$1" 2>&1)"
}

for p in hearth-master hearth-worker hearth-executor hearth-driver \
  hearth-submit hearth-tail hearth-keygen hearth-admin; do
  page=$M/man1/$p.1
  check "installs $p(1)" test -s "$page"
  missing=""
  for f in $(flags "$D$bindir/$p"); do in_page "$page" "$f" || missing+=" $f"; done
  check "... naming every flag of $p --help${missing:+ (missing:$missing)}" \
    test -z "$missing"
  check "... formatted without a warning" clean_groff "$page"
done
for s in start-master start-worker start-cluster stop-cluster stop-master \
  stop-worker; do
  page=$M/man8/hearth-$s.sh.8
  check "installs hearth-$s.sh(8)" test -s "$page"
  check "... with its usage and settings" grep -q 'HEARTH_CONF_DIR' "$page"
  check "... formatted without a warning" clean_groff "$page"
done
# Each form of a program's usage is a line of its SYNOPSIS (issue 42 item
# 6: they ran together, as one paragraph, in the DESCRIPTION), and the
# options are a section of their own, not a heading wrapped over lines.
synopsis() { # PAGE: its SYNOPSIS, formatted, one line each
  MANWIDTH=200 man -l "$1" 2>/dev/null | sed -n '/^SYNOPSIS/,/^DESCRIPTION/p' | grep '^ '
}
if command -v man >/dev/null; then
  check "hearth-submit(1)'s SYNOPSIS has its four forms, a line each" \
    test "$(synopsis "$M/man1/hearth-submit.1" | grep -c '^ *hearth-submit ')" -eq 4
  check "hearth-admin(1)'s has its eight" \
    test "$(synopsis "$M/man1/hearth-admin.1" | grep -c '^ *hearth-admin ')" -eq 8
  check "... and its options are the OPTIONS section" \
    eval 'MANWIDTH=200 man -l "$M/man1/hearth-admin.1" 2>/dev/null | grep -q "^OPTIONS"'
fi
# Each option is a tag of its own, its text below it (issue 42 item 6: a
# flag as wide as the --help column, "--resource NAME=ADDR[,ADDR...]",
# ran into its text, and help2man set the two as one hanging paragraph),
# each subcommand of hearth-admin and setting of a script likewise, and
# no sentence is split over two paragraphs.
plain() { sed 's/\\f[BIRP]//g; s|\\[,/]||g; s/\\-/-/g'; }
tags() { # PAGE: the tags of its tagged paragraphs (.TP), as plain text
  awk 'p { print; p = 0 } /^\.TP/ { p = 1 }' "$1" | plain
}
for p in hearth-master hearth-worker hearth-executor hearth-driver \
  hearth-submit hearth-tail hearth-keygen hearth-admin hearth-history; do
  # a line that starts with an option is its tag: the flag, its value
  long=$(grep -E '^\\fB\\-' "$M/man1/$p.1" | plain | awk 'NF > 2' | head -2)
  check "$p(1): every option is a tag of its own${long:+ (not: $long)}" \
    test -z "$long"
done
check "hearth-worker(1): --resource's text is not in its tag" \
  eval 'tags "$M/man1/hearth-worker.1" | grep -qx -- "--resource NAME=ADDR\[,ADDR...\]"'
missing=""
for c in apps drivers workers kill drain resume decommission web-url web-token; do
  tags "$M/man1/hearth-admin.1" | grep -qx -- "$c" || missing+=" $c"
done
check "hearth-admin(1): each subcommand a paragraph of its own${missing:+ (not:$missing)}" \
  test -z "$missing"
if command -v man >/dev/null; then
  check "... its sentences whole (decommission's, web-token's)" eval \
    'MANWIDTH=300 man -l "$M/man1/hearth-admin.1" 2>/dev/null | grep -q "its queued tasks move" &&
     MANWIDTH=300 man -l "$M/man1/hearth-admin.1" 2>/dev/null | grep -q "curl -H .Authorization: Bearer"'
fi
long=$(tags "$M/man8/hearth-start-worker.sh.8" | awk '/^HEARTH_/ && NF > 1')
check "hearth-start-worker.sh(8): each setting's tag is its name alone${long:+ (not: $long)}" \
  test -z "$long"
if command -v man >/dev/null; then
  check "... its text whole (HEARTH_WORKER_RESOURCE's)" eval \
    'MANWIDTH=300 man -l "$M/man8/hearth-start-worker.sh.8" 2>/dev/null |
     grep -q "separated (gpu=0,1;fpga=0: one --resource each)"'
fi
# SEE ALSO names the documentation directory as installed, and every page
# it names is there (issue 42 item 6: pages named that were not installed).
see_docdir=$(sed -n 's/^\.IR "\(.*\)" :$/\1/p' "$M/man1/hearth-tail.1" | sed 's/\\-/-/g; s/\\e/\\/g')
check "the pages' SEE ALSO names the installed documentation directory ($see_docdir)" \
  test "$see_docdir" = "$docdir"
see_docs=$(sed -n '/^\.SH "SEE ALSO"/,$p' "$M/man1/hearth-tail.1" | sed 's/\\-/-/g' |
  grep -oE '[A-Za-z][A-Za-z-]*\.md' | grep -v '^NAME\.md$' | sort -u)
absent=""
for f in $see_docs; do [[ -f $D$docdir/$f ]] || absent+=" $f"; done
check "... and every document it names is installed there${absent:+ (not:$absent)}" \
  test -n "$see_docs" -a -z "$absent"
check "hearth-start-master.sh(8) names the master's settings" \
  grep -q HEARTH_MASTER_PORT "$M/man8/hearth-start-master.sh.8"
check "installs hearth-job(5)" test -s "$M/man5/hearth-job.5"
check "... describing every key of a task" eval \
  'for k in cmd fn arg count foreach input env timeout; do grep -q "^\.B.* $k\b\|^\.B $k$" "$M/man5/hearth-job.5" || exit 1; done'
# keys_missing PAGE KEY...: the keys the page describes with no .B line
keys_missing() {
  local page=$1 k out=""
  shift
  for k; do grep -q "^\.B.* $k\b\|^\.B $k$" "$page" || out+=" $k"; done
  echo "$out"
}
missing=$(keys_missing "$M/man5/hearth-job.5" name after tasks pool resources \
  partitions sort output)
check "... and of a stage, partitions, sort and output included${missing:+ (not:$missing)}" \
  test -z "$missing"
check "... formatted without a warning" clean_groff "$M/man5/hearth-job.5"
$MAKE -s -C "$B" uninstall DESTDIR="$D" >/dev/null 2>&1
check "make uninstall removes the pages" test -z "$(find "$M" -type f 2>/dev/null)"
finish
