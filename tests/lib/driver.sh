# driver.sh - what the tests of jobs and drivers add to tests/lib/cluster.sh
# (sourced after it).

TASKS_LIB=$BIN/tests/driver/libtesttasks.so
SRC=${HEARTH_SRC_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}

# submit [ARGS...]: hearth-submit with short heartbeats; stdout to
# $T/out, stderr to $T/err; returns its exit status.
submit() {
  "$BIN/hearth-submit" --heartbeat-interval "${INTERVAL_MS}ms" \
    --heartbeat-liveness "$LIVENESS" "$@" >"$T/out" 2>"$T/err"
}

# expect_fail COMMAND...: it fails with an error, not a crash.
expect_fail() {
  "$@"
  local rc=$?
  ((rc > 0 && rc < 128))
}

# job NAME JSON: write a job file, print its path.
job() {
  printf '%s\n' "$2" >"$T/$1.json"
  echo "$T/$1.json"
}

# word_files N WORDS DISTINCT SEED: N files $T/in/0.txt ... of WORDS words
# each ("wK", one a line), drawn (file F seeded with SEED + F) among
# DISTINCT words, the later ones rarer; and their counts, "WORD COUNT"
# lines sorted, in $T/counts.ref (what a word count must print).
word_files() {
  local f
  mkdir -p "$T/in"
  for ((f = 0; f < $1; f++)); do
    awk -v seed=$((f + $4)) -v n="$2" -v d="$3" 'BEGIN { srand(seed);
      for (i = 0; i < n; i++) printf "w%d\n", int(rand() * rand() * d) }' \
      >"$T/in/$f.txt"
  done
  cat "$T/in"/*.txt | sort | uniq -c | awk '{print $2, $1}' | sort >"$T/counts.ref"
}

# gate_stage: the JSON of a stage "gate" whose one task waits until the
# test creates $T/go (at most 60 s): a stage that runs "after" it waits
# for the test's moment.
gate_stage() {
  printf '{"name": "gate", "tasks": [{"cmd": ["sh", "-c", "i=0; while [ ! -e %s/go ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done"]}]}' "$T"
}

# outputs NAME: map outputs (index files) on worker NAME's disk (its work
# dir $T/NAME).
outputs() {
  find "$T/$1/shuffle" -name '*.index' 2>/dev/null | wc -l
}

# lost_total: map outputs the driver said (in $T/err) it lost and ran
# again, summed over its lines.
lost_total() {
  sed -n 's/.*: \([0-9]*\) map outputs\{0,1\} lost, run again.*/\1/p' "$T/err" |
    awk '{s += $1} END {print s + 0}'
}

# refused NAME CONTENT EXPECTED-MESSAGE: the job file NAME of CONTENT is
# refused in local[1] with exit 2, saying EXPECTED-MESSAGE.
refused() {
  local file
  file=$(job "$1" "$2")
  submit --master 'local[1]' "$file"
  local rc=$?
  if [[ $rc -eq 2 ]] && grep -qF -- "$3" "$T/err"; then
    pass "$1 is refused: $3"
  else
    fail "$1: exit $rc, stderr: $(cat "$T/err")"
  fi
}

# overlaps FILE: FILE's lines are "START|END ADDRS TASK NS" (ADDRS a
# comma list, NS a time in ns), one pair per task; prints every address
# held by two tasks at once and every END not of its address's holder
# (none: empty), from each address's lines in time order.
overlaps() {
  awk '{ n = split($2, a, ","); for (i = 1; i <= n; i++) print a[i], $4, $1, $3 }' "$1" |
    sort -k1,1 -k2,2n | awk '
      $1 "" != addr { if (held != "") print addr " still held"; addr = $1 ""; held = "" }
      $3 == "START" { if (held != "") print addr ": " $4 " started while " held " held it"; held = $4 }
      $3 == "END" { if (held != $4) print addr ": " $4 " ended, not the holder (" held ")"; held = "" }
      END { if (held != "") print addr " still held" }'
}

# same FILE1 FILE2: identical contents, else show the difference.
same() {
  if cmp -s "$1" "$2"; then return 0; fi
  diff "$1" "$2" | head -20 >&2
  return 1
}

# test_pids [NAME]: processes of this test (their command line names its
# directory, or they work inside it), only those called NAME if given.
# Builtins only, in a subshell of its own (whose cd -P reads each work
# dir): a scan that forked two programs per process took seconds on a
# loaded machine, and test-chaos killed less often than it meant to.
test_pids() (
  local p comm args
  for p in /proc/[0-9]*; do
    if [[ -n ${1:-} ]]; then
      comm=
      read -r comm 2>/dev/null <"$p/comm" || true
      [[ $comm == "$1" ]] || continue
    fi
    if cd -P "$p/cwd" 2>/dev/null && [[ $PWD == "$T"/* ]]; then
      echo "${p#/proc/}"
      continue
    fi
    args=()
    mapfile -d '' -t args 2>/dev/null <"$p/cmdline" || true
    if [[ "${args[*]}" == *"$T"* ]]; then
      echo "${p#/proc/}"
    fi
  done
)

# no_leftovers: nothing of this test is left running.
no_leftovers() {
  [[ -z $(test_pids) ]]
}

# executors_running: some hearth-executor of this test is running.
executors_running() {
  [[ -n $(test_pids hearth-executor) ]]
}
