#!/usr/bin/env bash
# Persisted stages and their lineage (issue 38; tests/driver/
# test_persist_lineage.c), in local[2]:
# - one persisted stage reached by a later job along several ways (read
#   directly, and as the lineage of two persisted stages of two other
#   jobs that read it): the job runs, with one copy of it (no task of it
#   runs again), and its counts are exact.
# - a persisted stage whose input is a partitioned stage of its job, not
#   persisted, read by 2 later jobs: neither stage runs again, counts
#   exact.
# - the same on a hand-started master and two workers: the worker
#   holding outputs of the persisted stage killed (kill -9) before the
#   second pass: that pass's counts exact, and exactly the tasks of both
#   stages whose outputs it held ran again, once; the event log says so
#   (a stage_start of each copy at its job's start, attempt 0, then
#   attempt 1, tasks those run again).
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 300
export TMPDIR=$T LC_ALL=C
P=$BIN/tests/driver/test-persist-lineage

# the counts of 4 tasks of "apple w{i} pear apple"
counts() {
  { printf '      8 apple\n      4 pear\n'
    printf '      1 w%d\n' 0 1 2 3; } | sort
}
# normalized PATH: the lines of each "job"/"stage" block sorted (the
# reducers' order is theirs)
normalized() {
  awk '/^(job|stage) / {if (n) print buf | "sort"; close("sort"); print; buf = ""; n = 0; next}
       {buf = buf (n++ ? "\n" : "") $0}
       END {if (n) print buf | "sort"}' "$1"
}
# ran FILE: the indexes in it, sorted, on one line
ran() { sort -n "$1" | tr '\n' ' '; }

rm -rf "$T/d" && mkdir "$T/d"
check "a persisted stage read directly and through two others' lineage" \
  submit --master 'local[2]' "$P" shared "$T/d"
check "... every count exact" same <(normalized "$T/out") \
  <(printf 'job load\njob a\njob b\njob all\n'
    for s in a b load; do echo "stage from-$s"; counts; done)
check "... and no task of it ran again" test "$(ran "$T/d/ran.words")" = "0 1 2 3 "
check "... nor of the stages reading it" \
  test "$(ran "$T/d/ran.x")" = "0 0 1 1 2 2 "

rm -rf "$T/d" && mkdir "$T/d"
check "a persisted stage reading a partitioned one, read by 2 later jobs" \
  submit --master 'local[2]' "$P" lineage 2 "$T/d"
check "... every count exact" same <(normalized "$T/out") \
  <(for j in load pass pass; do printf 'job %s\nstage count\n' $j; counts; done)
check "... the persisted stage ran once" test "$(ran "$T/d/ran.words")" = "0 1 2 3 "
check "... and so did its input" test "$(ran "$T/d/ran.src")" = "0 1 2 3 "

# A worker lost between two passes: the outputs of both stages it held
# are made again, the input's before the persisted stage's that read them.
rm -rf "$T/d" && mkdir "$T/d" && touch "$T/d/pause"
start_master || exit 1
CORES=2 start_worker wa && CORES=2 start_worker wb || exit 1
mkdir "$T/ev"
submit --master "$MASTER_URL" --executor-memory 256M --executor-cores 1 \
  --task-prefetch 0 --event-log "$T/ev" "$P" lineage 2 "$T/d" &
SUBMIT_PID=$!
PIDS+=($SUBMIT_PID)
wait_for 60 test -e "$T/d/ready.1" && touch "$T/d/go.1"
check "a hand-started cluster: the first job and a pass" \
  wait_for 60 test -e "$T/d/ready.2"
# held W SHUFFLE: the map tasks whose outputs worker W holds, of a shuffle
held() {
  find "$T/$1/shuffle" -path "*/$2/*" -name '*.index' -printf '%f\n' |
    cut -d. -f1 | sort -n
}
# the shuffles in order: src's, then words'
read -r S_SRC S_WORDS < <(find "$T"/w[ab]/shuffle -mindepth 2 -maxdepth 2 \
  -type d -printf '%f\n' | sort -nu | tr '\n' ' ')
victim=wb
[[ -n $(held wb "$S_WORDS") ]] || victim=wa
held "$victim" "$S_SRC" >"$T/held.src"
held "$victim" "$S_WORDS" >"$T/held.words"
say "worker $victim holds outputs of src: $(tr '\n' ' ' <"$T/held.src")" \
  "and of words: $(tr '\n' ' ' <"$T/held.words")"
check "... the pass ran no task of either" \
  test "$(cat "$T"/d/ran.* | wc -l)" -eq 8
check "... and $victim holds outputs of words" test -s "$T/held.words"
vpid=PID_$victim
procs=$(procs_in "$T/$victim")
kill -STOP "${!vpid}" $procs 2>/dev/null
kill -9 "${!vpid}" $procs 2>/dev/null
touch "$T/d/go.2"
wait "$SUBMIT_PID"
check "the pass after $victim was lost succeeds" test $? -eq 0
check "... its counts exact" same <(normalized "$T/out") \
  <(for j in load pass pass; do printf 'job %s\nstage count\n' $j; counts; done)
check "... exactly the words tasks of $victim's outputs ran again, once" \
  same <(tail -n +5 "$T/d/ran.words" | sort -n) "$T/held.words"
check "... and so did the src tasks" \
  same <(tail -n +5 "$T/d/ran.src" | sort -n) "$T/held.src"
# the copies' events in the last job: read where they lay at its start
# (attempt 0, nothing to run, all cached), then run again once the
# outputs were found lost, attempt 1, its tasks those made again
starts() {
  jq -c --arg n "$1" 'select(.event == "stage_start" and .job == 3 and .name == $n)
    | [.attempt, .tasks]' "$T"/ev/*.events | tr '\n' ' '
}
check "... the events say load/words ran again: attempt 1, its tasks" \
  test "$(starts load/words)" = "[0,0] [1,$(wc -l <"$T/held.words")] "
check "... and load/src" \
  test "$(starts load/src)" = "[0,0] [1,$(wc -l <"$T/held.src")] "
kill "$PID_wa" "$PID_wb" "$MASTER_PID" 2>/dev/null
wait "$PID_wa" "$PID_wb" "$MASTER_PID" 2>/dev/null
check "no master, worker or executor is left" wait_for 10 no_leftovers
finish
