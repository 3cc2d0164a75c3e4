#!/usr/bin/env bash
# Tasks run as the user who submitted them (docs/security.md, "Tasks run
# as their submitter"; issue 35 item 3), on a keyed cluster whose workers
# run as root:
# - alice's key names the user nobody, bob's the user daemon (users every
#   Debian system has): each job's task prints its `id -u`, which is its
#   submitter's user's, and so does a task of alice's cluster-mode driver,
#   whose directory holds its own key, hers, and no copy of a worker's;
# - their work dirs (WORK/APP, WORK/APP/EXEC) are theirs, mode 0700, their
#   stdout and stderr theirs, mode 0600; bob's map outputs are his
#   (WORK/shuffle/APP, 0700) and the block servers still serve them (a
#   shuffle over two workers gives its exact result);
# - a task of alice's can read neither bob's work dir, nor his logs, nor
#   his map outputs;
# - keys that name no user, a user missing on the node, or root are
#   refused, and hearth-submit says why;
# - a worker's --user-map gives a user to a key without one, and refuses
#   a key with '-';
# - a worker not running as root says once that it runs every task as
#   itself, and does.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
. "$(dirname "$0")/../lib/security.sh"
need_root nobody daemon
deadline 300
export TMPDIR=$T
ALICE_UID=$(id -u nobody)
BOB_UID=$(id -u daemon)
# The tasks' users reach their work dirs through the test's directory.
chmod 0711 "$T"

"$BIN/hearth-keygen" "$K" >/dev/null &&
  "$BIN/hearth-keygen" --client alice --user nobody "$K" >/dev/null &&
  "$BIN/hearth-keygen" --client bob --user daemon "$K" >/dev/null &&
  "$BIN/hearth-keygen" --client carol "$K" >/dev/null &&
  "$BIN/hearth-keygen" --client dave --user hearth-no-such-user "$K" >/dev/null &&
  "$BIN/hearth-keygen" --client rooty --user root "$K" >/dev/null &&
  for w in w1 w2 w3; do "$BIN/hearth-keygen" --worker "$w" "$K" >/dev/null; done ||
  { fail "keys"; finish; exit 1; }
check "hearth-keygen --user writes the user into the key's metadata" \
  grep -q 'user = "nobody"' "$K/clients/alice.key"
"$BIN/hearth-keygen" --worker wx --user nobody "$T/k2" 2>"$T/kg.err"
check "hearth-keygen refuses --user for a worker's key" \
  grep -q "a worker's key runs none" "$T/kg.err"
"$BIN/hearth-keygen" --client x --user ../x "$T/k2" 2>"$T/kg.err"
check "... and a user that is not a user name" \
  grep -q "'../x' is not a user name" "$T/kg.err"
check "... making no key" test ! -e "$T/k2/x.key"

start_master --curve-secret "$K/master.key_secret" --curve-allow "$K/clients" \
  --curve-allow-workers "$K/workers" || { fail "the master starts"; finish; exit 1; }
# shellcheck disable=SC2046
for w in w1 w2; do
  CORES=2 start_worker "$w" $(client_keys "$w") --conf allow-root-tasks=false ||
    fail "worker $w starts"
done
check "a root worker with keys says whom tasks run as, once" \
  test "$(grep -c 'tasks run as the users their keys name; a key without one, or naming root, is refused' "$T/w1.log")" -eq 1

# as KEY ARGS...: hearth-submit as KEY (stdout $T/out, stderr $T/err).
as() {
  local key=$1; shift
  # shellcheck disable=SC2046
  submit --master "$MASTER_URL" $(client_keys "$key") --log-level info "$@"
}
# app_of: the application of the last submit.
app_of() { sed -n 's/.*application \(app-[0-9-]*\) registered.*/\1/p' "$T/err" | head -1; }
# dir_of APP: its work dir (on whichever worker ran it).
dir_of() { find "$T"/w1 "$T"/w2 -maxdepth 1 -name "$1" | head -1; }
# owner_mode PATH: "UID MODE".
owner_mode() { stat -c '%u %a' "$1"; }

# --- each user's tasks run as that user -------------------------------------
WHOAMI=$(job whoami '{"name":"whoami","stages":[{"name":"s","tasks":[
  {"cmd":["sh","-c","echo $(id -u) $(id -g) $HOME; echo err >&2"]}]}]}')
check "alice's job runs" as alice --total-executor-cores 1 "$WHOAMI"
check "... its task runs as nobody (uid $ALICE_UID)" grep -q "^$ALICE_UID $(id -g nobody) " "$T/out"
A_APP=$(app_of)
A_DIR=$(dir_of "$A_APP")
check "... its application's work dir is nobody's, mode 0700" \
  test "$(owner_mode "$A_DIR")" = "$ALICE_UID 700"
check "... so is its executor's" test "$(owner_mode "$A_DIR/0")" = "$ALICE_UID 700"
check "... whose stdout is nobody's, mode 0600" \
  test "$(owner_mode "$A_DIR/0/stdout")" = "$ALICE_UID 600"
check "... and so is its stderr" test "$(owner_mode "$A_DIR/0/stderr")" = "$ALICE_UID 600"
check "the worker's log says whom the executor ran as" \
  grep -q "executor $A_APP/0 started: .*, as nobody" "$T"/w[12].log

check "bob's job runs" as bob --total-executor-cores 1 "$WHOAMI"
check "... its task runs as daemon (uid $BOB_UID)" grep -q "^$BOB_UID " "$T/out"
B_APP=$(app_of)
B_DIR=$(dir_of "$B_APP")
check "... in a work dir of daemon's" test "$(owner_mode "$B_DIR/0")" = "$BOB_UID 700"

# --- bob's map outputs: his, served, and out of alice's reach ----------------
# The reducers wait for $T/go, so that his map outputs stay while alice
# looks; one executor on each of the two workers: each reducer fetches from
# both, and alice has a core left on each.
check "bob's shuffle registers" held_shuffle bob 4 \
  "sleep 0.5; printf 'k{i}\\\\t%s\\\\n' \$(id -u)" "id -u; "
maps_on() { find "$T/$1/shuffle/$S_APP" -type f 2>/dev/null | wc -l; }
reducing() { (($(maps_on w1) >= 2 && $(maps_on w2) >= 2 && $(maps_on w1) + $(maps_on w2) == 8)); }
check "... its maps wrote their outputs on both workers" wait_for 30 reducing
check "... his map outputs are his, mode 0700" \
  test "$(owner_mode "$T/w1/shuffle/$S_APP")" = "$BOB_UID 700" -a \
  "$(owner_mode "$T/w2/shuffle/$S_APP")" = "$BOB_UID 700"
check "... under a shuffle directory others may pass through only (0711)" \
  test "$(stat -c %a "$T/w1/shuffle")" = 711
B_EXEC=$(find "$B_DIR" -mindepth 1 -maxdepth 1 -type d | head -1)
PEEK=$(job peek "{\"name\":\"peek\",\"stages\":[{\"name\":\"s\",\"tasks\":[{\"cmd\":[\"sh\",\"-c\",
  \"exec 2>&1; cat $B_EXEC/stdout || echo NO-LOG; ls $B_DIR || echo NO-DIR; ls $T/w1/shuffle/$S_APP $T/w2/shuffle/$S_APP || echo NO-MAPS; exit 0\"]}]}]}")
check "alice's task runs beside bob's" as alice --total-executor-cores 1 "$PEEK"
check "... it cannot read bob's executor log" grep -qx NO-LOG "$T/out"
check "... nor list his work dir" grep -qx NO-DIR "$T/out"
check "... nor his map outputs" grep -qx NO-MAPS "$T/out"
check "... the system said: permission denied" grep -q "Permission denied" "$T/out"
fetched() { [[ -n $(find "$T"/w[12]/"$S_APP" -path '*/.reduce-*/blocks' -size +0 2>/dev/null) ]]; }
check "... its reducers fetched map outputs from the other worker's block server" \
  wait_for 10 fetched
touch "$T/go"
wait "$SHUF_PID"
check "bob's shuffle succeeds" test $? -eq 0
check "... its reducers ran as daemon" test "$(grep -cx "$BOB_UID" "$T/shuf.out")" -eq 2
check "... and got every record of his maps, from both workers" \
  same <(grep -v "^$BOB_UID\$" "$T/shuf.out" | sort) \
  <(for i in 0 1 2 3; do printf 'k%s\t%s\n' "$i" "$BOB_UID"; done)

# --- keys that map to no one are refused, saying why -------------------------
# refused KEY WHO WHY: KEY's job fails at once, hearth-submit saying WHY.
refused() {
  as "$1" --total-executor-cores 1 "$WHOAMI"
  check "$2: the job fails" test $? -ne 0
  check "... hearth-submit says why: $3" grep -q "job whoami failed: executor 0 refused on worker .*: $3" "$T/err"
  check "... no task ran" test ! -s "$T/out"
}
refused carol "carol's key names no user" \
  "the key carol.key (.*) names no user: tasks run as their key's user (hearth-keygen --user, or the worker's --user-map), never as root unless --allow-root-tasks"
refused dave "dave's key names a user missing on the node" \
  "the key dave.key (.*) maps to the user hearth-no-such-user, who does not exist on"
refused rooty "a key naming root" \
  "the key rooty.key (.*) maps to root, the superuser: this worker runs no task as root (--allow-root-tasks)"
check "the master does not hold the refusals against the workers" \
  eval '! grep -q "is unhealthy" "$T/master.log"'
check "... nor placed more than one executor for each refused job" \
  test "$(cat "$T"/w[12].log | grep -c 'executor app-[0-9-]*/1 refused')" -eq 0

# --- a cluster-mode driver runs as its submitter ----------------------------
as alice --deploy-mode cluster --total-executor-cores 1 "$WHOAMI"
check "alice's cluster-mode driver runs" test $? -eq 0
DRV=$(head -1 "$T/out")
D_DIR=$(find "$T"/w1 "$T"/w2 -maxdepth 1 -name "$DRV" | head -1)
check "... its task ran as nobody" grep -q "^$ALICE_UID " "$D_DIR/stdout"
check "... in a directory of nobody's, mode 0700" \
  test "$(owner_mode "$D_DIR")" = "$ALICE_UID 700"
check "... its shipped job file is nobody's" \
  test "$(stat -c %u "$D_DIR/whoami.json")" = "$ALICE_UID"
check "... so is the key of its own the master made for it, mode 0600" \
  test "$(owner_mode "$D_DIR/.driver.key_secret")" = "$ALICE_UID 600"
secret_of() { sed -n 's/^ *secret-key = "\(.*\)"$/\1/p' "$1"; }
check "... and its directory holds no copy of a worker's key" eval \
  '! grep -rqF -e "$(secret_of "$K/w1.key_secret")" -e "$(secret_of "$K/w2.key_secret")" "$D_DIR"'
check "... and the worker's log says the driver ran as nobody" \
  grep -q "driver $DRV (launch 1) started: .*, as nobody" "$T"/w[12].log
as carol --deploy-mode cluster --total-executor-cores 1 "$WHOAMI"
check "carol's cluster-mode driver is refused" test $? -ne 0
check "... hearth-submit says why" grep -q "names no user" "$T/err"

# --- a worker's --user-map ----------------------------------------------------
for w in w1 w2; do pid_var=PID_$w; kill -INT "${!pid_var}"; done
for w in w1 w2; do pid_var=PID_$w; wait "${!pid_var}"; done
printf '# key   user\ncarol   daemon\nbob.key -   # bob runs nothing here\n' >"$T/users"
# shellcheck disable=SC2046
CORES=2 start_worker w3 $(client_keys w3) --conf allow-root-tasks=false \
  --user-map "$T/users" || fail "a worker with --user-map starts"
check "carol's job runs on a worker that maps her key" \
  as carol --total-executor-cores 1 "$WHOAMI"
check "... as the user it maps her to, daemon" grep -q "^$BOB_UID " "$T/out"
refused bob "the map refuses bob's key" \
  "the key bob.key (.*) may run nothing on this worker (its --user-map says '-')"
check "alice's key keeps its own user there" as alice --total-executor-cores 1 "$WHOAMI"
check "... nobody" grep -q "^$ALICE_UID " "$T/out"
printf 'carol nobody\n' >"$T/users"
pid_var=PID_w3
kill -HUP "${!pid_var}"
check "the map is read again on SIGHUP" \
  wait_for 5 eval '[[ $(grep -c "user map: 1 keys in" "$T/w3.log") == 1 ]]'
check "... carol's tasks now run as nobody" as carol --total-executor-cores 1 "$WHOAMI"
check "... nobody" grep -q "^$ALICE_UID " "$T/out"
kill -INT "${!pid_var}"
wait "${!pid_var}"

# --- a worker not running as root --------------------------------------------
NR=$T/nonroot
mkdir -p "$NR" && cp "$K/w1.key_secret" "$K/master.key" "$NR/" && chown -R nobody "$NR"
setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups \
  env HEARTH_BIN_DIR="$T/bin" "$BIN/hearth-worker" --master "$MASTER_URL" \
  --work-dir "$NR/work" --ready-file "$NR/ready" --cores 2 --memory 4G \
  --heartbeat-interval "${INTERVAL_MS}ms" --curve-secret "$NR/w1.key_secret" \
  --master-key "$NR/master.key" --log-level debug >"$T/nonroot.log" 2>&1 &
NR_PID=$!
PIDS+=($NR_PID)
check "a worker running as nobody registers" wait_for 10 test -s "$NR/ready"
check "... it says once that tasks run as its own user" \
  test "$(grep -c "WARN tasks run as this worker's user, nobody (uid $ALICE_UID): it is not root" "$T/nonroot.log")" -eq 1
check "bob's job runs there" as bob --total-executor-cores 1 "$WHOAMI"
check "... as the worker's user, nobody, not daemon" grep -q "^$ALICE_UID " "$T/out"
kill -INT "$NR_PID"
wait "$NR_PID"
finish
