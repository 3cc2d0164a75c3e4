#!/usr/bin/env bash
# hearth-keygen makes the cluster's keys with safe modes and never
# overwrites them; secret key files that the group or the world may read
# are refused by the master, a worker and hearth-submit; a master refuses
# to listen beyond loopback without keys, and warns in its log when told
# --insecure; so do clients that talk to a master beyond loopback without
# keys.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
. "$(dirname "$0")/../lib/security.sh"
deadline 60

check "hearth-keygen makes a cluster's keys" make_keys
"$BIN/hearth-keygen" >/dev/null 2>&1
check "hearth-keygen without a directory is a usage mistake (exit 2)" test $? -eq 2
"$BIN/hearth-keygen" --client a --worker b "$T/x" >/dev/null 2>&1
check "... so are two kinds of key at once (exit 2)" test $? -eq 2
check "the key directory is private (0700)" test "$(stat -c %a "$K")" = 700
for f in master client w1 w2; do
  check "$f.key_secret is mode 0600" test "$(stat -c %a "$K/$f.key_secret")" = 600
  check "$f.key is public (0644)" test "$(stat -c %a "$K/$f.key")" = 644
done
check "the admitted clients are client, w1 and w2" \
  test "$(cd "$K/clients" && ls | tr '\n' ' ')" = "client.key w1.key w2.key "
check "no secret key lies in the allow directory" \
  test -z "$(ls "$K/clients" | grep _secret)"
pub=$("$BIN/hearth-keygen" --public "$K/master.key_secret")
check "--public prints the master's public key" \
  grep -qF "public-key = \"$pub\"" "$K/master.key"
check "a second run does not overwrite keys" \
  eval '! "$BIN/hearth-keygen" "$K" 2>"$T/err"'
check "... and says so" grep -q 'exists already: not overwritten' "$T/err"
check "adding a client twice is refused too" \
  eval '! "$BIN/hearth-keygen" --client w1 "$K" 2>/dev/null'
check "a client name that could escape the directory is refused" \
  eval '! "$BIN/hearth-keygen" --client ../evil "$K" 2>"$T/err"'
check "... naming the problem" grep -q 'not a usable name' "$T/err"

J=$(job one '{"name":"one","stages":[{"name":"s","tasks":[{"cmd":["true"]}]}]}')
# Secret keys that the group or the world may read: refused by all.
for mode in 640 604 644; do
  cp "$K/master.key_secret" "$T/leaky.key_secret"
  chmod "$mode" "$T/leaky.key_secret"
  "$BIN/hearth-master" --port 0 --curve-secret "$T/leaky.key_secret" \
    --curve-allow "$K/clients" >"$T/out" 2>"$T/err"
  check "a master refuses a secret key of mode 0$mode (exit 1)" test $? -eq 1
  check "... telling how to fix it" \
    grep -q "may be read by others (mode 0$mode): refused; chmod 600" "$T/err"
  "$BIN/hearth-worker" --master tcp://127.0.0.1:9 --curve-secret "$T/leaky.key_secret" \
    --master-key "$K/master.key" >"$T/out" 2>"$T/err"
  check "a worker refuses it too" \
    grep -q "may be read by others (mode 0$mode)" "$T/err"
  submit --master tcp://127.0.0.1:9 --curve-secret "$T/leaky.key_secret" \
    --master-key "$K/master.key" "$J"
  check "a hearth-submit refuses it too" \
    grep -q "may be read by others (mode 0$mode)" "$T/err"
done
"$BIN/hearth-master" --port 0 --curve-secret "$K/master.key_secret" >"$T/out" 2>"$T/err"
check "keys without an allow directory are refused" \
  grep -q 'curve-secret and --curve-allow go together' "$T/err"
"$BIN/hearth-worker" --master tcp://127.0.0.1:9 --master-key "$K/master.key" \
  >"$T/out" 2>"$T/err"
check "a client with only half of its keys is refused" \
  grep -q 'curve-secret and --master-key go together' "$T/err"

"$BIN/hearth-master" --host 0.0.0.0 --port 0 >"$T/out" 2>"$T/err"
check "a master refuses 0.0.0.0 without keys (exit 1)" test $? -eq 1
check "... saying how to make keys or to pass --insecure" \
  grep -q "refusing to listen on 0.0.0.0 without keys.*hearth-keygen.*--insecure" "$T/err"
"$BIN/hearth-master" --host 10.1.2.3 --port 0 >"$T/out" 2>"$T/err"
check "... and any other address beyond loopback" \
  grep -q "refusing to listen on 10.1.2.3 without keys" "$T/err"
"$BIN/hearth-master" --host 127.example.com --port 0 >"$T/out" 2>"$T/err"
check "... a host name that merely starts with 127. is not loopback" \
  grep -q "refusing to listen on 127.example.com without keys" "$T/err"

# Without keys beyond loopback, on request: a clear warning.
start_master --host 0.0.0.0 --insecure ||
  fail "a master binds 0.0.0.0 with --insecure"
check "a master on 0.0.0.0 with --insecure warns that it is open" \
  grep -q "WARN INSECURE: listening on 0.0.0.0 without keys (--insecure): anyone who reaches it can register workers, run code" "$T/master.log"
check "... and says how to make keys" \
  grep -q "WARN INSECURE: .*hearth-keygen DIR.*--curve-secret DIR/master.key_secret --curve-allow DIR/clients" "$T/master.log"
kill -TERM "$MASTER_PID"; wait "$MASTER_PID" 2>/dev/null
"$BIN/hearth-master" --port 0 --events-port 0 --ready-file "$T/lo.ready" \
  >"$T/lo.log" 2>&1 &
LO=$!
PIDS+=($LO)
wait_for 10 test -s "$T/lo.ready"
kill -TERM "$LO"; wait "$LO" 2>/dev/null
check "a loopback master without keys does not warn" \
  eval '! grep -q INSECURE "$T/lo.log"'
# 192.0.2.1 is TEST-NET-1: never answers, never routed.
"$BIN/hearth-tail" --master tcp://192.0.2.1:9 --state --timeout 200ms \
  >"$T/out" 2>"$T/err"
check "a client without keys beyond loopback warns that the link is open" \
  grep -q "WARN INSECURE: talking to the master at tcp://192.0.2.1:9 without keys: .*clear text.*hearth-keygen DIR" "$T/err"
"$BIN/hearth-worker" --master tcp://192.0.2.1:9 --work-dir "$T/wk" \
  --log-level warn >"$T/wk.log" 2>&1 &
WK=$!
PIDS+=($WK)
check "... so does a worker" \
  wait_for 10 grep -q "WARN INSECURE: talking to the master at tcp://192.0.2.1:9 without keys" "$T/wk.log"
kill -TERM "$WK"; wait "$WK" 2>/dev/null
"$BIN/hearth-tail" --master tcp://127.0.0.1:9 --state --timeout 200ms \
  >"$T/out" 2>"$T/err"
check "... but not on loopback" eval '! grep -q INSECURE "$T/err"'
finish
