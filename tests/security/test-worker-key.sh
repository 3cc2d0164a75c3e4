#!/usr/bin/env bash
# A worker's id belongs to the key it registered with (docs/security.md,
# "Worker ids and keys"), which the master journals.  Another worker key
# may not register under it: not while the worker is ALIVE, even naming
# its work dir (what a worker says of its work dir proves nothing), not
# while it is DEAD, not after a restart of the master; nor may it end
# the worker by naming its work dir under an id of its own.  A worker
# that changed keys registers under its id once its former key is no
# longer a worker key (removed, then SIGHUP), and the id then belongs to
# the new one.  A journal without the key (an older master's) gives the
# id to the first key that registers, said at INFO, and journals it.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
. "$(dirname "$0")/../lib/security.sh"
deadline 150
export TMPDIR=$T

"$BIN/hearth-keygen" "$K" >/dev/null &&
  for w in w1 w2 w1b; do "$BIN/hearth-keygen" --worker "$w" "$K" >/dev/null; done ||
  { fail "keys"; finish; exit 1; }
pub() { sed -n 's/.*public-key = "\(.*\)"/\1/p' "$K/$1.key"; }
W1KEY=$(pub w1) W1BKEY=$(pub w1b)
# Keep w1b's public key aside: it is admitted later (a rotation).
mv "$K/workers/w1b.key" "$T/w1b.pub"
MASTER_ARGS=(--curve-secret "$K/master.key_secret" --curve-allow "$K/clients"
  --curve-allow-workers "$K/workers" --journal "$T/journal")
start_master "${MASTER_ARGS[@]}" || exit 1
PORT=$MASTER_PORT
ID=node-a
# shellcheck disable=SC2046
start_worker w1 --id "$ID" $(client_keys w1) || exit 1
# new_log PATTERN: a line of the master's log since its last start
# (MARK: the lines before it).
MARK=0
new_log() { tail -n +$((MARK + 1)) "$T/master.log" | grep -q "$1"; }
journal_has() { cat "$T/journal"/snapshot "$T/journal"/journal.[0-9]* 2>/dev/null | grep -qF -e "$1"; }
check "the journal holds the key w1 registered with" journal_has "$W1KEY"

# probe KEY BODY: REGISTER_WORKER with BODY as KEY; the probe's line.
probe() {
  # shellcheck disable=SC2046
  echo "REGISTER_WORKER $2" | "$PROBE" --master "$MASTER_URL" $(client_keys "$1") 2>&1
}
# body ID [WORK_DIR_ID]: a registration under ID, naming w1's work dir.
body() {
  printf '{"id":"%s","host":"127.0.0.1","cores":8,"memory_mb":8000,"version":"0","work_dir":"%s"%s}' \
    "$1" "$T/w1" "${2:+,\"work_dir_id\":\"$2\"}"
}
# What tells w1's work dir apart, as w1 says it (worker/execs.c): the
# boot's id, then its lock file's device and inode in hex.
DIR_ID=$(printf '%s:%x:%x' "$(cat /proc/sys/kernel/random/boot_id)" \
  "$(stat -c %d "$T/w1/.worker.lock")" "$(stat -c %i "$T/w1/.worker.lock")")
alive() { [[ $(state_as client | jq -r --arg id "$1" '.workers[] | select(.id == $id) | .state') == ALIVE ]]; }

# --- while w1 is ALIVE -------------------------------------------------------
probe w2 "$(body "$ID" "$DIR_ID")" >"$T/p1"
check "w2's key under w1's id, naming w1's work dir, is refused" \
  grep -q '^REGISTER_WORKER refused REGISTER_WORKER_FAILED worker id node-a belongs to the key w1.key' "$T/p1"
check "... w1 is still ALIVE" alive "$ID"
probe w2 "$(body impostor "$DIR_ID")" >"$T/p2"
check "w2's key under an id of its own naming w1's work dir is registered" \
  grep -q '^REGISTER_WORKER passed REGISTERED_WORKER' "$T/p2"
check "... but w1 is not taken for replaced (DEAD)" \
  eval '! grep -q "worker node-a (.*) is DEAD: replaced by worker impostor" "$T/master.log"'
check "... it is still ALIVE" alive "$ID"
check "... the master says why" \
  new_log "worker impostor says it holds the work dir of worker node-a .*another key"

# --- after a restart of the master, w1 slow to come back ---------------------
kill -STOP "$PID_w1"
kill -TERM "$MASTER_PID"
wait "$MASTER_PID"
MARK=$(wc -l <"$T/master.log")
PORT=$PORT start_master "${MASTER_ARGS[@]}" || exit 1
probe w2 "$(body "$ID")" >"$T/p3"
check "after a restart, w2's key under w1's id (UNKNOWN) is refused" \
  grep -q '^REGISTER_WORKER refused REGISTER_WORKER_FAILED worker id node-a belongs to the key w1.key' "$T/p3"
check "... and the master logs the refusal" \
  new_log "refused .*REGISTER_WORKER: worker id node-a belongs to the key w1.key"
kill -CONT "$PID_w1"
check "w1, back, registers again with its own key" wait_for 20 alive "$ID"

# --- a rotation: w1 comes back with a new key ---------------------------------
kill -TERM "$PID_w1"
wait "$PID_w1"
mv "$T/w1b.pub" "$K/workers/w1b.key"
kill -HUP "$MASTER_PID"
check "(w1b's key is admitted)" wait_for 10 served w1b
# run_w1b: a worker under w1's id and work dir with the new key, in the
# background; sets PID_b.
run_w1b() {
  rm -f "$T/w1b.ready"
  # shellcheck disable=SC2046
  "$BIN/hearth-worker" --master "$MASTER_URL" --id "$ID" --work-dir "$T/w1" \
    --ready-file "$T/w1b.ready" --heartbeat-interval "${INTERVAL_MS}ms" \
    --heartbeat-liveness "$LIVENESS" --cores 2 --memory 2G \
    --log-level info $(client_keys w1b) >>"$T/w1b.log" 2>&1 &
  PID_b=$!
  PIDS+=("$PID_b")
}
run_w1b
wait "$PID_b"
check "its new key, while the old one is still a worker key: refused (exit 1)" test $? -eq 1
check "... saying what to do" \
  grep -q "belongs to the key w1.key.*remove its former key from --curve-allow-workers" "$T/w1b.log"
rm "$K/workers/w1.key"
kill -HUP "$MASTER_PID"
check "(w1's key is removed)" wait_for 10 eval '! served w1'
run_w1b
check "once the old key is removed: it registers under its id" \
  wait_for 20 test -s "$T/w1b.ready"
check "... ALIVE" wait_for 10 alive "$ID"
check "... the master says the id moved to the new key" \
  new_log "INFO worker node-a registers with a new key, w1b.key"
check "... and journals it" journal_has "$W1BKEY"
probe w2 "$(body "$ID")" >"$T/p4"
check "... which w2's key cannot take" \
  grep -q '^REGISTER_WORKER refused REGISTER_WORKER_FAILED worker id node-a belongs to the key w1b.key' "$T/p4"

# --- a journal without the key (an older master's) ----------------------------
kill -STOP "$PID_b"
kill -TERM "$MASTER_PID"
wait "$MASTER_PID"
# Every record as an older master wrote it: the workers' without a key.
python3 - "$T/journal" <<'PY'
import glob, json, re, sys, zlib
for f in glob.glob(sys.argv[1] + "/*"):
    if not re.search(r"/(snapshot|journal\.[0-9]+)$", f):
        continue
    out = []
    for line in open(f, "rb").read().split(b"\n"):
        if not line:
            continue
        rec = json.loads(line.split(b" ", 2)[2])
        if rec.get("t") == "worker":
            rec.pop("curve_key", None)
        text = json.dumps(rec, separators=(",", ":")).encode()
        body = b"%08x %s" % (len(text), text)
        out.append(b"%08x %s\n" % (zlib.crc32(body), body))
    open(f, "wb").write(b"".join(out))
PY
check "(the journal holds no worker key now)" eval '! journal_has "$W1BKEY"'
MARK=$(wc -l <"$T/master.log")
PORT=$PORT start_master "${MASTER_ARGS[@]}" || exit 1
kill -CONT "$PID_b"
check "the worker comes back under its id with its key" \
  wait_for 20 new_log "worker node-a registered again after the master's restart"
check "... the master says the record held no key, and gives the id to it (INFO)" \
  new_log "INFO worker node-a: its record holds no key .*belongs to the key w1b.key"
check "... and journals it" journal_has "$W1BKEY"
finish
