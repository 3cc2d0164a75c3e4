#!/usr/bin/env bash
# What a task run as another user inherits of its root worker's
# environment (issue 35's review, item 9; worker/childenv.h): the worker
# is given its keys, its user map and a variable of the administrator's
# in its environment, as a systemd EnvironmentFile would:
# - alice's task (her key names nobody) sees none of them: only the
#   allow-list (PATH, TZ, LC_*), with USER, LOGNAME and HOME nobody's;
# - her cluster-mode driver neither: its keys are its copies, in its
#   directory;
# - carol's task (her key names no user: --allow-root-tasks runs it as
#   root, the worker's user) keeps the worker's environment but for the
#   worker's HEARTH_* settings, as drivers always did.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
. "$(dirname "$0")/../lib/security.sh"
need_root nobody
deadline 120
export TMPDIR=$T
chmod 0711 "$T"
NOBODY_HOME=$(getent passwd nobody | cut -d: -f6)

"$BIN/hearth-keygen" "$K" >/dev/null &&
  "$BIN/hearth-keygen" --client alice --user nobody "$K" >/dev/null &&
  "$BIN/hearth-keygen" --client carol "$K" >/dev/null &&
  "$BIN/hearth-keygen" --worker w1 "$K" >/dev/null ||
  { fail "keys"; finish; exit 1; }
start_master --curve-secret "$K/master.key_secret" --curve-allow "$K/clients" \
  --curve-allow-workers "$K/workers" || { fail "the master starts"; finish; exit 1; }
printf 'dave nobody\n' >"$T/users"
HEARTH_CURVE_SECRET=$K/w1.key_secret HEARTH_MASTER_KEY=$K/master.key \
  HEARTH_USER_MAP=$T/users HEARTH_ALLOW_ROOT_TASKS=true \
  WORKER_ONLY_MARKER=admin-secret TZ=UTC LC_TIME=C \
  start_worker w1 || { fail "a worker with its settings in its environment starts"; finish; exit 1; }

ENV=$(job env '{"name":"env","stages":[{"name":"s","tasks":[{"cmd":["env"]}]}]}')
# shellcheck disable=SC2046
as() { local key=$1; shift; submit --master "$MASTER_URL" $(client_keys "$key") "$@"; }
# has NAME[=VALUE] FILE: FILE has that variable (with that value).
has() { grep -q "^$1" "$2"; }

check "alice's task runs" as alice --total-executor-cores 1 "$ENV"
cp "$T/out" "$T/alice.env"
check "... as nobody" has "USER=nobody$" "$T/alice.env"
check "... with nobody's LOGNAME and HOME" eval \
  'has "LOGNAME=nobody$" "$T/alice.env" && has "HOME=$NOBODY_HOME$" "$T/alice.env"'
check "... and the worker's PATH, TZ and LC_TIME" eval \
  'has "PATH=$PATH$" "$T/alice.env" && has "TZ=UTC$" "$T/alice.env" && has "LC_TIME=C$" "$T/alice.env"'
check "... but not the worker's key" eval '! has HEARTH_CURVE_SECRET= "$T/alice.env"'
check "... nor its master's key, its user map, its settings" eval \
  '! grep -E "^HEARTH_(MASTER_KEY|USER_MAP|ALLOW_ROOT_TASKS)=" "$T/alice.env"'
check "... nor the administrator's variable" eval '! has WORKER_ONLY_MARKER= "$T/alice.env"'
check "... nor root's HOME" eval '! has "HOME=$HOME$" "$T/alice.env" || [[ $HOME == "$NOBODY_HOME" ]]'

printf '#!/bin/sh\nenv\n' >"$T/env.sh" && chmod 0755 "$T/env.sh"
check "alice's cluster-mode driver runs" as alice --deploy-mode cluster "$T/env.sh"
DRV=$(head -1 "$T/out")
D_DIR=$T/w1/$DRV
check "... as nobody" has "USER=nobody$" "$D_DIR/stdout"
check "... with its own key (its launch's, never the worker's), in its directory" \
  has "HEARTH_CURVE_SECRET=$D_DIR/.driver.key_secret$" "$D_DIR/stdout"
check "... and its master's" has "HEARTH_MASTER=$MASTER_URL$" "$D_DIR/stdout"
check "... but not the worker's user map, its settings" eval \
  '! grep -E "^HEARTH_(USER_MAP|ALLOW_ROOT_TASKS)=" "$D_DIR/stdout"'
check "... nor the administrator's variable" eval '! has WORKER_ONLY_MARKER= "$D_DIR/stdout"'

check "carol's task runs, as root (her key names no user)" \
  as carol --total-executor-cores 1 "$ENV"
cp "$T/out" "$T/carol.env"
check "... it keeps the worker's environment" has "WORKER_ONLY_MARKER=admin-secret$" "$T/carol.env"
check "... but not the worker's settings" eval \
  '! grep -E "^HEARTH_(CURVE_SECRET|MASTER_KEY|USER_MAP|ALLOW_ROOT_TASKS)=" "$T/carol.env"'
check "... where the programs are, still" has "HEARTH_BIN_DIR=$T/bin$" "$T/carol.env"

kill -INT "$PID_w1" "$MASTER_PID" && wait "$PID_w1" "$MASTER_PID"
check "nothing is left running" wait_for 10 no_leftovers
finish
