#!/usr/bin/env bash
# Malformed job files and bad command lines are refused before anything
# runs, with a message that says what is wrong and where.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 60
export TMPDIR=$T

# Executors are found in HEARTH_BIN_DIR ($T/bin, links to the real
# programs): this one notes that it was started, so that the test can
# tell that a refused job ran nothing.  (The link goes first: writing
# through it would overwrite the real executor.)
rm -f "$T/bin/hearth-executor"
cat >"$T/bin/hearth-executor" <<EOF
#!/bin/sh
echo "\$*" >>"$T/executors-started"
exec "$BIN/hearth-executor" "\$@"
EOF
chmod +x "$T/bin/hearth-executor"
export HEARTH_BIN_DIR=$T/bin

refused not-json '{"stages": [' 'not-json.json:2:1: not valid JSON here'
refused not-object '[1, 2]' 'the job must be a JSON object'
refused no-stages '{"name": "x"}' 'stages: expected a non-empty array'
refused empty-stages '{"stages": []}' 'stages: expected a non-empty array'
refused prefer-ctl '{"stages": [{"name": "a", "tasks": [{"cmd": ["true"], "prefer": "zone=\u0001b"}]}]}' \
  'stages[0].tasks[0].prefer: expected a place (a host, "worker:ID" or "KEY=VALUE", 1 to 300 bytes without control characters)'
refused typo '{"stages": [{"name": "a", "tasks": [{"comand": ["x"]}]}]}' \
  "stages[0].tasks[0]: unknown key 'comand'"
# simple tasks are read out of the tree in runs (jobfile/jobstore.h): a
# task after a run is named by its place in the file
refused typo-after-run '{"stages": [{"name": "a", "tasks": [{"fn": "f"}, {"cmd": ["x"]}, {"fn": "g", "arg": "1"}, {"comand": ["x"]}]}]}' \
  "stages[0].tasks[3]: unknown key 'comand'"
refused empty-fn-after-run '{"stages": [{"name": "z", "tasks": [{"fn": "f"}, {"fn": ""}]}]}' \
  'stages[0].tasks[1].fn: expected a function name'
refused input-after-run '{"stages": [{"name": "a", "output": "d", "tasks": [{"fn": "f"}]}, {"name": "b", "tasks": [{"fn": "f"}, {"fn": "g"}, {"fn": "h", "input": "a"}]}]}' \
  'stages[1].tasks[2].input: stage "a" writes its results to files'
refused both '{"stages": [{"name": "a", "tasks": [{"cmd": ["x"], "fn": "f"}]}]}' \
  'stages[0].tasks[0]: expected exactly one of "cmd" and "fn"'
refused neither '{"stages": [{"name": "a", "tasks": [{"count": 3}]}]}' \
  'stages[0].tasks[0]: expected exactly one of "cmd" and "fn"'
refused empty-argv '{"stages": [{"name": "a", "tasks": [{"cmd": []}]}]}' \
  'stages[0].tasks[0].cmd: expected a non-empty array of strings'
refused count-zero '{"stages": [{"name": "a", "tasks": [{"cmd": ["x"], "count": 0}]}]}' \
  'stages[0].tasks[0].count: expected a whole number'
refused count-fraction '{"stages": [{"name": "a", "tasks": [{"cmd": ["x"], "count": 1.5}]}]}' \
  'stages[0].tasks[0].count: expected a whole number'
refused no-tasks '{"stages": [{"name": "a", "tasks": []}]}' \
  'stages[0].tasks: expected a non-empty array'
refused twice '{"stages": [{"name": "a", "tasks": [{"cmd": ["x"]}]}, {"name": "a", "tasks": [{"cmd": ["x"]}]}]}' \
  'stages[1].name: "a" is used twice'
refused after-unknown '{"stages": [{"name": "a", "after": ["z"], "tasks": [{"cmd": ["x"]}]}]}' \
  'stages[0].after: no stage "z" before this one'
refused input-later '{"stages": [{"name": "a", "tasks": [{"cmd": ["x"], "input": "b"}]}, {"name": "b", "tasks": [{"cmd": ["x"]}]}]}' \
  'input "b" is not a stage before this one'
refused bad-timeout '{"stages": [{"name": "a", "tasks": [{"cmd": ["x"], "timeout": "soon"}]}]}' \
  'stages[0].tasks[0].timeout: expected a duration'
refused bad-env '{"stages": [{"name": "a", "tasks": [{"cmd": ["x"], "env": {"A": 1}}]}]}' \
  'stages[0].tasks[0].env.A: expected a string value'
refused no-lib '{"lib": "nowhere.so", "stages": [{"name": "a", "tasks": [{"fn": "f"}]}]}' \
  'lib: cannot read'
# names hold no control character (they reach logs and terminals); the
# message names the place and escapes the character
refused ctl-name '{"name": "evil\n2026 INFO forged", "stages": [{"name": "a", "tasks": [{"cmd": ["x"]}]}]}' \
  'name: a control character (\n) at byte 4: a name may hold none'
refused ctl-stage '{"stages": [{"name": "a", "tasks": [{"cmd": ["x"]}]}, {"name": "red\u001b[31m", "tasks": [{"cmd": ["x"]}]}]}' \
  'stages[1].name: a control character (\x1b) at byte 3'
refused ctl-pool '{"stages": [{"name": "a", "pool": "p\t1", "tasks": [{"cmd": ["x"]}]}]}' \
  'stages[0].pool: a control character (\t) at byte 1'
# files of several jobs ("jobs", docs/jobs.md "Several jobs, iterations")
JS='"stages": [{"name": "s", "tasks": [{"cmd": ["true"]}]}]'
refused jobs-and-stages "{\"jobs\": [{\"name\": \"a\", $JS}], $JS}" \
  '"jobs" and "stages" exclude each other'
refused jobs-empty '{"jobs": []}' 'jobs: expected a non-empty array'
refused jobs-dup "{\"jobs\": [{\"name\": \"a\", $JS}, {\"name\": \"b\", $JS}, {\"name\": \"a\", $JS}]}" \
  'jobs[2].name: "a" is used twice'
refused jobs-noname "{\"jobs\": [{$JS}]}" 'jobs[0].name: expected a non-empty string'
refused jobs-ctl "{\"jobs\": [{\"name\": \"a\\tb\", $JS}]}" \
  'jobs[0].name: a control character (\t) at byte 1'
refused jobs-slash "{\"jobs\": [{\"name\": \"a/b\", $JS}]}" \
  "jobs[0].name: \"a/b\" holds a '/'"
refused jobs-typo "{\"jobs\": [{\"name\": \"a\", \"repeats\": 2, $JS}]}" \
  "jobs[0]: unknown key 'repeats'"
for r in 0 1001 '"3"' 2.5; do
  refused "repeat-$r" "{\"jobs\": [{\"name\": \"a\", $JS}, {\"name\": \"b\", \"repeat\": $r, $JS}]}" \
    'jobs[1].repeat: expected a whole number from 1 to 1000'
done
refused iter-unrepeated '{"jobs": [{"name": "a", "stages": [{"name": "s", "tasks": [{"cmd": ["echo", "{iter}"]}]}]}]}' \
  'jobs[0].stages[0].tasks[0].cmd[1]: {iter} is only known in the stages and "env" of a job with "repeat"'
refused iter-one-job '{"stages": [{"name": "s", "tasks": [{"cmd": ["echo", "{iter}"]}]}]}' \
  'stages[0].tasks[0].cmd[1]: {iter} is only known in the stages and "env" of a job with "repeat"'
refused iter-param "{\"params\": {\"iter\": \"1\"}, \"jobs\": [{\"name\": \"a\", $JS}]}" \
  'params.iter: a name Hearth fills itself in a file of "jobs"'
refused jobs-later-task "{\"jobs\": [{\"name\": \"a\", $JS}, {\"name\": \"b\", \"stages\": [{\"name\": \"s\", \"tasks\": [{\"cmd\": [\"x\"], \"count\": 0}]}]}]}" \
  'jobs[1].stages[0].tasks[0].count: expected a whole number'
refused jobs-same-output '{"jobs": [{"name": "a", "repeat": 2, "stages": [{"name": "s", "output": "out", "tasks": [{"cmd": ["true"]}]}]}]}' \
  'jobs[0].stages[0] (stage s): the output directory out is also the output of jobs[0].stages[0], an earlier iteration'
ESC=$'\e'
OK=$(job ctl-ok '{"stages": [{"name": "a", "tasks": [{"cmd": ["true"]}]}]}')
"$BIN/hearth-submit" --master 'local[1]' --name "evil${ESC}[31m" "$OK" \
  >"$T/out" 2>"$T/err"
check "--name with a control character exits 2" test $? -eq 2
check "... saying why, escaped" \
  grep -qF 'bad value for name: a control character (\x1b) at byte 4' "$T/err"
check "... and no raw ESC reaches the terminal" eval '! grep -qF "$ESC" "$T/err"'
"$BIN/hearth-submit" "$T/no-such-job.json" >"$T/out" 2>"$T/err"
check "a job file that does not exist is refused (exit 2)" test $? -eq 2
check "... saying so" grep -q 'cannot read .*no-such-job.json' "$T/err"

"$BIN/hearth-submit" >"$T/out" 2>"$T/err"
check "hearth-submit without an application exits 2" test $? -eq 2
"$BIN/hearth-submit" --no-such-flag x.json >"$T/out" 2>"$T/err"
check "an unknown flag exits 2" test $? -eq 2
check "... naming it" grep -q 'unknown option --no-such-flag' "$T/err"
"$BIN/hearth-submit" --max-failures lots x.json >"$T/out" 2>"$T/err"
check "a bad flag value exits 2, naming the option" \
  grep -q 'bad value for max-failures' "$T/err"

J=$(job fine '{"stages": [{"name": "a", "tasks": [{"cmd": ["true"]}]}]}')
submit --master 'elsewhere' "$J"
check "an unknown master is refused before anything starts (exit 2, a usage mistake)" test $? -eq 2
check "... listing the known forms" grep -q "unknown master 'elsewhere'" "$T/err"

check "no executor was ever started" test ! -e "$T/executors-started"
submit --master 'local[1]' "$J"
check "(a good job does start one, and succeeds)" \
  test $? -eq 0 -a -s "$T/executors-started"
HEARTH_MASTER='local[1]' "$BIN/tests/driver/test-ctx" names >"$T/out" 2>"$T/err"
check "libhearth refuses such names (EINVAL; the name setting with its message)" \
  eval 'grep -qx "names refused" "$T/out" && grep -qx "job 1: succeeded" "$T/out"'
check "... the setting's message escaped" \
  grep -qF 'bad value for name: a control character (\n) at byte 4' "$T/out"

check "nothing is left running" no_leftovers
finish
