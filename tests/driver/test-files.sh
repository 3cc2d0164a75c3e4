#!/usr/bin/env bash
# Shipping files with a job, as spark-submit --files: `hearth-submit
# --files a,b` (repeatable; HEARTH_FILES; the C API's "files" setting) and
# "files" in a job file (found beside the job file, else in the current
# directory) put every file in every executor's work dir under its base
# name, where command tasks read it by that name: in local[2],
# local-cluster and cluster mode.  Each is kept by content hash in the
# node's cache (local[N]: WORK_DIR/.ship/), read-only, and linked from
# there; an executable one stays executable.  Refused before anything
# runs, naming the file: one that does not exist, one that is not a
# regular file, two with one base name, a name the work dir holds
# already, a total over max-submit-size in cluster mode.  (Large files,
# once per node, and what goes wrong on the way: test-shipfiles.sh.)
# Also: --lib is kept when the job file names another library.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 240
export TMPDIR=$T

mkdir -p "$T/job" "$T/here" "$T/other" "$T/x" "$T/y" "$T/adir" "$T/r"
echo alpha >"$T/job/a.txt"  # beside the job file
echo beta >"$T/here/b.txt"  # in the current directory
echo gamma >"$T/other/c.txt" # given with --files
echo delta >"$T/other/d.txt"
printf '#!/bin/sh\necho run\n' >"$T/job/run.sh"
chmod +x "$T/job/run.sh"
# Each task: the three files and the script, by relative name.
cat >"$T/job/files.json" <<'JSON'
{"name": "files", "files": ["a.txt", "b.txt", "run.sh"],
 "stages": [{"name": "read", "tasks": [{"cmd": ["sh", "-c",
   "sleep 0.2; echo $(cat a.txt b.txt c.txt) $(./run.sh)"], "count": 4}]}]}
JSON
J=$T/job/files.json
for i in 1 2 3 4; do echo "alpha beta gamma run"; done >"$T/expected"

# run_here ARGS...: submit from $T/here, the current directory of the job.
run_here() { (cd "$T/here" && submit "$@"); }

check "local[2]: a job file's files and --files reach the tasks" \
  run_here --master 'local[2]' --work-dir "$T/w" --files "$T/other/c.txt" "$J"
check "... every task read them" same "$T/out" "$T/expected"
E=$T/w/exec-0
# cached FILE: where the node keeps FILE, by its SHA-1 (any case)
cached() { find "$T/w/.ship" -iname "$(sha1sum <"$1" | cut -c1-40)-${1##*/}"; }
check "... each in the executor's work dir under its base name" \
  test -f "$E/a.txt" -a -f "$E/b.txt" -a -f "$E/c.txt" -a -f "$E/run.sh"
check "... kept by content hash in the node's cache, .ship/" \
  test -n "$(cached "$T/job/a.txt")"
check "... and linked from there" test "$E/a.txt" -ef "$(cached "$T/job/a.txt")"
check "... read-only (its mode)" test "$(stat -c %a "$(cached "$T/job/a.txt")")" = 400
check "... the executable one executable" test -x "$E/run.sh"
check "... the others not" test ! -x "$E/a.txt"

# --files from the command line: comma-separated, repeated, relative
cat >"$T/cd.json" <<'JSON'
{"name": "cd", "stages": [{"name": "s", "tasks": [{"cmd": ["sh", "-c",
  "cat c.txt d.txt a.txt"]}]}]}
JSON
printf 'gamma\ndelta\nalpha\n' >"$T/cd.expected"
(cd "$T/other" && submit --master 'local[2]' --files c.txt,d.txt \
  --files "$T/job/a.txt" "$T/cd.json")
check "--files a,b --files c: all three shipped" test $? -eq 0
check "... and read" same "$T/out" "$T/cd.expected"
(cd "$T/other" && HEARTH_FILES=c.txt,d.txt,$T/job/a.txt submit \
  --master 'local[2]' "$T/cd.json")
check "HEARTH_FILES ships them the same" test $? -eq 0
check "... and they are read" same "$T/out" "$T/cd.expected"
HEARTH_MASTER='local[2]' "$BIN/tests/driver/test-ctx" files \
  "$T/other/c.txt,$T/other/d.txt" d.txt >"$T/out" 2>"$T/err"
check "the C API's \"files\" setting ships them" grep -qx delta "$T/out"

check "local-cluster[2,1,512]: the same job" \
  run_here --master 'local-cluster[2,1,512]' --files "$T/other/c.txt" "$J"
check "... every task read them" same "$T/out" "$T/expected"

# --lib and a job file's other "lib": both shipped
cp "$BIN/examples/libpi.so" "$T/job/"
cat >"$T/job/libs.json" <<'JSON'
{"name": "libs", "lib": "libpi.so", "stages": [
  {"name": "pi", "tasks": [{"fn": "pi_sample", "arg": "1"}]},
  {"name": "echo", "after": ["pi"], "tasks": [{"fn": "echo", "arg": "both"}]}]}
JSON
check "--lib and the job file's \"lib\" are both shipped" \
  submit --master 'local[1]' --lib "$TASKS_LIB" "$T/job/libs.json"
check "... and both used" grep -qx both "$T/out"

# --- refusals, before anything runs -------------------------------------
cat >"$T/mark.json" <<JSON
{"name": "mark", "stages": [{"name": "s", "tasks": [{"cmd": ["touch",
  "$T/ran"]}]}]}
JSON
# refused TEXT ARGS...: hearth-submit ARGS fails, says TEXT, runs nothing.
refused() {
  local text=$1; shift
  rm -f "$T/ran"
  submit "$@" && return 1
  grep -qF -- "$text" "$T/err" || { cat "$T/err" >&2; return 1; }
  test ! -e "$T/ran"
}
check "a missing file is refused, named" \
  refused "$T/nothere.txt: No such file or directory" --master 'local[2]' \
  --files "$T/nothere.txt" "$T/mark.json"
check "a directory is refused" \
  refused "$T/adir: not a regular file" --master 'local[2]' \
  --files "$T/adir" "$T/mark.json"
echo 1 >"$T/x/same.txt"
echo 2 >"$T/y/same.txt"
check "two files of one base name are refused, both named" \
  refused "$T/x/same.txt and $T/y/same.txt are both called same.txt" \
  --master 'local[2]' --files "$T/x/same.txt,$T/y/same.txt" "$T/mark.json"
echo x >"$T/r/stdout"
check "a name the work dir holds already is refused" \
  refused "'stdout' cannot be shipped under that name" --master 'local[2]' \
  --files "$T/r/stdout" "$T/mark.json"
cat >"$T/missing.json" <<JSON
{"name": "missing", "files": ["nowhere.txt"], "stages": [{"name": "s",
  "tasks": [{"cmd": ["touch", "$T/ran"]}]}]}
JSON
check "a job file's file found nowhere is refused" \
  refused "files: cannot read $T/nowhere.txt" --master 'local[2]' \
  "$T/missing.json"
cat >"$T/badtype.json" <<'JSON'
{"name": "bad", "files": 3, "stages": [{"name": "s", "tasks": [{"cmd":
  ["true"]}]}]}
JSON
check "\"files\" that is not a list of names is refused" \
  refused "files: expected" --master 'local[2]' "$T/badtype.json"
HEARTH_MASTER='local[2]' "$BIN/tests/driver/test-ctx" files "$T/nothere.txt" \
  x >"$T/out" 2>"$T/err"
check "the C API refuses a missing file in hearth_ctx_new, named" \
  grep -qF "$T/nothere.txt: No such file or directory" "$T/err"

# --- cluster mode ----------------------------------------------------------
start_master --max-submit-size 1M || { fail "master"; finish; exit 1; }
CORES=2 MEMORY=2G start_worker w1 || fail "worker w1"
CORES=2 MEMORY=2G start_worker w2 || fail "worker w2"
CM=(--master "$MASTER_URL" --deploy-mode cluster --executor-memory 512M)
check "cluster mode: the job, its files and --files travel with it" \
  run_here "${CM[@]}" --files "$T/other/c.txt" "$J"
ID=$(head -1 "$T/out")
"$BIN/hearth-submit" --master "$MASTER_URL" --logs "$ID" >"$T/logs"
check "... every task on the cluster read them" same "$T/logs" "$T/expected"
D=$(ls -d "$T"/w[12]/"$ID" 2>/dev/null | head -1)
check "... the driver's directory held them" \
  test -f "$D/a.txt" -a -f "$D/b.txt" -a -f "$D/c.txt" -a -x "$D/run.sh"

head -c 2000 /dev/zero >"$T/two-k"
size=$(($(stat -c %s "$T/mark.json") + 2000))
check "cluster mode: over --max-submit-size is refused, with both numbers" \
  refused "are $size bytes, more than --max-submit-size (1024 bytes)" \
  "${CM[@]}" --max-submit-size 1K --files "$T/two-k" "$T/mark.json"
check "... and nothing was submitted" test ! -s "$T/out"
cp "$T/other/c.txt" "$T/x/mark.json"
check "cluster mode: a file called as the job file is refused" \
  refused "two files to ship are called mark.json" "${CM[@]}" \
  --files "$T/x/mark.json" "$T/mark.json"
check "cluster mode: a missing file is refused, named" \
  refused "$T/nothere.txt: No such file or directory" "${CM[@]}" \
  --files "$T/nothere.txt" "$T/mark.json"
finish
