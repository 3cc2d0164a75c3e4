#!/usr/bin/env bash
# hearth-keygen makes the cluster's keys with safe modes and never
# overwrites them; secret key files that others may read are refused; a
# master refuses to listen beyond loopback without keys.
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/../driver/lib-driver.sh"
. "$(dirname "$0")/lib-security.sh"
deadline 60

check "hearth-keygen makes a cluster's keys" make_keys
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

cp "$K/master.key_secret" "$T/leaky.key_secret"
chmod 640 "$T/leaky.key_secret"
"$BIN/hearth-master" --port 0 --curve-secret "$T/leaky.key_secret" \
  --curve-allow "$K/clients" >"$T/out" 2>"$T/err"
check "a master refuses a group-readable secret key (exit 1)" test $? -eq 1
check "... telling how to fix it" grep -q 'may be read by others (mode 0640): refused; chmod 600' "$T/err"
"$BIN/hearth-worker" --master tcp://127.0.0.1:9 --curve-secret "$T/leaky.key_secret" \
  --master-key "$K/master.key" >"$T/out" 2>"$T/err"
check "a worker refuses it too" grep -q 'may be read by others' "$T/err"
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
finish
