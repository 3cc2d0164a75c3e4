#!/usr/bin/env bash
# A task run as its submitter gets none of the root worker's open files
# (docs/security.md, "Tasks run as their submitter": it reads and writes
# what its user may).  A worker inherits whatever its starter left open
# (a wrapper's lock file, a log opened with `exec 8>>`, a service
# manager's descriptors); here fd 7 reads a file only root may read and
# fd 8 appends to a file only root may write.  A task of alice's (user
# nobody) must use neither: before, both reached it through the worker
# and its executor (the task read the secret and wrote into root's file).
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
. "$(dirname "$0")/../lib/security.sh"
need_nobody "its task runs as nobody"
deadline 120
export TMPDIR=$T

user_cluster alice=nobody || { fail "keys and a master"; finish; exit 1; }
SECRET=root-secret-$RANDOM$RANDOM
(umask 077 && echo "$SECRET" >"$T/secret" && : >"$T/root.log")
# The worker is started with two files of root's open (the test's shell
# closes them again right after).
exec 7<"$T/secret" 8>>"$T/root.log"
# shellcheck disable=SC2046
CORES=1 start_worker w1 $(client_keys w1) --conf allow-root-tasks=false
started=$?
exec 7<&- 8>&-
((started == 0)) || { fail "the worker starts"; finish; exit 1; }

USE=$(job use '{"name":"use","stages":[{"name":"s","tasks":[{"cmd":["sh","-c",
  "id -u; cat <&7; echo written-by-the-task >&8; exit 0"]}]}]}')
# shellcheck disable=SC2046
submit --master "$MASTER_URL" $(client_keys alice) "$USE"
check "alice's job runs" test $? -eq 0
check "... its task runs as nobody" grep -qx "$(id -u nobody)" "$T/out"
check "... and cannot read root's file through the worker's open fd" \
  eval "! grep -q '$SECRET' '$T/out'"
check "... nor write root's file through another" test ! -s "$T/root.log"
finish
