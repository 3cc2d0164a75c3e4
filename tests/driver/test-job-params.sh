#!/usr/bin/env bash
# Job files for real data (issue 21): "params" and --param NAME=VALUE
# (repeatable; HEARTH_PARAM), a job- and stage-level "env" under each
# task's own, "foreach": {"lines": FILE} (one task per non-empty line),
# "foreach": {"parts": DIR} (one per part file of a finished output),
# "{{" for a literal brace, {item.N} (a line's TAB-separated fields, in
# "prefer" too), and HEARTH_SUBMIT_DIR / {submit_dir}: the
# directory hearth-submit ran in, through which a relative path works in
# local[2], local-cluster and cluster mode alike, while the task itself
# runs in its executor's work dir.  Refused before anything runs, naming
# the mistake and its place: an unknown {name}, an undeclared --param, a
# --param without '=', {item} outside a foreach task, {argN} past the
# arguments given, a literal {i}, a missing lines file, one over
# 1,000,000 lines, a reserved or malformed param name.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 240
export TMPDIR=$T

mkdir -p "$T/here" "$T/job"
echo "the data" >"$T/here/data.txt"
# Two items with braces and spaces; blank lines skipped.
printf 'one\n\n{two} 2\n\n' >"$T/job/items.txt"

# Everything at once: params (one overridden), the env merge, {{, lines,
# {submit_dir} and HEARTH_SUBMIT_DIR, a relative path through both.
cat >"$T/job/p.json" <<'JSON'
{"name": "p", "params": {"greet": "hello", "who": "world"},
 "env": {"LC_ALL": "C", "A": "job", "B": "job", "C": "job"},
 "stages": [{"name": "s", "env": {"B": "stage", "C": "stage"}, "tasks": [
   {"cmd": ["sh", "-c",
     "echo \"{greet} {who} {{x} {{ {i} $A $B $C $LC_ALL [$1]\"", "sh",
     "{item}"],
    "foreach": {"lines": "items.txt"}, "env": {"C": "task:{item}"}},
   {"cmd": ["sh", "-c",
     "cat {submit_dir}/data.txt \"$HEARTH_SUBMIT_DIR/data.txt\"; pwd"]}]}]}
JSON
J=$T/job/p.json

# expected DIR: what p.json prints when submitted from DIR.
expected() {
  echo "hi, there world {x} { 0 job stage task:one C [one]"
  echo "hi, there world {x} { 0 job stage task:{two} 2 C [{two} 2]"
  echo "the data"
  echo "the data"
}
run_here() { (cd "$T/here" && submit "$@"); }

for master in 'local[2]' 'local-cluster[2,1,512]'; do
  check "$master: params, env, lines, {submit_dir} in one job" \
    run_here --master "$master" --param 'greet=hi, there' "$J"
  head -4 "$T/out" >"$T/got"
  expected >"$T/want"
  check "... each filled as documented" same "$T/got" "$T/want"
  wd=$(sed -n 5p "$T/out")
  check "... the task ran in its executor's work dir, not the submit dir" \
    test -n "$wd" -a "$wd" != "$T/here"
done

# The relative path alone fails (the rule every mode keeps), and works
# through the variable.
REL=$(job rel '{"name": "rel", "stages": [{"name": "s", "tasks": [
  {"cmd": ["cat", "data.txt"]}]}]}')
fails() { ! "$@"; }
check "local[2]: a bare relative path is the work dir's, not the submit dir's" \
  fails run_here --master 'local[2]' --max-failures 1 "$REL"
check "... the error says so" grep -qF "No such file" "$T/err"

# hearth-driver run directly: its own directory; --submit-dir given.
SD=$(job sd '{"name": "sd", "stages": [{"name": "s", "tasks": [
  {"cmd": ["sh", "-c", "echo {submit_dir} $HEARTH_SUBMIT_DIR"]}]}]}')
(cd "$T/here" && "$BIN/hearth-driver" --master 'local[1]' "$SD") >"$T/out" 2>"$T/err"
check "hearth-driver: HEARTH_SUBMIT_DIR is its current directory" \
  test "$(cat "$T/out")" = "$T/here $T/here"
(cd "$T/here" && "$BIN/hearth-driver" --master 'local[1]' --submit-dir ../job \
  "$SD") >"$T/out" 2>"$T/err"
check "... or --submit-dir, made absolute" \
  test "$(cat "$T/out")" = "$T/here/../job $T/here/../job"

# {item.N}: a line's TAB-separated fields, from 0 (HOST<TAB>PATH lines
# for locality), empty past the last; in "prefer" too (the host is
# preferred: NODE_LOCAL in the event log); {item.N} outside a foreach
# task is refused as {item} is.
printf '127.0.0.1\t%s/a.txt\textra\n127.0.0.1\t%s/b.txt\n' "$T/here" "$T/here" >"$T/job/hosts.txt"
echo "file a" >"$T/here/a.txt"
echo "file b" >"$T/here/b.txt"
FIELDS=$(job fields '{"name": "fields", "stages": [{"name": "s", "tasks": [
  {"cmd": ["sh", "-c", "cat \"$1\"; echo \"[$2] [$3] [{item.9}]\"", "sh", "{item.1}", "{item.2}", "{item.0}"],
   "foreach": {"lines": "'"$T"'/job/hosts.txt"}, "prefer": "{item.0}"}]}]}')
run_here --master 'local-cluster[1,1,512]' --event-log "$T/ev-fields" "$FIELDS"
check "{item.N}: each line's fields, empty past the last" \
  same "$T/out" <(printf 'file a\n[extra] [127.0.0.1] []\nfile b\n[] [127.0.0.1] []\n')
check "... \"prefer\": \"{item.0}\" made each task NODE_LOCAL" eval \
  '[[ $(cat "$T"/ev-fields/*.events | jq -r "select(.event == \"task_start\") | .locality" | sort | uniq -c | awk "{print \$1, \$2}") == "2 NODE_LOCAL" ]]'

# HEARTH_PARAM: comma-separated, %2C and %25 inside a value.
HEARTH_PARAM='greet=a%2Cb%25,who=c' run_here --master 'local[1]' "$J"
check "HEARTH_PARAM: two params, a comma and a percent in one" \
  grep -qF "a,b% c {x}" "$T/out"

# refused TEXT ARGS...: hearth-submit exits 2 before running anything,
# its message holding TEXT.
refused() {
  local text=$1; shift
  run_here --master 'local[1]' "$@"
  local rc=$?
  if [[ $rc -ne 2 ]] || ! grep -qF -- "$text" "$T/err"; then
    echo "exit $rc: $(cat "$T/err")" >&2
    return 1
  fi
}
bad() { job bad "{\"name\": \"bad\", $1}"; }
TASK='"stages": [{"name": "s", "tasks": [{"cmd": ["echo", "TEXT"]}]}]'
one() { bad "${TASK/TEXT/$1}"; }

check "an unknown {name} is refused, with its place" \
  refused "stages[0].tasks[0].cmd[1]: unknown {nope}" "$(one '{nope}')"
RUN='"stages": [{"name": "s", "tasks": [{"fn": "f"}, {"fn": "g", "arg": "a"}, {"cmd": ["echo", "x"]}, {"cmd": ["echo", "TEXT"]}]}]'
check "... in a task after a run of simple ones, with its place" \
  refused "stages[0].tasks[3].cmd[1]: unknown {nope}" "$(bad "${RUN/TEXT/\{nope\}}")"
RUN2='"stages": [{"name": "s", "tasks": [{"fn": "f"}, {"fn": "g", "arg": "TEXT"}]}]'
check "... in a function task's arg" \
  refused "stages[0].tasks[1].arg: unknown {nope}" "$(bad "${RUN2/TEXT/\{nope\}}")"
check "a param's name is known only once declared" \
  refused "unknown {greet}" "$(one '{greet}')"
check "{item.0} outside a foreach task is refused, with its place" \
  refused "{item.0} is only known in a task with \"foreach\"" "$(one '{item.0}')"
check "an undeclared --param is refused" \
  refused "--param colour: the job file declares no such param" \
  --param colour=red "$J"
check "a --param without '=' is refused" \
  refused "--param greet: expected NAME=VALUE" --param greet "$J"
check "{item} outside a foreach task is refused" \
  refused 'stages[0].tasks[0].cmd[1]: {item} is only known in a task with "foreach"' \
  "$(one '{item}')"
check "{i} outside a task is refused" \
  refused 'name: {i} is only known in a task' \
  "$(job bad '{"name": "x{i}", '"$TASK"'}')"
check "{arg2} with one argument is refused" \
  refused "{arg2}: the job was given 1 argument" "$(one '{arg2}')" only
check "a literal {i} is refused (every {i} becomes the index)" \
  refused "a literal {i} cannot be written" "$(one '{{i}')"
check "a reserved param name is refused" \
  refused "params.item: a name Hearth fills itself" \
  "$(bad '"params": {"item": "x"}, '"$TASK")"
check "a param name that is not an identifier is refused" \
  refused "params.a-b: a name is letters" \
  "$(bad '"params": {"a-b": "x"}, '"$TASK")"
check "a stage's env must be strings" \
  refused "stages[0].env.X: expected a string" \
  "$(bad '"stages": [{"name": "s", "env": {"X": 1}, "tasks": [{"cmd": ["true"]}]}]')"
check "a missing lines file is refused, named" \
  refused "cannot read $T/job/none.txt: No such file or directory" \
  "$(sed 's/items.txt/none.txt/' "$J" >"$T/job/none.json"; echo "$T/job/none.json")"
seq 1000001 >"$T/job/many.txt"
check "a lines file over 1,000,000 lines is refused" \
  refused "many.txt: more than 1000000 lines" \
  "$(sed 's/items.txt/many.txt/' "$J" >"$T/job/many.json"; echo "$T/job/many.json")"
check "foreach takes \"args\", {\"lines\": FILE} or {\"parts\": DIR} only" \
  refused 'stages[0].tasks[0].foreach: expected "args", {"lines": FILE} or {"parts": DIR}' \
  "$(bad '"stages": [{"name": "s", "tasks": [{"cmd": ["true"], "foreach": {"lines": "x", "y": 1}}]}]')"

# "foreach": {"parts": DIR}: one task per part file of a finished output,
# {item} its path, in part order (the manifest in DIR/_SUCCESS).
J2=$(job write '{"name": "write", "stages": [{"name": "w", "output": "out",
  "tasks": [{"cmd": ["echo", "part {i}"], "count": 3}]}]}')
check "an output of 3 parts" run_here --master 'local[2]' "$J2"
PARTS='"stages": [{"name": "r", "tasks": [{"cmd": ["cat", "{item}"], "foreach": {"parts": "DIR"}}]}]'
check "... read back by \"foreach\": {\"parts\": DIR}, in part order" \
  eval 'run_here --master "local[2]" "$(bad "${PARTS/DIR/$T/here/out}")" &&
    same "$T/out" <(printf "part %d\n" 0 1 2)'
check "... its manifest names the 3 parts" \
  test "$(jq -r '.parts[].name' "$T/here/out/_SUCCESS" | tr '\n' ' ')" = \
  "part-00000 part-00001 part-00002 "
# A relative DIR is beside the job file, as a lines file is; {item} is
# still a path the task can open from its executor's work dir.
PARTS_REL=$(job parts-rel '{"name": "r", "stages": [{"name": "r", "tasks": [
  {"cmd": ["cat", "{item}"], "foreach": {"parts": "here/out"}}]}]}')
check "a relative DIR: its parts read back from the executors' work dirs" \
  eval '(cd "$T" && submit --master "local[2]" "${PARTS_REL##*/}") &&
    same "$T/out" <(printf "part %d\n" 0 1 2)'
mkdir -p "$T/here/other"
printf 'a\n' >"$T/here/other/part-1"
printf 'b\n' >"$T/here/other/part-0"
: >"$T/here/other/_SUCCESS"
check "an empty _SUCCESS (another tool's output): its part-* files, by name" \
  eval 'run_here --master "local[2]" "$(bad "${PARTS/DIR/$T/here/other}")" &&
    same "$T/out" <(printf "b\na\n")'
check "a directory that holds no finished output is refused, named" \
  refused "$T/here/none/_SUCCESS: No such file or directory (not a finished output?)" \
  "$(bad "${PARTS/DIR/$T/here/none}")"
printf '{"parts": [{"name": "../x"}]}' >"$T/here/other/_SUCCESS"
check "a manifest naming a file outside its directory is refused" \
  refused "part 0 has no plain file name or a bad host" \
  "$(bad "${PARTS/DIR/$T/here/other}")"

# --- cluster mode: params and the submit dir travel with the driver -------
start_master || { fail "master"; finish; exit 1; }
CORES=2 MEMORY=2G start_worker w1 || fail "worker w1"
CM=(--master "$MASTER_URL" --deploy-mode cluster --executor-memory 512M)
# The lines file travels as one of the job's files, beside the job file.
sed 's/"name": "p",/"name": "p", "files": ["items.txt"],/' "$J" >"$T/job/pc.json"
check "cluster mode: the same job" \
  run_here "${CM[@]}" --param 'greet=hi, there' "$T/job/pc.json"
ID=$(head -1 "$T/out")
"$BIN/hearth-submit" --master "$MASTER_URL" --logs "$ID" >"$T/logs"
head -4 "$T/logs" >"$T/got"
check "... every string filled as in local[2], HEARTH_SUBMIT_DIR the submitter's" \
  same "$T/got" "$T/want"
finish
