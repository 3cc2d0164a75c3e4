#!/usr/bin/env bash
# Resuming, the master's half (issue 39), spoken by hand with
# authz-probe --bodies (no driver speaks it yet): a driver records outputs
# (OUTPUTS_RECORDED) and goes silent; its application is RELAUNCHING; a
# new driver on another link resumes it (REGISTER_APPLICATION `resume`)
# and gets the same id, epoch 2, the old token and the table
# (APPLICATION_OUTPUTS, the last batch marked, map outputs of a worker
# the master does not know left out, the highest shuffle id); the old
# driver's epoch is fenced (REGISTER_APPLICATION again, OUTPUTS_RECORDED,
# UNREGISTER_APPLICATION); what cannot be resumed says why; the table
# survives a restart of the master on its journal; a driver that
# unregisters ends it, and its table goes.
# a driver is lost after 5 s of silence: long enough for the checks made
# between two probes, whose links go silent when they exit
LIVENESS=25
. "$(dirname "$0")/../lib/cluster.sh"
shopt -s extglob
deadline 90
export TMPDIR=$T
JOURNAL=$T/journal
PROBE=$BIN/tests/security/authz-probe

start_master --journal "$JOURNAL" --resume-window 60s || exit 1
# one live worker, for map outputs the table keeps
start_worker w1 || exit 1
W1=$WORKER_ID
GHOST=worker-20260101000000-ghost-1 # a worker the master never knew

# probe NAME: the probe on a link of its own, lines from stdin, each
# reply printed whole in $T/NAME.out
probe() { "$PROBE" --master "$MASTER_URL" --bodies >"$T/$1.out" 2>"$T/$1.err"; }
# said NAME CMD FILTER: the first CMD line of NAME's output passes FILTER
said() {
  local body
  body=$(awk -v c="$2" '$1 == c { sub(/^[^ ]* /, ""); print; exit }' "$T/$1.out")
  [[ -n $body ]] && jq -e "$3" <<<"$body" >/dev/null
}
app_field() {
  state_json | jq -r --arg id "$APP" ".apps[] | select(.id == \$id) | $1"
}
app_is() { [[ $(app_field .state) == "$1" ]]; }

OUT='{"stage":"9f86d081","kind":"map","index":%d,"attempt":0,"shuffle_id":%d,"worker_id":"%s","server":"tcp://127.0.0.1:1","sizes":[10,20]}'
printf -v M0 "$OUT" 0 3 "$W1"
printf -v M1 "$OUT" 1 3 "$W1"
printf -v M2 "$OUT" 2 7 "$GHOST"
PART='{"stage":"60303ae2","kind":"part","index":0,"name":"part-00000","host":"node1","bytes":1234}'
probe first <<EOF
REGISTER_APPLICATION {"name":"resumable","driver_url":"tcp://127.0.0.1:1","token":"tok-1","memory_per_executor_mb":1}
OUTPUTS_RECORDED {"app_id":"@APP","driver_epoch":1,"outputs":[$M0,$M1,$M2]}
OUTPUTS_RECORDED {"app_id":"@APP","driver_epoch":1,"outputs":[$PART,{"stage":"9f86d081","kind":"map","index":1,"lost":true}]}
EOF
APP=$(awk '$1 == "REGISTERED_APPLICATION" { print }' "$T/first.out" | sed 's/^[^ ]* //' | jq -r .app_id)
check "a driver registers: epoch 1" said first REGISTERED_APPLICATION '.driver_epoch == 1 and (.resumed | not)'
check "... and records outputs, unanswered" \
  eval '[[ $(grep -c "^DONE OUTPUTS_RECORDED" "$T/first.out") == 2 && $(grep -c "^ERROR" "$T/first.out") == 0 ]]'
check "... which MASTER_STATE counts" wait_for 5 eval '[[ $(app_field .outputs) == 3 ]]'
check "its driver silent: RELAUNCHING" wait_for 10 app_is RELAUNCHING

# The table and the deadline survive a restart of the master.
DEADLINE=$(app_field .resume_deadline_ms)
kill9 "$MASTER_PID"
PORT=$MASTER_PORT start_master --journal "$JOURNAL" --resume-window 60s || exit 1
check "restarted on its journal: RELAUNCHING, the same deadline, 3 outputs" \
  wait_for 10 eval '[[ $(app_field .state) == RELAUNCHING && $(app_field .resume_deadline_ms) == "$DEADLINE" && $(app_field .outputs) == 3 ]]'
check "... its worker back" wait_for 10 eval '[[ $(worker_state "$W1") == ALIVE ]]'

probe cannot <<EOF
REGISTER_APPLICATION {"name":"x","driver_url":"tcp://127.0.0.1:3","resume":"app-20260101000000-0999","memory_per_executor_mb":1}
EOF
check "resuming an unknown application: not_resumable, saying so" \
  said cannot ERROR '.code == "not_resumable" and (.message | test("unknown application"))'

probe second <<EOF
REGISTER_APPLICATION {"name":"resumable","driver_url":"tcp://127.0.0.1:2","token":"tok-2","memory_per_executor_mb":1,"resume":"$APP"}
REGISTER_APPLICATION {"name":"again","driver_url":"tcp://127.0.0.1:4","memory_per_executor_mb":1,"resume":"$APP"}
OUTPUTS_RECORDED {"app_id":"$APP","driver_epoch":2,"outputs":[{"stage":"60303ae2","kind":"part","index":1,"name":"part-00001"}]}
EOF
check "a new driver resumes it: same id, epoch 2, resumed, the old token" \
  said second REGISTERED_APPLICATION ".app_id == \"$APP\" and .driver_epoch == 2 and .resumed and .token == \"tok-1\""
check "... then its table: the last batch marked, the highest shuffle id" \
  said second APPLICATION_OUTPUTS ".app_id == \"$APP\" and .last and .max_shuffle_id == 7"
check "... the live worker's map output and the part file, not the unknown worker's" \
  said second APPLICATION_OUTPUTS '[.outputs[] | "\(.kind)/\(.index)"] | sort == ["map/0", "part/0"]'
check "... each whole" \
  said second APPLICATION_OUTPUTS ".outputs[] | select(.kind == \"map\") | .worker_id == \"$W1\" and .sizes == [10,20] and .shuffle_id == 3"
check "the application is scheduled again (WAITING or RUNNING), epoch 2" \
  eval '[[ $(app_field .state) == @(WAITING|RUNNING) && $(app_field .driver_epoch) == 2 ]]'
check "... its new executor numbered past the first driver's (exec 0)" \
  wait_for 10 eval '[[ $(app_field "[.executors[].exec_id] | min") -ge 1 ]]'
check "resuming it again: not_resumable, its driver is alive" \
  said second ERROR '.code == "not_resumable" and (.message | test("its driver is alive"))'
check "the new driver records outputs" wait_for 5 eval '[[ $(app_field .outputs) == 4 ]]'

# The old driver (epoch 1) is fenced.
probe zombie <<EOF
REGISTER_APPLICATION {"name":"resumable","driver_url":"tcp://127.0.0.1:1","token":"tok-1","memory_per_executor_mb":1,"app_id":"$APP","driver_epoch":1}
OUTPUTS_RECORDED {"app_id":"$APP","driver_epoch":1,"outputs":[{"stage":"x","kind":"part","index":9}]}
UNREGISTER_APPLICATION {"app_id":"$APP","state":"FINISHED","driver_epoch":1}
EOF
check "the old driver registering again: fenced, naming the newer epoch" \
  said zombie ERROR ".code == \"fenced\" and .message == \"application $APP was resumed by a newer driver (epoch 2)\""
check "... its outputs and its unregistration fenced too, nothing changed" \
  eval '[[ $(grep -c "^ERROR .*\"fenced\"" "$T/zombie.out") == 3 && $(app_field .state) == @(WAITING|RUNNING) && $(app_field .outputs) == 4 ]]'

# A driver that ends it: FINISHED, its table gone; not resumable.
probe ends <<EOF
UNREGISTER_APPLICATION {"app_id":"$APP","state":"FINISHED","driver_epoch":2}
REGISTER_APPLICATION {"name":"x","driver_url":"tcp://127.0.0.1:3","resume":"$APP","memory_per_executor_mb":1}
EOF
check "its driver unregisters it: FINISHED" app_is FINISHED
check "... its table gone" eval '[[ $(app_field .outputs) == null ]]'
check "... and resuming it says it ended" \
  said ends ERROR '.code == "not_resumable" and (.message | test("it ended FINISHED"))'
check "the master logged the resume" grep -q "application $APP resumed (epoch 2): 2 of its 3 outputs sent in 1 batches" "$T/master.log"

# A driver only cut off (longer than the liveness timeout) registers
# again under its app_id, with its URL, token and epoch: it resumes its
# application.
probe cut <<EOF
REGISTER_APPLICATION {"name":"cut","driver_url":"tcp://127.0.0.1:5","token":"tok-5","memory_per_executor_mb":1}
EOF
APP=$(awk '$1 == "REGISTERED_APPLICATION" { print }' "$T/cut.out" | sed 's/^[^ ]* //' | jq -r .app_id)
check "another driver goes silent: RELAUNCHING" wait_for 10 app_is RELAUNCHING
probe back <<EOF
REGISTER_APPLICATION {"name":"cut","driver_url":"tcp://127.0.0.1:6","token":"tok-5","memory_per_executor_mb":1,"app_id":"$APP","driver_epoch":1}
REGISTER_APPLICATION {"name":"cut","driver_url":"tcp://127.0.0.1:5","token":"tok-6","memory_per_executor_mb":1,"app_id":"$APP","driver_epoch":1}
REGISTER_APPLICATION {"name":"cut","driver_url":"tcp://127.0.0.1:5","token":"tok-5","memory_per_executor_mb":1,"app_id":"$APP","driver_epoch":1}
EOF
check "... another URL or token under its app_id: refused, not resumed" \
  eval '[[ $(grep -c "^ERROR .*duplicate_app.*RELAUNCHING" "$T/back.out") == 2 ]]'
check "... its own driver back under its app_id resumes it: epoch 2, resumed" \
  said back REGISTERED_APPLICATION ".app_id == \"$APP\" and .driver_epoch == 2 and .resumed and .token == \"tok-5\""
check "... with its (empty) table" \
  said back APPLICATION_OUTPUTS '.last and .outputs == []'

# A driver that does not come back after a restart of the master: its
# application is RELAUNCHING at the recovery deadline, not FAILED.
probe gone <<EOF
REGISTER_APPLICATION {"name":"gone","driver_url":"tcp://127.0.0.1:7","token":"tok-7","memory_per_executor_mb":1}
EOF
APP=$(awk '$1 == "REGISTERED_APPLICATION" { print }' "$T/gone.out" | sed 's/^[^ ]* //' | jq -r .app_id)
kill9 "$MASTER_PID"
PORT=$MASTER_PORT start_master --journal "$JOURNAL" --resume-window 60s \
  --recovery-timeout 1s || exit 1
check "a driver not back after a restart: its application RELAUNCHING" \
  wait_for 10 app_is RELAUNCHING
check "... saying it did not come back, and until when it is kept" \
  eval '[[ $(app_field .reason) == "driver lost: it did not come back within 1000 ms of the master'"'"'s restart; kept for resuming until "*" UTC" ]]'
finish
